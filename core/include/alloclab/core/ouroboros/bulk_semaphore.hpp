// Ouroboros' bulk semaphore (Winter et al., ICS'20, §3.4, Alg. 2; after Gelado & Garland,
// PPoPP'19, §3.3): the access primitive in front of every Ouroboros queue. Three counters:
//   C (count)    pages available now,
//   E (expected) pages promised by threads that are allocating a chunk,
//   R (reserved) pages reserved by threads waiting for those promised pages,
// packed into one 64-bit word, 21 bits each (§3.4), so that lines 2, 19 and 22 of Alg. 2 are one
// atomic add and lines 8-16 one CAS loop. Layout (the paper's 21-bit fields; the public code's
// are wider, below):
//   bits  0..20  C + 2^19   (C in [-2^19, 2^21 - 2^19): the fast path subtracts before it checks,
//                            so C dips below zero while a miss is undone; the bias absorbs the
//                            dips)
//   bits 21..41  E          (unsigned, [0, 2^21))
//   bits 42..62  R          (unsigned, [0, 2^21))
//   bit  63      always 0
// The bias is a choice. A bias of 2^20 would centre the range on zero but count at most
// 2^20 - 1 pages: one short of the 2^20 pages of 16 B that the paper's own 2^20-thread benchmark
// frees back into one queue. The public code (GPUPeople/Ouroboros,
// include/device/BulkSemaphore.cuh) did that in an earlier version, judged earlier by its
// neighbouring files (commit 3b1217e2f63b281774b06140a5e0b34ecc20ae9f: middle_mask_shift 21,
// l. 49, bias 2^20, l. 81); its later one (commit 5b600030ed65a88e55bfbb14569556cc66ac2d64)
// widens C and E to 25 bits (middle_mask_shift 25, l. 51) with a bias of 2^24 (l. 83), so C
// counts up to 2^24 - 1 = 16,777,215 pages. Both keep the layout comment "Counter (20 + 1 bits)"
// (l. 5, l. 7).
// alloclab keeps the paper's 21 bits. The dips below zero are bounded by the requests in flight
// at once (a GPU holds at most 2048 resident threads per SM, 270,336 on an H200, and warp
// aggregation makes that many units in at most 8,448 leaders' hands), so alloclab gives the
// negative side 2^19 and the positive side the rest: C counts up to 1,572,863 pages.
//
// Everything here is a pure function of the word or a step machine that issues at most one
// memory operation per step, through the atomics policy `Atomics` (see host_atomics.hpp), so the
// CPU simulator can interleave simulated threads step by step and the GPU can loop with a bound.
// No loop in this file waits on another thread.
#pragma once

#include <cstdint>
#include <string>

#include "alloclab/core/hd.hpp"
#include "alloclab/core/semaphore_word.hpp"

