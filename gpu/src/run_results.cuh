// The generic checks and statistics over a run's result slots (page[r*N + i]: the first page or
// address of request r of thread i, kFailed if it failed), the same for every allocator; they run
// outside the timed region.
#pragma once

#include <cstdint>

#include "common.cuh"

namespace alloclab::gpu::detail {

// Requests served (slots other than kFailed).
std::uint64_t count_taken(const DeviceBuffer<std::uint64_t>& page);

// `sorted` = `page` in increasing order (kFailed last).
void sort_results(const DeviceBuffer<std::uint64_t>& page, DeviceBuffer<std::uint64_t>& sorted);

// Over the sorted slots: ranges [x, x + len) that overlap the next one; for page ids also pages
// outside [0, T) or not initially free (core/pool.hpp). Returns the number of violations.
std::uint64_t range_violations(const DeviceBuffer<std::uint64_t>& sorted, std::uint64_t len,
                               bool page_ids, std::uint64_t T, std::uint64_t A, std::uint64_t seed);

struct Stats {
  double tas = 0, was = 0;
  std::uint32_t p50 = 0, p99 = 0, max = 0;
  std::uint64_t collisions = 0, taken = 0;
};
// TAS, WAS (over request rounds and warps of `lanes` threads), nearest-rank percentiles.
Stats reduce_stats(const KernelArgs& a, const DeviceBuffer<std::uint32_t>& steps,
                   const DeviceBuffer<std::uint32_t>& collisions,
                   const DeviceBuffer<std::uint64_t>& page);

// Device bytes of scratch the checks and statistics above allocate for R requests, at most.
std::uint64_t result_scratch_bytes(std::uint64_t R);

}  // namespace alloclab::gpu::detail
