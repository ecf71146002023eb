// gg-ualloc and gg-malloc in the simulator (cpu_sim/src/gg_ualloc.cpp, gg_malloc.cpp): Figure 7's
// workload shape (each thread one request of one size, just enough threads to exhaust the pool)
// against the failures the bin layout implies, counted by hand from §4.2's numbers; exact counts
// of the first requests; bins retired and reused; the input checks. The shared contract runs
// both from the registry (allocator_contract_test.cpp).
#include <catch2/catch.hpp>

#include <string>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/gelado/ualloc_pool.hpp"
#include "alloclab/cpu_sim/simulator.hpp"
#include "sim_test_helpers.hpp"

using namespace alloclab;
using namespace alloclab::sim;

namespace {

constexpr std::uint64_t kMiB = 1 << 20;

// Figure 7's shape on a pool of `pool` bytes (core/gelado/ualloc_pool.hpp).
Scenario exhaust(Algorithm a, std::uint64_t pool, std::uint64_t bytes) {
  return gelado::ualloc_exhaustion_scenario(a, pool, bytes);
}
SimOptions in(Mode m, std::uint32_t chunk_bins = 0, std::uint32_t arenas = 0) {
  SimOptions o;
  o.mode = m;
  o.host_threads = 2;
  o.chunk_bins = chunk_bins;
  o.arenas = arenas;
  return o;
}
using testing::count;
using testing::parameter_of;

}  // namespace

TEST_CASE("gg-ualloc: Figure 7's exhaustion fails exactly what the 64-bin layout cannot hold",
          "[cpu_sim][gg-ualloc]") {
  // 1 MiB = 4 chunks of 64 bins; 62 regular bins each. Slots per bin, by hand from §4.2: the
  // body is 4096 - 128 = 3968 B; sizes <= 128 B also use a 128 B tail (4096 B in all).
  struct Row {
    std::uint64_t bytes, slots_per_bin;
  };
  const Row row =
      GENERATE(Row{8, 512}, Row{16, 256}, Row{128, 32}, Row{256, 15}, Row{512, 7}, Row{1024, 3});
  CAPTURE(row.bytes);
  const Scenario s = exhaust(Algorithm::gg_ualloc, kMiB, row.bytes);
  const RunResult r = run_once(s, in(Mode::sequential), 0);
  const std::uint64_t served = 4 * 62 * row.slots_per_bin;
  CHECK(s.N - r.failed == served);
  CHECK(count(r, "chunk_refills") == 4);
  CHECK(count(r, "refills") == 4 * 62);
  CHECK(count(r, "grow_failed") >= 1);
}

TEST_CASE("gg-ualloc: the 128-bin reading (512 KB chunks) in every mode", "[cpu_sim][gg-ualloc]") {
  const Mode mode = GENERATE(Mode::sequential, Mode::lockstep, Mode::threads);
  CAPTURE(mode_name(mode));
  // One 512 KB chunk: 126 regular bins, only bins 2..63 have tails. 8 B: 62 x 512 + 64 x 496 =
  // 63,488 of 65,536 (the same 1/32 lost as with 64 bins); 1 KB: 126 x 3 = 378 of 512.
  // (65,536 threads in lockstep take minutes: 8 B runs in the other two modes.)
  if (mode != Mode::lockstep) {
    const RunResult small = run_once(exhaust(Algorithm::gg_ualloc, kMiB / 2, 8), in(mode, 128), 0);
    CHECK(65536 - small.failed == 62 * 512 + 64 * 496);
  }
  const RunResult large = run_once(exhaust(Algorithm::gg_ualloc, kMiB / 2, 1024), in(mode, 128), 0);
  CHECK(512 - large.failed == 126 * 3);
  // The 64-bin default on the same pool: 2 chunks x 62 bins.
  const RunResult dflt = run_once(exhaust(Algorithm::gg_ualloc, kMiB / 2, 1024), in(mode), 0);
  CHECK(512 - dflt.failed == 2 * 62 * 3);
}

