// Gelado & Garland's Fig. 1 (PPoPP'19): 8 threads, each waiting for 1 unit, batch 4, from an
// empty semaphore; (a) the counting semaphore, (b) the bulk semaphore. The figure's data are not
// in the text we hold, so each trace follows the paper's prose about it (§3.2 for (a), §3.3 for
// (b)) and Alg. 1-2, worked by hand step by step; every counter and every return is asserted.
// Then the grower-failure case on (b)'s state: both growers fail.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "alloclab/core/gelado/bulk_semaphore.hpp"
#include "alloclab/core/gelado/counting_semaphore.hpp"
#include "gelado_sim_support.hpp"

using namespace gelado_test;

namespace {

// Eight waits for 1 unit with batches of 4, with the default spin rule unless one is named.
std::vector<BulkWait<A>> bulk_threads() {
  return std::vector<BulkWait<A>>(8, BulkWait<A>(1, 4));
}
std::vector<BulkWait<A>> bulk_threads(SpinExit rule) {
  return std::vector<BulkWait<A>>(8, BulkWait<A>(1, 4, rule));
}

}  // namespace

TEST_CASE("Fig. 1(a): counting semaphore, 8 threads, batch 4", "[core][gelado][fig1]") {
  std::uint64_t s = counting_pack(0);
  std::vector<CountingWait<A>> t(8, CountingWait<A>(1));
  auto expect = [&](int i, StepStatus status, std::int64_t value) {
    CHECK(t[i].step(s) == status);
    CHECK(counting_unpack(s) == value);
  };
  // "The first thread calling wait (Thread #0 in the figure), sets its value to -1 and receives 0
  // as a return value": read S = 0, CAS 0 -> -1.
  expect(0, StepStatus::running, 0);
  expect(0, StepStatus::done, -1);
  CHECK(t[0].result().outcome == CountingWaitOutcome::grow);
  CHECK(t[0].result().returned == 0);
  // "All other threads block on the wait operation": each reads S = -1.
  for (int i = 1; i < 8; ++i) expect(i, StepStatus::spinning, -1);
  // The queueing claim in miniature: when T0's batch arrives, 7 threads wait for 4 units.
  int blocked = 0;
  for (int i = 1; i < 8; ++i) blocked += t[i].result().blocked_reads == 1;
  CHECK(blocked == 7);
  // "Once Thread #0 allocates the new batch, it executes a signal(4) operation": S = -1 + 4.
  CHECK(counting_grow_delivered<A>(s, 1, 4, 0) == -1);
  CHECK(counting_unpack(s) == 3);
  // "... and wakes up Threads #1-4": T1-T3 take one unit each (return N = 1).
  for (int i = 1; i <= 3; ++i) {
    expect(i, StepStatus::running, 4 - i);
    expect(i, StepStatus::done, 3 - i);
    CHECK(t[i].result().outcome == CountingWaitOutcome::took);
    CHECK(t[i].result().returned == 1);
  }
  // "Notice that Thread #4 gets 0 as return value, so it allocates a new batch."
  expect(4, StepStatus::running, 0);
  expect(4, StepStatus::done, -1);
  CHECK(t[4].result().outcome == CountingWaitOutcome::grow);
  CHECK(t[4].result().returned == 0);
  // T5-T7 stay blocked until T4's batch arrives.
  for (int i = 5; i < 8; ++i) expect(i, StepStatus::spinning, -1);
  CHECK(counting_grow_delivered<A>(s, 1, 4, 0) == -1);
  CHECK(counting_unpack(s) == 3);
  for (int i = 5; i < 8; ++i) {
    expect(i, StepStatus::running, 8 - i);
    expect(i, StepStatus::done, 7 - i);
    CHECK(t[i].result().returned == 1);
  }
  CHECK(counting_unpack(s) == 0);  // 2 batches of 4 = 8 units, 8 taken
  // Memory operations: T0 read + CAS; T1 a blocked read, read, CAS; T5 two blocked reads more.
  CHECK(t[0].result().memory_ops == 2);
  CHECK(t[1].result().memory_ops == 3);
  CHECK(t[5].result().memory_ops == 4);
  CHECK(t[5].result().blocked_reads == 2);
}

