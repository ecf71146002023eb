// Workloads in the simulator against hand-worked cases (queue: pages handed out in ascending
// order from a fully free pool) and against the contract every allocator meets.
#include <algorithm>
#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <string>

#include "alloclab/core/errors.hpp"
#include "alloclab/cpu_sim/workload_runner.hpp"
#include "alloclab/testing/workload_support.hpp"
#include "sim_test_helpers.hpp"

using namespace alloclab;
using namespace alloclab::sim;
using alloclab::sim::testing::pool_bytes_for;
using alloclab::testing::one_size_workload;

namespace {
double mean(const std::vector<std::uint32_t>& v) {
  double s = 0;
  for (auto x : v) s += x;
  return s / static_cast<double>(v.size());
}
}  // namespace

TEST_CASE("oom, queue, 64 pages in batches of 10: 6 full batches, then 4 of 10", "[workload]") {
  for (std::uint64_t size : {256u, 100u}) {
    Workload w = one_size_workload(WorkloadFamily::oom, 1, size, 64 * 256);
    w.batch = 10;
    const WorkloadRun r = run_workload(Algorithm::queue, w, {}, 0);
    REQUIRE(r.points.size() == 1);
    const WorkloadPoint& p = r.points[0];
    CHECK(r.pages_total == 64);
    CHECK(p.requests == 70);
    CHECK(p.allocs == 64);
    CHECK(p.failed == 6);
    REQUIRE(p.count_at_failure);
    CHECK(*p.count_at_failure == 64);
    CHECK(p.live_objects == 64);
    CHECK(p.freed == 64);
    // utilisation = bytes handed out / pool bytes: 64 * size / 16384.
    CHECK(static_cast<double>(p.live_bytes) / 16384.0 ==
          Approx(64.0 * static_cast<double>(size) / 16384.0));
    // The queue's k-th request of a batch takes k steps: 1..10 in each of the 7 batches.
    REQUIRE(p.steps.size() == 70);
    CHECK(mean(p.steps) == Approx(5.5));
    // One dequeue atomic per page handed out (the 6 requests of an empty queue issue none);
    // retries = steps beyond the first: 0 + 1 + ... + 9 in each of the 7 batches.
    CHECK(p.atomics_issued == 64);
    CHECK(p.failed_claims == 0);
    CHECK(p.retries == 7 * 45);
  }
}

TEST_CASE("fragmentation of a fully free pool with the queue: N consecutive pages", "[workload]") {
  // Pages 0..9 of 256 B: the last object starts at 9 * 256 and ends `size` bytes later.
  auto range = [](std::uint64_t size) {
    const WorkloadRun r =
        run_workload(Algorithm::queue,
                     one_size_workload(WorkloadFamily::fragmentation, 10, size, 1 << 16), {}, 0);
    REQUIRE(r.points.size() == 1);
    REQUIRE(r.points[0].address_range_bytes);
    CHECK(r.points[0].live_bytes == 10 * size);
    return *r.points[0].address_range_bytes;
  };
  CHECK(range(100) == 9 * 256 + 100);  // 2404 bytes over 1000 requested: 2.404
  CHECK(range(256) == 2560);           // exactly the bytes requested: 1.0
}

TEST_CASE("churn on a pool exactly as large as the live set conserves pages", "[workload]") {
  // 100 pages, 100 live one-page objects, half freed and reallocated each round: a single
  // lost or duplicated page makes a request fail (the queue fails only when it is empty).
  Workload w = one_size_workload(WorkloadFamily::churn, 100, 256, 100 * 256);
  w.rounds = 8;
  w.free_fraction = 0.5;
  const WorkloadRun r = run_workload(Algorithm::queue, w, {}, 0);
  REQUIRE(r.points.size() == 9);
  CHECK(r.points[0].requests == 100);  // two calls of 50
  for (std::uint64_t k = 1; k <= 8; ++k) {
    const WorkloadPoint& p = r.points[k];
    CHECK(p.round == k);
    CHECK(p.requests == 50);
    CHECK(p.allocs == 50);
    CHECK(p.failed == 0);
    CHECK(p.live_objects == 100);
  }
  CHECK(r.points.back().freed == 50 + 100);  // the round's 50 and the final frees
}

