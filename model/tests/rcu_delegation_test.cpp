// The delegation model (model/rcu_delegation.hpp) against cases worked by hand from §4.2.1's
// rule (who holds, who waits, who returns at once), and its closed form against the event
// model over a grid.
#include <catch2/catch.hpp>

#include <vector>

#include "alloclab/model/rcu_delegation.hpp"

using namespace alloclab::model;

TEST_CASE("RCU delegation model: hand-worked arrivals", "[model][rcu]") {
  // D = 3, arrivals 0..4: 0 holds [0, 3); 1 waits; 2 delegates; at 3 the waiter holds [3, 6)
  // and 3 becomes the next waiter; 4 delegates; the last waiter holds [6, 9).
  RcuBarrierModel m = conditional_barriers({4, 0, 2, 1, 3}, 3);
  CHECK(m.barriers == 3);
  CHECK(m.delegations == 2);
  CHECK(m.finish == 9);
  CHECK(m.avoided_fraction() == Approx(0.4));
  // Plain: five holds in a row, 0 .. 15.
  CHECK(plain_barriers({4, 0, 2, 1, 3}, 3).finish == 15);
  CHECK(plain_barriers({4, 0, 2, 1, 3}, 3).delegations == 0);
  // Arrivals D apart or more never overlap: every writer holds, nothing is delegated.
  m = conditional_barriers({0, 5, 10}, 5);
  CHECK(m.barriers == 3);
  CHECK(m.delegations == 0);
  CHECK(m.finish == 15);
  // Everybody at once: one holds, one waits, the rest delegate.
  m = conditional_barriers(std::vector<double>(10, 7.0), 4);
  CHECK(m.barriers == 2);
  CHECK(m.delegations == 8);
  CHECK(m.finish == 15);
  // A waiter that took over and finished before the next arrival: that arrival holds.
  m = conditional_barriers({0, 1, 20}, 3);
  CHECK(m.barriers == 3);
  CHECK(m.finish == 23);
  CHECK(conditional_barriers({}, 3).barriers == 0);
}

TEST_CASE("RCU delegation model: the closed form is the event model's count", "[model][rcu]") {
  // 7 writers every 2 rounds, D = 5: holds start at 0, 2 (waits to 5), 6 (to 10), 10 (to 15):
  // 4 barriers = 2 + floor(6 x 2 / 5).
  CHECK(evenly_spaced_conditional_barriers(7, 2, 5) == 4);
  CHECK(evenly_spaced_conditional_barriers(1, 1, 5) == 1);
  CHECK(evenly_spaced_conditional_barriers(9, 6, 5) == 9);
  for (std::uint64_t w : {2u, 3u, 10u, 100u, 1000u})
    for (double g : {1.0, 2.0, 3.0, 7.0})
      for (double d : {2.5, 5.5, 16.5, 100.5}) {  // half-rounds: no arrival on a hold's end
        std::vector<double> a;
        for (std::uint64_t k = 0; k < w; ++k) a.push_back(static_cast<double>(k) * g);
        INFO("W " << w << " g " << g << " D " << d);
        CHECK(conditional_barriers(a, d).barriers == evenly_spaced_conditional_barriers(w, g, d));
      }
  // The speed-up of the writers' barrier time approaches D / g with many writers, and is 1
  // when the barriers never overlap.
  CHECK(evenly_spaced_speedup(10000, 1, 14) == Approx(14).epsilon(0.01));
  CHECK(evenly_spaced_speedup(100, 20, 14) == Approx(1));
}
