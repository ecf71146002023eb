// The counting semaphore of Gelado & Garland's §3.2, in the form whose resource can grow: the
// baseline the bulk semaphore is measured against (Fig. 1(a), Fig. 5). One value S:
//   wait(N):  if S >= N:       S -= N, return N            (took)
//             if N > S >= 0:   S <- -1, return S            (grow: the caller grows the pool)
//             otherwise (S < 0, a grower at work): block
//   signal(N): S += N
// The grower receives r = S (0 <= r < N) units and owes itself N - r more from its batch of B.
// The -1 it leaves marks the pool as growing (everybody else blocks) and is also one unit of its
// request: Fig. 1(a)'s T0 (N = 1, r = 0) sets S = -1, signals 4 for its batch of 4, and T1-T3
// take one each while T4 finds 0 and grows next, so the signal left S = 3, T0's own unit being
// the -1 it cancelled. In general the grower signals B - N + r + 1 (counting_grow_delivered):
// S ends at what was there before plus the B - N units its request leaves over. A grower whose
// growth failed signals r + 1 (counting_grow_failed): S is back where it was, the units it held
// returned and the pool no longer marked as growing, so a blocked thread proceeds: it takes, or
// it becomes the next grower and meets the failure itself. Failures are thus seen one grower at
// a time, which is the counting semaphore's serialisation and part of what Fig. 5 measures.
//
// S stays >= -1: it is set to -1 only from S >= 0, lowered by N only from S >= N, and raised by
// every signal. The word is S as a two's-complement 64-bit integer: the same 64-bit CAS as the
// bulk semaphore's, so Fig. 5 compares the algorithms and not the word widths, and S cannot
// overflow for any pool this lab holds (at most 2^63 - 1 units).
//
// Like the bulk semaphore (bulk_semaphore.hpp): a step machine with at most one memory operation
// per step through `Atomics`; blocking is a step that reports spinning, bounded by the caller.
#pragma once

#include <cstdint>

#include "alloclab/core/gelado/bulk_semaphore.hpp"
#include "alloclab/core/hd.hpp"

namespace alloclab::gelado {

ALLOCLAB_HD std::uint64_t counting_pack(std::int64_t s) {
  return static_cast<std::uint64_t>(s);
}
ALLOCLAB_HD std::int64_t counting_unpack(std::uint64_t word) {
  return static_cast<std::int64_t>(word);
}

// signal(N): S += N (a free, or a grower's own signal through the two helpers below). Returns S
// before it.
template <class Atomics>
ALLOCLAB_HD std::int64_t counting_signal(std::uint64_t& word, std::int64_t units) {
  return counting_unpack(Atomics::fetch_add(word, counting_pack(units)));
}

// The grower that received `held` = r units grew a batch of `batch`: it keeps N - r of it and
// cancels its -1. Precondition: batch >= n - held.
template <class Atomics>
ALLOCLAB_HD std::int64_t counting_grow_delivered(std::uint64_t& word, std::uint32_t n,
                                                 std::uint32_t batch, std::uint32_t held) {
  return counting_signal<Atomics>(word, std::int64_t{batch} - n + held + 1);
}

// The growth failed: the r units go back and the -1 is cancelled.
template <class Atomics>
ALLOCLAB_HD std::int64_t counting_grow_failed(std::uint64_t& word, std::uint32_t held) {
  return counting_signal<Atomics>(word, std::int64_t{held} + 1);
}

enum class CountingWaitOutcome : std::uint8_t {
  pending,
  took,     // returned N: N units taken
  grow,     // returned r < N: holds r units, S = -1; grow, then counting_grow_delivered/failed
  gave_up,  // the caller stopped it (a step bound); it held nothing
};

struct CountingWaitResult {
  CountingWaitOutcome outcome = CountingWaitOutcome::pending;
  std::int64_t returned = 0;        // the value wait returns: N (took) or r (grow)
  std::uint32_t cas_attempts = 0;   // CAS issued, successful or not
  std::uint32_t cas_failures = 0;   // the CAS found the word changed
  std::uint32_t blocked_reads = 0;  // reads that found S < 0 (a grower at work)
  std::uint32_t memory_ops = 0;     // loads and atomics issued by this wait
  std::uint32_t loads = 0;          // the plain reads among them
};

enum class CountingWaitPhase : std::uint8_t {
  read,  // load S
  cas,   // CAS S -> S - N (take) or S -> -1 (grow), against the S last seen
  done,
};

// Wait(N) as a step machine: step() until done; spinning means blocked (S < 0) or a lost CAS.
template <class Atomics>
class CountingWait {
 public:
  ALLOCLAB_HD explicit CountingWait(std::uint32_t n) : n_(n) {}

