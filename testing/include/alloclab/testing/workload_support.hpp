// The workload the tests of every backend start from (core/workload.hpp): one object size for
// every thread, pages of 256 B, seed 11; a test changes what it varies.
#pragma once

#include <cstdint>

#include "alloclab/core/workload.hpp"

namespace alloclab::testing {

inline Workload one_size_workload(WorkloadFamily family, std::uint64_t N, std::uint64_t size,
                                  std::uint64_t pool_bytes) {
  Workload w;
  w.family = family;
  w.N = N;
  w.size = {size, size};
  w.pool_bytes = pool_bytes;
  w.page_bytes = 256;
  w.seed = 11;
  return w;
}

}  // namespace alloclab::testing
