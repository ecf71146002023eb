// gallatin's pristine state, built on the host (gallatin_pool.cuh): the application's segments
// out of the segment tree and the block buffers pre-booted, with the shared operations over host
// atomics (the GPU then works on a copy of it).
#include "gallatin_host_state.hpp"
#include "alloclab/core/gallatin/allocator.hpp"
#include "alloclab/core/ouroboros/host_atomics.hpp"

namespace alloclab::gpu::detail {

std::unique_ptr<gallatin::StateStorage> gallatin_pristine_state(
    const gallatin::Geometry& g, std::uint32_t sms, const std::vector<std::uint8_t>& app_segment,
    unsigned run_class, gallatin::Counts& preboot) {
  using Op = gallatin::Ops<ouro::HostAtomics>;
  auto h = std::make_unique<gallatin::StateStorage>(g, sms);
  gallatin::VebCounts ignored;
  for (std::uint32_t s = 0; s < g.segments && s < app_segment.size(); ++s) {
    if (!app_segment[s]) continue;
    h->tree_id[s] = gallatin::kAppSegment;
    gallatin::Veb<ouro::HostAtomics>::remove(h->st.segment_tree, s, ignored);
  }
  Op::preboot_pool(h->st, run_class, preboot);  // the rule the simulator's --preboot uses
  return h;
}

}  // namespace alloclab::gpu::detail
