// Gelado & Garland's semaphores under real host threads (std::thread) with the sequentially
// consistent std::atomic_ref policy: conservation of units, no waiter stuck, and the grower
// count of the bulk semaphore. Also built with -fsanitize=thread (label tsan).
#include <catch2/catch.hpp>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "alloclab/core/gelado/bulk_semaphore.hpp"
#include "alloclab/core/gelado/counting_semaphore.hpp"
#include "alloclab/core/ouroboros/host_atomics.hpp"

using namespace alloclab::gelado;

namespace {

using A = alloclab::ouro::HostAtomics;
constexpr std::uint32_t kSpinBound = 1u << 26;  // far beyond any wait here: reaching it fails
auto yield_backoff = [](std::uint32_t) { std::this_thread::yield(); };

// What the threads did, summed.
struct Tally {
  std::atomic<std::uint64_t> took{0};       // waits that took their unit
  std::atomic<std::uint64_t> delivered{0};  // growths that arrived (the grower keeps one unit)
  std::atomic<std::uint64_t> failed{0};     // growths that failed
  std::atomic<std::uint64_t> freed{0};      // units given back with signal
  std::atomic<std::uint64_t> gave_up{0};    // waits that reached the step bound
};

// Each of kThreads threads waits kRounds times for one unit; growths succeed while the budget
// of batches lasts, then fail; every second unit a thread obtains is freed again at once.
// run_one(grow) runs one bounded wait and returns 0 (took), 1 (grew, delivered), 2 (grew, failed)
// or 3 (gave up); free_one() signals one unit back.
template <class RunOne, class FreeOne>
void churn(Tally& tally, std::int64_t batch_budget, RunOne run_one, FreeOne free_one) {
  constexpr int kThreads = 8;
  constexpr int kRounds = 2000;
  std::atomic<std::int64_t> budget{batch_budget};
  std::vector<std::thread> ts;
  for (int t = 0; t < kThreads; ++t)
    ts.emplace_back([&, t] {
      auto grow = [&] {
        for (int i = 0; i < t % 3; ++i) std::this_thread::yield();  // growth takes a while
        return budget.fetch_sub(1) > 0;
      };
      bool free_next = (t & 1) != 0;
      for (int r = 0; r < kRounds; ++r) {
        const int how = run_one(t, grow);
        if (how == 3) {
          tally.gave_up.fetch_add(1);
          continue;
        }
        (how == 0 ? tally.took : how == 1 ? tally.delivered : tally.failed).fetch_add(1);
        if (how == 2) continue;
        if (free_next) {
          free_one();
          tally.freed.fetch_add(1);
        }
        free_next = !free_next;
      }
    });
  for (auto& th : ts) th.join();
}

}  // namespace

TEST_CASE("bulk semaphore under threads: units conserved, no waiter stuck",
          "[core][gelado][sem][threads]") {
  for (const std::uint32_t batch : {1u, 4u, 64u}) {
    for (const std::int64_t budget : {std::int64_t{1} << 40, std::int64_t{40}}) {
      std::uint64_t word = BulkWord::pack(SemCounters{});
      Tally tally;
      churn(
          tally, budget,
          [&](int t, auto& grow) {
            const BulkRunResult r =
                bulk_wait_bounded<A>(word, 1, batch, grow, kSpinBound,
                                     t % 2 ? SpinExit::printed : SpinExit::covered, yield_backoff);
            if (r.wait.outcome == BulkWaitOutcome::took) return 0;
            if (r.wait.outcome == BulkWaitOutcome::grow) return r.has_units ? 1 : 2;
            return 3;
          },
          [&] { bulk_signal<A>(word, 1, 0); });
      CHECK(tally.gave_up.load() == 0);
      CHECK(tally.took + tally.delivered + tally.failed == 8 * 2000);
      // In: B per batch that arrived, and every unit freed. Out: one per take and one per
      // delivered grower. What is left is C; nothing is promised or reserved at rest.
      const std::uint64_t in = batch * tally.delivered + tally.freed;
      const std::uint64_t out = tally.took + tally.delivered;
      REQUIRE(in >= out);
      CHECK(BulkWord::unpack(word) == SemCounters{static_cast<std::int32_t>(in - out), 0, 0});
      if (budget == 40) {  // the budget ran out: later growths failed, none beyond it arrived
        CHECK(tally.delivered.load() == 40);
        CHECK(tally.failed.load() > 0);
      } else {
        CHECK(tally.failed.load() == 0);
      }
    }
  }
}

TEST_CASE("bulk semaphore under threads: ceil(demand / B) growers without frees",
          "[core][gelado][sem][threads]") {
  // The counting argument of the single-threaded random test holds for real threads too.
  for (const std::uint32_t batch : {1u, 3u, 4u, 512u}) {
    constexpr int kThreads = 8;
    constexpr int kRounds = 300;
    std::uint64_t word = BulkWord::pack(SemCounters{});
    std::atomic<std::uint64_t> grows{0}, ok{0};
    auto grow = [&] {
      grows.fetch_add(1);
      return true;
    };
    std::vector<std::thread> ts;
    for (int t = 0; t < kThreads; ++t)
      ts.emplace_back([&, t] {
        for (int r = 0; r < kRounds; ++r)
          ok += bulk_wait_bounded<A>(word, 1, batch, grow, kSpinBound,
                                     t % 2 ? SpinExit::printed : SpinExit::covered, yield_backoff)
                    .has_units;
      });
    for (auto& th : ts) th.join();
    const std::uint64_t demand = std::uint64_t{kThreads} * kRounds;
    CHECK(ok.load() == demand);
    CHECK(grows.load() == (demand + batch - 1) / batch);
    CHECK(BulkWord::unpack(word) ==
          SemCounters{static_cast<std::int32_t>(grows.load() * batch - demand), 0, 0});
  }
}

TEST_CASE("counting semaphore under threads: units conserved, no waiter stuck",
          "[core][gelado][counting][threads]") {
  for (const std::uint32_t batch : {1u, 4u, 64u}) {
    for (const std::int64_t budget : {std::int64_t{1} << 40, std::int64_t{40}}) {
      std::uint64_t word = counting_pack(0);
      Tally tally;
      churn(
          tally, budget,
          [&](int, auto& grow) {
            const CountingRunResult r =
                counting_wait_bounded<A>(word, 1, batch, grow, kSpinBound, yield_backoff);
            if (r.wait.outcome == CountingWaitOutcome::took) return 0;
            if (r.wait.outcome == CountingWaitOutcome::grow) return r.has_units ? 1 : 2;
            return 3;
          },
          [&] { counting_signal<A>(word, 1); });
      CHECK(tally.gave_up.load() == 0);
      CHECK(tally.took + tally.delivered + tally.failed == 8 * 2000);
      const std::uint64_t in = batch * tally.delivered + tally.freed;
      const std::uint64_t out = tally.took + tally.delivered;
      REQUIRE(in >= out);
      CHECK(counting_unpack(word) == static_cast<std::int64_t>(in - out));
      if (budget == 40) {
        CHECK(tally.delivered.load() == 40);
        CHECK(tally.failed.load() > 0);
      } else {
        CHECK(tally.failed.load() == 0);
      }
    }
  }
}
