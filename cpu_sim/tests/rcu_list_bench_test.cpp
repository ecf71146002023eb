// Figure 6's benchmark in the simulator (cpu_sim/rcu_list_bench.hpp): every run verified over a
// grid; what holds by construction of §4.2.1 (sequential: no barrier overlaps, so none is
// delegated; plain: never delegates; all-writers lockstep: the conditional barrier delegates
// and is never slower); the model's barrier count for the arrivals the run saw against the
// run's (model/rcu_delegation.hpp); bad input.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "alloclab/core/errors.hpp"
#include "alloclab/cpu_sim/rcu_list_bench.hpp"
#include "alloclab/model/rcu_delegation.hpp"

using namespace alloclab;
using sim::RcuBenchMode;

namespace {
sim::RcuBenchRun bench(std::uint32_t n, std::uint32_t writers, bool conditional,
                       RcuBenchMode mode = RcuBenchMode::lockstep, std::uint32_t resident = 0) {
  sim::RcuBenchOptions o;
  o.config = {n, writers, conditional};
  o.mode = mode;
  o.resident = resident;
  return sim::run_rcu_bench(o);
}
}  // namespace

TEST_CASE("rcu bench: every run verified, both barriers, both modes", "[sim][rcu]") {
  for (RcuBenchMode mode : {RcuBenchMode::lockstep, RcuBenchMode::sequential})
    for (bool conditional : {true, false})
      for (auto [n, w, res] : std::vector<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>>{
               {1, 1, 0}, {1, 0, 0}, {64, 64, 0}, {256, 16, 0}, {512, 128, 32}, {300, 7, 50}}) {
        INFO("N " << n << " W " << w << " resident " << res << " cond " << conditional);
        const sim::RcuBenchRun r = bench(n, w, conditional, mode, res);
        CHECK(r.verification.empty());
        CHECK(r.summary.writers == w);
        CHECK(r.summary.readers == n - w);
        CHECK(r.summary.sum.saw_freed == 0);
        if (mode == RcuBenchMode::sequential || !conditional) {  // nothing overlaps / plain
          CHECK(r.summary.sum.delegations == 0);
          CHECK(r.summary.sum.barriers == w);
        }
        // Every reader walks the whole list it finds; nobody walks more than W nodes.
        CHECK(r.summary.sum.nodes_visited <= std::uint64_t{n} * std::max(w, 1u));
      }
}

TEST_CASE("rcu bench: all writers at once, the conditional barrier delegates and wins",
          "[sim][rcu]") {
  for (std::uint32_t n : {8u, 64u, 512u}) {
    const sim::RcuBenchRun plain = bench(n, n, false), cond = bench(n, n, true);
    INFO("N " << n);
    CHECK(cond.summary.sum.delegations > 0);
    CHECK(cond.summary.sum.barriers < n);
    CHECK(cond.rounds < plain.rounds);
    // The plain barriers run one after the other: at most one holds at a time, so the writers
    // spend at least the sum of the holds.
    CHECK(plain.rounds >= static_cast<std::uint64_t>(plain.mean_hold * (n - 1)));
  }
}

TEST_CASE("rcu bench: the model's barrier count for the arrivals seen matches the simulator",
          "[sim][rcu][model]") {
  // The model takes the writers' arrival rounds and one mean hold; the simulator's holds vary
  // (a holder runs every callback it took), so the count agrees to within 15% or 2.
  for (auto [n, ratio, res] :
       std::vector<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>>{{4096, 4, 64},
                                                                            {4096, 16, 64},
                                                                            {4096, 64, 64},
                                                                            {4096, 4, 256},
                                                                            {2048, 16, 256},
                                                                            {1024, 1, 0},
                                                                            {1024, 16, 0}}) {
    const sim::RcuBenchRun r = bench(n, n / ratio, true, RcuBenchMode::lockstep, res);
    REQUIRE(r.verification.empty());
    std::vector<double> arrivals;
    for (const sim::RcuBarrierTrace& b : r.barriers) arrivals.push_back(double(b.arrival));
    REQUIRE(arrivals.size() == n / ratio);
    const auto m = model::conditional_barriers(arrivals, r.mean_hold);
    const double sim_barriers = double(r.summary.sum.barriers);
    INFO("N " << n << " ratio " << ratio << " resident " << res << ": sim " << sim_barriers
              << ", model " << m.barriers << ", mean hold " << r.mean_hold);
    CHECK(std::abs(double(m.barriers) - sim_barriers) <= std::max(2.0, 0.15 * sim_barriers));
  }
}

TEST_CASE("rcu bench: bad input names its parameter", "[sim][rcu]") {
  sim::RcuBenchOptions o;
  o.config = {0, 0, true};
  CHECK_THROWS_AS(sim::run_rcu_bench(o), InputError);
  o.config = {10, 11, true};
  CHECK_THROWS_WITH(sim::run_rcu_bench(o), Catch::Contains("--ratio"));
  o.config = {100000, 1, true};
  CHECK_THROWS_WITH(sim::run_rcu_bench(o), Catch::Contains("--N"));
}

TEST_CASE("rcu bench: a step bound gives up where nothing is held, counted, no hang",
          "[sim][rcu]") {
  for (bool conditional : {true, false}) {
    sim::RcuBenchOptions o;
    o.config = {256, 256, conditional};
    o.max_steps = 12;  // writers past their walk find the list mutex taken
    const sim::RcuBenchRun r = sim::run_rcu_bench(o);
    CHECK(r.summary.gave_up > 0);
    CHECK(r.summary.gave_up + r.summary.writers == 256);
    CHECK(r.verification.find("gave up") != std::string::npos);
    CHECK(r.summary.sum.saw_freed == 0);
  }
}
