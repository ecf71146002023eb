// Workloads in the simulator, against hand-worked counts: the frees' atomics, the written
// patterns checked, a prefilled pool (--free), and --warp-uniform sizes.
#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/pool.hpp"
#include "alloclab/cpu_sim/workload_runner.hpp"
#include "alloclab/testing/workload_support.hpp"
#include "sim_test_helpers.hpp"

using namespace alloclab;
using namespace alloclab::sim;
using alloclab::sim::testing::pool_bytes_for;

namespace {
// A pool of `pages` pages of 256 B.
Workload make(WorkloadFamily f, std::uint64_t N, std::uint64_t size, std::uint64_t pages) {
  return alloclab::testing::one_size_workload(f, N, size, pages * 256);
}
std::string parameter_of(Algorithm a, const Workload& w) {
  try {
    check_workload_input(a, w, {});
  } catch (const InputError& e) {
    return e.parameter();
  }
  return "";
}
}  // namespace

// The atomics one free of a one-page object issues without contention, worked from each
// protocol, as [least, most]: the bitmap allocators clear one bit (one AND), the queue adds one
// to its tail, and Ouroboros' page queue signals the semaphore, takes a back position and CASes
// its slot (Alg. 3 l.17-18 with Alg. 1 l.5-6). Its chunk queue sets the page's bit, gives the
// chunk's count back and signals (3); the first free of an empty chunk also puts it in the queue
// (flag, back, slot: 3 more); the last free of a chunk flashes it instead of signalling (the
// semaphore's CAS, the count's CAS, the flag, and the reuse queue's fill count, back and slot).
// Over a virtualized array the page queue's slot CAS is on a Queue-Chunk's item, followed by its
// count (4); a free at the first item of a Queue-Chunk prepares the next (the reuse queue's fill
// count and its undo or claim and item, the chunk counter, the count, the start, the reference:
// 6), at position 0 also the first (6 more); a free that uses a Queue-Chunk up gives it back (the
// reference, and the reuse queue's fill count, back and slot: 4).
std::pair<std::uint64_t, std::uint64_t> atomics_per_free(Algorithm algo) {
  if (algo == Algorithm::ouro_p_s) return {3, 3};
  if (algo == Algorithm::ouro_p_va) return {4, 4 + 12};
  // Over linked Queue-Chunks the same 4; position 0 also makes chunk 0 and sets the three
  // pointers (6 + 3), and a free that fills or uses up a chunk moves a pointer (its CAS, the
  // trail count, and past the trail old's CAS, the count back and the reuse queue's 3).
  if (algo == Algorithm::ouro_p_vl) return {4, 4 + 12 + 3 + 1 + 8};
  if (algo == Algorithm::ouro_c_s) return {3, 3 + 3 + 6};
  // Over Queue-Chunks the chunk queue's publish (and flash) find their entry with loads; a publish
  // at the first entry of a Queue-Chunk prepares the next: a spare's CAS and count (or the chunk
  // counter and the count of drawn chunks), the chunk's count and start, and the reference (VA:
  // 5); VL also resets the chunk's next, links it and moves back (5 + 3).
  if (algo == Algorithm::ouro_c_va) return {3, 3 + 3 + 6 + 5};
  if (algo == Algorithm::ouro_c_vl) return {3, 3 + 3 + 6 + 8};
  // TBuddy (H = 12 on 4096 pages), a free alone: the lock CAS on x; per level merged, the
  // parent's lock CAS, the try-wait's CAS, the buddy's CAS and two exchanges (5); at the level
  // that stops, the parent's lock, the try-wait and the buddy's CAS and the unit signalled back
  // (when the CAS fails), the exchange to Available and the signal (6); then the climb, three per
  // level changed and two to release (3 (H - m) + 2 above m merges). At least the root's 3 (lock,
  // write, signal), at most 1 + 5m + 6 + 3(H - m) + 2 <= 9 + 5H. Plus the two fetch-adds on the
  // frees-in-flight word (on entry and after the last signal; tbuddy.hpp): 5 .. 11 + 5H.
  if (algo == Algorithm::gg_tbuddy) return {5, 11 + 5 * 12};
  // BitmapAlloc over 4096 slots (2 levels): set the slot's bit, and the level above when its
  // container was empty.
  if (algo == Algorithm::bitmap_alloc) return {1, 2};
  // DynaSOAr, 64 blocks (one level), a free alone: the AND; a block that was full is set active
  // (1); one that is empty now is invalidated (the OR), then deleted (clear active, clear
  // allocated, set free: 3) or rolled back (the AND, and a clear of active if a slot was freed).
  if (algo == Algorithm::dynasoar || algo == Algorithm::dynasoar_nocoal ||
      algo == Algorithm::dynasoar_norot)
    return {1, 1 + 1 + 1 + 3};
  // Gallatin (one segment: vEB trees of L = 1 level): one atomicAdd on the block's free counter;
  // the free of a block's last slice also gives the block back (the ring's tail, its slot, the
  // available count: 3, and the block tree's insert, <= L), and the last block of a segment
  // closes it (a CAS, the block tree's remove and the segment tree's insert, <= 2L): 5 + 3L.
  if (algo == Algorithm::gallatin) return {1, 5 + 3 * 1};
  // UAlloc, a free alone: the bitmap's AND, the count's CAS and the signal (3); the free that
  // finds its bin off the list links it (the lock, the count's CAS, 2 exchanges, the unlock: 5);
  // the last free of a bin retires it instead: the try-wait, the lock, the count's CAS and the
  // unlink's exchange, the unlock (5), the callback push (2), the barrier's CAS, grab and flip
  // (3), the callback under the chunk lock (lock, class, AND, 2 exchanges if the chunk was full,
  // unlock: 6) and the release (1): 3 + 17.
  if (algo == Algorithm::gg_ualloc || algo == Algorithm::gg_malloc) return {3, 3 + 17};
  return {1, 1};
}

