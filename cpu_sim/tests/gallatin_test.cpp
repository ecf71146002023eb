// Gallatin in the simulator (cpu_sim/src/gallatin.cpp) against hand-worked counts: warp teams in
// lockstep (one atomicAdd per team, one block refill per buffer slot used), teams of one in
// sequential mode, a pool filled to its last slice then null, everything freed and served again,
// threads with mixed sizes, and the input errors (pool not whole segments, sizes 0 or above the
// pool).
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "alloclab/core/errors.hpp"
#include "alloclab/cpu_sim/simulator.hpp"
#include "sim_test_helpers.hpp"

using namespace alloclab;
using namespace alloclab::sim;

namespace {

constexpr std::uint64_t kSegmentPages = std::uint64_t{1} << 20;  // 16 MiB of 16 B pages

Scenario gallatin(std::uint64_t N, std::uint64_t segments, unsigned pages) {
  Scenario s;
  s.algo = Algorithm::gallatin;
  s.N = N;
  s.T = s.A = segments * kSegmentPages;
  s.pages = pages;
  s.seed = 5;
  return s;
}

using testing::count;

}  // namespace

TEST_CASE("gallatin lockstep: one atomicAdd per warp team, one refill per buffer slot used",
          "[cpu_sim][gallatin]") {
  // 4096 threads of 16 B: 128 warps of 32 lanes, one class, so 128 teams of 32. Thread blocks of
  // 8 warps run on SMs 0..15, each SM's slot of class 0 (132 slots) serving 256 slices of one
  // block of 4096: 16 refills, all from the one segment formatted.
  SimOptions o;
  o.mode = Mode::lockstep;
  const RunResult r = run_once(gallatin(4096, 1, 1), o, 0);
  CHECK(r.failed == 0);
  CHECK(count(r, "teams") == 128);
  CHECK(count(r, "team_lanes") == 4096 * 32);  // every request in a team of 32
  CHECK(count(r, "block_refills") == 16);
  CHECK(count(r, "segments_formatted") == 1);
  CHECK(count(r, "restarts") == 0);
  // The fast path is one atomicAdd per team: the 128 teams' and at most 16 per refill (the slot
  // CAS, the gate CAS, head, ring, the vEB trees' few) and the segment's format.
  CHECK(r.atomics_issued >= 128 + 16 * 4);
  CHECK(r.atomics_issued <= 128 + 16 * 16 + 16);
  for (const std::uint32_t steps : r.steps) CHECK(steps == 1);
}

TEST_CASE("gallatin sequential: teams of one, 4096 slices per block", "[cpu_sim][gallatin]") {
  // 10000 requests of 64 B (4 pages, class 2) one at a time: warps of 32 consecutive threads, 8
  // warps a thread block: 40 thread blocks on SMs 0..39, each SM's slot (33 slots of class 2:
  // slot = SM mod 33) serving 256 requests; slots 0..6 serve two SMs (512 slices): still one
  // block each: 33 refills.
  const RunResult r = run_once(gallatin(10000, 1, 4), SimOptions{}, 0);
  CHECK(r.failed == 0);
  CHECK(count(r, "teams") == 10000);
  CHECK(count(r, "team_lanes") == 10000);
  CHECK(count(r, "block_refills") == 33);
  CHECK(r.failed_claims == 0);
}