TEST_CASE("churn: every simulated allocator keeps its live set over rounds", "[workload]") {
  for (auto algo : algorithms_on(BackendKind::sim)) {
    INFO(name(algo));
    Workload w = one_size_workload(WorkloadFamily::churn, 100, 200, 4096 * 256);
    w.pool_bytes = pool_bytes_for(algo, w.pool_bytes);
    w.rounds = 5;
    w.free_fraction = 0.3;
    const WorkloadRun r = run_workload(algo, w, {}, 0);
    REQUIRE(r.points.size() == 6);
    // round 0: ceil(100 / 30) = 4 calls of 30 requests; the 20 beyond 100 are freed at once.
    CHECK(r.points[0].requests == 120);
    CHECK(r.points[0].allocs == 120);
    CHECK(r.points[0].freed == 20);
    for (std::uint64_t k = 1; k <= 5; ++k) {
      CHECK(r.points[k].allocs == 30);
      CHECK(r.points[k].failed == 0);
      CHECK(r.points[k].live_objects == 100);
      CHECK(r.points[k].live_bytes == 100 * 200);
    }
  }
}

TEST_CASE("mixed sizes with RW_malloc: the drawn sizes are what is live", "[workload]") {
  Workload w = one_size_workload(WorkloadFamily::mixed, 64, 0, 1 << 20);
  w.size = {16, 4096};
  const WorkloadRun r = run_workload(Algorithm::rwmalloc, w, {}, 0);
  REQUIRE(r.points.size() == 1);
  std::uint64_t bytes = 0;
  for (std::uint64_t i = 0; i < 64; ++i) bytes += request_bytes(w.size, w.seed, i);
  CHECK(r.points[0].allocs == 64);
  CHECK(r.points[0].live_bytes == bytes);
  // A one-page allocator cannot take 4096 B with 256 B pages.
  CHECK_THROWS_AS(run_workload(Algorithm::rwbm, w, {}, 0), InputError);
}

TEST_CASE("a second identical run gives the same successes and addresses", "[workload]") {
  for (auto algo : algorithms_on(BackendKind::sim)) {
    INFO(name(algo));
    Workload w = one_size_workload(WorkloadFamily::oom, 1, 256, 512 * 256);
    w.pool_bytes = pool_bytes_for(algo, w.pool_bytes);
    w.batch = caps(algo).pool_granule_bytes ? 4096 : 32;  // a 16 MiB pool: batches to match
    const auto a = run_workload(algo, w, {}, 3).points[0];
    const auto b = run_workload(algo, w, {}, 3).points[0];
    CHECK(a.allocs == b.allocs);
    CHECK(a.address_range_bytes == b.address_range_bytes);
    CHECK(a.allocs <= w.pool_bytes / 256);
    CHECK(a.failed >= 1);
  }
}

TEST_CASE("the verifier rejects overlapping and out-of-pool objects", "[workload]") {
  CHECK_NOTHROW(verify_ranges({{0, 256}, {256, 512}, {768, 1024}}, 1024));
  CHECK_THROWS_AS(verify_ranges({{0, 256}, {200, 456}}, 1024), VerificationError);
  // Unsorted input: the overlap is between the first and the third.
  CHECK_THROWS_AS(verify_ranges({{512, 768}, {0, 256}, {600, 700}}, 1024), VerificationError);
  CHECK_THROWS_AS(verify_ranges({{1000, 1100}}, 1024), VerificationError);
  CHECK_THROWS_AS(verify_ranges({{10, 10}}, 1024), VerificationError);
}

