// Ouroboros' bulk semaphore (Winter et al., ICS'20, Alg. 2): packing, the CAS-loop decision, the
// step machine under hand-worked and random interleavings, and out of memory.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <vector>

#include "alloclab/core/ouroboros/bulk_semaphore.hpp"
#include "alloclab/core/ouroboros/host_atomics.hpp"
#include "alloclab/core/ouroboros/page_queue.hpp"

using namespace alloclab::ouro;

namespace {

using A = HostAtomics;

SemCounters counters(std::int32_t c, std::uint32_t e, std::uint32_t r) {
  SemCounters s;
  s.count = c;
  s.expected = e;
  s.reserved = r;
  return s;
}
std::uint64_t word_of(std::int32_t c, std::uint32_t e, std::uint32_t r) {
  return sem_pack(counters(c, e, r));
}

// One simulated thread of a step-by-step driver: its wait and, while it is the grower, the
// rounds its chunk allocation still takes.
struct SimThread {
  SemaphoreWait<A> wait;
  int alloc_rounds_left = -1;
};

// A lockstep driver: turn(i) gives simulated thread i one step. A grower's chunk allocation
// takes `alloc_latency` of its turns, then in one turn it either signals (#pages, #pages) and
// goes on (while `chunks_left` > 0) or fails.
struct SemSim {
  std::uint64_t word = sem_pack(SemCounters{});
  std::vector<SimThread> threads;
  std::uint32_t n, pages;
  int alloc_latency;
  std::uint64_t chunks_left;
  std::uint64_t signalled_chunks = 0;
  std::uint64_t turns = 0;

  SemSim(int thread_count, std::uint32_t n_, std::uint32_t pages_, SpinExit rule, int latency,
         std::uint64_t chunks)
      : n(n_), pages(pages_), alloc_latency(latency), chunks_left(chunks) {
    for (int i = 0; i < thread_count; ++i)
      threads.push_back(SimThread{SemaphoreWait<A>(n, pages, rule), -1});
  }

  bool done(int i) const { return threads[i].wait.phase() == WaitPhase::done; }
  bool all_done() const {
    for (std::size_t i = 0; i < threads.size(); ++i)
      if (!done(static_cast<int>(i))) return false;
    return true;
  }
  void turn(int i) {
    ++turns;
    SimThread& t = threads[i];
    if (t.wait.phase() == WaitPhase::done) return;
    if (t.wait.phase() == WaitPhase::await_chunk) {
      if (t.alloc_rounds_left > 0) {
        --t.alloc_rounds_left;
        return;
      }
      t.alloc_rounds_left = -1;
      if (chunks_left > 0) {
        --chunks_left;
        ++signalled_chunks;
        sem_signal<A>(word, pages, pages);  // the paper's allocChunk signals (Alg. 4 line 4)
        t.wait.chunk_allocated();
      } else {
        t.wait.chunk_failed();
      }
      return;
    }
    if (t.wait.step(word) == WaitStatus::need_chunk) t.alloc_rounds_left = alloc_latency;
  }
  std::uint64_t count_outcome(WaitOutcome o) const {
    std::uint64_t k = 0;
    for (const auto& t : threads) k += t.wait.result().outcome == o;
    return k;
  }
  std::uint64_t growers() const {
    std::uint64_t k = 0;
    for (const auto& t : threads) k += t.wait.result().grows;
    return k;
  }
  std::uint64_t in_phase(WaitPhase p) const {
    std::uint64_t k = 0;
    for (const auto& t : threads) k += t.wait.phase() == p;
    return k;
  }
  // The word against a reference kept from the threads' phases, not from the word:
  //   E = #pages per grower whose promise is open (allocating, or about to withdraw it),
  //   R = N per thread holding a reservation (waiting, or about to drop it),
  //   C = pages signalled - N per unit taken - N per fast-path miss not yet undone.
  void check_invariants() const {
    const SemCounters c = sem_unpack(word);
    const std::uint64_t open_promises =
        in_phase(WaitPhase::await_chunk) + in_phase(WaitPhase::grow_undo);
    REQUIRE(c.expected == pages * open_promises);
    REQUIRE(c.reserved == n * (in_phase(WaitPhase::spin) + in_phase(WaitPhase::release)));
    const std::int64_t count = static_cast<std::int64_t>(pages * signalled_chunks) -
                               static_cast<std::int64_t>(n * count_outcome(WaitOutcome::ok)) -
                               static_cast<std::int64_t>(n * in_phase(WaitPhase::fast_undo));
    REQUIRE(c.count == count);
  }
};

}  // namespace

