// Workloads in the simulator against hand-worked cases (queue: pages handed out in ascending
// order from a fully free pool) and against the contract every allocator meets.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

#include "alloclab/core/errors.hpp"
#include "alloclab/cpu_sim/workload_runner.hpp"
#include "alloclab/testing/workload_support.hpp"

using namespace alloclab;
using namespace alloclab::sim;
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
    w.batch = 32;
    const auto a = run_workload(algo, w, {}, 3).points[0];
    const auto b = run_workload(algo, w, {}, 3).points[0];
    CHECK(a.allocs == b.allocs);
    CHECK(a.address_range_bytes == b.address_range_bytes);
    CHECK(a.allocs <= 512);
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
