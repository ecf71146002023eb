// Gelado & Garland's bulk semaphore (PPoPP'19, §3.3, Alg. 1-2; try-wait from §4.1), the
// accounting stage of their two-stage resource management: wait(N, B) takes N units, or makes
// the caller the grower of a batch of B units, or reserves N of the units others are growing
// and waits for them. Three counters, C (value), E (expected), R (reserved), in one 64-bit word.
//
// Word layout (the paper gives no widths; alloclab's choice):
//   bits  0..21  C   (unsigned, [0, 2^22): 4,194,303 units at most)
//   bits 22..42  E   (unsigned, [0, 2^21): 2,097,151)
//   bits 43..63  R   (unsigned, [0, 2^21): 2,097,151)
// Unlike Ouroboros' variant (no fast path that subtracts before it checks), C never goes below
// zero here: a thread takes only after it has seen C >= N in the same CAS, and try-wait likewise.
// So the count needs no bias, and it gets the one bit left over: C counts the free units of a
// whole resource (TBuddy's blocks of one order, UAlloc's slots of one size in one arena), while E
// and R only count what threads in flight hold, bounded by the threads resident at once (270,336
// on an H200) and by the simulator's threads in lockstep (2^20 in the paper's largest run, which
// fits 21 bits where 20 would not). The limits, checked as input errors where a configuration
// is read: bulk_semaphore_units_error (C) and bulk_semaphore_request_error (E and R) below.
//
// Everything is a pure function of the word or a step machine that issues at most one memory
// operation per step through the atomics policy `Atomics` (see ouroboros/host_atomics.hpp), as
// in Ouroboros' semaphore: the CPU simulator interleaves simulated threads step by step, and no
// loop here waits on another thread; waiting is a step that reports `spinning`, bounded by the
// caller (bulk_wait_bounded).
//
// Readings of the printed text (studies/gelado-garland/; each is tested in gelado_semaphore_test):
//  * Alg. 1 tests `Sem.C >= I`; I is defined nowhere. Read as `C >= N`, the value the branch
//    then subtracts and the condition the text states ("if the semaphore counter is greater or
//    equal than the decrement value, it decrements the semaphore counter").
//  * The text says signal "increments the semaphore value by the sum of the inputs (I + B)";
//    Alg. 2 adds N to C and subtracts B from E. Alg. 2 is followed: signal(N, B) adds N. Adding
//    N + B would count the grower's batch twice (once in C, once more as E is paid off).
//  * Wait returns -1 to the grower and 0 to a taker (Alg. 1, §3.3, §4.1). §4.2 prints "If this
//    operation returns zero, we allocate a new bin"; read as -1: a zero means N units were taken
//    and the caller must not grow. BulkWaitOutcome::grow is the -1, took the 0.
#pragma once

#include <cstdint>
#include <string>

#include "alloclab/core/hd.hpp"
#include "alloclab/core/semaphore_word.hpp"