  ALLOCLAB_HD CountingWaitPhase phase() const { return phase_; }
  ALLOCLAB_HD const CountingWaitResult& result() const { return result_; }

  ALLOCLAB_HD StepStatus step(std::uint64_t& word) {
    switch (phase_) {
      case CountingWaitPhase::read:
        seen_ = sem_counted_load<Atomics>(word, result_);
        return decide();
      case CountingWaitPhase::cas: {
        const std::int64_t s = counting_unpack(seen_);
        const std::int64_t next = s >= std::int64_t{n_} ? s - n_ : -1;
        ++result_.memory_ops;
        ++result_.cas_attempts;
        const std::uint64_t old = Atomics::cas(word, seen_, counting_pack(next));
        if (old != seen_) {  // the word changed: decide again from what the CAS saw
          ++result_.cas_failures;
          seen_ = old;
          if (counting_unpack(old) < 0) phase_ = CountingWaitPhase::read;  // a grower got in
          return StepStatus::spinning;
        }
        result_.outcome =
            s >= std::int64_t{n_} ? CountingWaitOutcome::took : CountingWaitOutcome::grow;
        result_.returned = s >= std::int64_t{n_} ? std::int64_t{n_} : s;
        phase_ = CountingWaitPhase::done;
        return StepStatus::done;
      }
      case CountingWaitPhase::done:
        break;
    }
    return StepStatus::done;
  }

  // Stops the wait (a step bound); a counting wait holds nothing until it is done.
  ALLOCLAB_HD void abandon() {
    if (phase_ == CountingWaitPhase::done) return;
    result_.outcome = CountingWaitOutcome::gave_up;
    phase_ = CountingWaitPhase::done;
  }

 private:
  // From the S last seen: blocked (read again next step) or a CAS to issue.
  ALLOCLAB_HD StepStatus decide() {
    if (counting_unpack(seen_) < 0) {
      ++result_.blocked_reads;
      phase_ = CountingWaitPhase::read;
      return StepStatus::spinning;
    }
    phase_ = CountingWaitPhase::cas;
    return StepStatus::running;
  }

  std::uint32_t n_;
  CountingWaitPhase phase_ = CountingWaitPhase::read;
  std::uint64_t seen_ = 0;
  CountingWaitResult result_;
};

struct CountingRunResult {
  CountingWaitResult wait;
  bool has_units = false;  // took, or grew and the batch arrived: the caller holds N units
};

// Runs one wait for at most max_steps steps, and a grower's growth (grow() -> bool, as in
// bulk_wait_bounded), signalling counting_grow_delivered or counting_grow_failed.
template <class Atomics, class Grow, class OnSpin = NoBackoff>
ALLOCLAB_HD CountingRunResult counting_wait_bounded(std::uint64_t& word, std::uint32_t n,
                                                    std::uint32_t batch, Grow&& grow,
                                                    std::uint32_t max_steps,
                                                    OnSpin on_spin = OnSpin{}) {
  CountingWait<Atomics> w(n);
  CountingRunResult r;
  std::uint32_t spins = 0;
  for (std::uint32_t i = 0; i < max_steps; ++i) {
    const StepStatus s = w.step(word);
    if (s == StepStatus::spinning) on_spin(++spins);
    if (s != StepStatus::done) continue;
    r.wait = w.result();
    if (r.wait.outcome == CountingWaitOutcome::took) {
      r.has_units = true;
    } else {
      const auto held = static_cast<std::uint32_t>(r.wait.returned);
      r.has_units = grow();
      if (r.has_units)
        counting_grow_delivered<Atomics>(word, n, batch, held);
      else
        counting_grow_failed<Atomics>(word, held);
    }
    return r;
  }
  w.abandon();
  r.wait = w.result();
  return r;
}

}  // namespace alloclab::gelado