TEST_CASE("workloads a simulated allocator cannot serve are input errors", "[workload]") {
  auto parameter = [](Algorithm a, const Workload& w) -> std::string {
    try {
      check_workload_input(a, w, {});
    } catch (const InputError& e) {
      return e.parameter();
    }
    return "";
  };
  CHECK(parameter(Algorithm::queue, one_size_workload(WorkloadFamily::alloc, 10, 512, 1 << 20)) ==
        "--size");
  CHECK(parameter(Algorithm::cudamalloc,
                  one_size_workload(WorkloadFamily::alloc, 10, 64, 1 << 20)) == "--allocator");
  // 300 B of RW_malloc takes 2 pages; a 300-byte pool has one.
  CHECK(parameter(Algorithm::rwmalloc, one_size_workload(WorkloadFamily::alloc, 1, 300, 300)) ==
        "--pool");
  CHECK(parameter(Algorithm::rwmalloc, one_size_workload(WorkloadFamily::alloc, 10, 300, 1 << 20))
            .empty());
}

namespace {
// Every count of two runs of one trial, field by field (the times are left out).
void check_same_counts(const WorkloadRun& a, const WorkloadRun& b) {
  CHECK(a.pattern_bytes_checked == b.pattern_bytes_checked);
  REQUIRE(a.points.size() == b.points.size());
  for (std::size_t k = 0; k < a.points.size(); ++k) {
    INFO("point " << k);
    const WorkloadPoint& p = a.points[k];
    const WorkloadPoint& q = b.points[k];
    CHECK(p.round == q.round);
    CHECK(p.requests == q.requests);
    CHECK(p.allocs == q.allocs);
    CHECK(p.failed == q.failed);
    CHECK(p.freed == q.freed);
    CHECK(p.live_objects == q.live_objects);
    CHECK(p.live_bytes == q.live_bytes);
    CHECK(p.address_range_bytes == q.address_range_bytes);
    CHECK(p.count_at_failure == q.count_at_failure);
    CHECK(p.steps == q.steps);
    CHECK(p.collisions == q.collisions);
    CHECK(p.atomics_issued == q.atomics_issued);
    CHECK(p.failed_claims == q.failed_claims);
    CHECK(p.retries == q.retries);
    CHECK(p.free_atomics_issued == q.free_atomics_issued);
  }
}
}  // namespace

TEST_CASE(
    "repeats: 3 repeats in sequential and lockstep mode counts exactly what one repeat counts",
    "[workload][repeats]") {
  // A churn that makes requests search (128 live objects on 160 pages) and an oom that fails.
  Workload churn = one_size_workload(WorkloadFamily::churn, 128, 256, 160 * 256);
  churn.rounds = 3;
  churn.free_fraction = 0.25;
  Workload oom = one_size_workload(WorkloadFamily::oom, 1, 256, 200 * 256);
  oom.batch = 48;
  for (auto algo : algorithms_on(BackendKind::sim))
    for (auto mode : {Mode::sequential, Mode::lockstep})
      for (Workload sized : {churn, oom}) {
        // Gallatin: one 16 MiB segment, its oom in batches to match (at most 4096: lockstep
        // costs batch^2; UAlloc's 256 KB chunk takes 512 of 256 B).
        sized.pool_bytes = pool_bytes_for(algo, sized.pool_bytes);
        if (caps(algo).pool_granule_bytes && sized.family == WorkloadFamily::oom)
          sized.batch = std::min<std::uint64_t>(4096, sized.pool_bytes / 256 / 2);
        const Workload* w = &sized;
        INFO(name(algo) << " " << mode_name(mode) << " " << workload_family_name(w->family));
        WorkloadOptions once;
        once.mode = mode;
        WorkloadOptions thrice = once;
        thrice.repeats = 3;
        const WorkloadRun reference = run_workload(algo, *w, once, 2);
        const WorkloadRun repeated = run_workload(algo, *w, thrice, 2);
        check_same_counts(reference, repeated);
        // The times are medians of measured times: there is one per point and phase.
        CHECK(repeated.points.front().alloc_seconds > 0);
        CHECK(repeated.points.front().init_seconds > 0);
      }
}

