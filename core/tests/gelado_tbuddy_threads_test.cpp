// TBuddy under real host threads (std::thread, sequentially consistent std::atomic_ref): random
// allocs and frees of random orders; every page of a block handed out is claimed in a page
// owner table (two owners of one page at once fail the test); at the end everything is freed
// and the pool is one free block again. Also built with -fsanitize=thread (label tsan).
#include <catch2/catch.hpp>

#include <atomic>
#include <cstdint>
#include <random>
#include <thread>
#include <vector>

#include "alloclab/core/gelado/tbuddy.hpp"
#include "alloclab/core/ouroboros/host_atomics.hpp"

using namespace alloclab::gelado;

namespace {

using A = alloclab::ouro::HostAtomics;
constexpr std::uint64_t kStepBound = std::uint64_t{1} << 28;  // reaching it fails the test

}  // namespace

TEST_CASE("TBuddy under threads: no page handed out twice, everything comes back",
          "[core][gelado][tbuddy][threads]") {
  constexpr int kThreads = 4;
  constexpr int kOps = 20000;
  for (const std::uint32_t height : {4u, 10u}) {
    TBuddyStorage s(height);
    const TBuddyTree& t = s.tree;
    std::vector<std::uint32_t> owner(std::size_t{1} << height, 0);
    std::atomic<std::uint64_t> allocs{0}, nulls{0}, frees{0}, merges{0}, unbounded{0}, overlaps{0},
        too_many_locks{0}, merge_waits{0}, lock_spins{0};
    std::atomic<int> ready{0};  // a start gate, so that the threads overlap
    std::vector<std::thread> ts;
    for (int id = 0; id < kThreads; ++id)
      ts.emplace_back([&, id] {
        std::mt19937_64 rng(77 + id);
        ready.fetch_add(1);
        while (ready.load() < kThreads) std::this_thread::yield();
        auto backoff = [](std::uint32_t) { std::this_thread::yield(); };
        std::vector<std::uint32_t> mine;
        auto free_one = [&](std::size_t k) {
          const std::uint32_t node = mine[k];
          mine.erase(mine.begin() + static_cast<std::ptrdiff_t>(k));
          const std::uint32_t first = tb_offset(height, node);
          for (std::uint32_t p = first; p < first + (1u << tb_height(height, node)); ++p)
            if (A::exchange(owner[p], 0u) != static_cast<std::uint32_t>(id + 1)) ++overlaps;
          TBuddyFree<A> f(t, node);
          if (!tbuddy_run(f, t, kStepBound, backoff)) ++unbounded;
          merges += f.stats().merges;
          merge_waits += f.stats().merge_waits;
          lock_spins += f.stats().lock_spins;
          too_many_locks += f.stats().max_locks_held > 2;
          ++frees;
        };
        for (int op = 0; op < kOps; ++op) {
          if (mine.empty() || (mine.size() < 8 && rng() % 2 == 0)) {
            std::uint32_t order = 0;
            while (order < height && rng() % 3 == 0) ++order;
            TBuddyAlloc<A> a(order, static_cast<std::uint32_t>(rng()));
            if (!tbuddy_run(a, t, kStepBound, backoff)) {
              ++unbounded;
              return;
            }
            too_many_locks += a.stats().max_locks_held > 2;
            lock_spins += a.stats().lock_spins;
            ++allocs;
            if (a.node() == 0) {
              ++nulls;
              continue;
            }
            const std::uint32_t first = tb_offset(height, a.node());
            for (std::uint32_t p = first; p < first + (1u << order); ++p)
              if (A::exchange(owner[p], static_cast<std::uint32_t>(id + 1)) != 0) ++overlaps;
            mine.push_back(a.node());
          } else {
            free_one(rng() % mine.size());
          }
        }
        while (!mine.empty()) free_one(mine.size() - 1);
      });
    for (auto& th : ts) th.join();
    INFO("H = " << height << ": " << allocs << " allocs, " << nulls << " null, " << merges
                << " merges, " << merge_waits << " merge waits, " << lock_spins << " lock spins");
    CHECK(unbounded.load() == 0);
    CHECK(overlaps.load() == 0);
    CHECK(too_many_locks.load() == 0);
    CHECK(allocs.load() - nulls.load() == frees.load());
    CHECK(frees.load() > 1000);
    CHECK(merges.load() > 0);
    // Everything freed: one free block, sem[H] = 1, every other semaphore (0, 0, 0).
    CHECK(tbuddy_check(t, {}).empty());
    CHECK(node_state(s.nodes[1]) == NodeState::available);
  }
}