namespace alloclab::ouro {

inline constexpr unsigned kSemFieldBits = 21;
inline constexpr std::int32_t kSemCountBias = std::int32_t{1} << (kSemFieldBits - 2);  // 2^19
// The word's layout, shared with Gelado & Garland's semaphore (core/semaphore_word.hpp).
using SemWord = SemWordLayout<kSemFieldBits, kSemFieldBits, kSemFieldBits, kSemCountBias>;
inline constexpr unsigned kSemExpectedShift = SemWord::kExpectedShift;
inline constexpr unsigned kSemReservedShift = SemWord::kReservedShift;
inline constexpr std::uint64_t kSemFieldMask = SemWord::kCountMask;
inline constexpr std::int32_t kSemMinCount = SemWord::kMinCount;
// The largest count C can hold: 2^21 - 2^19 - 1 = 1,572,863 units. A queue (or pool) whose free
// units the semaphore counts must not hold more than this.
inline constexpr std::int32_t kMaxUnits = SemWord::kMaxCount;
// Pages one class's queue holds unless a configuration says otherwise (--queue-capacity): 2^20,
// the largest power of two the semaphore's count can hold (kMaxUnits = 1,572,863), and exactly
// the pages of the paper's 2^20-request benchmark at 16 B. A power of two makes a position's slot
// a mask instead of a 64-bit division on every request. The paper ran 2,000,000 (§6), which its
// 21-bit count cannot hold.
inline constexpr std::uint32_t kDefaultQueueCapacity = std::uint32_t{1} << 20;

// The largest E or R: 2^21 - 1.
inline constexpr std::uint32_t kSemMaxField = SemWord::kMaxExpected;

using alloclab::SemCounters;

// Whether the counters can be packed without one field spilling into the next.
ALLOCLAB_HD bool sem_fits(std::int64_t count, std::int64_t expected, std::int64_t reserved) {
  return SemWord::fits(count, expected, reserved);
}

// Precondition: sem_fits(c).
ALLOCLAB_HD std::uint64_t sem_pack(SemCounters c) {
  return SemWord::pack(c);
}

ALLOCLAB_HD SemCounters sem_unpack(std::uint64_t word) {
  return SemWord::unpack(word);
}

// Word deltas for one atomic add (mod 2^64). Adding a delta changes only the named fields as long
// as every field stays in its range; the range checks at the end of this file keep them there.
ALLOCLAB_HD std::uint64_t sem_count_delta(std::int32_t units) {
  return SemWord::count_delta(units);
}
// signal(N, #pages) (Alg. 2 lines 21-24): C += N and E -= #pages in one add.
ALLOCLAB_HD std::uint64_t sem_signal_delta(std::uint32_t units, std::uint32_t pages) {
  return SemWord::signal_delta(units, pages);
}
// Line 20: R -= N.
ALLOCLAB_HD std::uint64_t sem_release_delta(std::uint32_t n) {
  return SemWord::release_delta(n);
}

// One iteration of the CAS loop, Alg. 2 lines 9-16.
enum class SemRole : std::uint8_t {
  take,     // C >= N: C -= N, done (line 13)
  grow,     // C + E - R < N: E += #pages, allocate a chunk, then start over (lines 10-11)
  reserve,  // otherwise: R += N and wait for the promised pages (line 16)
};

struct SemDecision {
  SemRole role = SemRole::take;
  SemCounters next;
  std::uint64_t word = 0;  // sem_pack(next) when fits
  bool fits = true;        // false: E or R would leave its 21 bits; the word is not valid
};

ALLOCLAB_HD SemDecision sem_decide(SemCounters c, std::uint32_t n, std::uint32_t pages_per_chunk) {
  SemDecision d;
  std::int64_t count = c.count, expected = c.expected, reserved = c.reserved;
  // "Expected availability" (§3.4): the count once every promised page has arrived and every
  // reservation has been served. Below N, nobody in flight will bring this thread its pages.
  if (count + expected - reserved < std::int64_t{n}) {
    d.role = SemRole::grow;
    expected += pages_per_chunk;  // the grower promises a whole chunk and keeps none of it: it
                                  // competes for its own page after signalling (the public code
                                  // does the same; Gelado & Garland's version adds B - N)
  } else if (count >= std::int64_t{n}) {
    d.role = SemRole::take;
    count -= n;
  } else {
    d.role = SemRole::reserve;
    reserved += n;
  }
  d.fits = sem_fits(count, expected, reserved);
  d.next.count = static_cast<std::int32_t>(count);
  d.next.expected = static_cast<std::uint32_t>(expected);
  d.next.reserved = static_cast<std::uint32_t>(reserved);
  if (d.fits) d.word = sem_pack(d.next);
  return d;
}

// When a reserver stops waiting (Alg. 2 line 17): `while C < N and R < C + E: sleep()`, as
// printed or with reservations that are exactly covered kept waiting; see semaphore_word.hpp.
using alloclab::sem_keep_waiting;
using alloclab::SpinExit;

// signal(N, #pages), Alg. 2 lines 21-24, as one atomic add. Returns the counters before it.
// A grower whose chunk arrived calls sem_signal(word, #pages, #pages); a free calls
// sem_signal(word, 1, 0); a grower whose chunk allocation failed withdraws its promise with
// sem_signal(word, 0, #pages) (SemaphoreWait does that itself, see below).
template <class Atomics>
ALLOCLAB_HD SemCounters sem_signal(std::uint64_t& word, std::uint32_t units, std::uint32_t pages) {
  return sem_unpack(Atomics::fetch_add(word, sem_signal_delta(units, pages)));
}

enum class WaitStatus : std::uint8_t {
  running,     // made progress; step again
  spinning,    // a reserver read the word and keeps waiting, or a CAS lost a race (the caller may
               // back off)
  need_chunk,  // this thread is the grower: allocate a chunk, then chunk_allocated/chunk_failed
  done,        // result().outcome is final
};

enum class WaitOutcome : std::uint8_t {
  pending,
  ok,                // N units taken
  out_of_memory,     // this thread had to grow and its chunk allocation failed
  gave_up,           // the caller stopped it (a step bound); its reservations were undone
  counter_overflow,  // E or R would have left 21 bits: a configuration the range checks refuse
};

enum class WaitRole : std::uint8_t { none, fast_path, take, grow, reserve };

struct WaitResult {
  WaitRole role = WaitRole::none;  // the first thing the thread did: its fast-path hit, or the
                                   // role of its first successful CAS (line 8-16)
  WaitOutcome outcome = WaitOutcome::pending;
  std::uint32_t cas_attempts = 0;   // CAS issued in lines 8-16, successful or not
  std::uint32_t reserve_spins = 0;  // reads of line 17 after which the thread kept waiting
  std::uint32_t grows = 0;          // successful CASes in the grow role (chunks asked for)
  std::uint32_t reserves = 0;       // successful CASes in the reserve role
  std::uint32_t fast_misses = 0;    // fast-path subtractions that had to be undone
  std::uint32_t memory_ops = 0;     // loads and atomics issued by this wait, all kinds
  std::uint32_t loads = 0;          // the plain reads among them (the rest are atomics)
  std::uint32_t cas_failures = 0;   // CAS attempts that found the word changed
};

// How a wait enters its fast path.
enum class FastPath : std::uint8_t {
  guarded,  // load first and subtract only when C >= N (a miss then costs no atomics)
  printed,  // subtract first, check the old count, undo on a miss: Alg. 2 lines 2-6 as printed
            // and as the public code does it; one atomic per hit, the fewest round trips
  printed_then_guarded,  // the first attempt as printed, every later one (after a grow or a
                         // reservation) guarded: a thread that has seen the semaphore short
                         // reads before it subtracts, which spares the contended word a
                         // subtraction and its undo per retry while a queue grows
};

// The steps of one wait. Each step issues at most one memory operation on the word.
enum class WaitPhase : std::uint8_t {
  fast_read,    // load; C >= N? (the public code's guard before the fast path)
  fast_sub,     // lines 2-5: C -= N with one add; the old C says whether it was there
  fast_undo,    // line 6: C += N (the subtraction found too little)
  cas,          // lines 8-16: CAS the decided word against the one last seen
  await_chunk,  // the grower's chunk allocation (line 11) is the caller's; no memory op here
  grow_undo,    // the allocation failed: E -= #pages, then out_of_memory
  spin,         // line 17: load, keep waiting?
  release,      // line 20: R -= N, then start over
  done,
};

// Wait(N, #pages) of Alg. 2 as a step machine the caller drives:
//   SemaphoreWait<A> w(n, pages);
//   for (;;) { s = w.step(word); if (s == done) break;
//              if (s == need_chunk) { if (allocate_and_signal()) w.chunk_allocated();
//                                     else w.chunk_failed(); } }
// A grower's allocation, when it succeeds, must itself signal (#pages, #pages) before
// chunk_allocated() (the paper's allocChunk does: Alg. 3 line 2, Alg. 4 line 4); then the grower
// starts over like any other thread, since it promised the whole chunk to the others.
// Differences from the public code, all of which keep its atomics: after a failed fast path or
// a CAS, the thread decides from the value that atomic returned instead of reading the word
// again; the warp-aggregated variant (one leader waits for popc(mask) * N) is the caller's.
// Out of memory: the paper says a thread that fails to add the promised pages "must also signal"
// (Gelado & Garland) and the public code does not; here the failed grower withdraws E, so the
// reservers it covered see R >= C + E, leave line 17, and either find pages or become growers
// themselves (whose allocation fails the same way): no thread waits on a promise nobody keeps.
template <class Atomics>
class SemaphoreWait {
 public:
  ALLOCLAB_HD SemaphoreWait(std::uint32_t n, std::uint32_t pages_per_chunk,
                            SpinExit rule = SpinExit::printed, FastPath fast = FastPath::guarded)
      : n_(n),
        pages_(pages_per_chunk),
        rule_(rule),
        restart_(fast == FastPath::printed ? WaitPhase::fast_sub : WaitPhase::fast_read),
        phase_(fast == FastPath::guarded ? WaitPhase::fast_read : WaitPhase::fast_sub) {}

