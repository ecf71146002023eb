// GPU workloads (gpu/workload.hpp) for every allocator the registry declares on the gpu backend:
// the same workload contract the simulator meets (every request served or null, live objects
// disjoint and intact, the pool empty after the frees), with the expected counts worked out here
// from the workload's numbers (pool / page, N x size), not from the code under test. The input
// checks need no device and run everywhere; the rest is label gpu, skipped where no device is.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <string>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/probe_sequence.hpp"
#include "alloclab/cpu_sim/workload_runner.hpp"
#include "alloclab/gpu/workload.hpp"
#include "alloclab/testing/workload_support.hpp"
#include "gpu_support.hpp"

using namespace alloclab;
using namespace alloclab::gpu;
using alloclab::testing::one_size_workload;
using gpu::test::require_device;

namespace {

// CUDA's malloc heap is sized once per process: every test asks for the size the measure tests'
// default gives it (2 GiB), whichever runs first.
WorkloadOptions heap_options() {
  WorkloadOptions o;
  o.heap_bytes = std::uint64_t{1} << 31;
  // gg-ualloc, gg-malloc: one arena. Their default, one arena per SM as the paper has, leaves
  // most arenas of these 1 MiB pools (four 256 KB chunks) without a chunk, and a request of such
  // an arena fails while another holds room (no stealing: studies/gelado-garland/speed.md, tested
  // in gg_ualloc_gpu_test.cpp); the contract here is about bytes, not arenas.
  o.arenas = 1;
  return o;
}

// A workload pool of at least `bytes` the allocator accepts: rounded up to its pool granule
// (Gallatin's 16 MiB segments).
std::uint64_t pool_for(Algorithm algo, std::uint64_t bytes) {
  const std::uint64_t g = caps(algo).pool_granule_bytes;
  return g == 0 ? bytes : (bytes + g - 1) / g * g;
}

// The workload `w` on a pool `algo` accepts.
Workload for_allocator(Algorithm algo, Workload w) {
  w.pool_bytes = pool_for(algo, w.pool_bytes);
  return w;
}

std::string input_error_parameter(Algorithm algo, const Workload& w,
                                  const WorkloadOptions& o = {}) {
  try {
    check_workload_input(algo, w, o);
  } catch (const InputError& e) {
    return e.parameter();
  }
  return "";
}

}  // namespace

TEST_CASE("GPU workload input errors name the parameter, device or not", "[gpu]") {
  const std::uint64_t MiB = 1 << 20;
  auto w = one_size_workload(WorkloadFamily::alloc, 1024, 512, 64 * MiB);
  CHECK(input_error_parameter(Algorithm::rw, w) == "--size");  // two 256 B pages
  CHECK(input_error_parameter(Algorithm::corw_lockmap, w) == "--allocator");
  w.size = {16384, 16384};  // 64 pages: more than one 32-bit word holds
  CHECK(input_error_parameter(Algorithm::rwmalloc, w) == "--size");
  auto m = one_size_workload(WorkloadFamily::mixed, 1024, 256, 64 * MiB);
  m.size = {256, 4096};
  CHECK(input_error_parameter(Algorithm::rwmalloc, m) == "--warp-uniform");
  m.warp_uniform = true;
  CHECK(input_error_parameter(Algorithm::rwmalloc, m).empty());
  auto b = one_size_workload(WorkloadFamily::alloc, 1024, 256, 64 * MiB);
  b.block = 512;
  CHECK(input_error_parameter(Algorithm::corw, b) == "--block");
  CHECK(input_error_parameter(Algorithm::rwbm, b).empty());
  b.block = 100;
  CHECK(input_error_parameter(Algorithm::rwbm, b) == "--block");
  auto huge = one_size_workload(WorkloadFamily::alloc, 1024, 16, std::uint64_t{1} << 40);
  huge.page_bytes = 16;  // 2^36 pages
  CHECK(input_error_parameter(Algorithm::rwbm, huge) == "--pool");
  auto many = one_size_workload(WorkloadFamily::alloc, (std::uint64_t{1} << 31) + 1, 256, 64 * MiB);
  CHECK(input_error_parameter(Algorithm::rw, many) == "--N");
  WorkloadOptions no_repeats;
  no_repeats.repeats = 0;
  CHECK(input_error_parameter(Algorithm::rw,
                              one_size_workload(WorkloadFamily::alloc, 1024, 256, 64 * MiB),
                              no_repeats) == "--repeats");
}

