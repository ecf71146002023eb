// What the GPU's DynaSOAr allocators (dynasoar.cu over dynasoar_pool.cu's heap) and BitmapAlloc
// (bitmap_alloc.cu) share: the words beside their bitmaps (defects counted, the frees' counts
// waiting for the next allocation launch), the bound on a machine that waits for another thread,
// the back-off of a machine that retries, and a request's rotation seed.
#pragma once

#include <cstdint>

#include "alloclab/core/dynasoar/op_counts.hpp"
#include "alloclab/core/random_stream.hpp"
#include "common.cuh"

namespace alloclab::gpu::detail {

// A machine that makes this many steps beyond the step bound is waiting for an operation that
// never ends (a set-spin or clear-spin waits for another thread's update on its way up, which is
// running): a defect. It is abandoned and counted in DsMisc::stuck, which fails verification.
inline constexpr std::uint64_t kDsStuckSteps = std::uint64_t{1} << 22;

// The steps at which a machine is abandoned: kDsStuckSteps past --max-steps (saturating).
__host__ __device__ inline std::uint64_t ds_stuck_at(std::uint64_t max_steps) {
  return max_steps < ~std::uint64_t{0} - kDsStuckSteps ? max_steps + kDsStuckSteps : max_steps;
}

struct DsMisc {
  unsigned long long stuck = 0;   // machines abandoned past kDsStuckSteps (a defect)
  unsigned long long broken = 0;  // double frees, rollbacks of slots not reserved (a defect)
  // The counts of the frees since the last allocation launch (dynasoar: the ds_count indices
  // from `invalidations` on; bitmap-alloc: free_levels), which the next allocation launch adds
  // to its own as the simulator adds them to the next allocate()'s.
  unsigned long long free_counts[dynasoar::kDsFreeCounts] = {};
};

// A machine that retried (BitStatus::spinning: a lost bit, an empty round, a bit another
// operation has yet to update): a few immediate retries, then short sleeps so that the thread it
// waits for gets the memory system.
__device__ __forceinline__ void ds_back_off(std::uint32_t& spins) {
  if (++spins > 4) __nanosleep(spins < 64 ? 32 : 256);
}

// The rotation seed of request r of `thread` (the first lane of a coalesced group): its Philox
// number, as the simulator's (for r = 0 the same number).
__device__ __forceinline__ unsigned ds_seed(const KernelArgs& a, std::uint64_t thread, unsigned r) {
  return static_cast<unsigned>(
      PhiloxStream(a.seed, StreamDomain::probe, thread + std::uint64_t{r} * a.N).bits(0));
}

// Steps of a request as the result slots keep them.
__device__ __forceinline__ std::uint32_t ds_steps(std::uint64_t steps) {
  return static_cast<std::uint32_t>(steps < 4294967295ull ? steps : 4294967295ull);
}

// At the start of an allocation launch (one thread): the frees' counts since the last one move
// to this launch's op counts (indices first..first + count), where they are kept; always taken,
// so a launch without counters does not pass them on to a later one.
template <bool kCounters>
__device__ void take_free_counts(const KernelArgs& a, DsMisc* misc, unsigned first,
                                 unsigned count) {
  for (unsigned k = 0; k < count; ++k) {
    const unsigned long long x = atomic_exch_word(&misc->free_counts[k], 0ull);
    if constexpr (kCounters)
      if (a.op_counts && x) count_add(&a.op_counts[first + k], x);
  }
}

}  // namespace alloclab::gpu::detail
