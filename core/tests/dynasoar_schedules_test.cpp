// DynaSOAr's allocate and deallocate interleaved at random, one memory operation at a time
// (core/dynasoar/alloc.hpp, free.hpp): a deterministic random scheduler steps agents that allocate
// objects of several types (coalesced groups of 1-4 slots) and free them again on a small heap,
// for many seeds; then std::threads do the same for real. Checked against a page mirror: no page
// is handed out twice, no double free, every operation ends; at rest the whole heap is consistent
// (heap_storage.hpp's check against the objects held). Over all seeds the races of App. A.3-A.4
// must have happened (rollbacks of another type, invalidation rollbacks, spins).
#include <catch2/catch.hpp>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "alloclab/core/dynasoar/alloc.hpp"
#include "alloclab/core/dynasoar/heap_storage.hpp"
#include "alloclab/core/ouroboros/host_atomics.hpp"

using namespace alloclab::dynasoar;

namespace {
using A = alloclab::ouro::HostAtomics;
constexpr unsigned kTypes[] = {1, 2, 3, 32, 64};

struct Object {
  std::uint64_t bid;
  unsigned slot, n;
};

// One agent: an operation in flight (or none) and the objects it holds.
struct Agent {
  bool allocating = false, freeing = false;
  AllocOp<A> alloc;
  DeallocOp<A> dealloc;
  std::vector<Object> held;
  unsigned n = 1;
};

// Marks (or clears) the pages of an object in the mirror; false if one was already so.
bool mark(std::vector<std::uint8_t>& used, const Object& o, bool on) {
  for (std::uint64_t p = slot_first_page(o.bid, o.slot, o.n);
       p < slot_first_page(o.bid, o.slot, o.n) + o.n; ++p) {
    if (used[p] == on) return false;
    used[p] = on;
  }
  return true;
}
}  // namespace

TEST_CASE("dynasoar schedules: random interleavings of allocations and frees stay correct",
          "[dynasoar][schedules]") {
  DsCounts total;
  std::uint64_t served = 0, failed = 0;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    CAPTURE(seed);
    const std::uint64_t pages = seed % 3 == 0 ? 64 * 4 + 40 : 64 * 4;  // sometimes a short tail
    HeapStorage st(pages, std::vector<bool>(pages, false));
    const Heap& h = st.heap;
    std::vector<std::uint8_t> used(pages, 0);
    std::mt19937_64 rng(seed);
    std::vector<Agent> agents(6);
    DsCounts c;
    AllocConfig cfg;
    cfg.max_steps = 20000;
    auto start = [&](Agent& a, unsigned id) {
      if (!a.held.empty() && rng() % 2 == 0) {
        const std::size_t k = rng() % a.held.size();
        const Object o = a.held[k];
        a.held.erase(a.held.begin() + static_cast<std::ptrdiff_t>(k));
        REQUIRE(mark(used, o, false));  // the object is gone before its slot is freed
        a.dealloc = DeallocOp<A>(o.bid, o.slot, o.n);
        a.freeing = true;
      } else {
        a.n = kTypes[rng() % std::size(kTypes)];
        a.alloc = AllocOp<A>(a.n, 1 + static_cast<unsigned>(rng() % 4), id,
                             static_cast<unsigned>(rng()), cfg);
        a.allocating = true;
      }
    };
    auto step = [&](Agent& a) {
      if (a.freeing) {
        a.dealloc.step(h, c);
        REQUIRE(!a.dealloc.double_free());
        a.freeing = !a.dealloc.finished();
      } else if (a.allocating) {
        a.alloc.step(h, c);
        REQUIRE(!a.alloc.broken());
        if (a.alloc.pending()) {
          for (std::uint64_t m = a.alloc.pending_mask(); m; m &= m - 1) {
            const Object o{a.alloc.pending_block(), alloclab::bits::count_trailing_zeros(m), a.n};
            REQUIRE(o.slot < valid_slots(o.n, o.bid, pages));
            REQUIRE(mark(used, o, true));  // never a page in use
            a.held.push_back(o);
            ++served;
          }
          a.alloc.take();
        }
        if (a.alloc.finished()) {
          failed += a.alloc.remaining();
          a.allocating = false;
        }
      }
    };
    for (int tick = 0; tick < 3000; ++tick) {
      const unsigned id = static_cast<unsigned>(rng() % agents.size());
      Agent& a = agents[id];
      if (!a.allocating && !a.freeing) start(a, id);
      step(a);
    }
    // Drain: every operation in flight to its end, round robin (each may wait on another).
    for (int k = 0; k < 100000; ++k) {
      bool busy = false;
      for (Agent& a : agents)
        if (a.allocating || a.freeing) {
          step(a);
          busy = true;
        }
      if (!busy) break;
    }
    for (const Agent& a : agents) REQUIRE(!(a.allocating || a.freeing));
    std::set<std::uint64_t> live;
    for (const Agent& a : agents)
      for (const Object& o : a.held) live.insert(slot_first_page(o.bid, o.slot, o.n));
    const std::string e = st.check([&](std::uint64_t p) { return live.count(p) == 1; });
    REQUIRE(e == "");
    total.add(c);
  }
  INFO("served " << served << " failed " << failed << " rollbacks " << total.rollbacks
                 << " inval_rollbacks " << total.inval_rollbacks << " invalidated "
                 << total.invalidated << " set_spins " << total.bitmap.set_spins << " clear_spins "
                 << total.bitmap.clear_spins << " reserve_lost " << total.reserve_lost);
  CHECK(served > 10000);
  CHECK(total.rollbacks > 0);        // Block Replaced (different type)
  CHECK(total.inval_rollbacks > 0);  // Allocate after Delete-Last
  CHECK(total.invalidated > 0);
  CHECK(total.reserve_lost > 0);
  CHECK(total.bitmap.set_spins + total.bitmap.clear_spins > 0);  // deferred (de)activation
}