TEST_CASE("GPU repeats: every repeat from the pristine pool, verified, counts of the first",
          "[gpu]") {
  require_device();
  // Churn with room for every request (2048 live of 4096 pages) and an oom whose queue fills the
  // pool exactly: a repeat that did not start from the pristine pool would fail its checks (the
  // queue's tickets, the pages in use) or serve fewer.
  auto churn = one_size_workload(WorkloadFamily::churn, 2048, 256, 1 << 20);
  churn.rounds = 2;
  churn.free_fraction = 0.25;
  auto oom = one_size_workload(WorkloadFamily::oom, 1, 256, 1 << 20);
  oom.batch = 512;
  WorkloadOptions o = heap_options();
  // A bound that ends the oom's searches soon, above the waits of a warp admitted by the first
  // grow of a virtualized queue (it fills two fresh Queue-Chunks, 4096 stores, meanwhile).
  o.max_steps = 16384;
  o.repeats = 3;
  for (Algorithm algo : algorithms_on(BackendKind::gpu)) {
    CAPTURE(name(algo));
    const WorkloadRun c = run_workload(algo, for_allocator(algo, churn), o, 0);
    REQUIRE(c.points.size() == 3);
    CHECK(c.points[0].allocs == 2048);
    for (std::uint64_t k = 1; k <= 2; ++k) {
      CHECK(c.points[k].freed == 512);
      CHECK(c.points[k].allocs == 512);
      CHECK(c.points[k].alloc_seconds > 0);
    }
    bool medians_noted = false;
    for (const auto& n : c.notes)
      medians_noted = medians_noted || n.find("medians over 3") != n.npos;
    CHECK(medians_noted);
    if (algo == Algorithm::queue) {
      const WorkloadRun q = run_workload(algo, oom, o, 0);
      CHECK(q.points[0].allocs == 4096);
      REQUIRE(q.points[0].count_at_failure);
      CHECK(*q.points[0].count_at_failure == 4096);
    }
  }
}

TEST_CASE("every GPU allocator serves an alloc workload and gives every page back", "[gpu]") {
  require_device();
  const std::uint64_t N = 3000, size = 200, pool = 1 << 20;  // 4096 pages of 256 B
  for (Algorithm algo : algorithms_on(BackendKind::gpu)) {
    CAPTURE(name(algo));
    const WorkloadRun r =
        run_workload(algo, one_size_workload(WorkloadFamily::alloc, N, size, pool_for(algo, pool)),
                     heap_options(), 0);
    REQUIRE(r.points.size() == 1);
    const WorkloadPoint& p = r.points[0];
    CHECK(p.requests == N);
    CHECK(p.allocs == N);
    CHECK(p.failed == 0);
    CHECK(p.freed == N);
    CHECK(p.live_objects == N);
    CHECK(p.live_bytes == N * size);
    REQUIRE(p.address_range_bytes);
    CHECK(*p.address_range_bytes >= N * size);  // N disjoint objects of `size` bytes
    if (caps(algo).requests != RequestKind::bytes)
      CHECK(*p.address_range_bytes <= pool_for(algo, pool));
    CHECK(p.alloc_seconds > 0);
  }
}

TEST_CASE("GPU churn: each round frees round(f N) objects and the same threads get memory back",
          "[gpu]") {
  require_device();
  auto w = one_size_workload(WorkloadFamily::churn, 2048, 256, 1 << 20);
  w.rounds = 3;
  w.free_fraction = 0.25;
  for (Algorithm algo : algorithms_on(BackendKind::gpu)) {
    CAPTURE(name(algo));
    const WorkloadRun r = run_workload(algo, for_allocator(algo, w), heap_options(), 0);
    REQUIRE(r.points.size() == 4);
    for (std::uint64_t k = 1; k <= 3; ++k) {
      CHECK(r.points[k].round == k);
      CHECK(r.points[k].freed == 512);  // round(0.25 * 2048)
      CHECK(r.points[k].requests == 512);
      CHECK(r.points[k].allocs == 512);  // 2048 of 4096 pages live: room for every request
      CHECK(r.points[k].live_objects == 2048);
    }
  }
}

