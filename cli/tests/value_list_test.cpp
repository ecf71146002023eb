#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "alloclab/cli/grid.hpp"
#include "alloclab/cli/value_list.hpp"
#include "alloclab/core/errors.hpp"

using namespace alloclab::cli;
using Counts = std::vector<std::uint64_t>;

TEST_CASE("count lists: single values, commas, ranges, powers", "[cli]") {
  CHECK(parse_count_list("--N", "5000") == Counts{5000});
  CHECK(parse_count_list("--N", "1,2, 3") == Counts{1, 2, 3});
  CHECK(parse_count_list("--N", "1000:5000:1000") == Counts{1000, 2000, 3000, 4000, 5000});
  CHECK(parse_count_list("--N", "1000:4500:1000") == Counts{1000, 2000, 3000, 4000});
  CHECK(parse_count_list("--N", "1024..8192*2") == Counts{1024, 2048, 4096, 8192});
  CHECK(parse_count_list("--N", "1024..1048576*2").size() == 11);
  CHECK(parse_count_list("--T", "1e6") == Counts{1000000});
  CHECK(parse_count_list("--T", "2^25,2^32") == Counts{33554432ULL, 4294967296ULL});
  CHECK(parse_count_list("--N", "1,10..100*10") == Counts{1, 10, 100});
}

TEST_CASE("malformed lists name the parameter", "[cli]") {
  for (const char* bad : {"", "abc", "1,,2", "5:1:1", "1:5", "1:5:0", "0", "-3", "2.5", "1..8",
                          "0..8*2", "1..8*1", "1e400"}) {
    INFO(bad);
    try {
      parse_count_list("--N", bad);
      FAIL("accepted a malformed list");
    } catch (const alloclab::InputError& e) {
      CHECK(std::string(e.what()).rfind("--N:", 0) == 0);
    }
  }
  CHECK(parse_real_list("--free", "0.5,0.1,0.01,0.007,0.005").size() == 5);
}

TEST_CASE("grids expand to the product and reject impossible points", "[cli]") {
  GridOptions g;
  g.N = "1000:5000:1000";
  g.free_fraction = "0.5,0.005";
  g.T = "1e6";
  const auto pts = expand_grid(g, alloclab::Algorithm::rw, GridUse::model);
  REQUIRE(pts.size() == 10);
  CHECK(pts[0].A == 500000);
  CHECK(pts[9].A == 5000);
  CHECK(pts[9].N == 5000);

  g.N = "5001";
  CHECK_THROWS_WITH(expand_grid(g, alloclab::Algorithm::rw, GridUse::model),
                    Catch::StartsWith("--N:"));
  CHECK_NOTHROW(expand_grid(g, alloclab::Algorithm::rw, GridUse::runnable));

  GridOptions h;
  h.N = "1";
  h.A = "2000";
  h.T = "1000";
  CHECK_THROWS_WITH(expand_grid(h, alloclab::Algorithm::rw, GridUse::model),
                    Catch::StartsWith("--A:"));
  h.A = "";
  CHECK_THROWS_WITH(expand_grid(h, alloclab::Algorithm::rw, GridUse::model),
                    Catch::StartsWith("--A:"));
  h.A = "10";
  h.w_list = "0";
  CHECK_THROWS_WITH(expand_grid(h, alloclab::Algorithm::rw, GridUse::model),
                    Catch::StartsWith("--w:"));
}

namespace {

// The InputError of `f`, as (parameter, message); ("", "") where it throws none.
template <class F>
std::pair<std::string, std::string> input_error(F f) {
  try {
    f();
  } catch (const alloclab::InputError& e) {
    return {e.parameter(), e.what()};
  }
  return {"", ""};
}

}  // namespace

TEST_CASE("a list holds at most 100000 values, counted before any is made", "[cli]") {
  // 1:100000:1 is 100000 values, 1:100001:1 one more; 1..2^16*2 is 17 (2^0 .. 2^16).
  CHECK(parse_count_list("--N", "1:100000:1").size() == 100000);
  auto [parameter, message] = input_error([] { parse_count_list("--N", "1:100001:1"); });
  CHECK(parameter == "--N");
  CHECK(message.find("makes 1e+05 values; a list holds at most 100000") != std::string::npos);
  CHECK(parse_count_list("--N", "1..65536*2").size() == 17);
  // 1..1e300*1.0000001 is ln(1e300) / ln(1.0000001) = 6.9e9 values: refused without making one.
  std::tie(parameter, message) = input_error([] { parse_count_list("--T", "1..1e300*1.0000001"); });
  CHECK(parameter == "--T");
  CHECK(message.find("6.908e+09 values") != std::string::npos);
  // Two ranges of 60000 each: the second passes the limit.
  std::tie(parameter, message) =
      input_error([] { parse_count_list("--N", "1:60000:1,1:60000:1"); });
  CHECK(parameter == "--N");
}

TEST_CASE("a grid of more than 100000 points names its longest axis", "[cli]") {
  CHECK(input_error([] { check_grid_size({{"--N", 1000}, {"--T", 100}}); }).first.empty());
  const auto [parameter, message] = input_error([] {
    check_grid_size({{"--N", 1000}, {"--A", 1001}, {"--w", 1}});
  });
  CHECK(parameter == "--A");
  CHECK(message == "--A: the grid has 1.001e+06 points (1000 --N x 1001 --A); at most 100000");
}

TEST_CASE("count lists: each value's condition is named", "[cli]") {
  CHECK(input_error([] { parse_count_list("--N", "-4"); }).second ==
        "--N: values must be positive integers, got -4");
  CHECK(input_error([] { parse_count_list("--N", "2.5"); }).second ==
        "--N: values must be whole numbers, got 2.5");
  CHECK(input_error([] { parse_count_list("--N", "1e20"); }).second ==
        "--N: values must be at most 2^53, got 1e+20");
}