namespace alloclab::gelado {

using BulkWord = SemWordLayout<22, 21, 21, 0>;
// The most units C can count: 2^22 - 1 = 4,194,303.
inline constexpr std::int32_t kMaxBulkUnits = BulkWord::kMaxCount;
// The most units E (promised) or R (reserved) can hold: 2^21 - 1 = 2,097,151.
inline constexpr std::uint32_t kMaxBulkExpected = BulkWord::kMaxExpected;
inline constexpr std::uint32_t kMaxBulkReserved = BulkWord::kMaxReserved;

using alloclab::NoBackoff;
using alloclab::SemCounters;
using alloclab::SpinExit;

// One pass of Alg. 1's atomic block (lines 3-12).
enum class BulkRole : std::uint8_t {
  take,     // C >= N: C -= N, return 0
  grow,     // C + E - R < N: E += B - N, return -1 (grow a batch of B, keep N of it)
  reserve,  // otherwise: R += N, wait for promised units
};

struct BulkDecision {
  BulkRole role = BulkRole::take;
  SemCounters next;
  std::uint64_t word = 0;  // BulkWord::pack(next) when fits
  bool fits = true;        // false: E or R would leave its 21 bits; the word is not valid
};

// Precondition: 1 <= n <= batch (bulk_semaphore_request_error checks it).
ALLOCLAB_HD BulkDecision bulk_decide(SemCounters c, std::uint32_t n, std::uint32_t batch) {
  BulkDecision d;
  std::int64_t count = c.count, expected = c.expected, reserved = c.reserved;
  // Expected availability (§3.3): C once every promised unit has arrived and every reservation
  // has been served. Below N, nobody in flight brings this thread its units.
  if (count + expected - reserved < std::int64_t{n}) {
    d.role = BulkRole::grow;
    expected += std::int64_t{batch} - n;  // the grower keeps N of its batch and promises the rest
  } else if (count >= std::int64_t{n}) {  // printed `Sem.C >= I`: read I as N
    d.role = BulkRole::take;
    count -= n;
  } else {
    d.role = BulkRole::reserve;
    reserved += n;
  }
  d.fits = BulkWord::fits(count, expected, reserved);
  d.next.count = static_cast<std::int32_t>(count);
  d.next.expected = static_cast<std::uint32_t>(expected);
  d.next.reserved = static_cast<std::uint32_t>(reserved);
  if (d.fits) d.word = BulkWord::pack(d.next);
  return d;
}

// signal(N, B), Alg. 2: C += N and E -= B as one atomic add. Returns the counters before it.
// A free signals (1, 0); a grower whose batch arrived signals bulk_grow_delivered, one whose
// growth failed bulk_grow_failed. Precondition: C + N <= kMaxBulkUnits (a carry would land in E;
// bulk_semaphore_units_error keeps configurations below it) and E >= B.
template <class Atomics>
ALLOCLAB_HD SemCounters bulk_signal(std::uint64_t& word, std::uint32_t units,
                                    std::uint32_t expected) {
  return BulkWord::unpack(Atomics::fetch_add(word, BulkWord::signal_delta(units, expected)));
}

// The grower's batch of B arrived: it keeps N and hands the rest over, signal(B - N, B - N),
// which pays off exactly the B - N it promised (Fig. 1(b): T0 promised 3 of its 4).
template <class Atomics>
ALLOCLAB_HD SemCounters bulk_grow_delivered(std::uint64_t& word, std::uint32_t n,
                                            std::uint32_t batch) {
  return bulk_signal<Atomics>(word, batch - n, batch - n);
}

// The growth failed. "If the thread fails to add the promised elements, it must also signal the
// condition to the semaphore" (§3.3), which does not say how. Here it withdraws its promise,
// signal(0, B - N): E drops, so every reserver that counted on it sees R > C + E, leaves its
// spin (under either spin rule), drops R and decides again: it takes units that are there,
// reserves units another grower still promises, or grows itself (and meets the failure itself,
// which is the only way it learns of it). No waiter is left waiting on a promise nobody keeps,
// and nothing else changes: no sticky "exhausted" state that a later free would have to clear.
template <class Atomics>
ALLOCLAB_HD SemCounters bulk_grow_failed(std::uint64_t& word, std::uint32_t n,
                                         std::uint32_t batch) {
  return bulk_signal<Atomics>(word, 0, batch - n);
}

// What one step of a wait (either semaphore's) or a try-wait did.
enum class StepStatus : std::uint8_t {
  running,   // made progress; step again
  spinning,  // a waiter read the word and keeps waiting, or a CAS lost a race (back off)
  done,      // the outcome is final
};

enum class BulkWaitOutcome : std::uint8_t {
  pending,
  took,              // Alg. 1 returned 0: N units taken
  grow,              // Alg. 1 returned -1: grow B units, keep N, then bulk_grow_delivered/failed
  gave_up,           // the caller stopped it (a step bound); its reservation was dropped
  counter_overflow,  // E or R would have left 21 bits: a configuration the range checks refuse
};

// The value Alg. 1 returns for an outcome: 0 (took) or -1 (grow); 1 for the others, which the
// paper's wait never ends with.
ALLOCLAB_HD int paper_return_value(BulkWaitOutcome o) {
  return o == BulkWaitOutcome::took ? 0 : o == BulkWaitOutcome::grow ? -1 : 1;
}

struct BulkWaitResult {
  BulkWaitOutcome outcome = BulkWaitOutcome::pending;
  std::uint32_t cas_attempts = 0;   // CAS issued on the atomic block, successful or not
  std::uint32_t cas_failures = 0;   // the CAS found the word changed
  std::uint32_t reserves = 0;       // successful CAS in the reserve role (R += N)
  std::uint32_t releases = 0;       // R -= N after a spin ended
  std::uint32_t reserve_spins = 0;  // spin reads after which the thread kept waiting
  std::uint32_t memory_ops = 0;     // loads and atomics issued by this wait
  std::uint32_t loads = 0;          // the plain reads among them
};

enum class BulkWaitPhase : std::uint8_t {
  read,     // load the word (the top of Alg. 1's loop)
  cas,      // the atomic block: CAS the decided word against the one last seen
  spin,     // `while C < N and R < C + E: yield`: load, keep waiting?
  release,  // `R -= N`, then the atomic block again
  done,
};

// Wait(N, B) of Alg. 1 as a step machine the caller drives:
//   BulkWait<A> w(n, batch);
//   while (w.step(word) != StepStatus::done) { back off on spinning; bound the steps }
//   took: use the N units; grow: grow B units, then bulk_grow_delivered or bulk_grow_failed.
// After a lost CAS or the release, the next decision uses the word that atomic returned instead
// of reading it again (the loop's read is needed only on entry).
// Spin rule: `covered` by default. With the printed rule a reserver leaves when R == C + E,
// which is exactly the state Fig. 1(b) shows (T1-T3 at R = E = 3): they would drop and retake R
// in a loop instead of waiting, and T4 could find R = 2 and reserve instead of growing.
template <class Atomics>
class BulkWait {
 public:
  ALLOCLAB_HD BulkWait(std::uint32_t n, std::uint32_t batch, SpinExit rule = SpinExit::covered)
      : n_(n), batch_(batch), rule_(rule) {}

