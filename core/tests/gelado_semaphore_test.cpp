// Gelado & Garland's bulk semaphore (PPoPP'19, Alg. 1-2) and counting semaphore (§3.2): the
// word's limits, the readings of the printed typos, try-wait, random interleavings with and
// without failing growers, the bounded runners.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>

#include "alloclab/core/gelado/bulk_semaphore.hpp"
#include "alloclab/core/gelado/counting_semaphore.hpp"
#include "gelado_sim_support.hpp"

using namespace gelado_test;

TEST_CASE("bulk semaphore word: 22/21/21 bits, no bias", "[core][gelado][sem]") {
  CHECK(kMaxBulkUnits == 4194303);  // 2^22 - 1
  CHECK(kMaxBulkExpected == 2097151);
  CHECK(kMaxBulkReserved == 2097151);
  CHECK(word_of(0, 0, 0) == 0);
  CHECK(word_of(kMaxBulkUnits, 0, 0) == 0x3F'FFFFULL);
  CHECK(word_of(0, 1, 0) == 1ULL << 22);
  CHECK(word_of(0, 0, 1) == 1ULL << 43);
  CHECK(word_of(kMaxBulkUnits, kMaxBulkExpected, kMaxBulkReserved) == ~0ULL);  // all 64 bits
  for (const SemCounters c :
       {counters(0, 0, 0), counters(kMaxBulkUnits, 0, 0), counters(0, kMaxBulkExpected, 0),
        counters(0, 0, kMaxBulkReserved),
        counters(kMaxBulkUnits, kMaxBulkExpected, kMaxBulkReserved), counters(12345, 678, 9)}) {
    CHECK(BulkWord::fits(c.count, c.expected, c.reserved));
    CHECK(BulkWord::unpack(BulkWord::pack(c)) == c);
  }
  CHECK_FALSE(BulkWord::fits(-1, 0, 0));  // C never goes below zero here
  CHECK_FALSE(BulkWord::fits(kMaxBulkUnits + 1, 0, 0));
  CHECK_FALSE(BulkWord::fits(0, kMaxBulkExpected + 1, 0));
  CHECK_FALSE(BulkWord::fits(0, 0, kMaxBulkReserved + 1));
}

TEST_CASE("bulk semaphore at its limits", "[core][gelado][sem][limits]") {
  // Signals up to the largest count change C alone.
  std::uint64_t word = word_of(kMaxBulkUnits - 3, 7, 5);
  bulk_signal<A>(word, 3, 0);
  CHECK(BulkWord::unpack(word) == counters(kMaxBulkUnits, 7, 5));
  // One unit more carries into E: C wraps to 0 and E grows by one. One atomic add cannot refuse
  // it, which is why a configuration whose units exceed the count is an input error.
  bulk_signal<A>(word, 1, 0);
  CHECK(BulkWord::unpack(word) == counters(0, 8, 5));
  CHECK(bulk_semaphore_units_error("--pool", 4194303).empty());
  const std::string e = bulk_semaphore_units_error("--pool", 4194304);
  CHECK(e.rfind("--pool: 4194304 units", 0) == 0);
  CHECK(e.find("4194303") != std::string::npos);

  // E full and fully reserved: the grow would pass E's top. The wait ends with
  // counter_overflow before its CAS and leaves the word as it was (nothing is held then).
  word = word_of(0, kMaxBulkExpected, kMaxBulkReserved);
  BulkWait<A> g(1, 4);
  CHECK(g.step(word) == StepStatus::running);
  CHECK(g.step(word) == StepStatus::done);
  CHECK(g.result().outcome == BulkWaitOutcome::counter_overflow);
  CHECK(g.result().cas_attempts == 0);
  CHECK(word == word_of(0, kMaxBulkExpected, kMaxBulkReserved));
  // R: a reserve leaves R <= C + E < N + E, so with N = 1 it can reach R's top but not pass it;
  // with N = 2 it can pass it by one.
  word = word_of(0, kMaxBulkExpected, kMaxBulkReserved - 1);
  BulkWait<A> r1(1, 4);
  r1.step(word);
  CHECK(r1.step(word) == StepStatus::running);  // reserved
  CHECK(BulkWord::unpack(word) == counters(0, kMaxBulkExpected, kMaxBulkReserved));
  word = word_of(1, kMaxBulkExpected, kMaxBulkReserved - 1);  // 1 + E - R = 2 >= 2, C < 2
  BulkWait<A> r2(2, 4);
  r2.step(word);
  CHECK(r2.step(word) == StepStatus::done);
  CHECK(r2.result().outcome == BulkWaitOutcome::counter_overflow);
  CHECK(word == word_of(1, kMaxBulkExpected, kMaxBulkReserved - 1));
  // E: a grow that would pass the top overflows; one that reaches it exactly fits.
  BulkDecision d = bulk_decide(counters(0, kMaxBulkExpected - 2, kMaxBulkExpected - 2), 1, 4);
  CHECK(d.role == BulkRole::grow);
  CHECK_FALSE(d.fits);
  d = bulk_decide(counters(0, kMaxBulkExpected - 3, kMaxBulkExpected - 3), 1, 4);
  CHECK(d.fits);
  CHECK(d.next.expected == kMaxBulkExpected);
  // R at its top (bits 43..63) drops without a borrow from anywhere.
  word = word_of(5, 6, kMaxBulkReserved);
  word += BulkWord::release_delta(2);
  CHECK(BulkWord::unpack(word) == counters(5, 6, kMaxBulkReserved - 2));
}

TEST_CASE("bulk semaphore request checks", "[core][gelado][sem][limits]") {
  CHECK(bulk_semaphore_request_error("--batch", 10, 1, 0) == "--batch: a batch size of 0");
  CHECK(bulk_semaphore_request_error("--batch", 10, 0, 4) == "--batch: a request of 0 units");
  CHECK(bulk_semaphore_request_error("--batch", 10, 3, 2).find("smaller") != std::string::npos);
  CHECK(bulk_semaphore_request_error("--batch", 10, 2, 2).empty());  // B == N: promises nothing
  // Batch 512, N = 1 (UAlloc, Fig. 5): E <= (T - 1) + 511, so T <= 2^21 - 1 - 510.
  CHECK(bulk_semaphore_request_error("-N", 2096641, 1, 512).empty());
  CHECK_FALSE(bulk_semaphore_request_error("-N", 2096642, 1, 512).empty());
  // The paper's 2^20 threads in lockstep fit, with either batch size it uses.
  CHECK(bulk_semaphore_request_error("-N", 1u << 20, 1, 512).empty());
  CHECK(bulk_semaphore_request_error("-N", 1u << 20, 1, 2).empty());
  // Batch 2 (TBuddy): R <= T and E <= T: T = 2^21 - 1 fits, 2^21 does not.
  CHECK(bulk_semaphore_request_error("-N", 2097151, 1, 2).empty());
  CHECK_FALSE(bulk_semaphore_request_error("-N", 2097152, 1, 2).empty());
}

// Alg. 1 prints `else if Sem.C >= I`. With N = 2 and C = 1, reading I as N reserves; any reading
// that lets C = 1 pass (I <= 1) would take 2 units of 1 and leave C = -1.
TEST_CASE("typo: Alg. 1's `C >= I` is C >= N", "[core][gelado][sem][typo]") {
  BulkDecision d = bulk_decide(counters(1, 4, 0), 2, 4);
  CHECK(d.role == BulkRole::reserve);
  CHECK(d.next == counters(1, 4, 2));
  d = bulk_decide(counters(2, 4, 0), 2, 4);
  CHECK(d.role == BulkRole::take);
  CHECK(d.next == counters(0, 4, 0));
  // Hand-worked decisions of the other branches.
  d = bulk_decide(counters(0, 0, 0), 1, 4);  // nothing anywhere: grow, E += B - N
  CHECK(d.role == BulkRole::grow);
  CHECK(d.next == counters(0, 3, 0));
  d = bulk_decide(counters(2, 0, 2), 1, 4);  // two units, both reserved: grow although C >= N
  CHECK(d.role == BulkRole::grow);
  CHECK(d.next == counters(2, 3, 2));
  d = bulk_decide(counters(0, 2, 0), 3, 4);  // N = 3 > expected availability 2: grow by 1
  CHECK(d.role == BulkRole::grow);
  CHECK(d.next == counters(0, 3, 0));
}

// The text says signal adds "the sum of the inputs (I + B)"; Alg. 2 adds N. With N + B, T0's
// signal(3, 3) in Fig. 1(b) would leave C = 6 at (6, 3, 6) and 3 units that no batch brought.
TEST_CASE("typo: signal(N, B) adds N to C, not N + B", "[core][gelado][sem][typo]") {
  std::uint64_t word = word_of(0, 6, 6);
  CHECK(bulk_signal<A>(word, 3, 3) == counters(0, 6, 6));
  CHECK(BulkWord::unpack(word) == counters(3, 3, 6));
  bulk_signal<A>(word, 1, 0);  // a free
  CHECK(BulkWord::unpack(word) == counters(4, 3, 6));
  bulk_grow_failed<A>(word, 1, 4);  // signal(0, B - N)
  CHECK(BulkWord::unpack(word) == counters(4, 0, 6));
}

// §4.2 prints "If this operation returns zero, we allocate a new bin". Alg. 1 returns 0 to the
// thread that took N units and -1 to the grower (§3.3, §4.1 "If the result of wait is -1, it
// allocates a block of order n + 1"). A zero must not grow: it already holds its units.
TEST_CASE("typo: wait returns -1 to the grower, 0 to a taker", "[core][gelado][sem][typo]") {
  CHECK(paper_return_value(BulkWaitOutcome::took) == 0);
  CHECK(paper_return_value(BulkWaitOutcome::grow) == -1);
  std::uint64_t word = word_of(2, 0, 0);
  BulkWait<A> taker(1, 4);
  taker.step(word);
  REQUIRE(taker.step(word) == StepStatus::done);
  CHECK(paper_return_value(taker.result().outcome) == 0);
  CHECK(word == word_of(1, 0, 0));  // its unit came out of C; no promise was made
  word = word_of(0, 0, 0);
  BulkWait<A> grower(1, 4);
  grower.step(word);
  REQUIRE(grower.step(word) == StepStatus::done);
  CHECK(paper_return_value(grower.result().outcome) == -1);
  CHECK(word == word_of(0, 3, 0));  // only the -1 promises a batch
}

TEST_CASE("try-wait: takes when C >= N, never blocks", "[core][gelado][sem][trywait]") {
  std::uint64_t word = word_of(2, 3, 1);
  BulkTryWait<A> a;
  CHECK(a.step(word) == StepStatus::running);
  CHECK(a.step(word) == StepStatus::done);
  CHECK(a.outcome() == TryWaitOutcome::took);
  CHECK(word == word_of(1, 3, 1));  // E and R untouched
  word = word_of(0, 3, 1);
  BulkTryWait<A> empty;
  empty.step(word);
  CHECK(empty.step(word) == StepStatus::done);
  CHECK(empty.outcome() == TryWaitOutcome::empty);
  CHECK(empty.memory_ops() == 1);  // the read only
  CHECK(word == word_of(0, 3, 1));
  // Two try-waits for the last unit: the second loses its CAS and then finds C = 0.
  word = word_of(1, 0, 0);
  BulkTryWait<A> x, y;
  x.step(word);
  y.step(word);
  CHECK(x.step(word) == StepStatus::done);
  CHECK(y.step(word) == StepStatus::spinning);
  CHECK(y.step(word) == StepStatus::done);
  CHECK(x.outcome() == TryWaitOutcome::took);
  CHECK(y.outcome() == TryWaitOutcome::empty);
  CHECK(y.cas_attempts() == 1);
  CHECK(word == word_of(0, 0, 0));
}

// try-wait looks at C only, as printed, and may take a unit reservers were about to take; they
// decide again instead of waiting forever. Hand-worked: T0 grew, T1-T3 reserved, T0's batch
// arrived: (3, 0, 3). A try-wait takes one: (2, 0, 3).
TEST_CASE("try-wait takes reserved units, and the reservers decide again",
          "[core][gelado][sem][trywait]") {
  BulkSim sim(4, 1, 4, SpinExit::covered, 0, 2);
  for (std::size_t i = 0; i < 4; ++i)
    for (int s = 0; s < 2; ++s) sim.turn(i);  // T0 grows; T1-T3 read and reserve
  REQUIRE(sim.word == word_of(0, 3, 3));
  sim.turn(0);  // T0's batch: (3, 0, 3)
  REQUIRE(sim.word == word_of(3, 0, 3));
  BulkTryWait<A> merge;
  merge.step(sim.word);
  REQUIRE(merge.step(sim.word) == StepStatus::done);
  CHECK(sim.word == word_of(2, 0, 3));
  // T1: spin read (C = 2 >= 1: go), release (2, 0, 2), decide: 2 + 0 - 2 < 1: grow (2, 3, 2).
  for (int s = 0; s < 3; ++s) sim.turn(1);
  CHECK(sim.threads[1].grew);
  CHECK(sim.word == word_of(2, 3, 2));
  // T2, T3: spin read, release, take: (1, 3, 1), then (0, 3, 0).
  for (int s = 0; s < 3; ++s) sim.turn(2);
  CHECK(sim.word == word_of(1, 3, 1));
  for (int s = 0; s < 3; ++s) sim.turn(3);
  CHECK(sim.word == word_of(0, 3, 0));
  sim.turn(1);  // T1's batch: (3, 0, 0)
  CHECK(sim.all_finished());
  CHECK(sim.with_units() == 4);
  // 2 batches of 4 = 8 units: 4 threads and the merge hold 5, 3 left.
  CHECK(sim.word == word_of(3, 0, 0));
}

TEST_CASE("counting semaphore: grow with units held, N > 1", "[core][gelado][counting]") {
  // S = 2, wait(3): 3 > 2 >= 0: S <- -1, return 2 (the grower holds 2 units).
  std::uint64_t s = counting_pack(2);
  CountingWait<A> g(3);
  g.step(s);
  REQUIRE(g.step(s) == StepStatus::done);
  CHECK(g.result().outcome == CountingWaitOutcome::grow);
  CHECK(g.result().returned == 2);
  CHECK(counting_unpack(s) == -1);
  // Batch of 4: it needs 1 more, so 3 are left over: signal(4 - 3 + 2 + 1) = signal(4), S = 3.
  CHECK(counting_grow_delivered<A>(s, 3, 4, 2) == -1);
  CHECK(counting_unpack(s) == 3);
  // The same grow failing: S back to 2, as before the wait.
  s = counting_pack(2);
  CountingWait<A> f(3);
  f.step(s);
  f.step(s);
  counting_grow_failed<A>(s, 2);
  CHECK(counting_unpack(s) == 2);
  // A lost CAS to a grower: read 0, the other grows first, the CAS sees -1: back to reading.
  s = counting_pack(0);
  CountingWait<A> x(1), y(1);
  x.step(s);
  y.step(s);
  CHECK(x.step(s) == StepStatus::done);
  CHECK(y.step(s) == StepStatus::spinning);
  CHECK(y.phase() == CountingWaitPhase::read);
  CHECK(y.result().cas_failures == 1);
  CHECK(y.result().blocked_reads == 0);
  CHECK(y.step(s) == StepStatus::spinning);  // reads -1: blocked
  CHECK(y.result().blocked_reads == 1);
}

// With N = 1, T threads, batches of B and no failure, exactly ceil(T / B) threads grow in every
// interleaving: a thread grows only when C + E - R < 1, i.e. when every unit promised or present
// is spoken for by a reservation, so no batch is grown before the previous ones are all spoken
// for, and the last one is grown only for a demand the others cannot cover (§5.1's "number of
// requests over the batch size", reached here because nothing else competes).
TEST_CASE("bulk semaphore: random interleavings grow exactly ceil(T / B) batches",
          "[core][gelado][sem]") {
  std::mt19937_64 gen(19);
  for (int trial = 0; trial < 300; ++trial) {
    const int threads = 2 + static_cast<int>(gen() % 31);
    const std::uint32_t batch = 1 + static_cast<std::uint32_t>(gen() % 6);
    const int latency = static_cast<int>(gen() % 8);
    const SpinExit rule = (trial & 1) ? SpinExit::printed : SpinExit::covered;
    BulkSim sim(threads, 1, batch, rule, latency, 1000);
    for (int s = 0; s < 200000 && !sim.all_finished(); ++s) {
      sim.turn(gen() % static_cast<std::uint64_t>(threads));
      sim.check_invariants();
    }
    REQUIRE(sim.all_finished());
    const std::uint64_t batches = (static_cast<std::uint64_t>(threads) + batch - 1) / batch;
    CHECK(sim.with_units() == static_cast<std::uint64_t>(threads));
    CHECK(sim.growers() == batches);
    CHECK(sim.word == word_of(static_cast<std::int32_t>(batches * batch) - threads, 0, 0));
  }
}

TEST_CASE("bulk semaphore: failing growers release every waiter", "[core][gelado][sem][oom]") {
  std::mt19937_64 gen(7);
  for (int trial = 0; trial < 300; ++trial) {
    const std::uint64_t batches = trial % 3;  // 0, 1 or 2 batches can be had, no more
    const SpinExit rule = (trial & 1) ? SpinExit::printed : SpinExit::covered;
    BulkSim sim(8, 1, 4, rule, static_cast<int>(gen() % 6), batches);
    for (int s = 0; s < 100000 && !sim.all_finished(); ++s) {
      sim.turn(gen() % 8);
      sim.check_invariants();
    }
    REQUIRE(sim.all_finished());  // no waiter hangs on a promise nobody keeps
    // Every unit that arrived went to a thread; every other thread grew and failed.
    CHECK(sim.with_units() == batches * 4);
    CHECK(sim.failed == 8 - batches * 4);
    CHECK(sim.word == word_of(0, 0, 0));
  }
}

TEST_CASE("bulk_wait_bounded: grow, take, out of memory, give up", "[core][gelado][sem]") {
  std::uint64_t word = word_of(0, 0, 0);
  int grows = 0;
  auto grow_ok = [&] {
    ++grows;
    return true;
  };
  auto grow_fails = [] { return false; };
  BulkRunResult g = bulk_wait_bounded<A>(word, 1, 4, grow_ok, 100);
  CHECK(g.wait.outcome == BulkWaitOutcome::grow);
  CHECK(g.has_units);
  CHECK(grows == 1);
  CHECK(word == word_of(3, 0, 0));  // the runner signalled (3, 3)
  BulkRunResult t = bulk_wait_bounded<A>(word, 1, 4, grow_ok, 100);
  CHECK(t.wait.outcome == BulkWaitOutcome::took);
  CHECK(word == word_of(2, 0, 0));
  std::uint64_t empty = word_of(0, 0, 0);
  BulkRunResult f = bulk_wait_bounded<A>(empty, 1, 4, grow_fails, 100);
  CHECK(f.wait.outcome == BulkWaitOutcome::grow);
  CHECK_FALSE(f.has_units);
  CHECK(empty == word_of(0, 0, 0));  // the promise was withdrawn
  // A promise nobody keeps (another grower, never delivering): the bound ends the wait and its
  // reservation is dropped. 50 steps: read, CAS (reserve), 48 spin reads that keep waiting.
  std::uint64_t stuck = word_of(0, 3, 0);
  BulkRunResult u = bulk_wait_bounded<A>(stuck, 1, 4, grow_ok, 50);
  CHECK(u.wait.outcome == BulkWaitOutcome::gave_up);
  CHECK(u.wait.reserve_spins == 48);
  CHECK(stuck == word_of(0, 3, 0));
  // The counting semaphore's runner: S = -1 (a grower at work) blocks until the bound.
  std::uint64_t s = counting_pack(-1);
  CountingRunResult c = counting_wait_bounded<A>(s, 1, 4, grow_ok, 10);
  CHECK(c.wait.outcome == CountingWaitOutcome::gave_up);
  CHECK(c.wait.blocked_reads == 10);
  CHECK(counting_unpack(s) == -1);
  s = counting_pack(0);
  c = counting_wait_bounded<A>(s, 1, 4, grow_ok, 10);
  CHECK(c.has_units);
  CHECK(counting_unpack(s) == 3);
}

// alloclab's rules for TBuddy's trees (tbuddy.hpp: no spurious null), hand-worked: T1 reserved
// a promised unit, (0, 1, 1); the grower delivers it, (1, 0, 1). The reserver takes it and drops
// R in one CAS, and a merge's try-wait between T1's spin read and its CAS finds the unit owed
// (C - R = 0) instead of taking it; as printed (count only) it would take it.
TEST_CASE("TBuddy's rules: a try-wait leaves reserved units, a reserver takes in one CAS",
          "[core][gelado][sem][trywait]") {
  std::uint64_t word = word_of(0, 1, 0);
  BulkWait<A> t1(1, 2);
  t1.take_reserved_in_one_cas();
  CHECK(t1.step(word) == StepStatus::running);  // read
  CHECK(t1.step(word) == StepStatus::running);  // reserve
  CHECK(word == word_of(0, 1, 1));
  CHECK(t1.step(word) == StepStatus::spinning);  // C = 0: keep waiting
  bulk_signal<A>(word, 1, 1);                    // the grower's unit arrives
  REQUIRE(word == word_of(1, 0, 1));
  CHECK(t1.step(word) == StepStatus::running);  // spin read: C >= 1, take next
  BulkTryWait<A> merge(1, TryWaitRule::unreserved);
  merge.step(word);
  CHECK(merge.step(word) == StepStatus::done);
  CHECK(merge.outcome() == TryWaitOutcome::empty);
  CHECK(word == word_of(1, 0, 1));
  BulkTryWait<A> printed;  // the printed try-wait would have taken T1's unit
  std::uint64_t copy = word;
  printed.step(copy);
  printed.step(copy);
  CHECK(printed.outcome() == TryWaitOutcome::took);
  CHECK(t1.step(word) == StepStatus::done);  // C -= 1 and R -= 1 in one CAS
  CHECK(t1.result().outcome == BulkWaitOutcome::took);
  CHECK(t1.result().releases == 0);
  CHECK(word == word_of(0, 0, 0));
  // A unit nobody reserved: the unreserved try-wait takes it, E and R untouched.
  word = word_of(2, 3, 1);
  BulkTryWait<A> free_unit(1, TryWaitRule::unreserved);
  free_unit.step(word);
  CHECK(free_unit.step(word) == StepStatus::done);
  CHECK(free_unit.outcome() == TryWaitOutcome::took);
  CHECK(word == word_of(1, 3, 1));
}
