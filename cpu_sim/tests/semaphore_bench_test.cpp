// Figure 5's benchmark in the simulator (cpu_sim/src/semaphore_bench.cpp over
// core/gelado/semaphore_bench.hpp): two runs worked by hand round by round, the batch count
// against ceil(N / B), a pool that runs out (growers refused, nobody left waiting), the step bound,
// the counting semaphore's waiters against the batch size, the verifier catching broken runs, and
// the input errors.
#include <catch2/catch.hpp>

#include <string>

#include "alloclab/core/errors.hpp"
#include "alloclab/cpu_sim/semaphore_bench.hpp"

using namespace alloclab;
using namespace alloclab::sim;
using gelado::SemaphoreKind;

namespace {

SemaphoreBenchOptions bench(SemaphoreKind k, std::uint64_t n, std::uint32_t batch,
                            SemBenchMode m = SemBenchMode::lockstep) {
  SemaphoreBenchOptions o;
  o.config.kind = k;
  o.config.batch = batch;
  o.threads = n;
  o.mode = m;
  o.host_threads = 2;
  return o;
}

}  // namespace

// N = 2, B = 2, counting, worked by hand. Rounds: 1 both read S = 0; 2 t0 CAS 0 -> -1 (grow),
// t1's CAS fails and sees -1; 3 t0 claims a batch, t1 reads -1 (blocked); 4 t0 publishes 2
// units, t1 blocked; 5 t0 signals B - N + r + 1 = 2 (S = 1; t1 is the one waiter), t1 reads 1;
// 6 t0 ticket 0, t1 CAS 1 -> 0 (took); 7 t0 checks 0 < 2, t1 ticket 1; 8 t1 checks 1 < 2.
TEST_CASE("semaphore bench: counting, two threads, batch two, round by round") {
  const SemaphoreBenchRun r = run_semaphore_bench(bench(SemaphoreKind::counting, 2, 2));
  CHECK(r.verification.empty());
  CHECK(r.rounds == 8);
  CHECK(r.summary.max_steps == 8);  // t1: read, CAS, read, read, read, CAS, ticket, check
  CHECK(r.summary.steps == 7 + 8);  // t0: read, CAS, claim, publish, signal, ticket, check
  CHECK(r.summary.cas_attempts == 3);
  CHECK(r.summary.cas_failures == 1);
  CHECK(r.summary.spins == 2);  // t1's reads in rounds 3 and 4
  CHECK(r.deliveries == 1);
  CHECK(r.waiters_at_delivery == 1.0);
  CHECK(r.summary.grew == 1);
  CHECK(r.summary.took == 1);
  CHECK(r.summary.final_count == 0);
}

// The same with the bulk semaphore: 2 t0 CAS grows (E = 1), t1's CAS fails and sees E = 1;
// 3 t1 reserves (R = 1); 4 t1 spins (C < 1, R <= C + E); 5 t0 signals (1, 1): C = 1, E = 0, and
// t1 sees C >= 1 and leaves its spin; 6 t1 drops R; 7 t1 takes; 8 ticket; 9 check.
TEST_CASE("semaphore bench: bulk, two threads, batch two, round by round") {
  const SemaphoreBenchRun r = run_semaphore_bench(bench(SemaphoreKind::bulk, 2, 2));
  CHECK(r.verification.empty());
  CHECK(r.rounds == 9);
  CHECK(r.summary.max_steps == 9);
  CHECK(r.summary.cas_attempts == 1 + 3);
  CHECK(r.summary.cas_failures == 1);
  CHECK(r.summary.reserves == 1);
  CHECK(r.summary.spins == 1);
  CHECK(r.peak_reserved == 1);
  CHECK(r.peak_expected == 1);
  CHECK(r.peak_growers == 1);
  CHECK(r.deliveries == 1);
  CHECK(r.waiters_at_delivery == 1.0);
  CHECK(r.summary.final_count == 0);
  CHECK(r.summary.final_expected == 0);
  CHECK(r.summary.final_reserved == 0);
}

TEST_CASE("semaphore bench: exactly ceil(N / B) batches and the rest left in the count") {
  for (SemaphoreKind k : {SemaphoreKind::bulk, SemaphoreKind::counting})
    for (auto [n, b] : {std::pair<std::uint64_t, std::uint32_t>{1, 1},
                        {8, 4},
                        {100, 7},
                        {513, 512},
                        {1000, 512},
                        {3000, 64}})
      for (unsigned grow_turns : {0u, 5u}) {
        SemaphoreBenchOptions o = bench(k, n, b);
        o.config.grow_turns = grow_turns;
        const SemaphoreBenchRun r = run_semaphore_bench(o);
        INFO(gelado::semaphore_kind_name(k) << " N " << n << " B " << b << " turns " << grow_turns);
        CHECK(r.verification.empty());
        const std::uint64_t batches = (n + b - 1) / b;
        CHECK(r.summary.grew == batches);
        CHECK(r.summary.took == n - batches);
        CHECK(r.summary.final_count == static_cast<std::int64_t>(batches * b - n));
        CHECK(r.deliveries == batches);
        CHECK(r.summary.gave_up == 0);
        if (k == SemaphoreKind::counting) CHECK(r.peak_growers == 1);  // one grower at a time
      }
}