  ALLOCLAB_HD BulkWaitPhase phase() const { return phase_; }
  ALLOCLAB_HD const BulkWaitResult& result() const { return result_; }
  ALLOCLAB_HD std::uint32_t n() const { return n_; }
  ALLOCLAB_HD std::uint32_t batch() const { return batch_; }
  // alloclab's rule for TBuddy (tbuddy.hpp): a reserver that leaves its spin because C >= N takes
  // its units and drops its reservation in one CAS (C -= N, R -= N), in the release step, instead
  // of Alg. 1's `R -= N` and then the atomic block again. In between, another thread's try-wait
  // (a merge) could take the unit it was owed, and a third thread that had grown and failed
  // because that unit was owed would have returned a null the pool could serve (`alloclab check`).
  ALLOCLAB_HD void take_reserved_in_one_cas() { take_reserved_ = true; }

  ALLOCLAB_HD StepStatus step(std::uint64_t& word) {
    switch (phase_) {
      case BulkWaitPhase::read:
        seen_ = load(word);
        phase_ = BulkWaitPhase::cas;
        return StepStatus::running;
      case BulkWaitPhase::cas:
        return cas_step(word);
      case BulkWaitPhase::spin: {
        const SemCounters c = BulkWord::unpack(load(word));
        if (sem_keep_waiting(c, n_, rule_)) {
          ++result_.reserve_spins;
          return StepStatus::spinning;
        }
        phase_ = BulkWaitPhase::release;
        if (take_reserved_ && c.count >= std::int64_t{n_}) {
          taking_ = true;  // the release step CASes the word just read
          seen_ = BulkWord::pack(c);
          return StepStatus::running;
        }
        // The printed rule's churn: leaving with nothing arrived although the reservation is
        // still covered (R == C + E). The round trip (drop R, reserve again) makes no progress,
        // so it is reported as a spin and the caller backs off first; without that, churning
        // host threads starved the grower they waited for (the threads test, 2 cores).
        if (sem_keep_waiting(c, n_, SpinExit::covered)) return StepStatus::spinning;
        return StepStatus::running;
      }
      case BulkWaitPhase::release: {
        if (taking_) {
          taking_ = false;
          SemCounters c = BulkWord::unpack(seen_);
          c.count -= static_cast<std::int32_t>(n_);
          c.reserved -= n_;
          ++result_.cas_attempts;
          ++result_.memory_ops;
          const std::uint64_t old = Atomics::cas(word, seen_, BulkWord::pack(c));
          if (old == seen_) return finish(BulkWaitOutcome::took);
          ++result_.cas_failures;
          phase_ = BulkWaitPhase::spin;  // read again, decide again
          return StepStatus::spinning;
        }
        const std::uint64_t delta = BulkWord::release_delta(n_);
        ++result_.releases;
        seen_ = add(word, delta) + delta;  // the word as this add left it
        phase_ = BulkWaitPhase::cas;
        return StepStatus::running;
      }
      case BulkWaitPhase::done:
        break;
    }
    return StepStatus::done;
  }

  // Stops the wait (a step bound was reached), dropping a reservation this thread holds. At most
  // one atomic. A wait that ended with grow is not abandoned here: its promise is the caller's.
  ALLOCLAB_HD void abandon(std::uint64_t& word) {
    if (phase_ == BulkWaitPhase::done) return;
    if (phase_ == BulkWaitPhase::spin || phase_ == BulkWaitPhase::release) {
      ++result_.releases;
      add(word, BulkWord::release_delta(n_));
    }
    finish(BulkWaitOutcome::gave_up);
  }

