// Ouroboros' index queue and bulk semaphore under real host threads (std::thread), with the
// sequentially consistent std::atomic_ref policy. Also built with -fsanitize=thread (label tsan).
#include <catch2/catch.hpp>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "alloclab/core/ouroboros/bulk_semaphore.hpp"
#include "alloclab/core/ouroboros/host_atomics.hpp"
#include "alloclab/core/ouroboros/index_queue.hpp"

using namespace alloclab::ouro;

namespace {
using A = HostAtomics;
constexpr std::uint32_t kSpinBound = 1u << 26;  // far beyond any wait here: reaching it fails
auto yield_backoff = [](std::uint32_t) { std::this_thread::yield(); };
}  // namespace

TEST_CASE("index queue: concurrent producers and consumers move every index exactly once",
          "[core][ouro][queue][threads]") {
  constexpr std::uint32_t kSize = 8;
  constexpr std::uint32_t kPerProducer = 5000;
  for (const int mode : {0, 1}) {  // 0: 2 producers + 2 consumers; 1: 4 threads doing both
    IndexQueueWords words;
    std::vector<std::uint32_t> slots(kSize, kDeletionMarker);
    const IndexQueueRef q{&words, slots.data(), kSize};
    const int producers = mode == 0 ? 2 : 4;
    const std::uint32_t total = producers * kPerProducer;
    std::vector<std::atomic<std::uint32_t>> seen(total);
    std::atomic<std::uint32_t> dequeued{0};
    std::atomic<bool> bound_hit{false};
    auto produce = [&](int p) {
      for (std::uint32_t k = 0; k < kPerProducer; ++k) {
        for (;;) {
          EnqueueOp<A> op(static_cast<std::uint32_t>(p) * kPerProducer + k);
          const QueueOutcome o = queue_run_bounded(op, q, kSpinBound, yield_backoff);
          if (o == QueueOutcome::ok) break;
          if (o != QueueOutcome::full) {
            bound_hit = true;
            return;
          }
          std::this_thread::yield();
        }
      }
    };
    auto consume_one = [&]() -> bool {
      DequeueOp<A> op;
      const QueueOutcome o = queue_run_bounded(op, q, kSpinBound, yield_backoff);
      if (o == QueueOutcome::ok) {
        seen[op.index()].fetch_add(1);
        dequeued.fetch_add(1);
        return true;
      }
      if (o != QueueOutcome::empty) bound_hit = true;
      return false;
    };
    auto consume = [&] {
      while (dequeued.load() < total && !bound_hit.load())
        if (!consume_one()) std::this_thread::yield();
    };
    std::vector<std::thread> ts;
    if (mode == 0) {
      for (int p = 0; p < 2; ++p) ts.emplace_back(produce, p);
      for (int c = 0; c < 2; ++c) ts.emplace_back(consume);
    } else {
      for (int p = 0; p < 4; ++p)
        ts.emplace_back([&, p] {
          // Alternate: enqueue an own index, dequeue whatever is at the front.
          for (std::uint32_t k = 0; k < kPerProducer && !bound_hit.load(); ++k) {
            for (;;) {
              EnqueueOp<A> op(static_cast<std::uint32_t>(p) * kPerProducer + k);
              const QueueOutcome o = queue_run_bounded(op, q, kSpinBound, yield_backoff);
              if (o == QueueOutcome::ok) break;
              if (o != QueueOutcome::full) {
                bound_hit = true;
                return;
              }
              consume_one();
            }
            consume_one();
          }
          consume();
        });
    }
    for (auto& t : ts) t.join();
    REQUIRE_FALSE(bound_hit.load());
    CHECK(dequeued.load() == total);
    std::uint32_t once = 0;
    for (auto& s : seen) once += s.load() == 1;
    CHECK(once == total);
    CHECK(words.fill_count == 0);
    CHECK(words.front == total);
    CHECK(words.back == total);
    for (std::uint32_t s : slots) CHECK(s == kDeletionMarker);
  }
}

TEST_CASE("bulk semaphore: concurrent waiters grow exactly ceil(T / P) chunks",
          "[core][ouro][sem][threads]") {
  // The counting argument of the single-threaded random test holds for any interleaving, real
  // threads included: with N = 1 and no failures, ceil(T / P) growers.
  for (const std::uint32_t pages : {1u, 3u, 4u, 64u}) {
    constexpr int kThreads = 8;
    constexpr int kRounds = 200;  // each thread waits kRounds times
    std::uint64_t word = sem_pack(SemCounters{});
    std::atomic<std::uint64_t> chunks{0};
    std::atomic<std::uint64_t> ok{0};
    auto alloc = [&] {
      chunks.fetch_add(1);
      sem_signal<A>(word, pages, pages);
      return true;
    };
    std::vector<std::thread> ts;
    for (int t = 0; t < kThreads; ++t)
      ts.emplace_back([&, t] {
        for (int r = 0; r < kRounds; ++r) {
          const WaitResult res =
              sem_wait_bounded<A>(word, 1, pages, alloc, kSpinBound,
                                  t % 2 ? SpinExit::printed : SpinExit::covered, yield_backoff);
          if (res.outcome == WaitOutcome::ok) ok.fetch_add(1);
        }
      });
    for (auto& t : ts) t.join();
    const std::uint64_t demand = std::uint64_t{kThreads} * kRounds;
    CHECK(ok.load() == demand);
    CHECK(chunks.load() == (demand + pages - 1) / pages);
    CHECK(sem_unpack(word) ==
          SemCounters{static_cast<std::int32_t>(chunks.load() * pages - demand), 0, 0});
  }
}
