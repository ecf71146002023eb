// DynaSOAr's hierarchical bitmap under real host threads (std::thread, sequentially consistent
// std::atomic_ref): concurrent try_find_set + try_clear claims every bit at most once and, with
// the bits found after the threads stop, exactly once; concurrent legal set/clear sequences on
// disjoint bits (App. A.5, Def. 3) leave the bitmap consistent (Def. 1) and equal to each
// thread's own record.
#include <catch2/catch.hpp>

#include <atomic>
#include <cstdint>
#include <random>
#include <thread>
#include <vector>

#include "alloclab/core/dynasoar/hbitmap.hpp"
#include "alloclab/core/dynasoar/hbitmap_check.hpp"
#include "alloclab/core/ouroboros/host_atomics.hpp"

using namespace alloclab::dynasoar;

namespace {
using A = alloclab::ouro::HostAtomics;
constexpr std::uint64_t kStepBound = 1ull << 28;  // far beyond any operation here

template <class Op>
bool run_yielding(Op& op, const HBitmap& b, BitmapCounts& c) {
  for (std::uint64_t k = 0; k < kStepBound; ++k) {
    const BitStatus s = op.step(b, c);
    if (s == BitStatus::done) return true;
    if (s == BitStatus::spinning) std::this_thread::yield();
  }
  return false;
}
}  // namespace

TEST_CASE("dynasoar bitmap threads: concurrent claims take every bit exactly once",
          "[dynasoar][hbitmap][threads]") {
  for (const std::uint64_t M : {std::uint64_t{64}, std::uint64_t{4097}, std::uint64_t{20000}}) {
    CAPTURE(M);
    HBitmapStorage st(M);
    const HBitmap& b = st.bitmap;
    hbitmap_assign(b, std::vector<bool>(M, true));
    constexpr unsigned kThreads = 4;
    std::vector<std::vector<std::uint64_t>> got(kThreads);
    std::atomic<bool> stuck{false};
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < kThreads; ++t)
      pool.emplace_back([&, t] {
        BitmapCounts c;
        for (unsigned k = 0;; ++k) {
          ClaimOp<A> op(b, k, t * 5);
          if (!run_yielding(op, b, c)) {
            stuck = true;
            return;
          }
          if (op.result() == kNoBit) return;  // found nothing (perhaps spuriously): stop
          got[t].push_back(static_cast<std::uint64_t>(op.result()));
        }
      });
    for (auto& th : pool) th.join();
    REQUIRE(!stuck);
    REQUIRE(hbitmap_consistency_error(b).empty());  // at rest: Def. 1
    std::vector<int> times(M, 0);
    for (const auto& g : got)
      for (const std::uint64_t i : g) ++times[i];
    for (const std::uint64_t i : hbitmap_indices(b)) ++times[i];  // left set: not claimed
    for (std::uint64_t i = 0; i < M; ++i) {
      CAPTURE(i);
      REQUIRE(times[i] == 1);
    }
  }
}

TEST_CASE("dynasoar bitmap threads: concurrent legal sets and clears end consistent",
          "[dynasoar][hbitmap][threads]") {
  // Thread t owns the bits i with i % 4 == t (so every container is shared by all threads) and
  // sets / clears its own bits only when that changes them: a legal multiset (Def. 3). Set-first
  // and clear-last race across threads in every container.
  const std::uint64_t M = 5000;
  HBitmapStorage st(M);
  const HBitmap& b = st.bitmap;
  constexpr unsigned kThreads = 4;
  std::vector<std::vector<bool>> mine(kThreads, std::vector<bool>(M, false));
  std::atomic<bool> stuck{false};
  std::atomic<std::uint64_t> spins{0};
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < kThreads; ++t)
    pool.emplace_back([&, t] {
      std::mt19937_64 rng(t + 11);
      BitmapCounts c;
      for (int k = 0; k < 20000; ++k) {
        const std::uint64_t i = (rng() % (M / kThreads)) * kThreads + t;
        BitOp<A> op(mine[t][i] ? BitOpKind::clear : BitOpKind::set, i);
        if (!run_yielding(op, b, c)) {
          stuck = true;
          return;
        }
        mine[t][i] = !mine[t][i];
      }
      spins += c.set_spins + c.clear_spins;
    });
  for (auto& th : pool) th.join();
  REQUIRE(!stuck);
  REQUIRE(hbitmap_consistency_error(b).empty());
  std::vector<std::uint64_t> expect;
  for (std::uint64_t i = 0; i < M; ++i)
    if (mine[i % kThreads][i]) expect.push_back(i);
  CHECK(hbitmap_indices(b) == expect);
}
