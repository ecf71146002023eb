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

namespace {

// The line `label` of the section whose title starts with `title`.
std::optional<double> line_value(const ExplainResult& x, const std::string& title,
                                 const std::string& label) {
  for (const auto& sec : x.model.sections)
    if (sec.title.rfind(title, 0) == 0)
      for (const auto& l : sec.lines)
        if (l.label == label) return l.value;
  return std::nullopt;
}

double per_request(const ExplainResult& x, const std::string& count) {
  for (const auto& [name, summary] : x.simulations.at(0).result.op_counts_per_request)
    if (name == count) return summary.mean;
  FAIL("no count " << count);
  return 0;
}

Scenario empty_pool(Algorithm a, std::uint64_t N, std::uint64_t T, unsigned pages) {
  Scenario s;
  s.algo = a;
  s.N = N;
  s.A = T;
  s.T = T;
  s.pages = pages;
  return s;
}

}  // namespace

TEST_CASE(
    "explain parts: the structure's numbers worked by hand, and the fresh pool's exact "
    "counts against the simulator",
    "[validation][explain]") {
  ExplainOptions o;
  o.trials = 2;
  SECTION(
      "gg-tbuddy: T = 1024, n = 2: H = 10, o = 1; 100 requests split 50 + 25 + 13 + 7 + 4 + "
      "2 + 1 + 1 + 1 = 104 blocks") {
    const auto x = explain_point(empty_pool(Algorithm::gg_tbuddy, 100, 1024, 2), o);
    CHECK(line_value(x, "The tree", "H") == 10);
    CHECK(line_value(x, "The tree", "o") == 1);
    CHECK(line_value(x, "The tree", "climb") == 9);
    CHECK(line_value(x, "Splits", "S") == 104);
    CHECK(per_request(x, "splits") * 100 == Approx(104));  // the simulator, sequential
    CHECK(per_request(x, "waits_grew") * 100 == Approx(104));
    CHECK(x.errata.size() == 5);
  }
  SECTION(
      "gg-ualloc: 8 B slots, 496 in a bin's body + 16 in its tail = 512; 1000 requests fill "
      "2 bins") {
    const auto x = explain_point(empty_pool(Algorithm::gg_ualloc, 1000, 32768, 1), o);
    CHECK(line_value(x, "The size class", "k") == 0);
    CHECK(line_value(x, "The size class", "body") == 496);
    CHECK(line_value(x, "The size class", "batch") == 512);
    CHECK(line_value(x, "The size class", "chunks") == 1);
    CHECK(line_value(x, "Bins", "bins") == 2);
    CHECK(per_request(x, "refills") * 1000 == Approx(2));
  }
  SECTION(
      "dynasoar: T = 4096: M = 64 blocks, one level; a type of 3 pages holds 21 a block, "
      "100 requests type 5 blocks") {
    const auto x = explain_point(empty_pool(Algorithm::dynasoar, 100, 4096, 3), o);
    CHECK(line_value(x, "The heap", "M") == 64);
    CHECK(line_value(x, "The heap", "N_T") == 21);
    CHECK(line_value(x, "The heap", "L") == 1);
    CHECK(line_value(x, "Blocks", "blocks") == 5);
    CHECK(per_request(x, "blocks_initialised") * 100 == Approx(5));
    REQUIRE(x.errata.size() == 1);
    CHECK(x.errata[0].key == "dynasoar-clear");
  }
  SECTION(
      "bitmap-alloc: 4096 bits -> 64 -> levels 2, 64 + 1 words; a request alone reads 2 "
      "words and clears 1") {
    const auto x = explain_point(empty_pool(Algorithm::bitmap_alloc, 64, 4096, 1), o);
    CHECK(line_value(x, "The bitmap", "L") == 2);
    CHECK(line_value(x, "The bitmap", "words") == 65);
    CHECK(line_value(x, "The bitmap", "least steps") == 3);
    CHECK(x.simulations.at(0).result.tas.mean >= 3);
  }
}

TEST_CASE("explain: an allocator with neither model nor simulator is one line",
          "[validation][explain]") {
  for (Algorithm a : algorithms_on())
    if (!caps(a).has(BackendKind::model) && !caps(a).has(BackendKind::sim)) {
      Scenario s = empty_pool(a, 64, 4096, 1);
      const auto x = explain_point(s, ExplainOptions{});
      CHECK(x.no_model.find(std::string(name(a))) == 0);
      CHECK(x.no_model.find('\n') == std::string::npos);
      CHECK(x.simulations.empty());
    }
}
