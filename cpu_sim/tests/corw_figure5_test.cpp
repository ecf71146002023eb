// CoRW warp sharing reproduces the paper's Figure 5 step for step.
#include <catch2/catch.hpp>

#include "alloclab/cpu_sim/corw_share.hpp"

using namespace alloclab::sim;

TEST_CASE("corw_share reproduces Figure 5", "[cpu_sim][corw]") {
  // w = 8. Lane 1 reads word 10 with free bits 0,1,2 (P1,P2,P3 = pages 80,81,82), lane 2 word 20
  // with free bits 3,4 (P4,P5 = 163,164), lane 4 word 30 with free bit 7 (P6 = 247); lanes
  // 0, 3, 5 find nothing. All six lanes need a page.
  const std::int64_t P1 = 80, P2 = 81, P3 = 82, P4 = 163, P5 = 164, P6 = 247;
  std::vector<CorwLaneInput> in{{5, 0xff, true},  {10, 0xf8, true}, {20, 0xe7, true},
                                {40, 0xff, true}, {30, 0x7f, true}, {50, 0xff, true}};
  const auto res = corw_share(in, 8, true);
  REQUIRE(res.trace.size() == 3);
  const std::int64_t X = -1;
  // Iteration 1.
  CHECK(res.trace[0].b == std::vector<std::int64_t>{X, P1, P4, X, P6, X});
  CHECK(res.trace[0].s == std::vector<int>{0, 1, 2, 3, 4, 5});
  // The figure prints t' = 5 for lane 2, but its own line 13 (fks(hasMask, 3) - 1 with
  // hasMask = {1, 2, 4}) and the received page P6 (lane 4's b) give 4.
  CHECK(res.trace[0].t_prime == std::vector<int>{1, 2, 4, -1, -1, -1});
  CHECK(res.trace[0].pageID == std::vector<std::int64_t>{P1, P4, P6, X, X, X});
  // Iteration 2.
  CHECK(res.trace[1].b == std::vector<std::int64_t>{X, P2, P5, X, X, X});
  CHECK(res.trace[1].s == std::vector<int>{0, 0, 0, 0, 1, 2});
  CHECK(res.trace[1].t_prime == std::vector<int>{-1, -1, -1, 1, 2, -1});
  CHECK(res.trace[1].pageID == std::vector<std::int64_t>{P1, P4, P6, P2, P5, X});
  // Iteration 3.
  CHECK(res.trace[2].b == std::vector<std::int64_t>{X, P3, X, X, X, X});
  CHECK(res.trace[2].s == std::vector<int>{0, 0, 0, 0, 0, 0});
  CHECK(res.trace[2].t_prime == std::vector<int>{-1, -1, -1, -1, -1, 1});
  CHECK(res.pageID == std::vector<std::int64_t>{P1, P4, P6, P2, P5, P3});
  CHECK(res.handed_out == std::vector<std::uint64_t>{0, 0x07, 0x18, 0, 0x80, 0});
}

TEST_CASE("corw_share leaves bits nobody took free", "[cpu_sim][corw]") {
  // One needing lane, three lanes with pages: only the first haver's bit is handed out.
  std::vector<CorwLaneInput> in{
      {1, 0xf0, false}, {2, 0x0f, false}, {3, 0xff, true}, {4, 0xfe, false}};
  const auto res = corw_share(in, 8, true);
  CHECK(res.pageID[2] == 8 * 1 + 0);
  CHECK(res.handed_out == std::vector<std::uint64_t>{0x01, 0, 0, 0});
  // A lane that failed its lock (P = all ones) only consumes.
  std::vector<CorwLaneInput> in2{{7, ~std::uint64_t{0}, true}, {9, 0x00, true}};
  const auto res2 = corw_share(in2, 4);
  CHECK(res2.pageID == std::vector<std::int64_t>{36, 37});
  CHECK(res2.handed_out == std::vector<std::uint64_t>{0, 0x3});
}