 private:
  ALLOCLAB_HD StepStatus cas_step(std::uint64_t& word) {
    const BulkDecision d = bulk_decide(BulkWord::unpack(seen_), n_, batch_);
    if (!d.fits) return finish(BulkWaitOutcome::counter_overflow);  // nothing held here
    ++result_.cas_attempts;
    ++result_.memory_ops;
    const std::uint64_t old = Atomics::cas(word, seen_, d.word);
    if (old != seen_) {  // the word changed: decide again from what the CAS saw
      ++result_.cas_failures;
      seen_ = old;
      return StepStatus::spinning;
    }
    switch (d.role) {
      case BulkRole::take:
        return finish(BulkWaitOutcome::took);
      case BulkRole::grow:
        return finish(BulkWaitOutcome::grow);
      case BulkRole::reserve:
        ++result_.reserves;
        phase_ = BulkWaitPhase::spin;
        break;
    }
    return StepStatus::running;
  }
  ALLOCLAB_HD std::uint64_t load(std::uint64_t& word) {
    return sem_counted_load<Atomics>(word, result_);
  }
  ALLOCLAB_HD std::uint64_t add(std::uint64_t& word, std::uint64_t delta) {
    return sem_counted_add<Atomics>(word, delta, result_);
  }
  ALLOCLAB_HD StepStatus finish(BulkWaitOutcome o) {
    result_.outcome = o;
    phase_ = BulkWaitPhase::done;
    return StepStatus::done;
  }

  std::uint32_t n_;
  std::uint32_t batch_;
  SpinExit rule_;
  bool take_reserved_ = false;
  bool taking_ = false;  // the release step takes the reserved units (take_reserved_in_one_cas)
  BulkWaitPhase phase_ = BulkWaitPhase::read;
  std::uint64_t seen_ = 0;
  BulkWaitResult result_;
};

// try-wait (§4.1, added for TBuddy's merge): "decrements the semaphore if its value is positive,
// and returns an error otherwise"; generalised to N units: C -= N if C >= N, never blocks.
// It looks at C alone, as printed: units that reservers count on may be taken (a merge claims
// the buddy's unit even while a split is awaited). Those reservers are not stranded: they find
// R > C + E, or keep waiting for a promise still open, and decide again (tested).
// TryWaitRule::unreserved (alloclab's, for TBuddy's merge: tbuddy.hpp) takes only units no
// reserver counts on: C - R >= N. Promises (E) do not count, since a promise may fail. So a
// reserver never loses the unit a delivered promise brought it (a taking that `alloclab check`
// showed gives a spurious null to a third thread, which had grown because the unit was owed).
enum class TryWaitOutcome : std::uint8_t { pending, took, empty };
enum class TryWaitRule : std::uint8_t { count_only, unreserved };

template <class Atomics>
class BulkTryWait {
 public:
  ALLOCLAB_HD explicit BulkTryWait(std::uint32_t n = 1) : n_(n) {}
  ALLOCLAB_HD BulkTryWait(std::uint32_t n, TryWaitRule rule) : n_(n), rule_(rule) {}

  ALLOCLAB_HD TryWaitOutcome outcome() const { return outcome_; }
  ALLOCLAB_HD std::uint32_t cas_attempts() const { return cas_attempts_; }
  ALLOCLAB_HD std::uint32_t memory_ops() const { return memory_ops_; }

  // running after the read; spinning after a lost CAS (back off, step again); done when
  // outcome() is final.
  ALLOCLAB_HD StepStatus step(std::uint64_t& word) {
    if (outcome_ != TryWaitOutcome::pending) return StepStatus::done;
    if (!have_seen_) {
      ++memory_ops_;
      seen_ = Atomics::load(word);
      have_seen_ = true;
      return StepStatus::running;
    }
    SemCounters c = BulkWord::unpack(seen_);
    const bool owed = rule_ == TryWaitRule::unreserved &&
                      std::int64_t{c.count} - std::int64_t{c.reserved} < std::int64_t{n_};
    if (c.count < std::int64_t{n_} || owed) {
      outcome_ = TryWaitOutcome::empty;
      return StepStatus::done;
    }
    c.count -= static_cast<std::int32_t>(n_);
    ++memory_ops_;
    ++cas_attempts_;
    const std::uint64_t old = Atomics::cas(word, seen_, BulkWord::pack(c));
    if (old != seen_) {
      seen_ = old;
      return StepStatus::spinning;
    }
    outcome_ = TryWaitOutcome::took;
    return StepStatus::done;
  }

