// The simulator's table (sim_table.hpp) against the registry (core/algorithm.hpp): a dropped
// registration, a file missing from the build or a registry line that forgets BackendKind::sim
// shows up here.
#include <catch2/catch.hpp>

#include <string>

#include "alloclab/core/errors.hpp"
#include "alloclab/cpu_sim/sim_table.hpp"
#include "sim_test_helpers.hpp"

using namespace alloclab;
using namespace alloclab::sim;
using alloclab::sim::testing::granule_pages;

TEST_CASE("exactly the allocators the registry runs in the simulator have a simulator entry",
          "[cpu_sim][registry]") {
  for (const auto& a : kAlgorithms) {
    CAPTURE(a.name);
    const SimEntry* e = SimTable::instance().find(a.id);
    CHECK(a.caps.has(BackendKind::sim) == (e != nullptr));
    if (e) CHECK(e->make != nullptr);
    if (e) CHECK(e->pool_bytes != nullptr);  // the memory estimate needs it
  }
  CHECK(SimTable::instance().registered() == algorithms_on(BackendKind::sim));
}

TEST_CASE("an allocator without a simulator entry is an input error", "[cpu_sim][registry]") {
  for (const auto& a : kAlgorithms) {
    if (a.caps.has(BackendKind::sim)) continue;
    CAPTURE(a.name);
    Scenario s;
    s.algo = a.id;
    s.N = 10;
    s.A = 100;
    s.T = 1000;
    try {
      (void)make_allocator(s, SimOptions{}, 1);
      FAIL("make_allocator accepted an allocator that has no simulator backend");
    } catch (const InputError& e) {
      CHECK(e.parameter() == "--allocator");
      CHECK(std::string(e.what()).find("has no simulator backend") != std::string::npos);
    }
  }
}

TEST_CASE("the simulator's input checks follow the capabilities", "[cpu_sim][registry]") {
  for (auto algo : algorithms_on(BackendKind::sim)) {
    CAPTURE(name(algo));
    Scenario s;
    s.algo = algo;
    s.N = 10;
    s.A = 500;
    s.T = 1000;
    s.pages = 2;
    if (const std::uint64_t granule = granule_pages(caps(algo))) {
      // A pool that is not a whole number of its granules is an error on --T, one that is is not.
      CHECK_THROWS_AS(check_input(s, SimOptions{}), InputError);
      s.T = s.A = granule;
    }
    if (caps(algo).requests == RequestKind::pages) {
      CHECK_NOTHROW(check_input(s, SimOptions{}));
    } else {
      CHECK_THROWS_AS(check_input(s, SimOptions{}), InputError);  // two pages for a one-page one
      s.pages = 1;
      CHECK_NOTHROW(check_input(s, SimOptions{}));
    }
  }
}
