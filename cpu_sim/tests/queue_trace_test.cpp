// The index-queue trace of `alloclab trace --allocator ouro-p-s` (cpu_sim/queue_trace.hpp) against
// Alg. 1 worked by hand on a ring of 4 slots: positions wrap (position mod 4), and the printed
// full check `old > size` admits a fifth enqueue into four full slots.
#include <catch2/catch.hpp>

#include "alloclab/core/errors.hpp"
#include "alloclab/cpu_sim/queue_trace.hpp"

using namespace alloclab;
using namespace alloclab::sim;

TEST_CASE("queue trace: positions 4 and 5 wrap to slots 0 and 1", "[sim][trace][ouro]") {
  const auto t = trace_index_queue(4, "e,e,e,d,d,e,e,e,d,d,d,d", false);
  REQUIRE(t.size() == 12);
  // After three enqueues and two dequeues only index 3 is left, in slot 2.
  CHECK(t[4].slots == std::vector<std::int64_t>{-1, -1, 3, -1});
  CHECK(t[4].front == 2);
  CHECK(t[4].back == 3);
  // Enqueues 4, 5, 6 take positions 3, 4, 5: slots 3, 0, 1.
  CHECK(t[7].slots == std::vector<std::int64_t>{5, 6, 3, 4});
  CHECK(t[7].fill_count == 4);
  CHECK(t[7].back == 6);
  CHECK(t[6].outcome.find("the ring wrapped: 4 mod 4") != std::string::npos);
  // The four dequeues return 3, 4, 5, 6 in order and leave the ring empty.
  CHECK(t[8].outcome.rfind("index 3 ", 0) == 0);
  CHECK(t[11].outcome.rfind("index 6 ", 0) == 0);
  CHECK(t[11].slots == std::vector<std::int64_t>{-1, -1, -1, -1});
  CHECK(t[11].front == 6);
  CHECK(t[11].fill_count == 0);
}

TEST_CASE("queue trace: the printed full check admits a fifth enqueue into 4 full slots",
          "[sim][trace][ouro]") {
  const auto correct = trace_index_queue(4, "e,e,e,e,e", false);
  REQUIRE(correct.size() == 5);
  CHECK(correct[4].outcome.rfind("full", 0) == 0);
  CHECK(correct[4].fill_count == 4);  // the count is undone
  CHECK(correct[4].back == 4);        // no position taken
  const auto printed = trace_index_queue(4, "e,e,e,e,e,d", true);
  REQUIRE(printed.size() == 5);  // the stuck enqueue ends the trace
  CHECK(printed[4].stuck);
  CHECK(printed[4].fill_count == 5);  // five counted in four slots
  CHECK(printed[4].back == 5);
  CHECK(printed[4].slots == std::vector<std::int64_t>{1, 2, 3, 4});
  // Dequeues on an empty ring are undone; bad scripts are input errors.
  const auto empty = trace_index_queue(2, "d", false);
  CHECK(empty[0].outcome.rfind("empty", 0) == 0);
  CHECK(empty[0].fill_count == 0);
  CHECK_THROWS_AS(trace_index_queue(4, "e,x", false), InputError);
  CHECK_THROWS_AS(trace_index_queue(1, "e", false), InputError);
}
