// Gallatin's allocator under real host threads (std::thread, sequentially consistent
// std::atomic_ref): teams of random sizes and classes allocate and free at once on a small pool
// that runs out now and then; every 16-byte unit handed out is claimed in an owner table (two
// owners at once fail the test); at the end everything is freed and the state checks at rest.
// Also built with -fsanitize=thread (label tsan).
#include <catch2/catch.hpp>

#include <atomic>
#include <cstdint>
#include <random>
#include <thread>
#include <vector>

#include "alloclab/core/gallatin/allocator.hpp"
#include "alloclab/core/gallatin/large.hpp"
#include "alloclab/core/gallatin/state_check.hpp"
#include "alloclab/core/ouroboros/host_atomics.hpp"

using namespace alloclab::gallatin;

namespace {
using Op = Ops<alloclab::ouro::HostAtomics>;
}  // namespace

TEST_CASE("gallatin under threads: no byte handed out twice, the state consistent at rest",
          "[core][gallatin][threads]") {
  constexpr int kThreads = 6;
  constexpr int kOps = 4000;
  for (const bool return_segments : {true, false}) {
    INFO("return segments " << return_segments);
    Geometry g;
    g.segment_bytes = 64 * 1024;
    g.slices_per_block = 16;
    g.segments = 8;
    StateStorage ss(g, 4, return_segments);
    const State& st = ss.st;
    std::vector<std::atomic<std::uint32_t>> owner(g.pool_bytes() / 16);
    std::atomic<std::uint64_t> overlaps{0}, served{0}, nulls{0}, stuck{0};
    std::atomic<int> ready{0};
    std::vector<std::thread> ts;
    for (int id = 0; id < kThreads; ++id)
      ts.emplace_back([&, id] {
        std::mt19937_64 rng(11 + id);
        ready.fetch_add(1);
        while (ready.load() < kThreads) std::this_thread::yield();
        Counts c;
        struct Mine {
          std::uint64_t off;
          unsigned k;
        };
        std::vector<Mine> mine;
        auto claim = [&](std::uint64_t off, unsigned k, std::uint32_t who) {
          for (std::uint64_t u = off / 16; u < (off + g.slice_bytes(k)) / 16; ++u)
            if (owner[u].exchange(who) != (who ? 0u : static_cast<std::uint32_t>(id + 1)))
              ++overlaps;
        };
        for (int op = 0; op < kOps; ++op) {
          if (mine.size() < 24 && rng() % 2) {
            const unsigned k =
                static_cast<unsigned>(rng() % 3 == 0 ? rng() % kSizeClasses : rng() % 3);
            const auto n = static_cast<std::uint32_t>(1 + rng() % 8);
            std::uint64_t off[8];
            const std::uint32_t got =
                Op::malloc_team(st, k, static_cast<std::uint32_t>(id) % st.slots[k], n, off, c);
            served += got;
            nulls += n - got;
            for (std::uint32_t i = 0; i < got; ++i) {
              claim(off[i], k, static_cast<std::uint32_t>(id + 1));
              mine.push_back({off[i], k});
            }
          } else if (!mine.empty()) {
            const std::size_t j = rng() % mine.size();
            const Mine m = mine[j];
            mine[j] = mine.back();
            mine.pop_back();
            claim(m.off, m.k, 0);
            Op::free_slices(st, m.off, 1, c);
          }
        }
        for (const Mine& m : mine) {
          claim(m.off, m.k, 0);
          Op::free_slices(st, m.off, 1, c);
        }
        stuck += c.stuck;
      });
    for (auto& th : ts) th.join();
    CHECK(overlaps.load() == 0);
    CHECK(stuck.load() == 0);
    CHECK(served.load() > 0);
    const std::vector<std::uint32_t> none(std::uint64_t{g.segments} * g.max_blocks(), 0);
    CHECK(state_check(st, none) == "");
  }
}