TEST_CASE("semaphore bench: a pool of K batches serves K x B threads and refuses the rest") {
  for (SemaphoreKind k : {SemaphoreKind::bulk, SemaphoreKind::counting})
    for (SemBenchMode m : {SemBenchMode::lockstep, SemBenchMode::threads}) {
      SemaphoreBenchOptions o = bench(k, 100, 16, m);
      o.config.batches_available = 2;
      o.config.grow_turns = 3;
      const SemaphoreBenchRun r = run_semaphore_bench(o);
      INFO(gelado::semaphore_kind_name(k) << (m == SemBenchMode::threads ? " threads" : ""));
      CHECK(r.verification.empty());
      CHECK(r.summary.took + r.summary.grew == 32);
      CHECK(r.summary.refused == 68);  // each refused thread grew and met the failure itself
      CHECK(r.summary.gave_up == 0);
      CHECK(r.summary.final_count == 0);
    }
}

TEST_CASE("semaphore bench: threads mode on shared atomics") {
  for (SemaphoreKind k : {SemaphoreKind::bulk, SemaphoreKind::counting}) {
    const SemaphoreBenchRun r = run_semaphore_bench(bench(k, 2000, 64, SemBenchMode::threads));
    CHECK(r.verification.empty());
    CHECK(r.summary.grew == 32);  // ceil(2000 / 64)
    CHECK(r.summary.gave_up == 0);
  }
}

TEST_CASE("semaphore bench: the step bound ends every wait and leaves nothing open") {
  for (SemaphoreKind k : {SemaphoreKind::bulk, SemaphoreKind::counting}) {
    SemaphoreBenchOptions o = bench(k, 64, 4);
    o.config.grow_turns = 20;
    o.max_steps = 6;
    const SemaphoreBenchRun r = run_semaphore_bench(o);
    CHECK(r.summary.gave_up > 0);
    CHECK(r.summary.took + r.summary.grew + r.summary.gave_up == 64);
    CHECK(r.verification.empty());  // E and R back to 0, the count = delivered - taken
  }
}

// Gelado & Garland §3.2, after Kleinrock: with a counting semaphore the threads waiting when a
// batch arrives likely outnumber the batch. In lockstep all the others wait behind each grower,
// so the k-th delivery finds about N - (k - 1) B - 1: a mean near N / 2 for N >> B.
TEST_CASE("semaphore bench: a counting semaphore's batch finds more waiters than its size") {
  const SemaphoreBenchRun r = run_semaphore_bench(bench(SemaphoreKind::counting, 4096, 512));
  REQUIRE(r.verification.empty());
  REQUIRE(r.deliveries == 8);
  CHECK(r.waiters_at_delivery > 512);
  double expected = 0;  // every unfinished thread but the grower, by hand
  for (int k = 0; k < 8; ++k) expected += 4096.0 - k * 512.0 - 1;
  CHECK(r.waiters_at_delivery == Approx(expected / 8).epsilon(0.01));
}

TEST_CASE("semaphore bench: the verifier refuses broken runs") {
  const SemaphoreBenchRun good = run_semaphore_bench(bench(SemaphoreKind::bulk, 300, 32));
  REQUIRE(good.verification.empty());
  auto broken = [&](auto mutate) {
    gelado::SemBenchSummary s = good.summary;
    mutate(s);
    return gelado::verify_sem_bench(s);
  };
  CHECK_FALSE(broken([](auto& s) { s.bad_units = 1; }).empty());
  CHECK_FALSE(broken([](auto& s) { ++s.final_count; }).empty());
  CHECK_FALSE(broken([](auto& s) { s.final_reserved = 1; }).empty());
  CHECK_FALSE(broken([](auto& s) {
                ++s.grew;
                --s.took;
              }).empty());
  CHECK_FALSE(broken([](auto& s) { --s.taken; }).empty());
  CHECK_FALSE(broken([](auto& s) { ++s.threads; }).empty());
}

