// The allocator lists of `--allocator` (sweep, measure, model, simulate): names, or `all` alone for
// every registered allocator on the chosen backends.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "alloclab/cli/sweep_grid.hpp"
#include "alloclab/core/errors.hpp"

using namespace alloclab;
using namespace alloclab::cli;

namespace {

constexpr unsigned backend_bits(BackendKind b) {
  return static_cast<unsigned>(b);
}

bool contains(const std::vector<Algorithm>& v, Algorithm a) {
  return std::find(v.begin(), v.end(), a) != v.end();
}

std::string rejected(const std::vector<std::string>& items, unsigned backends) {
  try {
    parse_algorithm_list(items, backends, "--allocator");
  } catch (const InputError& e) {
    return e.parameter();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("`all` is every registered allocator on at least one chosen backend", "[cli]") {
  const unsigned model_sim = BackendKind::model | BackendKind::sim;
  for (const unsigned chosen : {backend_bits(BackendKind::model), backend_bits(BackendKind::sim),
                                backend_bits(BackendKind::gpu), model_sim, kAllBackends}) {
    INFO("backends " << chosen);
    const auto all = parse_algorithm_list({"all"}, chosen, "--allocator");
    for (const auto& a : kAlgorithms) {
      INFO(a.name);
      CHECK(contains(all, a.id) == ((a.caps.backends & chosen) != 0));
    }
    // Registry order, each once.
    CHECK(std::is_sorted(all.begin(), all.end()));
    CHECK(std::adjacent_find(all.begin(), all.end()) == all.end());
  }
  // What the registry says of its two one-backend allocators, by hand.
  const auto gpu = parse_algorithm_list({"all"}, backend_bits(BackendKind::gpu), "--allocator");
  CHECK(contains(gpu, Algorithm::cudamalloc));
  CHECK_FALSE(contains(gpu, Algorithm::corw_lockmap));
  const auto cpu = parse_algorithm_list({"all"}, model_sim, "--allocator");
  CHECK(contains(cpu, Algorithm::corw_lockmap));
  CHECK_FALSE(contains(cpu, Algorithm::cudamalloc));
  CHECK(parse_algorithm_list({"all"}, kAllBackends, "--allocator").size() == kAlgorithms.size());
}

TEST_CASE("names are taken as given, and `all` mixed with names is an input error", "[cli]") {
  CHECK(parse_algorithm_list({"rwbm", "queue"}, kAllBackends, "--allocator") ==
        std::vector<Algorithm>{Algorithm::rwbm, Algorithm::queue});
  CHECK(rejected({"all", "rw"}, kAllBackends) == "--allocator");
  CHECK(rejected({"rw", "all"}, kAllBackends) == "--allocator");
  CHECK(rejected({"all", "all"}, kAllBackends) == "--allocator");
  CHECK(rejected({"ALL"}, kAllBackends) == "--allocator");
  CHECK(rejected({"nope"}, kAllBackends) == "--allocator");
  CHECK(rejected({}, kAllBackends) == "--allocator");
  try {
    parse_algorithm_list({"all", "rw"}, kAllBackends, "--join-allocators");
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(e.parameter() == "--join-allocators");  // the option the caller names
  }
}

TEST_CASE("a sweep measures an allocator of bytes once per N: A and T do not apply to it",
          "[cli]") {
  GridOptions grid;
  grid.preset = "standard";  // N = 1024..1048576*2 (11 values), 5 free fractions, 2 pools
  for (const auto& a : kAlgorithms) {
    const auto points = sweep_points(grid, a.id);
    CAPTURE(a.name);
    if (a.caps.requests == RequestKind::bytes) {
      REQUIRE(points.size() == 11);  // 2^10 .. 2^20, counted by hand
      for (std::size_t i = 0; i < points.size(); ++i) CHECK(points[i].N == (1024ull << i));
    } else {
      // Allocators of pages keep the whole grid: every N at every free fraction and pool size
      // (w axis: 2 widths where w matters); N <= A is the backends' business, not the grid's.
      CHECK(points.size() == 11u * 5u * 2u * (a.caps.bitmap_words ? 2u : 1u));
    }
  }
}
