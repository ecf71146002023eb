// Shared by the GPU tests: skip (exit 4, "Skipped" in ctest) when there is no device.
#pragma once

#include "alloclab/gpu/measure.hpp"
#include "alloclab/testing/test_support.hpp"

namespace alloclab::gpu::test {

inline void require_device() {
  if (!built_with_cuda()) alloclab::testing::skip("no CUDA device: built without CUDA");
  try {
    (void)device_info();
  } catch (const NoDevice& e) {
    alloclab::testing::skip(e.what());
  }
}

// Pages of one pool granule of `algo` (Capabilities::pool_granule_bytes in its fixed pages: a
// Gallatin segment is 2^20 pages of 16 B); 0 where any pool will do.
inline std::uint64_t granule_pages(Algorithm algo) {
  const Capabilities& c = caps(algo);
  return c.pool_granule_bytes == 0
             ? 0
             : c.pool_granule_bytes / (c.fixed_page_bytes ? c.fixed_page_bytes : 1);
}

// T is rounded up to the allocator's pool granule (Gallatin's 16 MiB segments), so that the
// generic cases apply to it; A stays as given.
inline Scenario scenario(Algorithm algo, std::uint64_t N, std::uint64_t A, std::uint64_t T,
                         std::uint64_t seed = 7) {
  Scenario s;
  s.algo = algo;
  s.N = N;
  s.A = A;
  const std::uint64_t g = granule_pages(algo);
  s.T = g == 0 || T == 0 ? T : (T + g - 1) / g * g;
  s.seed = seed;
  return s;
}

// A short measurement that keeps every request's result: 2 timed repeats after the warm-up.
inline MeasureOptions quick() {
  MeasureOptions o;
  o.repeats = 2;
  o.keep_per_thread = true;
  return o;
}

}  // namespace alloclab::gpu::test
