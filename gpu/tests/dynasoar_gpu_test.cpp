// DynaSOAr (dynasoar, dynasoar-nocoal, dynasoar-norot) and BitmapAlloc on the GPU
// (gpu/src/dynasoar.cu, bitmap_alloc.cu; studies/dynasoar/). Every expected number is worked out
// here by hand from the heap's layout (blocks of 64 slots, N_T = floor(64 / n), a short last
// block, L = ceil(log64 M) levels), never read from the code under test. measure() and the
// workloads also check the heap after every kernel themselves (Def. 1 in every block bitmap, each
// block's state against its bitmap, no machine abandoned): a fault there throws, so each case
// below that returns also says the heap was consistent after each of its kernels. Label gpu:
// skipped where no device is present.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "alloclab/cpu_sim/simulator.hpp"
#include "alloclab/cpu_sim/workload_runner.hpp"
#include "alloclab/gpu/workload.hpp"
#include "alloclab/testing/workload_support.hpp"
#include "gpu_support.hpp"

using namespace alloclab;
using namespace alloclab::gpu;
using alloclab::testing::one_size_workload;
using gpu::test::quick;
using gpu::test::require_device;
using gpu::test::scenario;

namespace {

const Algorithm kDynasoars[] = {Algorithm::dynasoar, Algorithm::dynasoar_nocoal,
                                Algorithm::dynasoar_norot};
const Algorithm kAll[] = {Algorithm::dynasoar, Algorithm::dynasoar_nocoal,
                          Algorithm::dynasoar_norot, Algorithm::bitmap_alloc};

// CUDA's malloc heap is sized once per process (workload_test.cpp): the same 2 GiB here.
WorkloadOptions options() {
  WorkloadOptions o;
  o.heap_bytes = std::uint64_t{1} << 31;
  return o;
}

std::map<std::string, std::uint64_t> counts_of(const WorkloadPoint& p) {
  std::map<std::string, std::uint64_t> c;
  for (const auto& [k, v] : p.op_counts) c[k] = v;
  return c;
}

// Objects of `pages` pages handed out, as page ranges: none may overlap.
bool disjoint(const MeasureResult& r, unsigned pages) {
  std::vector<std::int64_t> first;
  for (auto f : r.first_page)
    if (f >= 0) first.push_back(f);
  std::sort(first.begin(), first.end());
  for (std::size_t k = 1; k < first.size(); ++k)
    if (first[k] < first[k - 1] + pages) return false;
  return true;
}

}  // namespace

// The paper's linux-scalability setting (§6, 16,384 threads, 1 GiB) at small scale: N threads
// each allocate n objects of one type in one kernel, then free them all. The heap: 8202 pages of
// 64 B = 128 whole blocks and a short last block of 10 pages. One-page objects: 128 * 64 + 10 =
// 8202 slots; two-page objects (N_T = 32): 128 * 32 + 5 = 4101 slots. The largest n that succeeds
// for N = 1024: 8 (8192 objects) and 4 (4096); one more fails exactly the requests beyond the
// slots. Utilisation at the largest n: 8192 / 8202 and 4096 * 2 / 8202 of the heap's bytes.
TEST_CASE("DynaSOAr GPU linux-scalability at small scale: utilisation by hand", "[gpu][dynasoar]") {
  require_device();
  const std::uint64_t T = 128 * 64 + 10, N = 1024;
  struct Case {
    unsigned pages, largest_n;
    std::uint64_t slots;
  };
  for (const Case c : {Case{1, 8, 8202}, Case{2, 4, 4101}}) {
    for (Algorithm a : kAll) {
      if (c.pages > 1 && a == Algorithm::bitmap_alloc) continue;  // one page per request
      INFO(name(a) << " pages " << c.pages);
      auto s = scenario(a, N, T, T);
      s.pages = c.pages;
      auto o = quick();
      o.per_thread = c.largest_n;
      const auto fits = measure(a, s, o);
      CHECK(fits.taken == N * c.largest_n);
      CHECK(fits.failed == 0);
      CHECK(disjoint(fits, c.pages));
      const double utilisation = static_cast<double>(fits.taken * c.pages) / static_cast<double>(T);
      CHECK(utilisation == Approx(static_cast<double>(N * c.largest_n * c.pages) / 8202.0));
      o.per_thread = c.largest_n + 1;
      const auto over = measure(a, s, o);
      CHECK(over.taken == c.slots);
      CHECK(over.failed == N * (c.largest_n + 1) - c.slots);
      CHECK(disjoint(over, c.pages));
    }
  }
}