TEST_CASE("gallatin under threads: large requests and 4096 B slices race to out of memory",
          "[core][gallatin][threads][large]") {
  // 8 segments of 4 MiB, 1024 slices a block (core/gallatin/large.hpp's test geometry): 4096 B
  // slices in teams, 2 x 4 KiB slices from the same class-8 blocks, whole blocks of 16 KiB ...
  // 1 MiB, and runs of 2 and 3 segments from the back, claimed at once by 6 threads on a pool
  // that runs out; every 4 KiB handed out is claimed in an owner table (two owners fail).
  constexpr int kThreads = 6;
  constexpr int kOps = 3000;
  using Big = Large<alloclab::ouro::HostAtomics>;
  Geometry g;
  g.segment_bytes = 4 << 20;
  g.slices_per_block = 1024;
  g.segments = 8;
  StateStorage ss(g, 4);
  const State& st = ss.st;
  std::vector<std::atomic<std::uint32_t>> owner(g.pool_bytes() / 4096);
  std::atomic<std::uint64_t> overlaps{0}, served{0}, nulls{0}, stuck{0}, large_served{0};
  std::atomic<int> ready{0};
  const std::uint64_t sizes[] = {4096, 8192, 16384, 100 << 10, 1 << 20, 5 << 20, 9 << 20};
  std::vector<std::thread> ts;
  for (int id = 0; id < kThreads; ++id)
    ts.emplace_back([&, id] {
      std::mt19937_64 rng(29 + id);
      ready.fetch_add(1);
      while (ready.load() < kThreads) std::this_thread::yield();
      Counts c;
      struct Mine {
        std::uint64_t off, span;
      };
      std::vector<Mine> mine;
      auto claim = [&](const Mine& m, std::uint32_t who) {
        for (std::uint64_t p = m.off / 4096; p < (m.off + m.span) / 4096; ++p)
          if (owner[p].exchange(who) != (who ? 0u : static_cast<std::uint32_t>(id + 1))) ++overlaps;
      };
      for (int op = 0; op < kOps; ++op) {
        if (mine.size() < 8 && rng() % 2) {
          const std::uint64_t bytes = sizes[rng() % std::size(sizes)];
          const Route r = route_of(bytes, g);
          const auto slot = static_cast<std::uint32_t>(id) % st.slots[kLargestClass];
          if (r.kind == RouteKind::slice) {
            const auto n = static_cast<std::uint32_t>(1 + rng() % 4);
            std::uint64_t off[4];
            const std::uint32_t got = Op::malloc_team(st, r.k, slot, n, off, c);
            served += got;
            nulls += n - got;
            for (std::uint32_t i = 0; i < got; ++i) {
              mine.push_back({off[i], 4096});
              claim(mine.back(), static_cast<std::uint32_t>(id + 1));
            }
          } else {
            const std::uint64_t off = Big::malloc(st, r, slot, c);
            if (off == kNoBlock) {
              ++nulls;
              continue;
            }
            ++served;
            ++large_served;
            mine.push_back({off, route_bytes(r, g)});
            claim(mine.back(), static_cast<std::uint32_t>(id + 1));
          }
        } else if (!mine.empty()) {
          const std::size_t j = rng() % mine.size();
          const Mine m = mine[j];
          mine[j] = mine.back();
          mine.pop_back();
          claim(m, 0);
          Big::free_one(st, m.off, c);
        }
      }
      for (const Mine& m : mine) {
        claim(m, 0);
        Big::free_one(st, m.off, c);
      }
      stuck += c.stuck;
    });
  for (auto& th : ts) th.join();
  CHECK(overlaps.load() == 0);
  CHECK(stuck.load() == 0);
  CHECK(large_served.load() > 0);
  CHECK(nulls.load() > 0);  // the pool ran out
  const std::vector<std::uint32_t> none(std::uint64_t{g.segments} * g.max_blocks(), 0);
  CHECK(state_check(st, none) == "");
}
