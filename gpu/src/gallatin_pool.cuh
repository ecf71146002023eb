// gallatin's pool policy on the GPU (pool_policy.cuh): Gallatin's state (core/gallatin/state.hpp:
// the segment tree, the nine block trees, the memory table, the block buffers) in device memory,
// built on the host (gallatin_host_state.hpp: every segment wholly free at the start in the
// segment tree, the application's segments in no tree, the block buffers pre-booted), kept as a
// pristine copy that reset() copies back, and copied back to the host after every phase for the
// structural check (state_check.hpp).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "alloclab/core/gallatin/layout.hpp"
#include "alloclab/core/gallatin/op_counts.hpp"
#include "alloclab/core/gallatin/state.hpp"
#include "alloclab/core/gallatin/state_check.hpp"
#include "common.cuh"
#include "pool_policy.cuh"

namespace alloclab::gpu::detail {

// The pool's unit (a page of the scenario): 16 B, the smallest slice.
inline constexpr std::uint64_t kGallatinUnitBytes = gallatin::kMinSliceBytes;
inline constexpr std::uint64_t kGallatinUnitsPerSegment =
    gallatin::kDefaultSegmentBytes / kGallatinUnitBytes;

// The words beside the state, each in a line of its own.
struct GallatinPoolWords {
  alignas(128) unsigned long long stuck = 0;  // waits that reached their bound: a defect
  // The frees' counts (free_blocks_returned, free_segments_returned, free_atomics) since the
  // last counted allocation launch, which adds them to its totals.
  alignas(128) unsigned long long free_counts[gallatin::kOpCounts - gallatin::kAllocCounts] = {};
  std::uint32_t counting = 0;  // the last allocation launch kept counters: the frees count too
};

struct GallatinView {
  gallatin::State st;  // pointers into the working state on the device
  GallatinPoolWords* words = nullptr;
  // Per buffer slot (indexed as State::buffer): 1 while a team fills the empty slot (gallatin.cu,
  // fill_gate: the GPU's own, outside the shared operations and their counts).
  std::uint32_t* fill = nullptr;
};

class GallatinPool final : public PoolPolicy {
 public:
  using View = GallatinView;
  static void check(const Scenario& s, const MeasureOptions& o);
  GallatinPool(const Scenario& s, const MeasureOptions& o, const KernelArgs& a);
  View view() const;

  std::uint64_t device_bytes() const override;
  const char* size_parameter() const override { return "--T"; }
  void set_up() override;
  void reset() override;
  std::optional<std::uint64_t> pages_in_use() const override;
  void verify_allocated(const Allocation& run) const override;
  void verify_freed(const Allocation& run) const override;
  std::optional<std::vector<std::uint64_t>> free_pages() const override { return std::nullopt; }
  std::vector<std::string> notes() const override;

 private:
  // The working state copied into host_ (its pointers then describe it), checked for stuck
  // waits; `when` ends the error messages.
  void download(const std::string& when) const;
  // Per block: the slices its counters say are live (handed out less freed); a block that freed
  // more than it handed out is a verification failure.
  std::vector<std::uint32_t> live_from_counters(const std::string& when) const;
  // state_check of host_ with `live` per block.
  void check_at_rest(const std::vector<std::uint32_t>& live, const std::string& when) const;
  // Units held by `live` slices (a slice of class k is 2^k units).
  std::uint64_t units_of(const std::vector<std::uint32_t>& live) const;

  std::uint64_t T_, A_, seed_;
  unsigned run_class_;  // the class of the run's largest request (pre-booted first)
  bool large_run_;      // requests above 4096 B: pages_in_use has no census to give
  gallatin::Geometry g_;
  std::uint32_t sms_ = 0;
  gallatin::Counts preboot_;                      // what the pre-boot did at set-up
  std::unique_ptr<gallatin::StateStorage> host_;  // the pristine state, then the copies back
  std::uint64_t tree_words_ = 0;                  // words of one vEB tree
  // The 64-bit tree words (segment tree, then the nine block trees) and the 32-bit arrays
  // (tree_id, available, head, tail, ring, malloc_ctr, free_ctr, buffer, formatting, in this
  // order).
  DeviceBuffer<std::uint64_t> words64_, pristine64_;
  DeviceBuffer<std::uint32_t> words32_, pristine32_;
  DeviceBuffer<GallatinPoolWords> pool_words_;
  DeviceBuffer<std::uint32_t> fill_;  // GallatinView::fill
};

// The allocation and free launches (gallatin.cu), also driven directly by the GPU tests.
void launch_gallatin_alloc(const KernelArgs& a, const GallatinView& v, bool counters);
void launch_gallatin_free(const KernelArgs& a, const GallatinView& v);

}  // namespace alloclab::gpu::detail