TEST_CASE("Fig. 1(b): bulk semaphore, 8 threads, wait(1, 4)", "[core][gelado][fig1]") {
  std::uint64_t word = word_of(0, 0, 0);
  auto t = bulk_threads();
  auto expect = [&](int i, StepStatus status, SemCounters after) {
    CHECK(t[i].step(word) == status);
    CHECK(BulkWord::unpack(word) == after);
  };
  // "Thread #0 executes a wait(1, 4) operation, which sets the expected count to 3, and returns
  // -1": C + E - R = 0 < 1, E += B - N.
  expect(0, StepStatus::running, counters(0, 0, 0));
  expect(0, StepStatus::done, counters(0, 3, 0));
  CHECK(t[0].result().outcome == BulkWaitOutcome::grow);
  CHECK(paper_return_value(t[0].result().outcome) == -1);
  // "Threads #1-#3 execute wait operations over the semaphore, which increment the reserved
  // count from zero to three": 0 + 3 - R >= 1 and C = 0 < 1, so each reserves, then waits.
  for (std::uint32_t i = 1; i <= 3; ++i) {
    expect(i, StepStatus::running, counters(0, 3, i - 1));
    expect(i, StepStatus::running, counters(0, 3, i));
    expect(i, StepStatus::spinning, counters(0, 3, i));  // C < 1 and R <= C + E: keep waiting
  }
  // "When Thread #4 executes a wait operation, all expected resources have been reserved and,
  // thus, the thread increments the expected count": 0 + 3 - 3 < 1, E = 3 + 3, while T0 still
  // grows (two batches on their way at once; in (a) T4 could not grow before T0's signal).
  expect(4, StepStatus::running, counters(0, 3, 3));
  expect(4, StepStatus::done, counters(0, 6, 3));
  CHECK(paper_return_value(t[4].result().outcome) == -1);
  // T5-T7 reserve T4's promised units: 0 + 6 - R >= 1, R = 4, 5, 6, and wait (R <= C + E).
  for (std::uint32_t i = 5; i <= 7; ++i) {
    expect(i, StepStatus::running, counters(0, 6, i - 2));
    expect(i, StepStatus::running, counters(0, 6, i - 1));
    expect(i, StepStatus::spinning, counters(0, 6, i - 1));
  }
  // T0's batch of 4: it keeps 1, signal(3, 3) (Alg. 2: C += N, E -= B).
  CHECK(bulk_grow_delivered<A>(word, 1, 4) == counters(0, 6, 6));
  CHECK(BulkWord::unpack(word) == counters(3, 3, 6));
  // T1-T3: spin read sees C >= 1, drop R, decide from the word the add left: take (return 0).
  for (std::int32_t i = 1; i <= 3; ++i) {
    const std::uint32_t r = 6 - static_cast<std::uint32_t>(i) + 1;  // R before T_i drops its own
    expect(i, StepStatus::running, counters(4 - i, 3, r));
    expect(i, StepStatus::running, counters(4 - i, 3, r - 1));
    expect(i, StepStatus::done, counters(3 - i, 3, r - 1));
    CHECK(t[i].result().outcome == BulkWaitOutcome::took);
    CHECK(paper_return_value(t[i].result().outcome) == 0);
  }
  // T5 finds C = 0 and R = 3 <= 0 + 3: T4's units are still to come; it keeps waiting.
  expect(5, StepStatus::spinning, counters(0, 3, 3));
  CHECK(bulk_grow_delivered<A>(word, 1, 4) == counters(0, 3, 3));
  CHECK(BulkWord::unpack(word) == counters(3, 0, 3));
  for (std::int32_t i = 5; i <= 7; ++i) {
    const std::uint32_t r = static_cast<std::uint32_t>(8 - i);
    expect(i, StepStatus::running, counters(8 - i, 0, r));
    expect(i, StepStatus::running, counters(8 - i, 0, r - 1));
    expect(i, StepStatus::done, counters(7 - i, 0, r - 1));
    CHECK(paper_return_value(t[i].result().outcome) == 0);
  }
  CHECK(word == word_of(0, 0, 0));  // 2 batches of 4: 2 kept by the growers, 6 taken
  // Two growers: the paper's bound, requests / batch size = 8 / 4.
  int growers = 0;
  for (const auto& w : t) growers += w.result().outcome == BulkWaitOutcome::grow;
  CHECK(growers == 2);
  // T1: read, CAS (reserve), spin, spin (leave), release, CAS (take).
  CHECK(t[1].result().memory_ops == 6);
  CHECK(t[1].result().cas_attempts == 2);
  CHECK(t[1].result().reserves == 1);
  CHECK(t[1].result().releases == 1);
  CHECK(t[1].result().reserve_spins == 1);
  CHECK(t[5].result().reserve_spins == 2);
  CHECK(t[0].result().memory_ops == 2);
}