TEST_CASE("repeats in threads mode runs and verifies every repeat", "[workload][repeats]") {
  Workload w = one_size_workload(WorkloadFamily::churn, 512, 256, 2048 * 256);
  w.rounds = 2;
  WorkloadOptions o;
  o.mode = Mode::threads;
  o.host_threads = 2;
  o.repeats = 3;
  for (auto algo : algorithms_on(BackendKind::sim)) {
    INFO(name(algo));
    Workload sized = w;
    sized.pool_bytes = pool_bytes_for(algo, w.pool_bytes);
    const WorkloadRun r = run_workload(algo, sized, o, 0);
    REQUIRE(r.points.size() == 3);
    // The schedule may change which requests collide, not what a fill of a quarter of the pool
    // serves: every request of round 0 gets a page (a request that searches fails only after
    // its step bound of dozens of probes, each finding a free page with probability >= 3/4).
    CHECK(r.points[0].requests == 512);
    CHECK(r.points[0].allocs == 512);
  }
}

TEST_CASE("repeats = 0 is an input error naming --repeats", "[workload][repeats]") {
  WorkloadOptions o;
  o.repeats = 0;
  const Workload w = one_size_workload(WorkloadFamily::alloc, 10, 256, 1 << 20);
  try {
    run_workload(Algorithm::queue, w, o, 0);
    FAIL("no InputError");
  } catch (const InputError& e) {
    CHECK(e.parameter() == "--repeats");
  }
}

TEST_CASE("the bit choice reaches the allocator: 4 lanes on one word", "[workload]") {
  // A pool of one 32-bit word (32 pages of 256 B) and 4 threads in one lockstep warp: every lane
  // reads word 0. With the lowest bit all four aim at bit 0 in the same round, so three claims
  // are lost at least once; rotated, lane l starts at bit l * 32 / 32 = l (core/bit_choice.hpp):
  // bits 0, 1, 2, 3, all free, no claim lost (hand-worked).
  for (Algorithm algo : {Algorithm::rwbm, Algorithm::corw}) {
    INFO(name(algo));
    Workload w = one_size_workload(WorkloadFamily::alloc, 4, 256, 32 * 256);
    WorkloadOptions o;
    o.mode = Mode::lockstep;
    const WorkloadPoint lowest = run_workload(algo, w, o, 0).points.at(0);
    w.bit_choice = BitChoice::rotated;
    const WorkloadPoint rotated = run_workload(algo, w, o, 0).points.at(0);
    CHECK(lowest.allocs == 4);
    CHECK(rotated.allocs == 4);
    CHECK(lowest.failed_claims >= 3);
    CHECK(rotated.failed_claims == 0);
    CHECK(rotated.atomics_issued == 4);
  }
  Workload w = one_size_workload(WorkloadFamily::alloc, 4, 256, 32 * 256);
  w.bit_choice = BitChoice::random;
  CHECK_THROWS_AS(run_workload(Algorithm::corw, w, {}, 0), InputError);
}

TEST_CASE("Ouroboros' own counts per request in a workload point, worked by hand", "[workload]") {
  // 4096 requests of 256 B from an empty pool, one at a time: a chunk of 8 KiB holds 32 pages,
  // so 128 chunks are grown (one CAS on the semaphore each; every other wait takes its page on
  // the fast path). Variant C publishes each chunk once, serves its first 31 pages as SUCCESS
  // and its last as DEQUEUE, which pops it from the front it sits at; no walk passes a position.
  const Workload w = one_size_workload(WorkloadFamily::alloc, 4096, 256, 1 << 22);
  auto counts = [&](Algorithm algo) {
    const WorkloadRun r = run_workload(algo, w, {}, 0);
    REQUIRE(r.points.size() == 1);
    std::map<std::string, std::uint64_t> out(r.points[0].op_counts.begin(),
                                             r.points[0].op_counts.end());
    return out;
  };
  const auto p = counts(Algorithm::ouro_p_s);
  CHECK(p.size() == 6);
  CHECK(p.at("queue_chunks") == 0);  // the standard ring needs none
  CHECK(p.at("queue_recycled") == 0);
  CHECK(p.at("chunks") == 128);
  CHECK(p.at("sem_cas") == 128);
  CHECK(p.at("reserve_spins") == 0);
  const auto c = counts(Algorithm::ouro_c_s);
  CHECK(c.at("chunks") == 128);
  CHECK(c.at("sem_cas") == 128);
  CHECK(c.at("published") == 128);
  CHECK(c.at("success") == 4096 - 128);
  CHECK(c.at("dequeue") == 128);
  CHECK(c.at("pops") == 128);
  CHECK(c.at("re_enqueue") == 0);
  CHECK(c.at("traversal") == 0);
  CHECK(c.at("queue_chunks") == 0);  // the standard ring needs none
  // No allocator but Ouroboros names counts of its own.
  CHECK(run_workload(Algorithm::rw, w, {}, 0).points[0].op_counts.empty());
}