  ALLOCLAB_HD WaitPhase phase() const { return phase_; }
  ALLOCLAB_HD const WaitResult& result() const { return result_; }

  ALLOCLAB_HD WaitStatus step(std::uint64_t& word) {
    switch (phase_) {
      case WaitPhase::fast_read: {
        const std::uint64_t w = load(word);
        if (sem_unpack(w).count >= std::int64_t{n_}) {
          phase_ = WaitPhase::fast_sub;
        } else {
          seen_ = w;
          phase_ = WaitPhase::cas;
        }
        return WaitStatus::running;
      }
      case WaitPhase::fast_sub:
        return fast_sub_returned(add(word, sem_count_delta(-static_cast<std::int32_t>(n_))));
      case WaitPhase::fast_undo: {
        const std::uint64_t delta = sem_count_delta(static_cast<std::int32_t>(n_));
        seen_ = add(word, delta) + delta;  // the word as this add left it
        phase_ = WaitPhase::cas;
        return WaitStatus::running;
      }
      case WaitPhase::cas:
        return cas_step(word);
      case WaitPhase::await_chunk:
        return WaitStatus::need_chunk;
      case WaitPhase::grow_undo:
        add(word, sem_signal_delta(0, pages_));
        return finish(WaitOutcome::out_of_memory);
      case WaitPhase::spin: {
        if (sem_keep_waiting(sem_unpack(load(word)), n_, rule_)) {
          ++result_.reserve_spins;
          return WaitStatus::spinning;
        }
        phase_ = WaitPhase::release;
        return WaitStatus::running;
      }
      case WaitPhase::release:
        add(word, sem_release_delta(n_));
        phase_ = restart_;
        return WaitStatus::running;
      case WaitPhase::done:
        break;
    }
    return WaitStatus::done;
  }