TEST_CASE("bulk semaphore packs 21-bit fields with a 2^19 count bias", "[core][ouro][sem]") {
  CHECK(kMaxUnits == 1572863);    // 2^21 - 2^19 - 1
  CHECK(kMaxUnits >= (1 << 20));  // the 2^20 pages of 16 B of the paper's benchmark fit
  CHECK(kSemMaxField == 2097151u);
  // Zero counters: only the bias, 2^19, in the count field.
  CHECK(word_of(0, 0, 0) == 0x80000ULL);
  // The lowest count is the bias cancelled: an all-zero word.
  CHECK(word_of(-(1 << 19), 0, 0) == 0);
  // Every field at its top: 63 one bits (bit 63 stays clear).
  CHECK(word_of(1572863, (1u << 21) - 1, (1u << 21) - 1) == 0x7FFF'FFFF'FFFF'FFFFULL);
  // E at bit 21, R at bit 42.
  CHECK(word_of(0, 1, 0) == 0x80000ULL + (1ULL << 21));
  CHECK(word_of(0, 0, 1) == 0x80000ULL + (1ULL << 42));
  for (const SemCounters c :
       {counters(-(1 << 19), 0, 0), counters(1572863, 0, 0),
        counters(-(1 << 19), (1u << 21) - 1, (1u << 21) - 1),
        counters(1572863, (1u << 21) - 1, (1u << 21) - 1), counters(-7, 12345, 999)}) {
    CHECK(sem_fits(c.count, c.expected, c.reserved));
    CHECK(sem_unpack(sem_pack(c)) == c);
  }
  // One past each end does not fit.
  CHECK_FALSE(sem_fits(1572864, 0, 0));
  CHECK_FALSE(sem_fits(-(1 << 19) - 1, 0, 0));
  CHECK_FALSE(sem_fits(0, 1 << 21, 0));
  CHECK_FALSE(sem_fits(0, 0, 1 << 21));
  CHECK_FALSE(sem_fits(0, -1, 0));
}

TEST_CASE("bulk semaphore word deltas change only their field", "[core][ouro][sem]") {
  // signal(4, 4) on C=0, E=4, R=3: C=4, E=0 (Alg. 2 lines 23-24), R untouched.
  CHECK(word_of(0, 4, 3) + sem_signal_delta(4, 4) == word_of(4, 0, 3));
  // A free: signal(1, 0).
  CHECK(word_of(2, 8, 1) + sem_signal_delta(1, 0) == word_of(3, 8, 1));
  // A failed grower withdraws its promise: signal(0, #pages).
  CHECK(word_of(0, 8, 5) + sem_signal_delta(0, 4) == word_of(0, 4, 5));
  // The fast path's subtraction may take C below zero without borrowing from E.
  CHECK(word_of(0, 5, 2) + sem_count_delta(-1) == word_of(-1, 5, 2));
  CHECK(word_of(-3, 5, 2) + sem_count_delta(3) == word_of(0, 5, 2));
  // Line 20: R -= N.
  CHECK(word_of(0, 4, 3) + sem_release_delta(2) == word_of(0, 4, 1));
}

TEST_CASE("bulk semaphore CAS-loop decision on hand-worked counters", "[core][ouro][sem]") {
  struct Case {
    SemCounters in;
    std::uint32_t n, pages;
    SemRole role;
    SemCounters out;
  };
  const Case cases[] = {
      // C >= N and enough expected availability: take.
      {counters(3, 0, 0), 1, 4, SemRole::take, counters(2, 0, 0)},
      {counters(5, 0, 0), 3, 4, SemRole::take, counters(2, 0, 0)},
      // Nothing anywhere: grow, E += #pages (not #pages - N: the grower keeps none).
      {counters(0, 0, 0), 1, 4, SemRole::grow, counters(0, 4, 0)},
      // A chunk is on its way and nobody has reserved it: reserve.
      {counters(0, 4, 0), 1, 4, SemRole::reserve, counters(0, 4, 1)},
      // All of the promised chunk is reserved: 0 + 4 - 4 < 1, grow another.
      {counters(0, 4, 4), 1, 4, SemRole::grow, counters(0, 8, 4)},
      // Two pages here, but two reservers hold them: 2 + 0 - 2 < 1, grow although C >= N.
      {counters(2, 0, 2), 1, 4, SemRole::grow, counters(2, 4, 2)},
      // 1 + 4 - 3 = 2 >= N = 2 but C = 1 < 2: reserve 2.
      {counters(1, 4, 3), 2, 4, SemRole::reserve, counters(1, 4, 5)},
      // A fast-path miss in flight (C = -1) hides a page: -1 + 4 - 3 = 0 < 1, grow.
      {counters(-1, 4, 3), 1, 4, SemRole::grow, counters(-1, 8, 3)},
  };
  for (const Case& c : cases) {
    const SemDecision d = sem_decide(c.in, c.n, c.pages);
    CHECK(d.role == c.role);
    CHECK(d.next == c.out);
    CHECK(d.fits);
    CHECK(d.word == sem_pack(c.out));
  }
  // E less than a chunk short of its top, all of it reserved: growing would carry into R, so
  // the decision says it does not fit.
  const SemDecision over = sem_decide(counters(0, kSemMaxField - 3, kSemMaxField - 3), 1, 4);
  CHECK(over.role == SemRole::grow);
  CHECK_FALSE(over.fits);
  const SemDecision top = sem_decide(counters(0, kSemMaxField - 4, kSemMaxField - 4), 1, 4);
  CHECK(top.role == SemRole::grow);
  CHECK(top.fits);
  CHECK(top.next.expected == kSemMaxField);
}

TEST_CASE("bulk semaphore spin exit: printed and covered rules", "[core][ouro][sem]") {
  // Alg. 2 line 17: keep waiting while C < N and R < C + E.
  CHECK(sem_keep_waiting(counters(0, 4, 3), 1, SpinExit::printed));
  // Every promised page reserved: the printed rule lets the reservers go (R == C + E).
  CHECK_FALSE(sem_keep_waiting(counters(0, 4, 4), 1, SpinExit::printed));
  CHECK(sem_keep_waiting(counters(0, 4, 4), 1, SpinExit::covered));
  // More reserved than promised (a grower withdrew): both rules let them go.
  CHECK_FALSE(sem_keep_waiting(counters(0, 3, 4), 1, SpinExit::covered));
  // A page arrived: go.
  CHECK_FALSE(sem_keep_waiting(counters(1, 4, 4), 1, SpinExit::covered));
  CHECK(sem_keep_waiting(counters(1, 4, 4), 2, SpinExit::covered));
}

TEST_CASE("bulk semaphore range checks name the limit", "[core][ouro][sem]") {
  CHECK(bulk_semaphore_units_error("--queue-capacity", 1572863).empty());
  const std::string e = bulk_semaphore_units_error("--queue-capacity", 1572864);
  CHECK(e.rfind("--queue-capacity: 1572864", 0) == 0);
  CHECK(e.find("1572863") != std::string::npos);
  // The paper's evaluation used queues of 2,000,000 entries.
  CHECK_FALSE(bulk_semaphore_units_error("--queue-capacity", 2000000).empty());
  // 2^19 waiters of one unit fill the bias exactly; one more does not fit.
  CHECK(bulk_semaphore_concurrency_error("--N", 1u << 19, 1, 4).empty());
  CHECK_FALSE(bulk_semaphore_concurrency_error("--N", (1u << 19) + 1, 1, 4).empty());
  // E bound: 1 + 2 * 2^19 + 2^20 - 1 = 2^21 > 2^21 - 1.
  CHECK_FALSE(bulk_semaphore_concurrency_error("--N", 1u << 19, 1, 1u << 20).empty());
  CHECK(bulk_semaphore_concurrency_error("--N", 1u << 19, 1, (1u << 20) - 1).empty());
  CHECK(bulk_semaphore_concurrency_error("--N", 10, 1, 1u << 21).find("--N: 2097152 pages") == 0);
}

TEST_CASE("bulk semaphore: Fig. 1 trace, 8 threads, 4 pages per chunk, one at a time",
          "[core][ouro][sem]") {
  // Each thread runs until it blocks (as in Gelado & Garland's Fig. 1(b), batch 4). With the
  // covered spin rule a reserver stays blocked; see the next test for the printed one.
  SemSim sim(8, 1, 4, SpinExit::covered, 0, 100);
  auto run_until_blocked = [&](int i) {
    for (int s = 0; s < 100; ++s) {
      const WaitPhase before = sim.threads[i].wait.phase();
      if (before == WaitPhase::done || before == WaitPhase::await_chunk) return;
      if (sim.threads[i].wait.step(sim.word) == WaitStatus::spinning) return;
      sim.check_invariants();
    }
    FAIL("thread did not block");
  };
  run_until_blocked(0);  // C + E - R = 0 < 1: T0 grows, E = 4
  CHECK(sim.word == word_of(0, 4, 0));
  for (int i = 1; i <= 4; ++i) run_until_blocked(i);  // four reservers cover the chunk
  CHECK(sim.word == word_of(0, 4, 4));
  // T5 sees 0 + 4 - 4 < 1 and grows at once. (In Gelado & Garland's version T0 keeps one of
  // its batch, E = 3, and T4 is the second grower; here the grower keeps none.)
  run_until_blocked(5);
  CHECK(sim.threads[5].wait.phase() == WaitPhase::await_chunk);
  CHECK(sim.word == word_of(0, 8, 4));
  run_until_blocked(6);
  run_until_blocked(7);
  CHECK(sim.word == word_of(0, 8, 6));
  for (int i : {1, 2, 3, 4, 6, 7}) CHECK(sim.threads[i].wait.result().role == WaitRole::reserve);
  CHECK(sim.growers() == 2);

  // T0's chunk: signal(4, 4), then T0 competes for a page like everyone (fast path).
  sim.turn(0);
  CHECK(sim.word == word_of(4, 4, 6));
  run_until_blocked(0);
  CHECK(sim.threads[0].wait.result().outcome == WaitOutcome::ok);
  CHECK(sim.word == word_of(3, 4, 6));
  for (int i : {1, 2, 3}) run_until_blocked(i);  // each drops R, takes through the fast path
  CHECK(sim.word == word_of(0, 4, 3));
  run_until_blocked(4);  // no page left, R = 3 <= 4: keeps waiting
  CHECK(sim.threads[4].wait.phase() == WaitPhase::spin);
  sim.turn(5);  // T5's chunk
  CHECK(sim.word == word_of(4, 0, 3));
  for (int i : {5, 4, 6, 7}) run_until_blocked(i);
  CHECK(sim.word == word_of(0, 0, 0));
  CHECK(sim.count_outcome(WaitOutcome::ok) == 8);
  CHECK(sim.growers() == 2);
  // T0: load, CAS (grow), then load and fast-path add.
  CHECK(sim.threads[0].wait.result().cas_attempts == 1);
  CHECK(sim.threads[0].wait.result().memory_ops == 4);
}

TEST_CASE("bulk semaphore: the printed spin rule churns when reservations equal the promise",
          "[core][ouro][sem]") {
  SemSim sim(5, 1, 4, SpinExit::printed, 100, 100);  // T0's chunk takes 100 turns
  for (int i = 0; i < 5; ++i)
    for (int s = 0; s < 3; ++s) sim.turn(i);  // T0 grows; T1..T4 reach R = 4 = C + E
  CHECK(sim.word == word_of(0, 4, 4));
  // T4 read R == C + E, leaves line 17, drops R and reserves again, 3 atomics a round trip,
  // without ever sleeping: 60 steps, 20 round trips, R back at 4 after each.
  const WaitResult before = sim.threads[4].wait.result();
  for (int s = 0; s < 60; ++s) {
    sim.threads[4].wait.step(sim.word);
    sim.check_invariants();
  }
  const WaitResult after = sim.threads[4].wait.result();
  CHECK(after.reserves - before.reserves == 15);  // spin read, release, load, CAS: 4 steps each
  CHECK(after.reserve_spins == before.reserve_spins);
  CHECK(sem_unpack(sim.word).reserved == 4);
  CHECK(sim.threads[0].wait.phase() == WaitPhase::await_chunk);  // nobody was served meanwhile
}

TEST_CASE("bulk semaphore: round-robin lockstep, hand-worked first rounds", "[core][ouro][sem]") {
  for (const SpinExit rule : {SpinExit::printed, SpinExit::covered}) {
    SemSim sim(8, 1, 4, rule, 10, 100);
    auto round = [&] {
      for (int i = 0; i < 8; ++i) {
        sim.turn(i);
        sim.check_invariants();
      }
    };
    round();  // everybody reads C = 0: straight to the CAS with (0, 0, 0)
    CHECK(sim.word == word_of(0, 0, 0));
    round();  // T0's CAS wins (grow); T1..T7 fail and carry (0, 4, 0)
    CHECK(sim.word == word_of(0, 4, 0));
    CHECK(sim.threads[0].wait.result().role == WaitRole::grow);
    for (int i = 3; i <= 6; ++i) round();  // one reserver per round: T1, T2, T3, T4
    CHECK(sim.word == word_of(0, 4, 4));
    round();  // T5 sees 0 + 4 - 4 < 1: the second grower
    CHECK(sim.word == word_of(0, 8, 4));
    CHECK(sim.threads[5].wait.result().role == WaitRole::grow);
    CHECK(sim.threads[5].wait.result().cas_attempts == 6);  // rounds 2..7
    // covered: T6 and T7 reserve in rounds 8 and 9. printed: T1..T4 read R == C + E in round 7
    // and all drop R in round 8 before T6's CAS, which fails; in round 9 they re-read C = 0 and
    // T6 (first in turn order with a CAS due) reserves.
    round();
    round();
    CHECK(sim.word == (rule == SpinExit::covered ? word_of(0, 8, 6) : word_of(0, 8, 1)));
    for (int r = 0; r < 1000 && !sim.all_done(); ++r) round();
    CHECK(sim.all_done());
    CHECK(sim.count_outcome(WaitOutcome::ok) == 8);
    CHECK(sim.growers() == 2);
    CHECK(sim.word == word_of(0, 0, 0));
  }
}

// With N = 1, T threads and chunks of P pages and no failure, exactly ceil(T / P) threads grow in
// every interleaving: once g chunks are promised with g * P >= T, a deciding thread sees
// C + E - R = (units not yet taken) - (misses in flight) - R >= 1, because R counts only other
// unserved threads that are neither deciding nor undoing a miss; before that, T threads cannot
// be served. So the grower count is a property, not a measurement.
TEST_CASE("bulk semaphore: random interleavings grow exactly ceil(T / P) chunks",
          "[core][ouro][sem]") {
  std::mt19937_64 gen(2020);
  for (int trial = 0; trial < 300; ++trial) {
    const int threads = 2 + static_cast<int>(gen() % 31);
    const std::uint32_t pages = 1 + static_cast<std::uint32_t>(gen() % 6);
    const int latency = static_cast<int>(gen() % 8);
    const SpinExit rule = (trial & 1) ? SpinExit::printed : SpinExit::covered;
    SemSim sim(threads, 1, pages, rule, latency, 1000);
    for (int s = 0; s < 200000 && !sim.all_done(); ++s) {
      sim.turn(static_cast<int>(gen() % static_cast<std::uint64_t>(threads)));
      sim.check_invariants();
    }
    REQUIRE(sim.all_done());
    const std::uint64_t chunks = (static_cast<std::uint64_t>(threads) + pages - 1) / pages;
    CHECK(sim.count_outcome(WaitOutcome::ok) == static_cast<std::uint64_t>(threads));
    CHECK(sim.growers() == chunks);
    CHECK(sim.word == word_of(static_cast<std::int32_t>(chunks * pages) - threads, 0, 0));
  }
}

TEST_CASE("bulk semaphore: out of memory releases every waiter", "[core][ouro][sem]") {
  std::mt19937_64 gen(11);
  for (int trial = 0; trial < 200; ++trial) {
    const std::uint64_t chunks = trial % 3;  // 0, 1 or 2 chunks can be had, no more
    const SpinExit rule = (trial & 1) ? SpinExit::printed : SpinExit::covered;
    SemSim sim(8, 1, 4, rule, static_cast<int>(gen() % 6), chunks);
    std::uint64_t turns = 0;
    for (; turns < 100000 && !sim.all_done(); ++turns) {
      sim.turn(static_cast<int>(gen() % 8));
      sim.check_invariants();
    }
    REQUIRE(sim.all_done());  // no waiter hangs on a promise nobody keeps
    // Every page that arrived was taken; everybody else was told out_of_memory.
    const std::uint64_t ok = sim.count_outcome(WaitOutcome::ok);
    CHECK(ok == chunks * 4);
    CHECK(sim.count_outcome(WaitOutcome::out_of_memory) == 8 - ok);
    CHECK(sim.word == word_of(0, 0, 0));
  }
  // Round robin, nothing to be had: each thread grows once, fails, withdraws.
  SemSim sim(8, 1, 4, SpinExit::printed, 2, 0);
  for (int r = 0; r < 200 && !sim.all_done(); ++r)
    for (int i = 0; i < 8; ++i) sim.turn(i);
  CHECK(sim.all_done());
  CHECK(sim.count_outcome(WaitOutcome::out_of_memory) == 8);
  for (const auto& t : sim.threads) CHECK(t.wait.result().grows >= 1);
  CHECK(sim.word == word_of(0, 0, 0));
}

TEST_CASE("bulk semaphore: wait_bounded gives up cleanly", "[core][ouro][sem]") {
  std::uint64_t word = word_of(0, 4, 0);  // a chunk promised by somebody who never delivers
  auto never = [] { return false; };
  const WaitResult r = sem_wait_bounded<A>(word, 1, 4, never, 50, SpinExit::covered);
  CHECK(r.outcome == WaitOutcome::gave_up);
  CHECK(r.role == WaitRole::reserve);
  CHECK(r.reserves == 1);
  CHECK(r.reserve_spins == 48);  // 50 steps: load, CAS (reserve), 48 spin reads that keep waiting
  CHECK(word == word_of(0, 4, 0));  // its reservation was dropped

  // The convenience path end to end: the grower's callback signals its chunk.
  std::uint64_t w2 = sem_pack(SemCounters{});
  int allocations = 0;
  auto alloc = [&] {
    ++allocations;
    sem_signal<A>(w2, 4, 4);
    return true;
  };
  const WaitResult g = sem_wait_bounded<A>(w2, 1, 4, alloc, 100);
  CHECK(g.outcome == WaitOutcome::ok);
  CHECK(g.role == WaitRole::grow);
  CHECK(allocations == 1);
  CHECK(w2 == word_of(3, 0, 0));
  const WaitResult f = sem_wait_bounded<A>(w2, 1, 4, alloc, 100);
  CHECK(f.role == WaitRole::fast_path);
  CHECK(w2 == word_of(2, 0, 0));
  std::uint64_t w3 = sem_pack(SemCounters{});
  CHECK(sem_wait_bounded<A>(w3, 1, 4, never, 100).outcome == WaitOutcome::out_of_memory);
  CHECK(w3 == word_of(0, 0, 0));
}

TEST_CASE("bulk semaphore: the counting policy sees every operation", "[core][ouro][sem]") {
  using C = CountingAtomics<>;
  std::uint64_t word = sem_pack(SemCounters{});
  const AtomicOpCounts before = C::counts();
  auto alloc = [&] {
    sem_signal<C>(word, 4, 4);  // one add
    return true;
  };
  const WaitResult r = sem_wait_bounded<C>(word, 1, 4, alloc, 100);
  const AtomicOpCounts& after = C::counts();
  // Hand count: load (C = 0), CAS (grow), [signal: add], load (C = 4), fast-path add.
  CHECK(after.loads - before.loads == 2);
  CHECK(after.cas - before.cas == 1);
  CHECK(after.fetch_adds - before.fetch_adds == 2);
  CHECK(after.exchanges == before.exchanges);
  CHECK(r.memory_ops == 4);  // the wait's own count leaves the callback's signal out
}

// A CAS that loses its race is reported as a spin (the GPU backs off before it tries again), and
// the next attempt decides from the word that CAS returned, without reading it again.
TEST_CASE("bulk semaphore: a lost CAS is a spin and retries from the word it saw",
          "[core][ouro][sem]") {
  std::uint64_t word = word_of(0, 0, 0);
  SemaphoreWait<A> a(1, 4), b(1, 4);
  REQUIRE(a.step(word) == WaitStatus::running);  // reads C = 0: to the CAS
  REQUIRE(b.step(word) == WaitStatus::running);
  CHECK(a.step(word) == WaitStatus::need_chunk);  // A's CAS: grow, E = 4
  CHECK(b.step(word) == WaitStatus::spinning);    // B's CAS expected (0, 0, 0): lost
  CHECK(b.result().cas_failures == 1);
  CHECK(b.result().memory_ops == 2);
  CHECK(b.step(word) == WaitStatus::running);  // from (0, 4, 0): reserve, R = 1
  CHECK(word == word_of(0, 4, 1));
  CHECK(b.result().memory_ops == 3);
  CHECK(b.result().role == WaitRole::reserve);
}

// The GPU issues a request's first step itself (gpu/src/ouro_page.cu): the fast-path subtraction
// handed to PageReserveOp::fast_sub_issued must leave the operation, its counts and the queue's
// words as its own first step would, on a hit (3 units there) and on a miss (an empty queue: the
// undo, then a grow of one chunk of 32 pages, 256 B).
TEST_CASE("page queue: a fast-path subtraction issued by the caller is the operation's first step",
          "[core][ouro][sem]") {
  struct Queue {
    PageQueueWords words;
    ChunkSourceWords source;
    std::vector<std::uint32_t> slots = std::vector<std::uint32_t>(64, kDeletionMarker);
    std::vector<std::uint32_t> available{7, 8};
    std::vector<std::uint8_t> chunk_class = std::vector<std::uint8_t>(16, 0xff);
    PageQueueRef ref() {
      return PageQueueRef{&words,  slots.data(),     64, 4,
                          &source, available.data(), 2,  chunk_class.data()};
    }
  };
  for (const std::int32_t count : {3, 0}) {
    Queue own_step, issued;
    own_step.words.semaphore = issued.words.semaphore = word_of(count, 0, 0);
    PageReserveOp<A> a(2, 4), b(2, 4);
    OpCounts ca, cb;
    const PageQueueRef qa = own_step.ref(), qb = issued.ref();
    REQUIRE(run_reserve(a, qa, ca, 1000, [](std::uint64_t) { return true; }));
    const std::uint64_t old =
        A::fetch_add(issued.words.semaphore, sem_count_delta(-static_cast<std::int32_t>(2)));
    b.fast_sub_issued(old, cb);
    REQUIRE(run_reserve(b, qb, cb, 1000, [](std::uint64_t) { return true; }));
    CHECK(a.outcome() == ReserveOutcome::ok);
    CHECK(b.outcome() == a.outcome());
    CHECK(b.position() == a.position());
    CHECK(b.role() == a.role());
    CHECK(cb.memory_ops == ca.memory_ops);
    CHECK(cb.atomics == ca.atomics);
    CHECK(cb.failed == ca.failed);
    CHECK(cb.sem_cas == ca.sem_cas);
    CHECK(cb.chunks == ca.chunks);
    CHECK(issued.words.semaphore == own_step.words.semaphore);
    CHECK(issued.words.front == own_step.words.front);
    CHECK(issued.words.back == own_step.words.back);
    CHECK(issued.slots == own_step.slots);
    if (count == 3) {  // a hit: the subtraction and front
      CHECK(ca.memory_ops == 2);
      CHECK(ca.atomics == 2);
    } else {
      CHECK(ca.chunks == 1);
    }
  }
}