TEST_CASE("semaphore bench: input errors name the parameter") {
  auto error_of = [](SemaphoreBenchOptions o) {
    try {
      check_semaphore_bench(o);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(error_of(bench(SemaphoreKind::bulk, 0, 512)).find("--N") == 0);
  CHECK(error_of(bench(SemaphoreKind::bulk, 100, 0)).find("--batch") == 0);
  CHECK(error_of(bench(SemaphoreKind::counting, 70000, 512)).find("--N") == 0);
  CHECK(error_of(bench(SemaphoreKind::bulk, 1u << 22, 512, SemBenchMode::threads)).find("--N") ==
        0);
  CHECK(error_of(bench(SemaphoreKind::counting, 1u << 22, 512, SemBenchMode::threads)).empty());
}

// Warp aggregation: N / 32 leaders each take 32 units; with B a multiple of 32 the batches are
// still ceil(N / B), and the units handed out are N.
TEST_CASE("semaphore bench: warp leaders take 32 units each") {
  for (SemaphoreKind k : {SemaphoreKind::bulk, SemaphoreKind::counting})
    for (auto [n, b] : {std::pair<std::uint64_t, std::uint32_t>{32, 32}, {4096, 512}, {3200, 64}})
      for (SemBenchMode m : {SemBenchMode::lockstep, SemBenchMode::threads}) {
        SemaphoreBenchOptions o = bench(k, n, b, m);
        o.warp = true;
        const SemaphoreBenchRun r = run_semaphore_bench(o);
        INFO(gelado::semaphore_kind_name(k) << " N " << n << " B " << b);
        CHECK(r.verification.empty());
        CHECK(r.summary.threads == n / 32);
        const std::uint64_t batches = (n + b - 1) / b;
        CHECK(r.summary.grew == batches);
        CHECK(r.summary.took == n / 32 - batches);
        CHECK(r.summary.taken == n);
        CHECK(r.summary.final_count == static_cast<std::int64_t>(batches * b - n));
      }
  SemaphoreBenchOptions o = bench(SemaphoreKind::bulk, 100, 512);
  o.warp = true;
  CHECK_THROWS_AS(check_semaphore_bench(o), InputError);  // 100 lanes: not whole warps
  o = bench(SemaphoreKind::bulk, 128, 16);
  o.warp = true;
  CHECK_THROWS_AS(check_semaphore_bench(o), InputError);  // a batch below a warp's 32 units
}

// The counting semaphore in lockstep, derived by hand: one CAS on S succeeds per round (the
// first thread in order whose CAS sees the current S), so the N decisions take about N rounds;
// and every growth stops everybody for its L turns plus its claim, publish and signal (3 steps):
// rounds = N + ceil(N / B) (L + 3) + c, c a few rounds of the first read and the last ticket.
TEST_CASE("semaphore bench: the counting semaphore's lockstep rounds follow N + g (L + 3)") {
  for (auto [n, b] : {std::pair<std::uint64_t, std::uint32_t>{4096, 64}, {4096, 512}, {1000, 7}})
    for (unsigned turns : {0u, 10u, 100u, 1000u}) {
      SemaphoreBenchOptions o = bench(SemaphoreKind::counting, n, b);
      o.config.grow_turns = turns;
      const SemaphoreBenchRun r = run_semaphore_bench(o);
      INFO("N " << n << " B " << b << " L " << turns);
      REQUIRE(r.verification.empty());
      const std::uint64_t growths = (n + b - 1) / b;
      const std::uint64_t model = n + growths * (turns + 3);
      CHECK(r.rounds >= model);
      CHECK(r.rounds <= model + 8);
    }
}

// Gelado & Garland §3.3, §5.1: the bulk semaphore lets threads reserve promised units and more
// growers start while a batch is on its way. With a growth that takes L rounds, the counting
// semaphore pays every L in turn; the bulk one overlaps them, and never more growers than
// batches are needed.
TEST_CASE("semaphore bench: with slow growth the bulk semaphore overlaps its growers") {
  SemaphoreBenchOptions o = bench(SemaphoreKind::bulk, 4096, 64);
  o.config.grow_turns = 1000;
  const SemaphoreBenchRun bulk = run_semaphore_bench(o);
  o.config.kind = SemaphoreKind::counting;
  const SemaphoreBenchRun counting = run_semaphore_bench(o);
  REQUIRE(bulk.verification.empty());
  REQUIRE(counting.verification.empty());
  CHECK(bulk.peak_growers > 1);
  CHECK(bulk.peak_growers < 64);  // ceil(4096 / 64) batches: the paper's theoretical maximum
  CHECK(counting.peak_growers == 1);
  CHECK(counting.rounds > 4 * bulk.rounds);  // 64 growths of 1003 rounds in turn, against overlap
}