 private:
  std::uint32_t n_;
  TryWaitRule rule_ = TryWaitRule::count_only;
  TryWaitOutcome outcome_ = TryWaitOutcome::pending;
  bool have_seen_ = false;
  std::uint64_t seen_ = 0;
  std::uint32_t cas_attempts_ = 0;
  std::uint32_t memory_ops_ = 0;
};

struct BulkRunResult {
  BulkWaitResult wait;     // the wait's counts and how it ended
  bool has_units = false;  // took, or grew and the batch arrived: the caller holds N units
};

// Runs one wait for at most max_steps steps (then abandons it: gave_up), and a grower's growth:
// grow() -> bool makes the batch's units findable (the tracking stage) and says whether it
// could; the runner then signals bulk_grow_delivered or bulk_grow_failed. on_spin(spins) runs
// after each step that reports spinning (a GPU caller sleeps there). Neither counts as a step.
template <class Atomics, class Grow, class OnSpin = NoBackoff>
ALLOCLAB_HD BulkRunResult bulk_wait_bounded(std::uint64_t& word, std::uint32_t n,
                                            std::uint32_t batch, Grow&& grow,
                                            std::uint32_t max_steps,
                                            SpinExit rule = SpinExit::covered,
                                            OnSpin on_spin = OnSpin{}) {
  BulkWait<Atomics> w(n, batch, rule);
  BulkRunResult r;
  std::uint32_t spins = 0;
  for (std::uint32_t i = 0; i < max_steps; ++i) {
    const StepStatus s = w.step(word);
    if (s == StepStatus::spinning) on_spin(++spins);
    if (s != StepStatus::done) continue;
    r.wait = w.result();
    if (r.wait.outcome == BulkWaitOutcome::took) {
      r.has_units = true;
    } else if (r.wait.outcome == BulkWaitOutcome::grow) {
      r.has_units = grow();
      if (r.has_units)
        bulk_grow_delivered<Atomics>(word, n, batch);
      else
        bulk_grow_failed<Atomics>(word, n, batch);
    }
    return r;
  }
  w.abandon(word);
  r.wait = w.result();
  return r;
}

// ---- Range checks for a configuration (host side) ----

// C must hold every unit the semaphore counts (all of them free at once). Returns "" when
// `units` fits, else a line naming `parameter` and the limit.
inline std::string bulk_semaphore_units_error(const std::string& parameter, std::uint64_t units) {
  if (units <= static_cast<std::uint64_t>(kMaxBulkUnits)) return {};
  return parameter + ": " + std::to_string(units) + " units exceed the bulk semaphore's limit of " +
         std::to_string(kMaxBulkUnits) + " (its count has 22 bits)";
}

// Requests of N units with batches of B, up to `waiters` of them in flight at once. N >= 1 and
// B >= N (a grower keeps N of its batch). R <= waiters * N. A grow happens only when
// C + E - R < N with C >= 0, so afterwards E <= R + B - 1 with R <= (waiters - 1) * N (the
// grower holds no reservation while it decides). Returns "" when all fit, else one line.
inline std::string bulk_semaphore_request_error(const std::string& parameter, std::uint64_t waiters,
                                                std::uint32_t n, std::uint32_t batch) {
  if (n == 0) return parameter + ": a request of 0 units";
  if (batch == 0) return parameter + ": a batch size of 0";
  if (batch < n)
    return parameter + ": a batch of " + std::to_string(batch) + " is smaller than a request of " +
           std::to_string(n) + " units (the grower keeps its request out of its batch)";
  if (batch - n > static_cast<std::uint64_t>(kMaxBulkUnits))
    return parameter + ": a batch of " + std::to_string(batch) + " exceeds the count's limit of " +
           std::to_string(kMaxBulkUnits) + " units";
  const std::uint64_t reserved_bound = waiters * n;
  const std::uint64_t expected_bound = (waiters == 0 ? 0 : (waiters - 1) * n) + batch - 1;
  if (reserved_bound > kMaxBulkReserved || expected_bound > kMaxBulkExpected)
    return parameter + ": " + std::to_string(waiters) + " waiters x " + std::to_string(n) +
           " units with batches of " + std::to_string(batch) + " can reserve up to " +
           std::to_string(reserved_bound) + " and promise up to " + std::to_string(expected_bound) +
           " units, more than the bulk semaphore's limit of " + std::to_string(kMaxBulkReserved) +
           " (21 bits each)";
  return {};
}

}  // namespace alloclab::gelado