// Out of memory: 5000 one-page requests on 4096 pages (64 blocks). At most 4096 are served, the
// rest return null, and every machine that gave up is counted: one per request without
// coalescing, one per warp group (up to 32 requests) with it.
TEST_CASE("DynaSOAr GPU out of memory returns null and is counted without hanging",
          "[gpu][dynasoar]") {
  require_device();
  const Workload w = one_size_workload(WorkloadFamily::alloc, 5000, 256, 4096 * 256);
  for (Algorithm a : kAll) {
    INFO(name(a));
    const WorkloadPoint p = run_workload(a, w, options(), 0).points.at(0);
    CHECK(p.allocs + p.failed == 5000);
    CHECK(p.allocs <= 4096);
    CHECK(p.failed >= 904);
    const auto c = counts_of(p);
    if (caps(a).warp_collective) {
      CHECK(c.at("gave_up") >= (p.failed + 31) / 32);
      CHECK(c.at("gave_up") <= p.failed);
    } else {
      CHECK(c.at("gave_up") == p.failed);
    }
  }
}

// Mixed types, then churn. Mixed: objects of 64 B to 1 KiB on pages of 64 B (types of 1 to 16
// pages, drawn per lane), so groups of different types share a warp; the free kernel empties
// every block (invalidation, deletion) and the second identical run initialises them again,
// possibly with other types. Churn: three-page objects (N_T = 21), a quarter freed and asked
// again each round. Every phase ends with the heap copied back and checked (Def. 1 in every
// block bitmap, each block's state against its bitmap): the run returning is that check; the
// counts are the workload's arithmetic (at most 16 x 4096 of 262,144 pages: room for all).
TEST_CASE("DynaSOAr GPU Def. 1 and the blocks hold after every kernel of mixed types and churn",
          "[gpu][dynasoar]") {
  require_device();
  auto mixed = one_size_workload(WorkloadFamily::mixed, 4096, 64, 16 << 20);
  mixed.page_bytes = 64;
  mixed.size = {64, 1024};
  auto churn = one_size_workload(WorkloadFamily::churn, 4096, 192, 16 << 20);
  churn.page_bytes = 64;
  churn.rounds = 4;
  churn.free_fraction = 0.25;
  for (Algorithm a : kDynasoars) {
    INFO(name(a));
    const WorkloadRun m = run_workload(a, mixed, options(), 0);
    REQUIRE(m.points.size() == 1);
    CHECK(m.points[0].allocs == 4096);
    CHECK(m.points[0].freed == 4096);
    const WorkloadRun r = run_workload(a, churn, options(), 0);
    REQUIRE(r.points.size() == 5);
    CHECK(r.points[0].allocs == 4096);
    for (std::uint64_t k = 1; k <= 4; ++k) {
      CHECK(r.points[k].freed == 1024);
      CHECK(r.points[k].allocs == 1024);
      CHECK(r.points[k].live_objects == 4096);
    }
  }
}

// Rotation changes which slots and blocks are chosen, not what is served: with room for every
// request both serve all of them, verified, with the same live objects and bytes.
TEST_CASE("DynaSOAr GPU rotation and norot give identical verified results", "[gpu][dynasoar]") {
  require_device();
  auto w = one_size_workload(WorkloadFamily::churn, 8192, 128, 4 << 20);
  w.page_bytes = 64;
  w.rounds = 3;
  w.free_fraction = 0.5;
  const WorkloadRun rot = run_workload(Algorithm::dynasoar, w, options(), 0);
  const WorkloadRun norot = run_workload(Algorithm::dynasoar_norot, w, options(), 0);
  REQUIRE(rot.points.size() == norot.points.size());
  for (std::size_t k = 0; k < rot.points.size(); ++k) {
    INFO("point " << k);
    CHECK(rot.points[k].allocs == norot.points[k].allocs);
    CHECK(rot.points[k].failed == 0);
    CHECK(norot.points[k].failed == 0);
    CHECK(rot.points[k].live_objects == norot.points[k].live_objects);
    CHECK(rot.points[k].live_bytes == norot.points[k].live_bytes);
  }
}

