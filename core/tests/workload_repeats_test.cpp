// Repeats of a workload trial (core/workload_repeats.hpp) against hand-worked cases: medians of
// small sets worked out on paper, and runs built by hand whose counts agree or differ.
#include <catch2/catch.hpp>

#include <string>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/workload_repeats.hpp"

using namespace alloclab;

namespace {
// A run of `points` points whose counts are fixed (as a deterministic backend would give them)
// and whose times are the given seconds.
WorkloadRun run_with_times(double init, double alloc, double free, std::size_t points = 1) {
  WorkloadRun r;
  for (std::size_t k = 0; k < points; ++k) {
    WorkloadPoint p;
    p.round = k;
    p.requests = 10;
    p.allocs = 9;
    p.failed = 1;
    p.freed = 9;
    p.steps = {1, 2, 3, 1, 1, 1, 1, 1, 1, 4};
    p.atomics_issued = 16;
    p.address_range_bytes = 4096;
    p.init_seconds = k == 0 ? init : 0;
    p.alloc_seconds = alloc + static_cast<double>(k);  // each point its own times
    p.free_seconds = free;
    r.points.push_back(p);
  }
  r.notes = {"first repeat's note"};
  return r;
}
}  // namespace

TEST_CASE("median of small sets, worked by hand", "[workload][repeats]") {
  CHECK(median_of({5.0}) == 5.0);
  CHECK(median_of({3.0, 1.0, 2.0}) == 2.0);       // sorted 1 2 3: the middle one
  CHECK(median_of({4.0, 1.0, 3.0, 2.0}) == 2.5);  // sorted 1 2 3 4: (2 + 3) / 2
  CHECK(median_of({7.0, 7.0, 1.0}) == 7.0);
  CHECK(median_of({10.0, 0.5}) == 5.25);
  // An outlier moves the mean (here 34.0), not the median.
  CHECK(median_of({1.0, 100.0, 2.0, 3.0, 64.0}) == 3.0);
}

TEST_CASE("repeats: each point's times are the medians, counts the first repeat's",
          "[workload][repeats]") {
  RepeatedRun repeated(RepeatCounts::identical);
  // alloc times of point 0: 3, 1, 2 s -> 2; point 1 (each + 1): 4, 2, 3 -> 3. free: 0.5, 0.25,
  // 0.75 -> 0.5. init: 9, 8, 7 -> 8.
  repeated.add(run_with_times(9, 3, 0.5, 2));
  repeated.add(run_with_times(8, 1, 0.25, 2));
  repeated.add(run_with_times(7, 2, 0.75, 2));
  CHECK(repeated.repeats() == 3);
  const WorkloadRun r = std::move(repeated).take();
  REQUIRE(r.points.size() == 2);
  CHECK(r.points[0].alloc_seconds == 2.0);
  CHECK(r.points[1].alloc_seconds == 3.0);
  CHECK(r.points[0].free_seconds == 0.5);
  CHECK(r.points[1].free_seconds == 0.5);
  CHECK(r.points[0].init_seconds == 8.0);
  CHECK(r.points[1].init_seconds == 0.0);
  CHECK(r.points[1].round == 1);
  CHECK(r.points[0].allocs == 9);
  CHECK(r.points[0].steps.size() == 10);
  CHECK(r.notes == std::vector<std::string>{"first repeat's note"});  // no difference: no note
}

TEST_CASE("one repeat is the run itself", "[workload][repeats]") {
  RepeatedRun repeated(RepeatCounts::identical);
  repeated.add(run_with_times(0.125, 0.25, 0.5));
  const WorkloadRun r = std::move(repeated).take();
  CHECK(r.points[0].init_seconds == 0.125);
  CHECK(r.points[0].alloc_seconds == 0.25);
  CHECK(r.points[0].free_seconds == 0.5);
}

TEST_CASE("repeats that must be identical: any count that differs is a verification failure",
          "[workload][repeats]") {
  auto differing = [](auto change) {
    RepeatedRun repeated(RepeatCounts::identical);
    repeated.add(run_with_times(1, 1, 1, 2));
    WorkloadRun other = run_with_times(2, 2, 2, 2);
    change(other);
    try {
      repeated.add(other);
    } catch (const VerificationError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(differing([](WorkloadRun&) {}).empty());  // times alone may differ
  CHECK(differing([](WorkloadRun& r) { r.points[1].allocs = 8; }).find("allocs of point 1") !=
        std::string::npos);
  CHECK(differing([](WorkloadRun& r) {
          r.points[0].steps[9] = 5;
        }).find("steps of point 0, request 9: 4 in the first, 5") != std::string::npos);
  CHECK(!differing([](WorkloadRun& r) { r.points[0].address_range_bytes.reset(); }).empty());
  CHECK(!differing([](WorkloadRun& r) { r.points[1].count_at_failure = 3; }).empty());
  CHECK(!differing([](WorkloadRun& r) { r.points[1].free_atomics_issued = 1; }).empty());
  CHECK(!differing([](WorkloadRun& r) { r.pattern_bytes_checked = 16; }).empty());
  CHECK(!differing([](WorkloadRun& r) { r.points.pop_back(); }).empty());
}

TEST_CASE("repeats whose counts may differ: the first repeat's counts and one note",
          "[workload][repeats]") {
  RepeatedRun repeated(RepeatCounts::may_differ);
  repeated.add(run_with_times(1, 3, 1));
  WorkloadRun second = run_with_times(1, 1, 1);
  second.points[0].allocs = 10;
  second.points[0].failed = 0;
  repeated.add(second);
  WorkloadRun third = run_with_times(1, 2, 1);
  third.points[0].collisions = 4;
  repeated.add(third);
  const WorkloadRun r = std::move(repeated).take();
  CHECK(r.points[0].allocs == 9);
  CHECK(r.points[0].failed == 1);
  CHECK(r.points[0].collisions == 0);
  CHECK(r.points[0].alloc_seconds == 2.0);
  REQUIRE(r.notes.size() == 2);
  CHECK(r.notes[1].find("first seen: allocs") != std::string::npos);
  // Another number of points is never a schedule's doing.
  RepeatedRun broken(RepeatCounts::may_differ);
  broken.add(run_with_times(1, 1, 1, 3));
  CHECK_THROWS_AS(broken.add(run_with_times(1, 1, 1, 2)), VerificationError);
}