TEST_CASE("gg-malloc: 2 KB takes a 4 KB page (half fails) and 4 KB and up never fail",
          "[cpu_sim][gg-malloc]") {
  const Mode mode = GENERATE(Mode::sequential, Mode::lockstep);
  CAPTURE(mode_name(mode));
  CHECK(run_once(exhaust(Algorithm::gg_malloc, kMiB, 2048), in(mode), 0).failed == 256);
  for (const std::uint64_t bytes : {4096, 16384, 262144})
    CHECK(run_once(exhaust(Algorithm::gg_malloc, kMiB, bytes), in(mode), 0).failed == 0);
  // Below 2 KB it is UAlloc's layout: 512 B as above.
  CHECK(run_once(exhaust(Algorithm::gg_malloc, kMiB, 512), in(mode), 0).failed ==
        2048 - 4 * 62 * 7);
}

TEST_CASE("gg-ualloc: the first requests' counts by hand", "[cpu_sim][gg-ualloc]") {
  // A whole 256 KB pool, two 64 B requests in sequence: the first grows (a chunk from TBuddy,
  // one bin, slot 0), the second takes a unit, walks one list node and reads one bitmap word.
  Scenario s = exhaust(Algorithm::gg_ualloc, 256 << 10, 64);
  s.N = 1;
  auto a = make_allocator(s, in(Mode::sequential), 0);
  const RunResult r1 = a->allocate(1);
  CHECK(count(r1, "waits_grew") == 1);
  CHECK(count(r1, "chunk_refills") == 1);
  CHECK(count(r1, "refills") == 1);
  CHECK(count(r1, "list_nodes") == 0);
  // Bin 2 of chunk 0: offset 2 x 4096 + 128 = 8320 B, unit 1040.
  CHECK(r1.first_page[0] == 1040);
  const RunResult r2 = a->allocate(2);
  CHECK(count(r2, "waits_took") == 1);
  CHECK(count(r2, "list_nodes") == 1);
  CHECK(count(r2, "bitmap_probes") == 1);
  CHECK(count(r2, "chunk_refills") == 0);
  CHECK(r2.first_page[0] == 1040 + 8);  // slot 1: 64 B later
}

TEST_CASE("gg-ualloc: emptied bins are retired through an RCU barrier and go back to the chunk",
          "[cpu_sim][gg-ualloc]") {
  const Mode mode = GENERATE(Mode::sequential, Mode::lockstep, Mode::threads);
  CAPTURE(mode_name(mode));
  // One chunk: 62 bins x 3 slots of 1 KB.
  Scenario s = exhaust(Algorithm::gg_ualloc, 256 << 10, 1024);
  s.N = 186;
  auto a = make_allocator(s, in(mode), 0);
  const RunResult r1 = a->allocate(1);
  CHECK(r1.failed == 0);
  CHECK(count(r1, "refills") == 62);
  for (const auto f : r1.first_page) a->free(static_cast<std::uint64_t>(f), s.pages);
  // Every bin emptied: each last free retired its bin (the frees are sequential here, so none
  // delegates), and the callbacks gave the bins back to the chunk: the next round initialises
  // 62 bins again from the chunk list, with no chunk from TBuddy (there is no second one).
  const RunResult r2 = a->allocate(2);
  CHECK(count(r2, "free_retires") == 62);
  CHECK(count(r2, "free_barriers") == 62);
  CHECK(count(r2, "free_delegations") == 0);
  CHECK(r2.failed == 0);
  CHECK(count(r2, "refills") == 62);
  CHECK(count(r2, "chunk_refills") == 0);
}

TEST_CASE("gg-ualloc: more arenas than chunks fail more (each arena needs its own)",
          "[cpu_sim][gg-ualloc]") {
  // 8 B on 256 KB (one chunk): with one arena the layout loses 1/32; with 2 arenas the warps of
  // arena 1 find no chunk at all.
  Scenario s = exhaust(Algorithm::gg_ualloc, 256 << 10, 8);
  const RunResult one = run_once(s, in(Mode::sequential), 0);
  const RunResult two = run_once(s, in(Mode::sequential, 0, 2), 0);
  CHECK(one.failed == s.N - 62 * 512);
  CHECK(two.failed >= s.N / 2);
}