TEST_CASE("gallatin: a segment filled to its last slice then null - free all and serve again",
          "[cpu_sim][gallatin]") {
  for (const Mode mode : {Mode::sequential, Mode::lockstep, Mode::threads}) {
    INFO(mode_name(mode));
    // 256 B slices (16 pages): one segment holds 16 blocks of 4096 = 65536 slices; 100 requests
    // more fail. At the end a request whose SM's slot has no block left gets null although other
    // slots' blocks still have slices (the per-SM buffers strand them): at most one partly used
    // block per slot of class 4 (max(4, 132 >> 4) = 8), so at least 65536 - 8 * 4095 are served.
    Scenario s = gallatin(65536 + 100, 1, 16);
    SimOptions o;
    o.mode = mode;
    o.host_threads = 2;
    auto a = make_allocator(s, o, 1);
    const RunResult r1 = a->allocate(1);
    CHECK(r1.failed >= 100);
    CHECK(r1.taken + r1.failed * 16 == s.N * 16);
    CHECK(r1.taken >= (65536 - 8 * 4095) * 16);
    std::set<std::int64_t> firsts;
    for (const std::int64_t f : r1.first_page)
      if (f >= 0) CHECK(firsts.insert(f).second);
    for (const std::int64_t f : r1.first_page)
      if (f >= 0) a->free(static_cast<std::uint64_t>(f), 16);
    CHECK(a->free_count() == s.T);
    // Every block fully used came back to the segment's ring and is served again; the state is
    // checked at rest before and after (cpu_sim/src/gallatin.cpp).
    const RunResult r2 = a->allocate(2);
    CHECK(r2.failed >= 100);
    CHECK(r2.taken >= (65536 - 2 * 8 * 4095) * 16);
  }
}

TEST_CASE("gallatin threads: mixed sizes, verified at rest", "[cpu_sim][gallatin]") {
  // Nine classes need nine segments at least (a segment serves one class): 16.
  Scenario s = gallatin(20000, 16, 1);
  SimOptions o;
  o.mode = Mode::threads;
  o.host_threads = 4;
  for (std::uint64_t i = 0; i < s.N; ++i)
    o.pages_per_thread.push_back(static_cast<unsigned>(1 + (i * 37) % 256));
  auto a = make_allocator(s, o, 3);
  const RunResult r = a->allocate(1);  // the state is checked at the end of allocate()
  CHECK(r.failed == 0);
  for (std::uint64_t i = 0; i < s.N; i += 2)
    if (r.first_page[i] >= 0)
      a->free(static_cast<std::uint64_t>(r.first_page[i]), o.pages_per_thread[i]);
  const RunResult r2 = a->allocate(2);  // checked again: the frees in between
  CHECK(r2.taken + r2.failed > 0);
}

TEST_CASE("gallatin: input errors name the parameter", "[cpu_sim][gallatin]") {
  auto parameter = [](const Scenario& s, const SimOptions& o) -> std::string {
    try {
      check_input(s, o);
    } catch (const InputError& e) {
      return e.parameter();
    }
    return "";
  };
  Scenario s = gallatin(10, 1, 1);
  CHECK(parameter(s, {}).empty());
  s.T = kSegmentPages - 1;  // smaller than one segment
  s.A = s.T;
  CHECK(parameter(s, {}) == "--T");
  s.T = s.A = 3 * kSegmentPages / 2;  // not a whole number of segments
  CHECK(parameter(s, {}) == "--T");
  s = gallatin(10, 1, 257);  // 4112 B: two 4 KiB slices
  CHECK(parameter(s, {}).empty());
  s = gallatin(10, 1, 0);  // nothing asked
  CHECK(parameter(s, {}) == "--pages");
  s = gallatin(10, 1, static_cast<unsigned>(kSegmentPages));  // the whole pool: one block
  CHECK(parameter(s, {}).empty());
  s = gallatin(10, 1, static_cast<unsigned>(kSegmentPages + 1));  // above the pool
  CHECK(parameter(s, {}) == "--pages");
  s = gallatin(10, 2, static_cast<unsigned>(kSegmentPages + 1));  // two segments of two
  CHECK(parameter(s, {}).empty());
  SimOptions mixed;  // one thread's size above the pool
  mixed.pages_per_thread = {1, 2, static_cast<unsigned>(2 * kSegmentPages + 1)};
  s = gallatin(3, 2, 1);
  CHECK(parameter(s, mixed) == "--pages");
}
