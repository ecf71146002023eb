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
