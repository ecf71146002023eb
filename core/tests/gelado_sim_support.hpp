// A step-by-step driver for Gelado & Garland's bulk semaphore in the tests: simulated threads
// whose waits the test steps in the order it chooses, and whose growth takes a number of their
// turns and then delivers (while batches are left) or fails.
#pragma once

#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "alloclab/core/gelado/bulk_semaphore.hpp"
#include "alloclab/core/ouroboros/host_atomics.hpp"

namespace gelado_test {

using namespace alloclab::gelado;
using A = alloclab::ouro::HostAtomics;

inline SemCounters counters(std::int32_t c, std::uint32_t e, std::uint32_t r) {
  SemCounters s;
  s.count = c;
  s.expected = e;
  s.reserved = r;
  return s;
}
inline std::uint64_t word_of(std::int32_t c, std::uint32_t e, std::uint32_t r) {
  return BulkWord::pack(counters(c, e, r));
}

struct BulkSim {
  struct Thread {
    BulkWait<A> wait;
    int growth_turns_left = -1;  // >= 0 while growing: its promise is open
    bool finished = false;
    bool has_units = false;
    bool grew = false;
    std::uint32_t steps = 0;  // the wait's steps (a growth's turns are not steps)
  };

  std::uint64_t word = 0;
  std::uint32_t n, batch;
  int growth_latency;
  std::uint64_t batches_left;
  std::vector<Thread> threads;
  std::uint64_t delivered = 0, failed = 0;

  BulkSim(int thread_count, std::uint32_t n_, std::uint32_t batch_, SpinExit rule, int latency,
          std::uint64_t batches)
      : n(n_), batch(batch_), growth_latency(latency), batches_left(batches) {
    for (int i = 0; i < thread_count; ++i) threads.push_back(Thread{BulkWait<A>(n, batch, rule)});
  }

  bool all_finished() const {
    for (const Thread& t : threads)
      if (!t.finished) return false;
    return true;
  }
  // One turn of simulated thread i: a step of its wait, or a turn of its growth (which at its
  // end signals bulk_grow_delivered or bulk_grow_failed).
  void turn(std::size_t i) {
    Thread& t = threads[i];
    if (t.finished) return;
    if (t.growth_turns_left > 0) {
      --t.growth_turns_left;
      return;
    }
    if (t.growth_turns_left == 0) {
      t.growth_turns_left = -1;
      t.finished = true;
      if (batches_left > 0) {
        --batches_left;
        ++delivered;
        t.has_units = true;
        bulk_grow_delivered<A>(word, n, batch);
      } else {
        ++failed;
        bulk_grow_failed<A>(word, n, batch);
      }
      return;
    }
    ++t.steps;
    if (t.wait.step(word) != StepStatus::done) return;
    switch (t.wait.result().outcome) {
      case BulkWaitOutcome::grow:
        t.grew = true;
        t.growth_turns_left = growth_latency;
        break;
      case BulkWaitOutcome::took:
        t.has_units = true;
        t.finished = true;
        break;
      default:
        t.finished = true;
        break;
    }
  }
  std::uint64_t count_if(bool (*pred)(const Thread&)) const {
    std::uint64_t k = 0;
    for (const Thread& t : threads) k += pred(t);
    return k;
  }
  std::uint64_t took() const {
    return count_if([](const Thread& t) {
      return t.finished && t.wait.result().outcome == BulkWaitOutcome::took;
    });
  }
  std::uint64_t growers() const {
    return count_if([](const Thread& t) { return t.grew; });
  }
  std::uint64_t with_units() const {
    return count_if([](const Thread& t) { return t.has_units; });
  }
  // The word against a reference kept from the threads' states, not from the word:
  //   E = (B - N) per growth under way, R = N per thread holding a reservation,
  //   C = (B - N) per delivered batch - N per unit taken;
  // and the bounds of bulk_semaphore_request_error: R <= T * N, E <= (T - 1) * N + B - 1.
  void check_invariants() const {
    const SemCounters c = BulkWord::unpack(word);
    std::uint64_t growing = 0, reserving = 0;
    for (const Thread& t : threads) {
      growing += t.growth_turns_left >= 0;
      const BulkWaitPhase p = t.wait.phase();
      reserving += p == BulkWaitPhase::spin || p == BulkWaitPhase::release;
    }
    REQUIRE(c.expected == (batch - n) * growing);
    REQUIRE(c.reserved == n * reserving);
    const std::int64_t count =
        static_cast<std::int64_t>((batch - n) * delivered) - static_cast<std::int64_t>(n * took());
    REQUIRE(c.count == count);
    REQUIRE(c.count >= 0);  // Alg. 1 never takes more than C holds
    const std::uint64_t t = threads.size();
    REQUIRE(c.reserved <= t * n);
    REQUIRE(c.expected <= (t - 1) * n + batch - 1);
  }
};

}  // namespace gelado_test
