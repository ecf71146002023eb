#include <catch2/catch.hpp>

#include "alloclab/cpu_sim/simulator.hpp"
#include "sim_test_helpers.hpp"

using namespace alloclab;
using namespace alloclab::sim;
using alloclab::sim::testing::granule_pages;

TEST_CASE("sequential and lockstep results do not depend on host threads", "[cpu_sim][det]") {
  const Algorithm algo = GENERATE(from_range(algorithms_on(BackendKind::sim)));
  const Mode mode = GENERATE(Mode::sequential, Mode::lockstep);
  Scenario s;
  s.algo = algo;
  s.N = 500;
  s.A = 600;
  s.T = 20000;
  s.seed = 4;
  // A pool of whole granules (Gallatin's segments): one, all free.
  if (const std::uint64_t granule = granule_pages(caps(algo))) s.A = s.T = granule;
  SimOptions one, many;
  one.mode = many.mode = mode;
  one.host_threads = 1;
  many.host_threads = 3;
  const auto a = run_trials(s, one, 4);
  const auto b = run_trials(s, many, 4);
  CHECK(a.tas.mean == b.tas.mean);
  CHECK(a.was.mean == b.was.mean);
  CHECK(a.collisions.mean == b.collisions.mean);
  const auto r1 = run_once(s, one, 2);
  const auto r2 = run_once(s, many, 2);
  CHECK(r1.steps == r2.steps);
  CHECK(r1.first_page == r2.first_page);
}

TEST_CASE("lockstep resolves collisions, sequential has none", "[cpu_sim][det]") {
  Scenario s;
  s.algo = Algorithm::rw;
  s.N = 2000;
  s.A = 2000;
  s.T = 4000;
  SimOptions o;
  o.mode = Mode::sequential;
  CHECK(run_once(s, o, 0).collisions == 0);
  o.mode = Mode::lockstep;
  CHECK(run_once(s, o, 0).collisions > 0);
}
