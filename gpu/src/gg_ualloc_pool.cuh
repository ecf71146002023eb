// The pool policy (pool_policy.cuh) of gg-ualloc and gg-malloc on the GPU: UAlloc's state
// (core/gelado/ualloc_state.hpp: TBuddy's tree, the arenas' semaphores, lists, mutexes and SRCU
// words, the chunks' and bins' words) in device memory, built on the host (ualloc_pool.hpp: the
// initial free pages merged into TBuddy's tree, no chunk taken), kept as a pristine copy that
// reset() copies back, and copied back to the host after every phase for the structural checks
// (ualloc_check, tbuddy_check) and the accounting against the results handed out.
//
// Units: a scenario's page is 8 B; T units of which A are free (the keyed permutation of every
// pool); a 4 KB page is free when its 512 units all are. Beside the shared state, the GPU keeps
// per 4 KB page the units of the malloc request whose TBuddy block starts there (0: none): free()
// reads its order there (the simulator keeps it in its own mirror), and the checks count it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "alloclab/core/gelado/ualloc_op_counts.hpp"
#include "alloclab/core/gelado/ualloc_pool.hpp"
#include "alloclab/core/gelado/ualloc_state.hpp"
#include "common.cuh"
#include "pool_policy.cuh"

namespace alloclab::gpu::detail {

// The free operations' counts (gelado/ualloc_op_counts.hpp), as the simulator names them.
using gelado::kUAllocFreeCounts;

// The words beside the state, each in a line of its own.
struct UAllocPoolWords {
  alignas(128) unsigned long long stuck = 0;  // operations that spun kStuckSteps: a defect
  // Defects the kernels saw: a semaphore's counters overflowed, a TBuddy operation held over two
  // locks, a free the allocator refused (double free, not an object), a malloc block unmarked.
  alignas(128) unsigned long long bad = 0;
  // The frees' counts since the last counted allocation launch, which adds them to its totals.
  alignas(128) unsigned long long free_counts[kUAllocFreeCounts] = {};
  std::uint32_t counting = 0;  // the last allocation launch kept counters: the frees count too
  // Sticky out of memory (gg_ualloc.cu): TBuddy frees so far (its epoch), and the mark of the
  // latest TBuddy alloc that found nothing: (epoch + 1) << 8 | (255 - order), 0 for none. A
  // mark whose epoch is the current one + 1 says: no block of that order or more until a free.
  alignas(128) unsigned long long tbuddy_epoch = 0;
  alignas(128) unsigned long long oom_mark = 0;
  // Requests failed by the mark without a TBuddy walk (counted in every launch).
  alignas(128) unsigned long long oom_fast = 0;
};

struct UAllocGpuView {
  gelado::UAllocView u;                // pointers into the working state on the device
  std::uint32_t* big_units = nullptr;  // per 4 KB page: a malloc block's request units (0: none)
  UAllocPoolWords* words = nullptr;
  bool with_malloc = false;
  bool collective = true;  // the allocation kernel's chunk mutex taken by a warp's group
  bool fenced = false;     // --gg-order fenced (gg_atomics.cuh)
  bool warp_waits = true;  // --gg-wait warp: a warp's lanes of a class wait once
};

class UAllocPool : public PoolPolicy {
 public:
  using View = UAllocGpuView;
  UAllocPool(const Scenario& s, const MeasureOptions& o, const KernelArgs& a, bool with_malloc);
  View view() const;
  // Both allocators' input checks (ualloc_pool.hpp) and the launch's (--block).
  static void check_input(const Scenario& s, const MeasureOptions& o, bool with_malloc);

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
  // The working state copied into host_ (and the malloc marks into marks_), after checking the
  // defect words; `when` ends the error messages.
  void download(const std::string& when) const;
  // ualloc_check, and tbuddy_check with the chunks taken, the malloc blocks marked and the
  // application's blocks held.
  void check_at_rest(const std::string& when) const;
  // Per bin: its valid slots in use (set bits of its bitmap below its slots).
  std::uint64_t live_slots(std::uint32_t g) const;
  std::uint64_t chunks() const { return std::uint64_t{1} << (height_ - chunk_order_); }
  std::uint64_t bins() const { return chunks() << chunk_order_; }
  std::string who() const { return with_malloc_ ? "gg-malloc" : "gg-ualloc"; }

  std::uint64_t T_, A_, seed_;
  bool with_malloc_, collective_, fenced_, warp_waits_;
  std::uint32_t height_, chunk_order_, arenas_, sms_;
  std::vector<std::uint32_t> application_;       // TBuddy's Busy blocks of the application
  std::unique_ptr<gelado::UAllocStorage> host_;  // the pristine state, then the copies back
  mutable std::vector<std::uint32_t> marks_;     // big_units copied back
  mutable std::uint64_t fast_failures_ = 0;      // the most oom_fast a download found
  DeviceBuffer<std::uint32_t> words32_, pristine32_, big_units_;
  DeviceBuffer<std::uint64_t> words64_, pristine64_;
  DeviceBuffer<UAllocPoolWords> pool_words_;
};

template <bool kMalloc>
class UAllocPoolOf final : public UAllocPool {
 public:
  UAllocPoolOf(const Scenario& s, const MeasureOptions& o, const KernelArgs& a)
      : UAllocPool(s, o, a, kMalloc) {}
  static void check(const Scenario& s, const MeasureOptions& o) { check_input(s, o, kMalloc); }
};

// The allocation and free launches (gg_ualloc.cu), also driven directly by the GPU tests.
void launch_ualloc_alloc(const KernelArgs& a, const UAllocGpuView& v, bool counters);
void launch_ualloc_free(const KernelArgs& a, const UAllocGpuView& v);

}  // namespace alloclab::gpu::detail