  // The fast-path subtraction (C -= N, one atomic add of sem_count_delta(-N) on the word) issued
  // by the caller instead of step(), which returned `old`: the same step, counted as step()
  // counts it. Only in phase fast_sub (the GPU inlines a request's first step:
  // gpu/src/ouro_page.cu).
  ALLOCLAB_HD WaitStatus fast_sub_issued(std::uint64_t old) {
    ++result_.memory_ops;
    return fast_sub_returned(old);
  }

  // The grower's allocation succeeded and it has signalled (#pages, #pages): start over.
  ALLOCLAB_HD void chunk_allocated() {
    if (phase_ == WaitPhase::await_chunk) phase_ = restart_;
  }
  // The allocation failed: the next step withdraws the promise and ends with out_of_memory.
  ALLOCLAB_HD void chunk_failed() {
    if (phase_ == WaitPhase::await_chunk) phase_ = WaitPhase::grow_undo;
  }

  // Stops the wait (a step bound was reached), undoing what this thread holds so the word stays
  // consistent: a pending fast-path subtraction, its promise E (as a failed allocation), or its
  // reservation R. At most one atomic.
  ALLOCLAB_HD void abandon(std::uint64_t& word) {
    switch (phase_) {
      case WaitPhase::fast_undo:
        add(word, sem_count_delta(static_cast<std::int32_t>(n_)));
        break;
      case WaitPhase::await_chunk:
      case WaitPhase::grow_undo:
        add(word, sem_signal_delta(0, pages_));
        break;
      case WaitPhase::spin:
      case WaitPhase::release:
        add(word, sem_release_delta(n_));
        break;
      case WaitPhase::done:
        return;
      default:
        break;
    }
    finish(WaitOutcome::gave_up);
  }