TEST_CASE("gg-malloc: mixed sizes go to UAlloc or TBuddy and free by alignment",
          "[cpu_sim][gg-malloc]") {
  const Mode mode = GENERATE(Mode::sequential, Mode::lockstep, Mode::threads);
  CAPTURE(mode_name(mode));
  // 100 blocks of 8 KB (200 pages) and UAlloc's chunks (one per class used): 4 MiB holds all.
  Scenario s = exhaust(Algorithm::gg_malloc, 4 * kMiB, 8);
  s.N = 300;
  SimOptions o = in(mode);
  for (std::uint64_t i = 0; i < s.N; ++i)
    o.pages_per_thread.push_back(i % 3 == 0 ? 1000 : 1 + static_cast<unsigned>(i % 100));
  auto a = make_allocator(s, o, 0);
  const RunResult r = a->allocate(1);
  CHECK(r.failed == 0);
  std::uint64_t aligned = 0;
  for (std::uint64_t i = 0; i < s.N; ++i) {
    const auto f = static_cast<std::uint64_t>(r.first_page[i]);
    aligned += (f * 8) % 4096 == 0;
    a->free(f, o.pages_per_thread[i]);
  }
  CHECK(aligned == 100);  // exactly the 8000 B requests (rounded to 8 KB: TBuddy)
  CHECK(a->free_count() == s.T);
  a->allocate(2);  // checks the pool at rest after the frees
}

TEST_CASE("gg-ualloc and gg-malloc: bad input names its parameter", "[cpu_sim][gg-ualloc]") {
  Scenario s = exhaust(Algorithm::gg_ualloc, kMiB, 8);
  CHECK(parameter_of(s, in(Mode::sequential, 0, 133)) == "--arenas");
  CHECK(parameter_of(s, in(Mode::sequential, 0, 132)).empty());
  CHECK(parameter_of(s, in(Mode::sequential, 100)) == "--chunk-bins");
  Scenario odd = s;
  odd.T = odd.A = kMiB / 8 + 512;  // not whole chunks
  CHECK(parameter_of(odd, in(Mode::sequential)) == "--T");
  Scenario half = exhaust(Algorithm::gg_ualloc, 256 << 10, 8);  // one 64-bin chunk, half of 128
  CHECK(parameter_of(half, in(Mode::sequential, 128)) == "--T");
  Scenario big = s;
  big.pages = 129;  // 1032 B: above UAlloc's 1 KB
  CHECK(parameter_of(big, in(Mode::sequential)) == "--pages");
  big.algo = Algorithm::gg_malloc;
  CHECK(parameter_of(big, in(Mode::sequential)).empty());
}

TEST_CASE("gg-ualloc: lockstep takes the chunk mutex once a group of a warp's growers",
          "[cpu_sim][gg-ualloc]") {
  // 1 KB on 1 MiB: 1024 threads (32 warps) ask for 4 x 62 x 3 = 744 slots, so 248 growers each
  // get a bin (the rest fail once TBuddy has no chunk). Sequential mode serves one request at a
  // time: every grower takes the mutex alone (acquisitions = growers that got a bin or failed).
  // Lockstep: the growers of a warp waiting together share one acquisition (§4.2.2), so there
  // are fewer acquisitions than growers; the served count is the layout's either way.
  const Scenario s = exhaust(Algorithm::gg_ualloc, kMiB, 1024);
  const RunResult seq = run_once(s, in(Mode::sequential), 0);
  const RunResult lock = run_once(s, in(Mode::lockstep), 0);
  CHECK(s.N - seq.failed == 4 * 62 * 3);
  CHECK(s.N - lock.failed == 4 * 62 * 3);
  CHECK(count(seq, "chunk_locks") == count(seq, "waits_grew"));
  CHECK(count(lock, "refills") == 4 * 62);
  CHECK(count(lock, "chunk_locks") < count(lock, "waits_grew"));
  CHECK(count(lock, "chunk_refills") == 4);
}
