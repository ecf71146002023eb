// Gallatin's vEB tree under real host threads (std::thread, sequentially consistent
// std::atomic_ref): many threads claiming from a full tree take every index exactly once; claims
// and re-inserts racing leave the tree consistent at rest (every upper bit the OR of its child).
// Also built with -fsanitize=thread (label tsan).
#include <catch2/catch.hpp>

#include <atomic>
#include <cstdint>
#include <random>
#include <thread>
#include <vector>

#include "alloclab/core/gallatin/veb_tree.hpp"
#include "alloclab/core/ouroboros/host_atomics.hpp"

using namespace alloclab::gallatin;

namespace {
using V = Veb<alloclab::ouro::HostAtomics>;
}  // namespace

TEST_CASE("vEB under threads: every index claimed exactly once", "[core][gallatin][veb][threads]") {
  constexpr int kThreads = 8;
  for (const std::uint64_t u : {std::uint64_t{64}, std::uint64_t{4096}, std::uint64_t{20011}}) {
    INFO("U = " << u);
    VebStorage st(u);
    const VebTree& t = st.tree;
    veb_fill(t);
    std::vector<std::atomic<std::uint32_t>> times(u);
    std::atomic<int> ready{0};
    std::atomic<std::uint64_t> restarts{0}, claimed{0};
    std::vector<std::thread> ts;
    for (int id = 0; id < kThreads; ++id)
      ts.emplace_back([&, id] {
        std::mt19937_64 rng(5 + id);
        ready.fetch_add(1);
        while (ready.load() < kThreads) std::this_thread::yield();
        VebCounts c;
        // Half the threads claim from 0 (front-first, as the segment tree does), half from a
        // random start (as a block tree's random probe does) and then from 0.
        for (;;) {
          std::uint64_t s = V::lock_offset(t, id % 2 ? rng() % u : 0, c);
          if (s == kVebFail) s = V::lock_offset(t, 0, c);
          if (s == kVebFail) break;
          times[s].fetch_add(1);
          claimed.fetch_add(1);
        }
        restarts.fetch_add(c.restarts);
      });
    for (auto& th : ts) th.join();
    CHECK(claimed.load() == u);
    std::uint64_t wrong = 0;
    for (auto& n : times) wrong += n.load() != 1;
    CHECK(wrong == 0);
    CHECK(veb_check(t).empty());
    for (std::uint64_t w : st.words) CHECK(w == 0);
  }
}

TEST_CASE("vEB under threads: claims and re-inserts racing leave the tree consistent",
          "[core][gallatin][veb][threads]") {
  constexpr int kThreads = 6;
  constexpr int kOps = 20000;
  for (const std::uint64_t u : {std::uint64_t{130}, std::uint64_t{4097}}) {
    INFO("U = " << u);
    VebStorage st(u);
    const VebTree& t = st.tree;
    veb_fill(t);
    std::vector<std::atomic<std::uint32_t>> owner(u);
    std::atomic<std::uint64_t> overlaps{0};
    std::atomic<int> ready{0};
    std::vector<std::thread> ts;
    for (int id = 0; id < kThreads; ++id)
      ts.emplace_back([&, id] {
        std::mt19937_64 rng(31 + id);
        ready.fetch_add(1);
        while (ready.load() < kThreads) std::this_thread::yield();
        VebCounts c;
        std::vector<std::uint64_t> mine;
        for (int op = 0; op < kOps; ++op) {
          if (mine.empty() || (mine.size() < 40 && rng() % 2)) {
            const std::uint64_t s = V::lock_offset(t, rng() % 3 ? 0 : rng() % u, c);
            if (s == kVebFail) continue;
            if (owner[s].exchange(static_cast<std::uint32_t>(id + 1)) != 0) ++overlaps;
            mine.push_back(s);
          } else {
            const std::size_t k = rng() % mine.size();
            const std::uint64_t s = mine[k];
            mine[k] = mine.back();
            mine.pop_back();
            if (owner[s].exchange(0) != static_cast<std::uint32_t>(id + 1)) ++overlaps;
            if (!V::insert(t, s, c)) ++overlaps;  // it was ours: it must be absent
          }
        }
        for (const std::uint64_t s : mine) {
          owner[s].store(0);
          if (!V::insert(t, s, c)) ++overlaps;
        }
      });
    for (auto& th : ts) th.join();
    CHECK(overlaps.load() == 0);
    CHECK(veb_check(t).empty());
    // Everything is back: the tree is full again.
    VebCounts c;
    std::uint64_t n = 0;
    for (std::uint64_t s = V::successor(t, 0, c); s != kVebFail; s = V::successor(t, s + 1, c))
      CHECK(s == n++);
    CHECK(n == u);
  }
}