TEST_CASE("P over VA and VL: Queue-Chunks drawn and recycled, worked by hand", "[workload]") {
  // N requests of 256 B one at a time: positions 0..N-1 are written, 32 by each grow, and read
  // in order. The write at position 0 prepares Queue-Chunks 0 and 1; the write at item 0 of
  // chunk j >= 1 (position 2048 j) prepares chunk j + 1: 2 + floor((N - 1) / 2048) in all. By
  // then the requests have read positions 0..2048 j - 1, so chunks 0..j - 1 are used up and
  // given back: VA takes chunk j + 1 from them (every preparation after the first two is
  // recycled), VL keeps its trail of 10 and draws fresh ones.
  for (std::uint64_t N : {1024u, 4096u, 8192u}) {
    CAPTURE(N);
    const Workload w = one_size_workload(WorkloadFamily::alloc, N, 256, 1 << 26);
    auto counts = [&](Algorithm algo) {
      const WorkloadRun r = run_workload(algo, w, {}, 0);
      std::map<std::string, std::uint64_t> out(r.points[0].op_counts.begin(),
                                               r.points[0].op_counts.end());
      return out;
    };
    const std::uint64_t prepared = 2 + (N - 1) / 2048;
    const auto va = counts(Algorithm::ouro_p_va);
    CHECK(va.at("queue_chunks") == 2);
    CHECK(va.at("queue_recycled") == prepared - 2);
    const auto vl = counts(Algorithm::ouro_p_vl);
    CHECK(vl.at("queue_chunks") == prepared);
    CHECK(vl.at("queue_recycled") == 0);
  }
}

TEST_CASE("oom with --batch-free 0.5: the live set grows by half a batch until the pool is full",
          "[workload]") {
  // B objects a batch, B/2 of them freed after it: b batches leave b B/2 live, and batch b + 1
  // fails as soon as b B/2 + B exceeds the pool's P pages, with the pool then full:
  // b = 2P/B - 1 successful batches, the (2P/B)-th fails, P objects live.
  auto run = [](Algorithm algo, std::uint64_t page_bytes, std::uint64_t batch) {
    Workload w = one_size_workload(WorkloadFamily::oom, 1, 16, 1 << 20);
    w.page_bytes = page_bytes;
    w.batch = batch;
    w.batch_free = 0.5;
    const WorkloadRun r = run_workload(algo, w, {}, 0);
    REQUIRE(r.points.size() == 1);
    return r.points[0];
  };
  const WorkloadPoint q = run(Algorithm::queue, 256, 512);  // P = 4096 pages
  REQUIRE(q.batches_at_failure);
  CHECK(*q.batches_at_failure == 2 * 4096 / 512);
  CHECK(*q.count_at_failure == 4096);
  CHECK(q.allocs == 15 * 512 + 256);  // 15 whole batches (3840 live), then the 256 pages left
  const WorkloadPoint o = run(Algorithm::ouro_p_s, 16, 4096);  // P = 65536 pages of 16 B
  REQUIRE(o.batches_at_failure);
  CHECK(*o.batches_at_failure == 2 * 65536 / 4096);
  CHECK(*o.count_at_failure == 65536);
}