TEST_CASE("GPU oom: the queue fills the pool exactly, the others never beyond it", "[gpu]") {
  require_device();
  auto w = one_size_workload(WorkloadFamily::oom, 1, 256, 1 << 20);  // 4096 pages
  w.batch = 512;
  for (Algorithm algo : algorithms_on(BackendKind::gpu)) {
    if (caps(algo).requests == RequestKind::bytes) continue;  // CUDA's heap has its own overhead
    CAPTURE(name(algo));
    WorkloadOptions o = heap_options();
    o.max_steps = 4096;
    const Workload sized = for_allocator(algo, w);
    const WorkloadRun r = run_workload(algo, sized, o, 0);
    const WorkloadPoint& p = r.points[0];
    REQUIRE(p.count_at_failure);
    CHECK(p.live_objects == p.allocs);
    CHECK(p.allocs <= sized.pool_bytes / 256);
    CHECK(p.live_bytes == p.allocs * 256);
    if (algo == Algorithm::queue) CHECK(p.allocs == 4096);
  }
}

TEST_CASE("GPU atomics counted per request match each protocol's arithmetic", "[gpu]") {
  require_device();
  // The queue: one ticket per request, one more to give a failed ticket back; 300 of 256 pages.
  auto q = one_size_workload(WorkloadFamily::alloc, 300, 256, 64 * 1024);
  const WorkloadPoint qp = run_workload(Algorithm::queue, q, heap_options(), 0).points[0];
  CHECK(qp.allocs == 256);
  CHECK(qp.atomics_issued == 300 + 44);
  CHECK(qp.free_atomics_issued == 256);
  // RW and RW-BM: every atomicOr wins once or is lost (a collision, one lost bit: a failed
  // claim).
  auto w = one_size_workload(WorkloadFamily::alloc, 4000, 256, 1 << 20);
  for (Algorithm algo : {Algorithm::rw, Algorithm::rwbm}) {
    CAPTURE(name(algo));
    const WorkloadPoint p = run_workload(algo, w, heap_options(), 0).points[0];
    CHECK(p.atomics_issued == p.allocs + p.failed_claims);
    CHECK(p.failed_claims == p.collisions);
  }
  // CoRW: every atomicOr wins at least one bit (all handed out) or loses at least one (a failed
  // claim, as the simulator counts it; each lost bit is a collision, at most 32 per OR):
  // allocs / 32 <= ORs <= allocs + failed claims, failed claims <= collisions <= 32 * failed.
  const WorkloadPoint c = run_workload(Algorithm::corw, w, heap_options(), 0).points[0];
  CHECK(c.atomics_issued >= (c.allocs + 31) / 32);
  CHECK(c.atomics_issued <= c.allocs + c.failed_claims);
  CHECK(c.failed_claims <= c.collisions);
  CHECK(c.collisions <= 32 * c.failed_claims);
  // RW_malloc: one successful compare-and-swap per request served, failed ones besides.
  const WorkloadPoint m = run_workload(Algorithm::rwmalloc, w, heap_options(), 0).points[0];
  CHECK(m.atomics_issued >= m.allocs);
}

TEST_CASE("GPU mixed sizes: requested bytes are what the workload stream draws", "[gpu]") {
  require_device();
  auto w = one_size_workload(WorkloadFamily::mixed, 1024, 256, 4 << 20);
  w.size = {256, 4096};
  w.warp_uniform = true;
  std::uint64_t expected = 0;
  for (std::uint64_t i = 0; i < 1024; ++i)
    expected += request_bytes(w.size, trial_seed(w.seed, 0), i / 32);
  for (Algorithm algo : {Algorithm::rwmalloc, Algorithm::cudamalloc}) {
    CAPTURE(name(algo));
    const WorkloadRun r = run_workload(algo, w, heap_options(), 0);
    CHECK(r.points[0].allocs == 1024);
    CHECK(r.points[0].live_bytes == expected);
  }
}