 private:
  // What the fast-path subtraction's old word says: the N units were there, or undo.
  ALLOCLAB_HD WaitStatus fast_sub_returned(std::uint64_t old) {
    if (sem_unpack(old).count >= std::int64_t{n_}) {
      if (result_.role == WaitRole::none) result_.role = WaitRole::fast_path;
      return finish(WaitOutcome::ok);
    }
    ++result_.fast_misses;
    phase_ = WaitPhase::fast_undo;
    return WaitStatus::running;
  }
  ALLOCLAB_HD WaitStatus cas_step(std::uint64_t& word) {
    const SemDecision d = sem_decide(sem_unpack(seen_), n_, pages_);
    if (!d.fits) return finish(WaitOutcome::counter_overflow);  // nothing held at this point
    ++result_.cas_attempts;
    ++result_.memory_ops;
    const std::uint64_t old = Atomics::cas(word, seen_, d.word);
    if (old != seen_) {  // somebody changed the word: decide again from what the CAS saw
      ++result_.cas_failures;
      seen_ = old;
      // A lost race, reported as a spin so that the caller backs off before it tries again (the
      // GPU sleeps): thousands of warp leaders retrying at once on one word would otherwise
      // spend thousands of CAS attempts per success (measured: 2,070 per request, 2^18 cold
      // requests of 4096 B, H200).
      return WaitStatus::spinning;
    }
    if (result_.role == WaitRole::none)
      result_.role = d.role == SemRole::take   ? WaitRole::take
                     : d.role == SemRole::grow ? WaitRole::grow
                                               : WaitRole::reserve;
    switch (d.role) {
      case SemRole::take:
        return finish(WaitOutcome::ok);
      case SemRole::grow:
        ++result_.grows;
        phase_ = WaitPhase::await_chunk;
        return WaitStatus::need_chunk;
      case SemRole::reserve:
        ++result_.reserves;
        phase_ = WaitPhase::spin;
        break;
    }
    return WaitStatus::running;
  }
  ALLOCLAB_HD std::uint64_t load(std::uint64_t& word) {
    return sem_counted_load<Atomics>(word, result_);
  }
  ALLOCLAB_HD std::uint64_t add(std::uint64_t& word, std::uint64_t delta) {
    return sem_counted_add<Atomics>(word, delta, result_);
  }
  ALLOCLAB_HD WaitStatus finish(WaitOutcome o) {
    result_.outcome = o;
    phase_ = WaitPhase::done;
    return WaitStatus::done;
  }

