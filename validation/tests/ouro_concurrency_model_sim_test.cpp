// Variant C's walk under concurrency (model/ouro_walk.hpp): the replay of lanes starting together
// (the shared step machines in lockstep on a prepared queue) against the model's closed forms, and
// the simulator's churn rounds (the real allocator, every run verified) against the refill's (K -
// 1) / 2.
#include <catch2/catch.hpp>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "alloclab/core/workload.hpp"
#include "alloclab/cpu_sim/ouro_walk_replay.hpp"
#include "alloclab/cpu_sim/workload_runner.hpp"
#include "alloclab/model/ouro_tickets.hpp"
#include "alloclab/model/ouro_walk.hpp"
#include "alloclab/testing/workload_support.hpp"

using namespace alloclab;
using namespace alloclab::sim;

TEST_CASE("C's walk replayed in lockstep equals the model exactly", "[sim][ouro][walk]") {
  // (class, free pages per chunk): 16 B chunks with every page and with a few free, 256 B, and
  // 4096 B chunks of two pages with one or two free.
  const std::vector<std::pair<unsigned, std::uint32_t>> classes{
      {0, 512}, {0, 5}, {4, 32}, {8, 2}, {8, 1}};
  for (auto [k, f] : classes)
    for (std::uint32_t dead : {0u, 3u, 40u})
      for (std::uint64_t lanes : {1u, 7u, 32u, 100u, 1000u}) {
        CAPTURE(k, f, dead, lanes);
        std::vector<std::uint32_t> entries(dead, 0);
        entries.resize(dead + (lanes + f - 1) / f + 2, f);
        const WalkReplay r = replay_lanes_together(k, entries, lanes);
        CHECK(r.pages_taken == lanes);
        CHECK(r.mean_walk == Approx(model::walk_uniform(lanes, f, dead)).epsilon(1e-12));
        CHECK(r.max_walk == dead + (lanes - 1) / f);
      }
}

TEST_CASE("C's walk replayed over uneven chunks and holes equals the model", "[sim][ouro][walk]") {
  const std::vector<std::uint32_t> entries{3, 0, 0, 1, 32, 0, 7, 2, 0, 32, 32};
  for (std::uint64_t lanes : {1u, 4u, 5u, 37u, 60u, 109u}) {
    CAPTURE(lanes);
    CHECK(replay_lanes_together(4, entries, lanes).mean_walk ==
          Approx(model::walk_of_lanes_together(entries, lanes)).epsilon(1e-12));
  }
  CHECK_THROWS_AS(replay_lanes_together(4, entries, 110), std::invalid_argument);
  CHECK_THROWS_AS(replay_lanes_together(4, std::vector<std::uint32_t>{33}, 1),
                  std::invalid_argument);
}

TEST_CASE("C's walk in the simulator's churn rounds is the refill's (K - 1) / 2",
          "[sim][ouro][walk]") {
  // ouro-c-s in lockstep, N live objects of S bytes on K = N S / 8 KiB chunks; each round frees
  // half of them at random and the same threads allocate again, all at once. 16 B and 256 B keep
  // every chunk partly used (no flash), so the queue holds the K chunks; the mean walk of the
  // rounds after the fill is the model's within 3% (it is an expectation over the random frees).
  for (auto [N, size] : {std::pair<std::uint64_t, std::uint64_t>{16384, 16}, {16384, 256}}) {
    CAPTURE(N, size);
    Workload w = testing::one_size_workload(WorkloadFamily::churn, N, size, 64u << 20);
    w.rounds = 2;
    w.free_fraction = 0.5;
    WorkloadOptions o;
    o.mode = Mode::lockstep;
    const WorkloadRun run = run_workload(Algorithm::ouro_c_s, w, o, 0);
    REQUIRE(run.points.size() == 3);
    const std::uint64_t K = N * size / 8192;
    for (std::size_t round = 1; round < run.points.size(); ++round) {
      const WorkloadPoint& p = run.points[round];
      std::uint64_t walk = 0;
      for (const auto& [count, total] : p.op_counts)
        if (count == "traversal") walk = total;
      CHECK(static_cast<double>(walk) / static_cast<double>(p.requests) ==
            Approx(model::walk_after_refill(K)).epsilon(0.03));
    }
  }
}

TEST_CASE("P's hits in churn rounds issue 1 + 2 / g atomics a request", "[sim][ouro][tickets]") {
  // ouro-p-s, 16384 objects of 256 B, half freed and taken again a round: every request of the
  // round finds a page. Sequential: one subtraction, one ticket, one slot exchange each. Lockstep:
  // warps of 32 lanes of one class share the subtraction and the ticket.
  for (auto [mode, group] : {std::pair{Mode::sequential, 1u}, std::pair{Mode::lockstep, 32u}}) {
    CAPTURE(group);
    Workload w = testing::one_size_workload(WorkloadFamily::churn, 16384, 256, 64u << 20);
    w.rounds = 1;
    w.free_fraction = 0.5;
    WorkloadOptions o;
    o.mode = mode;
    const WorkloadRun run = run_workload(Algorithm::ouro_p_s, w, o, 0);
    const WorkloadPoint& p = run.points.back();
    REQUIRE(p.requests == 8192);
    CHECK(static_cast<double>(p.atomics_issued) / static_cast<double>(p.requests) ==
          model::ouro_p_hit_atomics_per_request(group));
  }
}
