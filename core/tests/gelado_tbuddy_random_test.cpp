// TBuddy under long random sequences: sequentially against a reference model of the pages
// (which are allocated; a request of order n can be met exactly when some aligned run of 2^n
// pages is free, since a buddy system that always merges keeps the maximal aligned free blocks),
// out of memory, and simulated threads interleaved one step at a time by a seeded schedule.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "gelado_tbuddy_support.hpp"

using namespace tbuddy_test;

namespace {

// The reference: one flag per page.
struct PageModel {
  std::vector<std::uint8_t> used;
  explicit PageModel(std::uint32_t height) : used(std::size_t{1} << height, 0) {}
  bool run_free(std::uint32_t first, std::uint32_t count) const {
    for (std::uint32_t p = first; p < first + count; ++p)
      if (used[p]) return false;
    return true;
  }
  bool can_allocate(std::uint32_t order) const {
    const std::uint32_t n = 1u << order;
    for (std::uint32_t first = 0; first < used.size(); first += n)
      if (run_free(first, n)) return true;
    return false;
  }
  void set(std::uint32_t first, std::uint32_t count, std::uint8_t v) {
    for (std::uint32_t p = first; p < first + count; ++p) used[p] = v;
  }
};

// While operations are in flight: every held block is Busy, has no Available node above or
// below it, and no two held blocks overlap (by pages).
bool held_safe(const TBuddyTree& t, const std::vector<std::uint32_t>& held) {
  std::vector<std::uint8_t> pages(std::size_t{1} << t.height, 0);
  for (const std::uint32_t b : held) {
    if (node_state(t.nodes[b]) != NodeState::busy) return false;
    for (std::uint32_t a = tb_parent(b); a >= 1; a = tb_parent(a))
      if (node_state(t.nodes[a]) == NodeState::available) return false;
    const std::uint32_t h = tb_height(t.height, b);
    for (std::uint32_t d = 1, lo = tb_left(b); d <= h; ++d, lo <<= 1)
      for (std::uint32_t i = lo; i < lo + (1u << d); ++i)
        if (node_state(t.nodes[i]) == NodeState::available) return false;
    const std::uint32_t first = tb_offset(t.height, b);
    for (std::uint32_t p = first; p < first + (1u << h); ++p)
      if (pages[p]++) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("TBuddy random sequences against a page model", "[core][gelado][tbuddy][random]") {
  for (const std::uint32_t height : {0u, 3u, 5u, 8u}) {
    std::mt19937_64 rng(1000 + height);
    TBuddyStorage s(height);
    const TBuddyTree& t = s.tree;
    PageModel model(height);
    std::vector<std::uint32_t> held;
    std::uint64_t ok = 0, refused = 0;
    for (int op = 0; op < 3000; ++op) {
      const bool do_alloc = held.empty() || rng() % 100 < 55;
      if (do_alloc) {
        // Small orders more often: order = min(H, geometric).
        std::uint32_t order = 0;
        while (order < height && rng() % 2 == 0) ++order;
        const bool expect = model.can_allocate(order);
        const std::uint32_t node = run_alloc(t, order, static_cast<std::uint32_t>(rng()));
        REQUIRE((node != 0) == expect);
        if (node != 0) {
          REQUIRE(tb_height(height, node) == order);
          const std::uint32_t first = tb_offset(height, node);
          REQUIRE(first % (1u << order) == 0);
          REQUIRE(model.run_free(first, 1u << order));
          model.set(first, 1u << order, 1);
          held.push_back(node);
          ++ok;
        } else {
          ++refused;
        }
      } else {
        const std::size_t k = rng() % held.size();
        const std::uint32_t node = held[k];
        held.erase(held.begin() + static_cast<std::ptrdiff_t>(k));
        run_free(t, node);
        model.set(tb_offset(height, node), 1u << tb_height(height, node), 0);
      }
      INFO("H = " << height << ", operation " << op << ": " << states(t));
      REQUIRE(tbuddy_check(t, held).empty());
    }
    CHECK(ok > 500);
    if (height > 0) CHECK(refused > 0);  // the pool filled up at times
    for (const std::uint32_t node : held) run_free(t, node);
    CHECK(states(t) == one_free_block(height));
    CHECK(tbuddy_check(t, {}).empty());
  }
}

TEST_CASE("TBuddy out of memory: null within a bound, then everything back",
          "[core][gelado][tbuddy][oom]") {
  const std::uint32_t height = 4;
  TBuddyStorage s(height);
  const TBuddyTree& t = s.tree;
  std::vector<std::uint32_t> held;
  for (std::uint32_t i = 0; i < 16; ++i) held.push_back(run_alloc(t, 0, i * 7919u));
  std::vector<std::uint32_t> sorted = held;
  std::sort(sorted.begin(), sorted.end());
  for (std::uint32_t i = 0; i < 16; ++i) CHECK(sorted[i] == 16 + i);  // every leaf, once
  CHECK(tbuddy_check(t, held).empty());
  // Exhausted: every order fails. Each level's wait grows (2 steps) up to H, where the grower
  // fails; then each level signals its failure: 2 (H + 1) + (H + 1) - 1 steps at most from
  // order 0 (fewer from higher orders), and the semaphores are left as they were. alloclab's
  // rule adds two reads of the frees-in-flight word (before the first wait, and at order H: no
  // free in flight, unchanged, so the null is final); the paper's rule (no word) has none.
  TBuddyTree paper = t;
  paper.frees = nullptr;
  for (std::uint32_t order = 0; order <= height; ++order) {
    for (const bool ours : {true, false}) {
      TBuddyAlloc<A> a(order, 0);
      std::uint64_t steps = 0;
      while (a.step(ours ? t : paper) != StepStatus::done) REQUIRE(++steps < 100);
      CHECK(a.node() == 0);
      CHECK(steps + 1 == 3 * (height + 1 - order) + (ours ? 2 : 0));
      CHECK(a.stats().frees_ops == (ours ? 2u : 0u));
      CHECK(a.stats().restarts == 0);
      CHECK(sem_counts(t) == std::vector<int>(height + 1, 0));
      CHECK(sems_quiet(t));
    }
  }
  // Free every second page: 8 pages free, none of them buddies: order 1 fails, order 0 works.
  for (std::uint32_t i = 0; i < 16; i += 2) run_free(t, 16 + i);
  held.clear();
  for (std::uint32_t i = 1; i < 16; i += 2) held.push_back(16 + i);
  CHECK(tbuddy_check(t, held).empty());
  CHECK(sem_counts(t) == std::vector<int>{8, 0, 0, 0, 0});
  CHECK(run_alloc(t, 1, 0) == 0);
  CHECK(sems_quiet(t));
  const std::uint32_t page = run_alloc(t, 0, 0);
  CHECK(page == 16);  // left-first walk
  held.push_back(page);
  CHECK(tbuddy_check(t, held).empty());
  // Free everything: the root is Available again.
  for (const std::uint32_t node : held) run_free(t, node);
  CHECK(states(t) == one_free_block(4));
  CHECK(sem_counts(t) == std::vector<int>{0, 0, 0, 0, 1});
  CHECK(tbuddy_check(t, {}).empty());
}

// Simulated threads, one step at a time in a seeded random order. Each round gives every
// thread one operation (an alloc of a random order, or a free of one of its blocks) and runs
// the steps until all are done: the tree is then at rest and checked whole. After every step,
// the blocks whose allocs have ended (and whose frees have not begun) are checked for safety.
TEST_CASE("TBuddy simulated threads interleaved step by step", "[core][gelado][tbuddy][sim]") {
  struct Sim {
    explicit Sim(const TBuddyTree& t) : alloc(0, 0), free_op(t, 1) {}
    bool is_alloc = false;
    TBuddyAlloc<A> alloc;
    TBuddyFree<A> free_op;
    bool running = false;
    std::vector<std::uint32_t> mine;
    std::uint64_t steps = 0;
  };
  for (const std::uint32_t threads : {2u, 4u, 8u}) {
    for (const std::uint32_t height : {3u, 5u}) {
      std::mt19937_64 rng(threads * 100 + height);
      TBuddyStorage s(height);
      const TBuddyTree& t = s.tree;
      std::vector<Sim> sim(threads, Sim(t));
      std::uint64_t allocs = 0, nulls = 0, merges = 0, merge_waits = 0, max_locks = 0;
      for (int round = 0; round < 150; ++round) {
        for (std::uint32_t i = 0; i < threads; ++i) {
          Sim& th = sim[i];
          th.is_alloc = th.mine.empty() || rng() % 100 < 50;
          if (th.is_alloc) {
            std::uint32_t order = 0;
            while (order < height && rng() % 3 == 0) ++order;
            th.alloc = TBuddyAlloc<A>(order, static_cast<std::uint32_t>(rng()));
          } else {
            const std::size_t k = rng() % th.mine.size();
            th.free_op = TBuddyFree<A>(t, th.mine[k]);
            th.mine.erase(th.mine.begin() + static_cast<std::ptrdiff_t>(k));
          }
          th.running = true;
        }
        std::uint32_t left = threads;
        std::uint64_t steps = 0;
        while (left > 0) {
          REQUIRE(++steps < 2000000);
          Sim& th = sim[rng() % threads];
          if (!th.running) continue;
          const StepStatus r = th.is_alloc ? th.alloc.step(t) : th.free_op.step(t);
          if (r == StepStatus::done) {
            th.running = false;
            --left;
            const TBuddyStats& st = th.is_alloc ? th.alloc.stats() : th.free_op.stats();
            REQUIRE(st.max_locks_held <= 2);
            REQUIRE(st.locks_held == 0);
            max_locks = std::max<std::uint64_t>(max_locks, st.max_locks_held);
            merges += st.merges;
            merge_waits += st.merge_waits;
            if (th.is_alloc) {
              ++allocs;
              if (th.alloc.node() != 0)
                th.mine.push_back(th.alloc.node());
              else
                ++nulls;
            }
          }
          std::vector<std::uint32_t> held;
          for (const Sim& o : sim) held.insert(held.end(), o.mine.begin(), o.mine.end());
          REQUIRE(held_safe(t, held));
        }
        std::vector<std::uint32_t> held;
        for (const Sim& o : sim) held.insert(held.end(), o.mine.begin(), o.mine.end());
        INFO(threads << " threads, H = " << height << ", round " << round << ": " << states(t));
        REQUIRE(tbuddy_check(t, held).empty());
      }
      for (Sim& th : sim)
        for (const std::uint32_t node : th.mine) run_free(t, node);
      CHECK(states(t) == one_free_block(height));
      CHECK(tbuddy_check(t, {}).empty());
      CHECK(max_locks == 2);
      CHECK(merges > 0);
      CHECK(allocs - nulls > 100);
      UNSCOPED_INFO(threads << " threads, H = " << height << ": " << allocs << " allocs, " << nulls
                            << " null, " << merges << " merges, " << merge_waits << " merge waits");
    }
  }
}