TEST_CASE("dynasoar schedules: std::threads allocate and free concurrently",
          "[dynasoar][schedules][threads]") {
  const std::uint64_t pages = 64 * 16;
  HeapStorage st(pages, std::vector<bool>(pages, false));
  const Heap& h = st.heap;
  std::vector<std::atomic<std::uint8_t>> used(pages);
  constexpr unsigned kThreads = 4;
  std::vector<std::vector<Object>> held(kThreads);
  std::atomic<bool> bad{false};
  std::mutex counts_mutex;
  DsCounts total;
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < kThreads; ++t)
    pool.emplace_back([&, t] {
      std::mt19937_64 rng(t + 3);
      DsCounts c;
      AllocConfig cfg;
      auto run = [&](auto& op) {
        for (std::uint64_t k = 0; k < (1ull << 26); ++k) {
          const BitStatus s = op.step(h, c);
          if (s == BitStatus::done || op.finished()) return true;
          if (s == BitStatus::spinning) std::this_thread::yield();
        }
        return false;
      };
      for (int it = 0; it < 3000 && !bad; ++it) {
        auto& mine = held[t];
        if (!mine.empty() && rng() % 2 == 0) {
          const Object o = mine.back();
          mine.pop_back();
          for (std::uint64_t p = slot_first_page(o.bid, o.slot, o.n);
               p < slot_first_page(o.bid, o.slot, o.n) + o.n; ++p)
            if (used[p].exchange(0) != 1) bad = true;
          DeallocOp<A> op(o.bid, o.slot, o.n);
          if (!run(op) || op.double_free()) bad = true;
        } else {
          const unsigned n = kTypes[rng() % std::size(kTypes)];
          AllocOp<A> op(n, 1, t, static_cast<unsigned>(rng()), cfg);
          // A single-slot machine delivers at its last step.
          for (std::uint64_t k = 0; k < (1ull << 26) && !op.finished(); ++k) {
            const BitStatus s = op.step(h, c);
            if (op.pending()) {
              const Object o{op.pending_block(),
                             alloclab::bits::count_trailing_zeros(op.pending_mask()), n};
              op.take();
              for (std::uint64_t p = slot_first_page(o.bid, o.slot, n);
                   p < slot_first_page(o.bid, o.slot, n) + n; ++p)
                if (used[p].exchange(1) != 0) bad = true;
              mine.push_back(o);
            }
            if (s == BitStatus::spinning) std::this_thread::yield();
          }
          if (!op.finished() || op.broken()) bad = true;
        }
      }
      std::lock_guard<std::mutex> lock(counts_mutex);
      total.add(c);
    });
  for (auto& th : pool) th.join();
  REQUIRE(!bad);
  std::set<std::uint64_t> live;
  for (const auto& mine : held)
    for (const Object& o : mine) live.insert(slot_first_page(o.bid, o.slot, o.n));
  CHECK(st.check([&](std::uint64_t p) { return live.count(p) == 1; }) == "");
  INFO("invalidated " << total.invalidated << " rollbacks " << total.rollbacks);
  CHECK(total.invalidated > 0);
}
