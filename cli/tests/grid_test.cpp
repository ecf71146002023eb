#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "alloclab/cli/grid.hpp"
#include "alloclab/core/errors.hpp"

using namespace alloclab;
using namespace alloclab::cli;

namespace {

std::string parameter_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.parameter();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("grid preset standard: the validation report's grid, axis by axis", "[cli][grid]") {
  GridOptions g;
  g.preset = "standard";
  const auto pts = expand_grid(g, Algorithm::rwbm, GridUse::runnable);
  // 11 N (2^10..2^20) x 5 free fractions x 2 T x 2 w.
  REQUIRE(pts.size() == 11 * 5 * 2 * 2);
  std::set<std::uint64_t> Ns, Ts, As;
  std::set<unsigned> ws;
  for (const auto& s : pts) {
    Ns.insert(s.N);
    Ts.insert(s.T);
    As.insert(s.A);
    ws.insert(s.w);
  }
  std::set<std::uint64_t> powers;
  for (int k = 10; k <= 20; ++k) powers.insert(std::uint64_t{1} << k);
  CHECK(Ns == powers);
  CHECK(Ts == std::set<std::uint64_t>{1000000, 33554432});
  CHECK(ws == std::set<unsigned>{32, 64});
  // A = round(f T) for f in 0.5, 0.1, 0.01, 0.007, 0.005 (hand-computed; 0.007 * 2^25 =
  // 234881.024, 0.005 * 2^25 = 167772.16).
  CHECK(As == std::set<std::uint64_t>{500000, 100000, 10000, 7000, 5000, 16777216, 3355443, 335544,
                                      234881, 167772});
  // Queue and RW have no bitmap word: one w, not duplicate points.
  CHECK(expand_grid(g, Algorithm::rw, GridUse::runnable).size() == 11 * 5 * 2);
}

TEST_CASE("an explicit axis replaces the preset's", "[cli][grid]") {
  GridOptions g;
  g.preset = "standard";
  g.T = "1e6";
  g.w_list = "64";
  auto pts = expand_grid(g, Algorithm::rwbm, GridUse::runnable);
  REQUIRE(pts.size() == 11 * 5);
  for (const auto& s : pts) {
    CHECK(s.T == 1000000);
    CHECK(s.w == 64);
  }
  g.free_fraction.clear();
  g.A = "5000";  // --A replaces the preset's --free
  pts = expand_grid(g, Algorithm::rwbm, GridUse::runnable);
  REQUIRE(pts.size() == 11);
  for (const auto& s : pts) CHECK(s.A == 5000);
}

TEST_CASE("grid preset figure4: N 500..5000 by 500, five fractions, T = 10^6, w = 32",
          "[cli][grid]") {
  GridOptions g;
  g.preset = "figure4";
  const auto pts = expand_grid(g, Algorithm::rw, GridUse::model);
  REQUIRE(pts.size() == 10 * 5);
  CHECK(pts.front().N == 500);
  CHECK(pts.front().A == 500000);
  CHECK(pts.back().N == 5000);
  CHECK(pts.back().A == 5000);
  for (const auto& s : pts) {
    CHECK(s.T == 1000000);
    CHECK(s.w == 32);
  }
}

TEST_CASE("grid errors name the parameter", "[cli][grid]") {
  GridOptions g;
  g.free_fraction = "0.5";
  g.T = "1e6";
  CHECK(parameter_of([&] { expand_grid_points(g, Algorithm::rw, GridUse::model); }) == "--N");
  g.preset = "figure5";
  CHECK(parameter_of([&] { expand_grid_points(g, Algorithm::rw, GridUse::model); }) == "--grid");
  g.preset.clear();
  g.N = "10";
  g.w_list = "32,65";
  CHECK(parameter_of([&] { expand_grid_points(g, Algorithm::rwbm, GridUse::model); }) == "--w");
}

TEST_CASE("a grid keeps its invalid points, each with the reason", "[cli][grid]") {
  GridOptions g;
  g.N = "8192";
  g.A = "5000,10000,2000000";
  g.T = "1e6";
  const auto pts = expand_grid_points(g, Algorithm::rw, GridUse::model);
  REQUIRE(pts.size() == 3);
  REQUIRE(pts[0].invalid);  // N > A: the model needs a free page per request
  CHECK(pts[0].invalid->parameter() == "--N");
  CHECK(!pts[1].invalid);
  REQUIRE(pts[2].invalid);  // A > T
  CHECK(pts[2].invalid->parameter() == "--A");
  // simulate/measure run N > A (out of memory); A > T stays impossible.
  const auto runnable = expand_grid_points(g, Algorithm::rw, GridUse::runnable);
  CHECK(!runnable[0].invalid);
  CHECK(runnable[2].invalid);
  // A command's own check marks points too.
  const auto checked =
      expand_grid_points(g, Algorithm::rw, GridUse::runnable, [](const Scenario& s) {
        if (s.A == 10000) throw InputError("--T", "too big for this machine");
      });
  CHECK(!checked[0].invalid);
  REQUIRE(checked[1].invalid);
  CHECK(checked[1].invalid->parameter() == "--T");
  // A free fraction that leaves no page of one T (0.001 * 100 = 0.1 rounds to 0) but not of
  // another.
  GridOptions f;
  f.N = "1";
  f.free_fraction = "0.001";
  f.T = "100,1e6";
  const auto fp = expand_grid_points(f, Algorithm::rw, GridUse::model);
  REQUIRE(fp.size() == 2);
  REQUIRE(fp[0].invalid);
  CHECK(fp[0].invalid->parameter() == "--free");
  CHECK(!fp[1].invalid);
}

TEST_CASE("evaluate_points: valid points evaluated, invalid ones null with the reason",
          "[cli][grid]") {
  GridOptions g;
  g.N = "8192";
  g.A = "5000,10000,20000";
  g.T = "1e6";
  const auto pts = expand_grid_points(g, Algorithm::rw, GridUse::model);
  std::vector<std::uint64_t> evaluated;
  const auto evaluate = [&](const Scenario& s) {
    evaluated.push_back(s.A);
    if (s.A == 20000) throw InputError("--pages", "rejected by the evaluator");
    Record r;
    put_scenario(r, s);
    r.set("tas", 1.5);
    return std::vector<Record>{r};
  };
  std::ostringstream warnings;
  const auto records = evaluate_points(pts, evaluate, warnings);
  CHECK(evaluated == std::vector<std::uint64_t>{10000, 20000});  // never the invalid point
  REQUIRE(records.size() == 3);                                  // grid order kept
  CHECK(records[0].number("A") == 5000.0);
  CHECK(records[0].find("tas") == nullptr);
  REQUIRE(records[0].notes.size() == 1);
  CHECK(records[0].notes[0].rfind("--N: N=8192 exceeds A=5000", 0) == 0);
  CHECK(records[1].number("tas") == 1.5);
  CHECK(records[2].find("tas") == nullptr);
  CHECK(records[2].notes.at(0).rfind("--pages:", 0) == 0);
  const std::string w = warnings.str();
  CHECK(std::count(w.begin(), w.end(), '\n') == 1);
  CHECK(w.find("2 of 3 grid points invalid") != std::string::npos);
  CHECK(w.find("--N: N=8192 exceeds A=5000") != std::string::npos);
  CHECK(w.find("--pages") != std::string::npos);

  // No valid point: the first reason, as bad input.
  g.A = "5000,6000";
  std::ostringstream none;
  try {
    evaluate_points(expand_grid_points(g, Algorithm::rw, GridUse::model), evaluate, none);
    FAIL("a grid without a valid point was accepted");
  } catch (const InputError& e) {
    CHECK(e.parameter() == "--N");
    CHECK(std::string(e.what()).find("all 2 grid points are invalid") != std::string::npos);
  }
  CHECK(none.str().empty());
}
