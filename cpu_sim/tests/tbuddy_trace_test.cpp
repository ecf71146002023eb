// The TBuddy trace of `alloclab trace --allocator gg-tbuddy` (cpu_sim/tbuddy_trace.hpp) against a
// case worked by hand from §4.1 and the core's rules (the splitter keeps the left half): one page
// from a pool of 8 splits the root down to a leaf, and its free merges every level back.
#include <catch2/catch.hpp>

#include "alloclab/core/errors.hpp"
#include "alloclab/cpu_sim/tbuddy_trace.hpp"

using namespace alloclab;
using namespace alloclab::sim;

TEST_CASE("TBuddy trace: one page of 8 splits three times, its free merges three times",
          "[sim][trace][tbuddy]") {
  const auto t = trace_tbuddy(3, {1});
  CHECK(t.levels_before == std::vector<std::string>{"A", "BB", "BBBB", "BBBBBBBB"});
  REQUIRE(t.steps.size() == 2);
  const auto& alloc = t.steps[0];
  CHECK(alloc.first_page == 0);
  CHECK(alloc.pages == 1);
  CHECK(alloc.splits == 3);
  // Each split keeps the left half and leaves the right one Available: pages 4-7, 2-3 and 1.
  CHECK(alloc.levels == std::vector<std::string>{"P", "PA", "PABB", "BABBBBBB"});
  CHECK(alloc.sem_counts == std::vector<int>{1, 1, 1, 0});
  const auto& free = t.steps[1];
  CHECK(free.merges == 3);
  CHECK(free.levels == t.levels_before);
  CHECK(free.sem_counts == std::vector<int>{0, 0, 0, 1});
}

TEST_CASE("TBuddy trace: a request larger than what is left finds no block",
          "[sim][trace][tbuddy]") {
  // 8 pages: 4 + 4 take it all; the third request of 1 page finds nothing.
  const auto t = trace_tbuddy(3, {4, 4, 1});
  REQUIRE(t.steps.size() == 5);  // three allocs, two frees (the failed one holds nothing)
  CHECK(t.steps[0].first_page == 0);
  CHECK(t.steps[1].first_page == 4);
  CHECK(t.steps[2].node == -1);
  CHECK(t.steps.back().levels == t.levels_before);  // everything merged back
  CHECK_THROWS_AS(trace_tbuddy(3, {9}), InputError);
  CHECK_THROWS_AS(trace_tbuddy(7, {1}), InputError);
}
