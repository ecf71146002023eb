// The lockstep models of Figure 5's benchmark (model/semaphores.hpp) against the simulator's
// lockstep runs (cpu_sim/semaphore_bench.hpp), point by point.
#include <catch2/catch.hpp>

#include "alloclab/cpu_sim/semaphore_bench.hpp"
#include "alloclab/model/semaphores.hpp"

using namespace alloclab;

namespace {
sim::SemaphoreBenchRun lockstep(gelado::SemaphoreKind k, std::uint64_t n, std::uint32_t batch,
                                std::uint32_t turns) {
  sim::SemaphoreBenchOptions o;
  o.config.kind = k;
  o.config.batch = batch;
  o.config.grow_turns = turns;
  o.threads = n;
  return sim::run_semaphore_bench(o);
}
}  // namespace

TEST_CASE("semaphore models: the bulk semaphore's peak growers, min(ceil((L+3)/B), ceil(N/B))") {
  for (std::uint32_t b : {16u, 64u, 512u})
    for (std::uint32_t turns : {0u, 10u, 50u, 100u, 300u, 1000u, 3000u}) {
      const auto r = lockstep(gelado::SemaphoreKind::bulk, 4096, b, turns);
      INFO("B " << b << " L " << turns);
      REQUIRE(r.verification.empty());
      CHECK(r.peak_growers == model::bulk_lockstep_peak_growers(4096, b, turns));
    }
  // A growth longer than the others' decisions: every batch is grown at once, requests / batch.
  const auto r = lockstep(gelado::SemaphoreKind::bulk, 4096, 16, 5000);
  CHECK(r.peak_growers == 256);
  CHECK(model::bulk_lockstep_peak_growers(4096, 16, 5000) == 256);
}

TEST_CASE("semaphore models: the counting semaphore's rounds, N + ceil(N/B) (L+3)") {
  for (std::uint32_t b : {16u, 64u, 512u})
    for (std::uint32_t turns : {0u, 100u, 1000u}) {
      const auto r = lockstep(gelado::SemaphoreKind::counting, 4096, b, turns);
      INFO("B " << b << " L " << turns);
      REQUIRE(r.verification.empty());
      const std::uint64_t m = model::counting_lockstep_rounds(4096, b, turns);
      CHECK(r.rounds >= m);
      CHECK(r.rounds <= m + 8);
    }
}