// One lane alone on an empty heap of 8192 pages (M = 128 blocks: L = 2 levels). Its first
// request: 5 lookups of active[1], each failing on the empty top word (1 load), the slow path's
// free.clear() (try_find_set: L = 2 loads; try_clear: 1 atomic, no propagation: 63 blocks stay
// in its container), initialize_block (2 stores), allocated[1].set and active[1].set (set-first
// at both levels: 2 atomics each), reserve (a load and the atomicOr) and the type's load: 17
// steps, 12 levels, 6 atomics. Its second request finds the block active: try_find_set = L = 2
// loads, then reserve and the type: 5 steps.
TEST_CASE("DynaSOAr GPU op counts of one lane alone match the hand-worked steps",
          "[gpu][dynasoar]") {
  require_device();
  for (Algorithm a : kDynasoars) {
    INFO(name(a));
    auto s = scenario(a, 1, 8192, 8192);
    auto o = quick();
    o.per_thread = 2;
    const auto r = measure(a, s, o);
    REQUIRE(r.steps.size() == 2);
    CHECK(r.steps[0] == 17);
    CHECK(r.steps[1] == 5);
    const Workload w = one_size_workload(WorkloadFamily::alloc, 1, 64, 8192 * 64);
    Workload one = w;
    one.page_bytes = 64;
    const WorkloadPoint p = run_workload(a, one, options(), 0).points.at(0);
    REQUIRE(p.steps.size() == 1);
    CHECK(p.steps[0] == 17);
    CHECK(p.atomics_issued == 6);
    CHECK(p.failed_claims == 0);
    const auto c = counts_of(p);
    CHECK(c.at("levels") == 12);
    CHECK(c.at("lookups") == 5);
    CHECK(c.at("lookup_fails") == 5);
    CHECK(c.at("find_fails") == 5);
    CHECK(c.at("reserves") == 1);
    CHECK(c.at("blocks_initialised") == 1);
    CHECK(c.at("gave_up") == 0);
    CHECK(c.at("rollbacks") == 0);
  }
  // BitmapAlloc: 8192 bits are L = 3 levels (8192 -> 128 -> 2 words); on a free pool each
  // request is try_find_set (3 loads) and try_clear (1 atomic, its word keeps other bits).
  auto s = scenario(Algorithm::bitmap_alloc, 1, 8192, 8192);
  auto o = quick();
  o.per_thread = 2;
  const auto r = measure(Algorithm::bitmap_alloc, s, o);
  REQUIRE(r.steps.size() == 2);
  CHECK(r.steps[0] == 4);
  CHECK(r.steps[1] == 4);
}

// A whole warp asking for one type on an empty heap: coalesced, its leader initialises one block
// and reserves the 32 slots with ONE atomicOr (reserves = 1, every lane's steps the leader's 17).
// Without coalescing each lane reserves its own slot: at least 32 atomicOrs.
TEST_CASE("DynaSOAr GPU coalescing reserves a warp's slots with one atomicOr", "[gpu][dynasoar]") {
  require_device();
  auto w = one_size_workload(WorkloadFamily::alloc, 32, 64, 8192 * 64);
  w.page_bytes = 64;
  for (Algorithm a : kDynasoars) {
    INFO(name(a));
    const WorkloadPoint p = run_workload(a, w, options(), 0).points.at(0);
    CHECK(p.allocs == 32);
    // The simulator's names, in its order: rows of both backends compare column for column.
    const WorkloadPoint sim = sim::run_workload(a, w, {}, 0).points.at(0);
    REQUIRE(p.op_counts.size() == sim.op_counts.size());
    for (std::size_t k = 0; k < p.op_counts.size(); ++k)
      CHECK(p.op_counts[k].first == sim.op_counts[k].first);
    const auto c = counts_of(p);
    if (caps(a).warp_collective) {
      CHECK(c.at("reserves") == 1);
      CHECK(c.at("blocks_initialised") == 1);
      CHECK(c.at("lookups") == 5);
      for (auto steps : p.steps) CHECK(steps == 17);
    } else {
      CHECK(c.at("reserves") >= 32);
    }
  }
}

// Without contention the GPU and the simulator drive the same step machines from the same pool,
// seeds and warp ids, so they must agree request for request: one thread (the simulator's
// sequential mode) for all four, and one whole warp coalesced into one group (its lockstep mode:
// one machine, the slots handed to the lanes in lane order) for dynasoar and dynasoar-norot. A
// half-free pool, so the rotation decides which application block's free slots are taken.
TEST_CASE("DynaSOAr GPU without contention matches the simulator request for request",
          "[gpu][dynasoar]") {
  require_device();
  for (std::uint64_t seed : {1ull, 2ull, 99ull}) {
    for (Algorithm a : kAll) {
      for (std::uint64_t lanes : {1ull, 32ull}) {
        if (lanes > 1 && !caps(a).warp_collective) continue;  // 32 machines race otherwise
        INFO(name(a) << " seed " << seed << " threads " << lanes);
        const auto s = scenario(a, lanes, 32768, 65536, seed);
        const auto gpu = measure(a, s, quick());
        sim::SimOptions o;
        o.mode = lanes > 1 ? sim::Mode::lockstep : sim::Mode::sequential;
        const auto ref = sim::run_once(s, o, 0);
        CHECK(gpu.first_page == ref.first_page);
        CHECK(gpu.steps == ref.steps);
      }
    }
  }
}