TEST_CASE("GPU --bit-choice reaches the kernels: 4 lanes on one word", "[gpu]") {
  require_device();
  // A pool of one 32-bit word (32 pages of 256 B) and 4 threads of one warp, all reading word 0
  // (all free). Rotated, lane l targets bit l (core/bit_choice.hpp: l * 32 / 32), four distinct
  // free bits: no claim is lost, whatever the order of the atomics (a lane that reads after
  // another's atomic takes the next free bit from its own start). Lowest: all four target bit 0
  // of the same free word, so at least one claim is lost (hand-worked; the simulator's lockstep
  // run loses three).
  for (Algorithm algo : {Algorithm::rwbm, Algorithm::corw}) {
    CAPTURE(name(algo));
    auto w = one_size_workload(WorkloadFamily::alloc, 4, 256, 32 * 256);
    const WorkloadPoint lowest = run_workload(algo, w, heap_options(), 0).points.at(0);
    w.bit_choice = BitChoice::rotated;
    const WorkloadPoint rotated = run_workload(algo, w, heap_options(), 0).points.at(0);
    CHECK(lowest.allocs == 4);
    CHECK(rotated.allocs == 4);
    CHECK(lowest.failed_claims >= 1);
    CHECK(rotated.failed_claims == 0);
    CHECK(rotated.atomics_issued == 4);
  }
}

TEST_CASE("GPU Ouroboros counts of its own: the simulator's names and the alloc phase's balance",
          "[gpu]") {
  require_device();
  // 2^14 requests of 256 B from an empty pool: 32 pages a chunk, no free during the phase.
  const std::uint64_t N = 1 << 14, per_chunk = 32;
  const Workload w = one_size_workload(WorkloadFamily::alloc, N, 256, 64 << 20);
  for (const auto& info : kAlgorithms) {
    // Ouroboros' own counts (gg-tbuddy and Gallatin have size classes and counts of their own).
    if (!info.caps.size_classes || !info.caps.has(BackendKind::gpu) ||
        !info.name.starts_with("ouro-"))
      continue;
    CAPTURE(name(info.id));
    const WorkloadPoint p = run_workload(info.id, w, heap_options(), 0).points[0];
    const WorkloadPoint sim = sim::run_workload(info.id, w, {}, 0).points[0];
    REQUIRE(p.op_counts.size() == sim.op_counts.size());
    std::map<std::string, std::uint64_t> c;
    for (std::size_t i = 0; i < p.op_counts.size(); ++i) {
      CHECK(p.op_counts[i].first == sim.op_counts[i].first);
      c[p.op_counts[i].first] = p.op_counts[i].second;
    }
    REQUIRE(p.allocs == N);
    // Every page served lies on a chunk grown in this phase.
    CHECK(c.at("chunks") * per_chunk >= N);
    CHECK(c.at("sem_cas") >= c.at("chunks"));  // a grow is a CAS that succeeded
    if (c.count("published")) {
      // Variant C: each chunk grown enters its queue once (no free can re-enqueue one), and each
      // request served left its chunk in one of the modes of Alg. 5.
      CHECK(c.at("published") == c.at("chunks"));
      CHECK(c.at("re_enqueue") == 0);
      CHECK(c.at("success") + c.at("dequeue") == N);
      CHECK(c.at("pops") <= c.at("dequeue"));
    }
  }
  WorkloadOptions off = heap_options();
  off.counters = false;
  CHECK(run_workload(Algorithm::ouro_c_s, w, off, 0).points[0].op_counts.empty());
}

TEST_CASE("GPU oom with --batch-free 0.5: the paper's churn fills the pool, worked by hand",
          "[gpu]") {
  require_device();
  // As in the simulator's test: 4096 pages, batches of 512 with 256 of each freed after it: 15
  // whole batches leave 3840 live, the 16th gets the last 256 pages and fails.
  auto w = one_size_workload(WorkloadFamily::oom, 1, 256, 1 << 20);
  w.batch = 512;
  w.batch_free = 0.5;
  const WorkloadRun r = run_workload(Algorithm::queue, w, heap_options(), 0);
  const WorkloadPoint& p = r.points[0];
  REQUIRE(p.batches_at_failure);
  CHECK(*p.batches_at_failure == 16);
  CHECK(*p.count_at_failure == 4096);
  CHECK(p.allocs == 15 * 512 + 256);
  CHECK(p.live_objects == 4096);
}
