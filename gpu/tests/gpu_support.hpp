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

inline Scenario scenario(Algorithm algo, std::uint64_t N, std::uint64_t A, std::uint64_t T,
                         std::uint64_t seed = 7) {
  Scenario s;
  s.algo = algo;
  s.N = N;
  s.A = A;
  s.T = T;
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
