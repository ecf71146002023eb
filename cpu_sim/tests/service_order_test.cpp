// The sequential mode's service order and probe sequence against independent references: the
// bucket sort of order_by_keys against std::sort of (key, id) pairs, and a sequential RW run
// against RW written out from core/probe_sequence.hpp and core/pool.hpp (one probe at a time,
// threads served in the order of their keys). Pins the pages handed out for a seed, whatever
// batching or sorting the simulator uses to get there.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "alloclab/core/pool.hpp"
#include "alloclab/core/probe_sequence.hpp"
#include "alloclab/cpu_sim/simulator.hpp"
#include "detail.hpp"

using namespace alloclab;
using namespace alloclab::sim;

namespace {
std::vector<std::uint64_t> reference_order(const std::vector<std::uint64_t>& keys) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> keyed;
  for (std::uint64_t u = 0; u < keys.size(); ++u) keyed.emplace_back(keys[u], u);
  std::sort(keyed.begin(), keyed.end());
  std::vector<std::uint64_t> out;
  for (const auto& kv : keyed) out.push_back(kv.second);
  return out;
}
}  // namespace

TEST_CASE("order_by_keys sorts ids by (key, id)", "[cpu_sim][order]") {
  std::mt19937_64 rng(3);
  for (std::uint64_t units : {0u, 1u, 2u, 63u, 64u, 65u, 1000u, 40000u}) {
    INFO(units << " units");
    std::vector<std::uint64_t> uniform(units), clustered(units), ties(units), top(units);
    for (std::uint64_t u = 0; u < units; ++u) {
      uniform[u] = rng();
      clustered[u] = rng() >> 40;                // every key in the lowest bucket
      ties[u] = (rng() % 7) << 61;               // seven distinct keys, many ids each
      top[u] = ~std::uint64_t{0} - rng() % 100;  // the highest bucket, with ties
    }
    CHECK(detail::order_by_keys(uniform) == reference_order(uniform));
    CHECK(detail::order_by_keys(clustered) == reference_order(clustered));
    CHECK(detail::order_by_keys(ties) == reference_order(ties));
    CHECK(detail::order_by_keys(top) == reference_order(top));
  }
}

TEST_CASE("sequential RW hands out the pages of RW written out probe by probe",
          "[cpu_sim][order]") {
  for (std::uint64_t A : {4096u, 1200u}) {
    INFO("A = " << A);
    Scenario s;
    s.algo = Algorithm::rw;
    s.T = 4096;
    s.A = A;
    s.N = 1000;
    s.seed = 12;
    SimOptions o;
    o.mode = Mode::sequential;
    const RunResult r = run_once(s, o, 0);  // trial 0: seed s.seed
    // The reference: the pool of core/pool.hpp; threads served by ascending (order key, id); each
    // probes rw_probe_page(seed, i, k) for k = 0, 1, ... and takes the first free page.
    const PagePermutation pi(s.T, s.seed);
    std::vector<bool> used(s.T);
    for (std::uint64_t p = 0; p < s.T; ++p) used[p] = !initially_free(pi, p, s.A);
    std::vector<std::uint64_t> keys(s.N);
    for (std::uint64_t i = 0; i < s.N; ++i)
      keys[i] = PhiloxStream(s.seed, StreamDomain::order, i).bits(0);
    const std::uint64_t bound = default_step_bound(s, o);
    std::uint64_t multi_probe = 0;
    for (std::uint64_t i : reference_order(keys)) {
      std::int64_t page = -1;
      std::uint64_t k = 0;
      for (; k < bound; ++k) {
        const std::uint64_t p = rw_probe_page(s.seed, i, k, s.T);
        if (!used[p]) {
          used[p] = true;
          page = static_cast<std::int64_t>(p);
          break;
        }
      }
      REQUIRE(page >= 0);  // A >= N: every request finds a page well within the bound
      CHECK(r.first_page[i] == page);
      CHECK(r.steps[i] == k + 1);
      multi_probe += k + 1 > 18;  // past the first two probes and the first batch of 16
    }
    if (A < s.T) CHECK(multi_probe > 0);
  }
}
