// Helpers shared by the cpu_sim tests.
#pragma once

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "alloclab/core/algorithm.hpp"
#include "alloclab/core/errors.hpp"
#include "alloclab/cpu_sim/simulator.hpp"

namespace alloclab::sim::testing {

// Pages in use in a packed used-page set (Allocator::used_pages()): bit p % 64 of word p / 64.
inline std::uint64_t count_used(const std::vector<std::uint64_t>& used, std::uint64_t T) {
  std::uint64_t n = 0;
  for (std::uint64_t p = 0; p < T; ++p) n += (used[p / 64] >> (p % 64)) & 1u;
  return n;
}

// Pages of one pool granule (Capabilities::pool_granule_bytes, in the allocator's fixed pages);
// 0 for an allocator that takes any pool.
inline std::uint64_t granule_pages(const Capabilities& c) {
  if (c.pool_granule_bytes == 0) return 0;
  return c.pool_granule_bytes / (c.fixed_page_bytes ? c.fixed_page_bytes : 1);
}

// A workload pool of at least `bytes` the allocator accepts: rounded up to its granule.
inline std::uint64_t pool_bytes_for(Algorithm a, std::uint64_t bytes) {
  const std::uint64_t g = caps(a).pool_granule_bytes;
  return g == 0 ? bytes : (bytes + g - 1) / g * g;
}

// The run's total of the allocator's own count `name` (RunResult::op_counts); fails the test when
// the allocator has no such count.
inline std::uint64_t count(const RunResult& r, const std::string& name) {
  for (const auto& [n, v] : r.op_counts)
    if (n == name) return v;
  FAIL("no op count " << name);
  return 0;
}

// The parameter f's InputError names, or "" when f throws none.
template <class F>
std::string input_error(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.parameter();
  }
  return "";
}

// The parameter check_input's InputError names for (s, o), or "" when the input is accepted.
inline std::string parameter_of(const Scenario& s, const SimOptions& o) {
  return input_error([&] { check_input(s, o); });
}

}  // namespace alloclab::sim::testing