TEST_CASE("free atomics: one per one-page object (an AND, or the queue's enqueue)",
          "[workload][counters]") {
  for (auto algo : algorithms_on(BackendKind::sim)) {
    INFO(name(algo));
    Workload w = make(WorkloadFamily::churn, 100, 200, 4096);
    w.pool_bytes = pool_bytes_for(algo, w.pool_bytes);
    w.rounds = 4;
    w.free_fraction = 0.3;
    const WorkloadRun r = run_workload(algo, w, {}, 0);
    std::uint64_t freed = 0;
    for (const auto& p : r.points) {
      const auto [least, most] = atomics_per_free(algo);
      CHECK(p.free_atomics_issued >= least * p.freed);
      CHECK(p.free_atomics_issued <= most * p.freed);
      freed += p.freed;
    }
    CHECK(freed == 120 + 4 * 30);  // every object allocated is freed once
  }
}

TEST_CASE("free atomics: RW_malloc issues one AND per 32-page word its run spans",
          "[workload][counters]") {
  // (object pages, pool pages) -> words the run spans, whatever pages it got: 40 pages in a
  // 64-page pool cover part of both words; 64 pages are the whole pool; 65 pages in a 96-page
  // pool cover parts of all three words; one page lies in one word.
  const std::vector<std::array<std::uint64_t, 3>> cases = {
      {40, 64, 2}, {64, 64, 2}, {65, 96, 3}, {1, 64, 1}};
  for (const auto& [pages, pool_pages, ands] : cases) {
    INFO(pages << " pages in a pool of " << pool_pages);
    const WorkloadRun r = run_workload(
        Algorithm::rwmalloc, make(WorkloadFamily::alloc, 1, pages * 256, pool_pages), {}, 0);
    REQUIRE(r.points.size() == 1);
    REQUIRE(r.points[0].allocs == 1);
    CHECK(r.points[0].freed == 1);
    CHECK(r.points[0].free_atomics_issued == ands);
  }
}

TEST_CASE("written patterns: every object's first and last bytes are checked before its free",
          "[workload][pattern]") {
  // Ten objects of 100 B write 8 + 8 bytes each; of 5 B, all 5.
  CHECK(run_workload(Algorithm::queue, make(WorkloadFamily::alloc, 10, 100, 64), {}, 0)
            .pattern_bytes_checked == 160);
  CHECK(run_workload(Algorithm::queue, make(WorkloadFamily::alloc, 10, 5, 64), {}, 0)
            .pattern_bytes_checked == 50);
  // Churn: 120 objects in round 0 (4 calls of 30) and 30 per round, 16 bytes each, all intact.
  for (auto algo : algorithms_on(BackendKind::sim)) {
    INFO(name(algo));
    Workload w = make(WorkloadFamily::churn, 100, 200, 4096);
    w.pool_bytes = pool_bytes_for(algo, w.pool_bytes);
    w.rounds = 5;
    w.free_fraction = 0.3;
    CHECK(run_workload(algo, w, {}, 0).pattern_bytes_checked == 16 * (120 + 5 * 30));
  }
}

TEST_CASE("prefill: --free f leaves round(f T) pages free, as simulate --free does",
          "[workload][prefill]") {
  Workload w = make(WorkloadFamily::oom, 1, 256, 3);
  w.initial_free = 0.5;
  CHECK(w.pages_free_at_start() == 2);  // 1.5 rounds up
  w.pool_bytes = 1000 * 256;
  w.initial_free = 0.3;
  CHECK(w.pages_free_at_start() == 300);
}

