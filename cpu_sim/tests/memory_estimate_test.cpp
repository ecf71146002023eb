// The simulator's memory estimate (memory_estimate.hpp) on hand-worked points; its agreement
// with the measured peak is checked in cli/tests/resource_limits_test.cpp.
#include <catch2/catch.hpp>

#include "alloclab/core/errors.hpp"
#include "alloclab/cpu_sim/memory_estimate.hpp"

using namespace alloclab;
using namespace alloclab::sim;

TEST_CASE("the memory estimate adds the allocator's structures to the generic parts",
          "[cpu_sim][memory]") {
  SimOptions o;
  o.host_threads = 2;
  Scenario s;
  s.algo = Algorithm::rw;
  s.T = 6400;  // 100 bitmap words of 64 pages (800 B); a page set is 800 B too
  s.A = 3200;
  s.N = 100;
  MemoryEstimate m = memory_estimate(s, o, 3);
  CHECK(m.pool == 800 + 2 * 800);
  CHECK(m.per_thread == 24 * 100);  // sequential: sort key and copy of the service order
  CHECK(m.results == 3 * 20 * 100);
  CHECK(m.running_trials == 2);  // three trials, two host threads
  CHECK(m.total() == 2 * (2400 + 2400) + 6000);

  // CoRW with its LockMap, w = 4, in lockstep: 1600 words (12800 B), 25 lock words (200 B),
  // and each lane's word, snapshot and flag (17 B) on top of lockstep's 56 B per thread.
  s.algo = Algorithm::corw_lockmap;
  s.w = 4;
  o.mode = Mode::lockstep;
  m = memory_estimate(s, o, 1);
  CHECK(m.pool == 12800 + 200 + 2 * 800);
  CHECK(m.per_thread == (56 + 17) * 100);
  CHECK(m.running_trials == 1);

  // The queue: the used-page mirror, a slot per page and the free page ids.
  s.algo = Algorithm::queue;
  o.mode = Mode::threads;
  m = memory_estimate(s, o, 4);
  CHECK(m.pool == 800 + 8 * 6400 + 8 * 3200 + 2 * 800);
  CHECK(m.per_thread == 0);
  CHECK(m.running_trials == 1);  // threads mode runs one trial at a time
}

TEST_CASE("the memory estimate of an allocator the simulator lacks is an input error",
          "[cpu_sim][memory]") {
  for (const auto& a : kAlgorithms) {
    if (a.caps.has(BackendKind::sim)) continue;
    Scenario s;
    s.algo = a.id;
    CHECK_THROWS_AS(memory_estimate(s, SimOptions{}, 1), InputError);
  }
}