// The printed spin rule (`R < C + E`) lets T3 go at R = E = 3, the state the figure shows as
// waiting; in this interleaving T4 then finds R = 2, reserves, and T3 becomes the second grower:
// the figure's roles for T3 and T4 swap. Hence SpinExit::covered as the default.
TEST_CASE("Fig. 1(b) under the printed spin rule: T3 leaves at R == C + E",
          "[core][gelado][fig1]") {
  std::uint64_t word = word_of(0, 0, 0);
  auto t = bulk_threads(SpinExit::printed);
  t[0].step(word);
  t[0].step(word);
  for (int i = 1; i <= 3; ++i) {
    t[i].step(word);
    t[i].step(word);
  }
  REQUIRE(word == word_of(0, 3, 3));
  // Spin read: R = 3 < 0 + 3 is false, so T3 leaves, although nothing arrived (a spin for the
  // caller's back-off).
  CHECK(t[3].step(word) == StepStatus::spinning);
  CHECK(t[3].phase() == BulkWaitPhase::release);
  CHECK(t[3].step(word) == StepStatus::running);  // release
  CHECK(word == word_of(0, 3, 2));
  CHECK(t[4].step(word) == StepStatus::running);  // reads (0, 3, 2)
  CHECK(t[4].step(word) == StepStatus::running);  // 0 + 3 - 2 >= 1: reserve
  CHECK(word == word_of(0, 3, 3));
  CHECK(t[3].step(word) == StepStatus::spinning);  // its CAS expected (0, 3, 2): lost
  CHECK(t[3].step(word) == StepStatus::done);      // from (0, 3, 3): grow
  CHECK(t[3].result().outcome == BulkWaitOutcome::grow);
  CHECK(word == word_of(0, 6, 3));
  CHECK(t[3].result().reserves == 1);
  CHECK(t[3].result().releases == 1);
  CHECK(t[4].phase() == BulkWaitPhase::spin);
}

// Both growers of Fig. 1(b) fail (memory is exhausted): each withdraws its promise,
// signal(0, B - N). Every reserver leaves its spin on its next read, and every thread ends by
// growing and failing itself, since no unit ever arrives.
TEST_CASE("Fig. 1(b) with failing growers: every waiter leaves", "[core][gelado][fig1][oom]") {
  BulkSim sim(8, 1, 4, SpinExit::covered, 0, 0);
  auto step_until_blocked = [&](std::size_t i) {
    while (!sim.threads[i].finished && !sim.threads[i].grew &&
           sim.threads[i].wait.phase() != BulkWaitPhase::spin)
      sim.turn(i);
    if (sim.threads[i].wait.phase() == BulkWaitPhase::spin) sim.turn(i);  // one spin read
  };
  for (std::size_t i = 0; i < 8; ++i) step_until_blocked(i);
  REQUIRE(sim.word == word_of(0, 6, 6));  // Fig. 1(b)'s state before T0's batch
  sim.check_invariants();
  const std::vector<std::size_t> reservers{1, 2, 3, 5, 6, 7};
  sim.turn(0);  // T0's growth fails: signal(0, 3)
  CHECK(sim.threads[0].finished);
  CHECK_FALSE(sim.threads[0].has_units);
  CHECK(sim.word == word_of(0, 3, 6));
  // Round 1: R = 6 > 0 + 3 = C + E: each reserver's spin read lets it go.
  for (std::size_t i : reservers) {
    sim.turn(i);
    CHECK(sim.threads[i].wait.phase() == BulkWaitPhase::release);
    sim.check_invariants();
  }
  // Round 2: each drops R: 5, 4, 3, 2, 1, 0.
  std::uint32_t r = 6;
  for (std::size_t i : reservers) {
    sim.turn(i);
    CHECK(sim.word == word_of(0, 3, --r));
  }
  // Round 3: T1, T2, T3, T5, T6 CAS with the word their release left, all stale; T7's is
  // current: 0 + 3 - 0 >= 1, C = 0: it reserves T4's units again.
  for (std::size_t i : reservers) sim.turn(i);
  CHECK(sim.word == word_of(0, 3, 1));
  for (std::size_t i : {1u, 2u, 3u, 5u, 6u}) CHECK(sim.threads[i].wait.result().cas_failures == 1);
  CHECK(sim.threads[7].wait.phase() == BulkWaitPhase::spin);
  sim.turn(4);  // T4's growth fails too: signal(0, 3)
  CHECK(sim.word == word_of(0, 0, 1));
  // From here every thread must grow to leave, and fail. Round robin until all are done.
  int rounds = 0;
  for (; rounds < 1000 && !sim.all_finished(); ++rounds)
    for (std::size_t i = 0; i < 8; ++i) {
      sim.turn(i);
      sim.check_invariants();
    }
  REQUIRE(sim.all_finished());
  CHECK(sim.failed == 8);
  CHECK(sim.growers() == 8);
  CHECK(sim.with_units() == 0);
  CHECK(sim.word == word_of(0, 0, 0));
  // The bound, worked by hand. After T4's failure (word (0, 0, 1)): round 1, T1-T3, T5, T6 lose
  // their CAS (they expected (0, 3, 0)) and T7's spin read sees R = 1 > 0 + 0; round 2, T1
  // grows from (0, 0, 1), T2-T6 lose again, T7 drops R; round 3, T1's growth fails and everybody
  // else loses a CAS; then each of T2, T3, T5, T6, T7 in turn grows in one round and fails in
  // the next while the rest lose their CAS twice: 3 + 2 * 5 = 13 rounds.
  CHECK(rounds == 13);
  // T7: read, CAS (reserve), 2 spin reads, release, CAS (reserve again), then spin read,
  // release, 9 lost CAS and its own grow: 18 steps, the most of any thread.
  CHECK(sim.threads[7].steps == 18);
  for (const auto& t : sim.threads) CHECK(t.steps <= 18);
}
