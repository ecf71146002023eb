// A page heap for the case studies (page_heap_entry.cuh) over an allocator's own GPU pool
// (pool_policy.cuh): the allocators of seeds 001-004 (Ouroboros, Gallatin, ...) keep their state
// in a pool policy and serve requests of units inside their kernels; the join asks for one
// 256-byte page at a time from inside its probe kernel. PoolPageOutput builds the allocator's pool
// over pages x 256 B (as T units of Take::kUnitBytes, every unit free), keeps the pages' bytes in
// an arena of its own (these pools keep no bytes: unit u is at byte u x kUnitBytes of the arena),
// and gives the probe kernel a handle whose take_page() is the allocator's own device malloc of
// one page. Its allocator's .cu registers it, one line:
//
//   ALLOCLAB_REGISTER_ENTRY(PageHeapTable, Algorithm::gallatin,
//                           (pool_page_heap_entry<GallatinPool, GallatinPageTake>()))
//
// where Take has `View`-taking aggregate init {view, args} and
//   static constexpr std::uint64_t kUnitBytes;                 the pool's unit
//   __device__ std::uint64_t take(std::uint32_t units) const;  a unit, or kFailed
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/join/pages.hpp"
#include "alloclab/core/random_stream.hpp"
#include "alloclab/gpu/join.hpp"
#include "device.cuh"
#include "gpu_entry.cuh"
#include "page_heap_entry.cuh"

namespace alloclab::gpu::detail {

// The scenario of a join's pool: pages x 256 B as units of `unit_bytes`, all free; a request is
// one page. N bounds the requests (a page each).
inline Scenario join_pool_scenario(const JoinOptions& o, std::uint64_t unit_bytes) {
  Scenario s;
  s.algo = *parse_algorithm(o.allocator);
  s.T = o.pages * (join::kPageBytes / unit_bytes);
  s.A = s.T;
  s.N = o.pages;
  s.pages = static_cast<unsigned>(join::kPageBytes / unit_bytes);
  s.seed = o.tables.seed;
  return s;
}

inline MeasureOptions join_pool_options(const JoinOptions& o) {
  MeasureOptions m;
  m.max_steps = o.max_steps;
  m.block = kProbeBlock;
  m.per_thread = 1;
  return m;
}

// Where a Take's search starts, for the allocators whose step machines take a scatter (TBuddy,
// UAlloc): the calling thread's grid index through the probe stream, as their allocation
// kernels draw a request's.
__device__ inline std::uint32_t page_take_scatter(const KernelArgs& args) {
  const std::uint64_t thread = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  return static_cast<std::uint32_t>(PhiloxStream(args.seed, StreamDomain::probe, thread).bits(0));
}

// GETPAGE over the allocator's device malloc: its unit as a page id of the arena.
template <class Take>
struct PoolPageTake {
  Take take;
  std::uint32_t units;  // units of a page
  __device__ std::uint32_t take_page() const {
    const std::uint64_t unit = take.take(units);
    if (unit == kFailed) return join::kNoPage;
    return static_cast<std::uint32_t>(unit / units);
  }
};

template <class Pool, class Take>
class PoolPageOutput {
 public:
  // The pool's own input checks, in the join's words (no device needed).
  static void check(const JoinOptions& o) {
    const Scenario s = join_pool_scenario(o, Take::kUnitBytes);
    try {
      Pool::check(s, join_pool_options(o));
    } catch (const InputError& e) {
      throw InputError("--pool", o.allocator + " holds the " + std::to_string(o.pages) +
                                     " pages of 256 B as " + std::to_string(s.T) + " units of " +
                                     std::to_string(Take::kUnitBytes) +
                                     " B, and then says: " + e.what());
    }
  }

  explicit PoolPageOutput(const JoinOptions& o)
      : pages_(o.pages),
        scenario_((check(o), join_pool_scenario(o, Take::kUnitBytes))),
        options_(join_pool_options(o)),
        args_(kernel_args(scenario_, options_)),
        pool_(scenario_, options_, args_) {
    require_device_bytes(
        "--pool", o.allocator + "'s page heap",
        {{"its pool", pool_.device_bytes()}, {"the pages' bytes", o.pages * join::kPageBytes}});
    arena_.resize(o.pages * join::kPageBytes);
    pool_.set_up();
  }
  void reset() { pool_.reset(); }
  PoolPageTake<Take> device() const { return {{pool_.view(), args_}, scenario_.pages}; }
  unsigned char* arena() const { return arena_.get(); }
  // The pool's own count of units in use (it copies the pool back and checks it at rest: a
  // VerificationError where it is not), as pages; -1 where that would be slow.
  std::int64_t pool_free_pages() const {
    if (pages_ > (std::uint64_t{1} << 22)) return -1;
    const auto used = pool_.pages_in_use();
    if (!used) return -1;
    return static_cast<std::int64_t>(pages_ - *used / scenario_.pages);
  }

 private:
  std::uint64_t pages_;
  Scenario scenario_;
  MeasureOptions options_;
  KernelArgs args_;
  Pool pool_;
  DeviceBuffer<unsigned char> arena_;
};

template <class Pool, class Take>
PageHeapEntry pool_page_heap_entry() {
  return {&run_join_with<PoolPageOutput<Pool, Take>>, &PoolPageOutput<Pool, Take>::check};
}

}  // namespace alloclab::gpu::detail
