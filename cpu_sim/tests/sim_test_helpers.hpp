// Helpers shared by the cpu_sim tests.
#pragma once

#include <cstdint>
#include <vector>

namespace alloclab::sim::testing {

// Pages in use in a packed used-page set (Allocator::used_pages()): bit p % 64 of word p / 64.
inline std::uint64_t count_used(const std::vector<std::uint64_t>& used, std::uint64_t T) {
  std::uint64_t n = 0;
  for (std::uint64_t p = 0; p < T; ++p) n += (used[p / 64] >> (p % 64)) & 1u;
  return n;
}

}  // namespace alloclab::sim::testing
