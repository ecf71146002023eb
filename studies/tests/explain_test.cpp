// `alloclab explain`'s gathering (validation/explain.hpp) and the errata's keys it looks up,
// with every study linked (the errata come from the study table).
#include <catch2/catch.hpp>

#include <set>

#include "alloclab/studies/dynasoar_errata.hpp"
#include "alloclab/studies/gelado_errata.hpp"
#include "alloclab/studies/ouroboros_claims.hpp"
#include "alloclab/studies/paper000_errata.hpp"
#include "alloclab/validation/all_errata.hpp"
#include "alloclab/validation/explain.hpp"

using namespace alloclab;
using namespace alloclab::validation;

TEST_CASE("every erratum has a key of its own, and a lookup returns them in the order asked",
          "[validation][explain]") {
  std::set<std::string> keys;
  std::vector<Erratum> all;
  for (const auto& paper : all_errata())
    for (const auto& e : paper.errata) all.push_back(e);
  CHECK(all.size() >= paper000_errata().size() + gelado_errata().size() +
                          ouroboros_errata().size() + dynasoar_errata().size());
  for (const auto& e : all) {
    CHECK_FALSE(e.key.empty());
    CHECK(keys.insert(e.key).second);  // unique
  }
  const auto two = paper000_errata({"theorem1", "no-such-erratum", "eq1"});
  REQUIRE(two.size() == 2);
  CHECK(two[0].where == "Sec. 4.1, Theorem 1");
  CHECK(two[1].where == "Sec. 3.2.1, Eq. (1) (queue WAS)");
}

TEST_CASE("explain_point: the model, both quick simulations and the errata the point touches",
          "[validation][explain]") {
  Scenario s;
  s.algo = Algorithm::rw;
  s.N = 3;
  s.A = 3;
  s.T = 60;
  ExplainOptions o;
  o.trials = 200;
  const auto x = explain_point(s, o);
  REQUIRE(x.simulations.size() == 2);
  CHECK(x.simulations[0].mode == sim::Mode::sequential);
  CHECK(x.simulations[1].mode == sim::Mode::lockstep);
  CHECK(x.simulations[0].result.trials == 200);
  // TAS = T/N (H_3 - H_0) = 20 x 11/6 = 36.67; 200 trials of 3 geometric draws with means 20, 30,
  // 60 put the sample mean within 4 standard errors (sd of the mean ~ 2.9) of it.
  CHECK(x.simulations[0].result.tas.mean == Approx(110.0 / 3).margin(12));
  CHECK(x.simulations[1].result.tas.mean == Approx(110.0 / 3).margin(12));
  REQUIRE_FALSE(x.errata.empty());
  CHECK(x.errata[0].key == "eq2-at-a-equals-n");
  CHECK_FALSE(x.rounds.has_value());
  o.trials = 0;
  o.rounds = true;
  const auto y = explain_point(s, o);
  CHECK(y.simulations.empty());
  REQUIRE(y.rounds.has_value());
  CHECK(y.model.sections.back().title.find("Parallel rounds") == 0);
}