  std::uint32_t n_;
  std::uint32_t pages_;
  SpinExit rule_;
  WaitPhase restart_;
  WaitPhase phase_;
  std::uint64_t seen_ = 0;
  WaitResult result_;
};

using alloclab::NoBackoff;

// Runs one wait to its end or for at most max_steps steps (then abandons it: gave_up).
// alloc_chunk() -> bool allocates a chunk and, on success, signals (#pages, #pages) itself.
// on_spin(reserve_spins) runs after each read that keeps the thread waiting (a GPU caller sleeps
// there). The allocation and the back-off do not count as steps.
template <class Atomics, class AllocChunk, class OnSpin = NoBackoff>
ALLOCLAB_HD WaitResult sem_wait_bounded(std::uint64_t& word, std::uint32_t n,
                                        std::uint32_t pages_per_chunk, AllocChunk&& alloc_chunk,
                                        std::uint32_t max_steps, SpinExit rule = SpinExit::printed,
                                        OnSpin on_spin = OnSpin{}) {
  SemaphoreWait<Atomics> w(n, pages_per_chunk, rule);
  for (std::uint32_t i = 0; i < max_steps; ++i) {
    const WaitStatus s = w.step(word);
    if (s == WaitStatus::done) return w.result();
    if (s == WaitStatus::need_chunk) {
      if (alloc_chunk())
        w.chunk_allocated();
      else
        w.chunk_failed();
    } else if (s == WaitStatus::spinning) {
      on_spin(w.result().reserve_spins);
    }
  }
  w.abandon(word);
  return w.result();
}

// ---- Range checks for a configuration (host side: the CLI calls these) ----

// The semaphore counts the free units of one queue (pages of a page queue, free pages on the
// chunks of a chunk queue): C must hold all of them. Returns "" when `units` fits, else a line
// naming `parameter` and the limit. (Winter et al. ran queues of capacity 2,000,000, which is
// more than C can count in 21 bits.)
inline std::string bulk_semaphore_units_error(const std::string& parameter, std::uint64_t units) {
  if (units <= static_cast<std::uint64_t>(kMaxUnits)) return {};
  return parameter + ": " + std::to_string(units) + " exceeds the bulk semaphore's limit of " +
         std::to_string(kMaxUnits) +
         " units (2^21 - 2^19 - 1: a 21-bit count stored with a 2^19 bias; Winter et al., ICS'20 "
         "§3.4, pack it into 21 bits)";
}

// Concurrency: up to `waiters` threads waiting for N units each, on chunks of `pages_per_chunk`.
// Bounds, with demand = waiters * N: concurrent fast-path misses take C down to -demand for a
// moment, which the 2^19 bias must absorb; R <= demand; a grow happens only when
// C + E - R < N, so afterwards E < N + R - C + #pages <= N + 2 * demand + #pages, which must fit
// 21 bits; one signal adds a whole chunk to C. Returns "" when all fit, else a line naming
// `parameter` and the limit.
inline std::string bulk_semaphore_concurrency_error(const std::string& parameter,
                                                    std::uint64_t waiters, std::uint32_t n,
                                                    std::uint32_t pages_per_chunk) {
  if (pages_per_chunk > static_cast<std::uint64_t>(kMaxUnits))
    return parameter + ": " + std::to_string(pages_per_chunk) +
           " pages per chunk exceed the bulk semaphore's count limit of " +
           std::to_string(kMaxUnits);
  if (n != 0 && waiters > static_cast<std::uint64_t>(kSemCountBias) / n)
    return parameter + ": " + std::to_string(waiters) + " waiters x " + std::to_string(n) +
           " units exceed the bulk semaphore's limit of " + std::to_string(kSemCountBias) +
           " units in flight (the 2^19 bias of its count)";
  const std::uint64_t expected_bound = std::uint64_t{n} + 2 * waiters * n + pages_per_chunk - 1;
  if (expected_bound > kSemMaxField)
    return parameter + ": " + std::to_string(waiters) + " waiters x " + std::to_string(n) +
           " units with chunks of " + std::to_string(pages_per_chunk) +
           " pages can promise up to " + std::to_string(expected_bound) +
           " units, more than the bulk semaphore's limit of " + std::to_string(kSemMaxField) +
           " for expected (21 bits)";
  return {};
}

}  // namespace alloclab::ouro