TEST_CASE("prefill: the queue hands out exactly the A pages free at the start",
          "[workload][prefill]") {
  // 64 pages, half free: batches of 10 until a request fails; the queue serves until empty.
  Workload w = make(WorkloadFamily::oom, 1, 256, 64);
  w.batch = 10;
  w.initial_free = 0.5;
  const WorkloadPoint p = run_workload(Algorithm::queue, w, {}, 0).points[0];
  REQUIRE(p.count_at_failure);
  CHECK(*p.count_at_failure == 32);
  CHECK(p.live_bytes == 32 * 256);  // utilisation 0.5: the workload's bytes only

  // Fragmentation of 10 objects: the queue hands out the 10 lowest free pages of the pool that
  // core/pool.hpp's permutation leaves free (trial 0 uses the seed itself).
  Workload f = make(WorkloadFamily::fragmentation, 10, 256, 1000);
  f.initial_free = 0.3;
  const PagePermutation pi(1000, f.seed);
  std::vector<std::uint64_t> free_pages;
  for (std::uint64_t q = 0; q < 1000 && free_pages.size() < 10; ++q)
    if (pi(q) < 300) free_pages.push_back(q);
  REQUIRE(free_pages.size() == 10);
  const WorkloadPoint fp = run_workload(Algorithm::queue, f, {}, 0).points[0];
  REQUIRE(fp.address_range_bytes);
  CHECK(*fp.address_range_bytes == (free_pages[9] - free_pages[0]) * 256 + 256);
}

TEST_CASE("prefill: no allocator hands out more than the free pages", "[workload][prefill]") {
  for (auto algo : algorithms_on(BackendKind::sim)) {
    INFO(name(algo));
    Workload w = make(WorkloadFamily::oom, 1, 256, 1024);
    w.pool_bytes = pool_bytes_for(algo, w.pool_bytes);  // Gallatin: one 16 MiB segment
    w.batch = 16;
    w.initial_free = 0.25;
    const WorkloadPoint p = run_workload(algo, w, {}, 0).points[0];
    CHECK(p.allocs <= w.pool_bytes / 256 / 4);
    // Ouroboros hands out whole chunks of 512 free units, which a pool three quarters used at
    // random does not have: it serves nothing, and must fail cleanly.
    if (!caps(algo).size_classes) CHECK(p.allocs > 0);
    CHECK(p.freed == p.allocs);
  }
}

TEST_CASE("prefill: a fraction outside 0 < f <= 1 or one that leaves no page is an input error",
          "[workload][prefill]") {
  for (double f : {0.0, -0.5, 1.5, std::numeric_limits<double>::quiet_NaN(), 0.001}) {
    INFO("f = " << f);
    Workload w = make(WorkloadFamily::alloc, 1, 256, 64);
    w.initial_free = f;  // 0.001 of 64 pages rounds to 0
    CHECK(parameter_of(Algorithm::rw, w) == "--free");
  }
  Workload w = make(WorkloadFamily::alloc, 1, 256, 64);
  w.initial_free = 1.0;
  CHECK(parameter_of(Algorithm::rw, w).empty());
}

TEST_CASE("warp-uniform: the 32 threads of a warp ask for one size", "[workload][warp]") {
  Workload w = make(WorkloadFamily::mixed, 256, 0, 1 << 16);
  w.size = {16, 4096};
  auto warps_uniform = [](const std::vector<std::uint64_t>& sizes) {
    std::uint64_t uniform = 0;
    for (std::size_t warp = 0; warp < sizes.size() / 32; ++warp) {
      bool same = true;
      for (std::size_t lane = 1; lane < 32; ++lane)
        same = same && sizes[32 * warp + lane] == sizes[32 * warp];
      uniform += same;
    }
    return uniform;
  };
  for (std::uint64_t trial : {0u, 1u}) {
    w.warp_uniform = true;
    const auto uniform = call_request_bytes(w, trial);
    REQUIRE(uniform.size() == 256);
    CHECK(warps_uniform(uniform) == 8);
    // The warps' sizes are drawn, not one size for all: 7 draws of 9 sizes agree by chance with
    // probability 9^-7.
    bool differ = false;
    for (std::size_t warp = 1; warp < 8; ++warp)
      differ = differ || uniform[32 * warp] != uniform[0];
    CHECK(differ);
    w.warp_uniform = false;
    CHECK(warps_uniform(call_request_bytes(w, trial)) == 0);  // 9 sizes: 32 alike, 9^-31
  }
  // A run with RW_malloc holds 32 objects of each warp's draw (core's request_bytes on the
  // warp's index), 8 warps.
  w.warp_uniform = true;
  std::uint64_t bytes = 0;
  for (std::uint64_t warp = 0; warp < 8; ++warp) bytes += 32 * request_bytes(w.size, w.seed, warp);
  const WorkloadPoint p = run_workload(Algorithm::rwmalloc, w, {}, 0).points[0];
  CHECK(p.allocs == 256);
  CHECK(p.live_bytes == bytes);
}
