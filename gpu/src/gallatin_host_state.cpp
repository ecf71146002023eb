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
  if (g.segments >= kGallatinFullPrebootSegments) {
    Op::preboot(h->st, preboot);  // every class, as the paper's init
    return h;
  }
  const gallatin::State& st = h->st;
  for (std::uint32_t i = 0; i < st.slots[run_class]; ++i) {
    const std::uint64_t id = Op::get_block(st, run_class, preboot);
    if (id == gallatin::kNoBlock) break;  // a small pool: the other slots start empty
    h->buffer[st.slot_offset[run_class] + i] = static_cast<std::uint32_t>(id + 1);
  }
  return h;
}

}  // namespace alloclab::gpu::detail
