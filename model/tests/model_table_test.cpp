// The model table (model_table.hpp) against the registry (core/algorithm.hpp): a dropped
// registration, a file missing from the build or a registry line that forgets
// BackendKind::model shows up here; and each entry's declared sweep keys against its record.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "alloclab/core/errors.hpp"
#include "alloclab/model/model.hpp"
#include "alloclab/model/model_table.hpp"
#include "alloclab/model/rounds.hpp"

using namespace alloclab;
using namespace alloclab::model;

namespace {

// A point every model covers: plenty of free pages, full warps.
Scenario covered_point(Algorithm a) {
  Scenario s;
  s.algo = a;
  s.N = 64;
  s.A = 5000;
  s.T = 10000;
  s.w = 32;
  s.lanes = 32;
  s.pages = caps(a).requests == RequestKind::pages ? 2 : 1;
  // Ouroboros' model is of an empty pool (its chunks are typed by its own requests).
  if (caps(a).size_classes) s.A = s.T = 10240;
  // A pool of whole granules (Gallatin's 16 MiB segments of 16 B pages): one.
  if (const std::uint64_t g = caps(a).pool_granule_bytes) s.A = s.T = g / caps(a).fixed_page_bytes;
  return s;
}

}  // namespace

TEST_CASE("exactly the allocators the registry models have a model entry", "[model][registry]") {
  for (const auto& a : kAlgorithms) {
    CAPTURE(a.name);
    const ModelEntry* e = ModelTable::instance().find(a.id);
    CHECK(a.caps.has(BackendKind::model) == (e != nullptr));
    if (!e) continue;
    CHECK(e->uncovered != nullptr);
    CHECK(e->evaluate != nullptr);
    CHECK(!e->metrics.empty());
    CHECK(!e->help.empty());
  }
  CHECK(modelled_algorithms() == algorithms_on(BackendKind::model));
}

TEST_CASE("each model entry's record holds the keys it declares", "[model][registry]") {
  for (auto a : modelled_algorithms()) {
    CAPTURE(name(a));
    const ModelEntry& e = *ModelTable::instance().find(a);
    const Scenario s = covered_point(a);
    REQUIRE(e.applies(s));
    const Record r = evaluate(s);
    const auto* algo = r.find("algo");
    REQUIRE(algo != nullptr);
    CHECK(std::get<std::string>(*algo) == std::string(name(a)));
    for (const auto& key : e.metrics) {
      CAPTURE(key);
      CHECK(r.number(key).has_value());  // a number at a point with A well above N
    }
    // Past the pool (more requests than free pages) no model applies.
    Scenario over = s;
    over.N = s.A + 1;
    CHECK_FALSE(e.applies(over));
  }
}

TEST_CASE("the rounds schedule exists exactly where an entry has one", "[model][registry]") {
  for (const auto& a : kAlgorithms) {
    CAPTURE(a.name);
    const ModelEntry* e = ModelTable::instance().find(a.id);
    const Scenario s = covered_point(a.id);
    if (e && e->rounds) {
      const Record r = evaluate_rounds(s);
      const auto tas = r.number("tas"), rounds = r.number("rounds");
      REQUIRE(tas.has_value());
      REQUIRE(rounds.has_value());
      // A thread needs at least one round, and none takes longer than the whole run.
      CHECK(*tas >= 1.0);
      CHECK(*tas <= *rounds);
    } else {
      CHECK_THROWS_AS(evaluate_rounds(s), InputError);
    }
  }
}

TEST_CASE("an allocator without a model entry is an input error", "[model][registry]") {
  for (const auto& a : kAlgorithms) {
    if (a.caps.has(BackendKind::model)) continue;
    CAPTURE(a.name);
    try {
      (void)evaluate(covered_point(a.id));
      FAIL("the model evaluated an allocator it does not cover");
    } catch (const InputError& e) {
      CHECK(e.parameter() == "--allocator");
    }
  }
}

namespace {

// The parameter and message of the entry's reason for not covering s ("" where it covers it).
std::pair<std::string, std::string> why_uncovered(const Scenario& s) {
  const auto why = ModelTable::instance().find(s.algo)->uncovered(s);
  return why ? std::pair(why->parameter(), std::string(why->what())) : std::pair("", "");
}

bool mentions(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("a point outside a model's domain is named by the condition that fails", "[model]") {
  // rw at N = 8192 > A = 5000: a free page for every request.
  Scenario s = covered_point(Algorithm::rw);
  s.N = 8192;
  auto [parameter, message] = why_uncovered(s);
  CHECK(parameter == "--N");
  CHECK(mentions(message, "N <= A (here N=8192 > A=5000)"));

  // Gallatin (the reported case: --N 1024 --free 0.5 --T 1e6): N <= A holds; its pool is neither
  // empty (A = T) nor whole 16 MiB segments (2^20 units of 16 B), and the first is named.
  s = covered_point(Algorithm::gallatin);
  s.N = 1024;
  s.T = 1000000;
  s.A = 500000;
  std::tie(parameter, message) = why_uncovered(s);
  CHECK(parameter == "--A");
  CHECK(mentions(message, "empty pool: A = T"));
  CHECK_FALSE(mentions(message, "N <= A"));
  s.A = s.T;
  std::tie(parameter, message) = why_uncovered(s);
  CHECK(parameter == "--T");
  CHECK(mentions(message, "a multiple of 1048576"));
  // One segment (2^20 units) holds 2^20 / 256 = 4096 blocks of 4096 slices of 16 B, and
  // 2^20 requests of one page need a free page each: 2^20 + 1 do not fit.
  s.T = s.A = std::uint64_t{1} << 20;
  s.N = s.A + 1;
  std::tie(parameter, message) = why_uncovered(s);
  CHECK(parameter == "--N");
  CHECK(mentions(message, "N x pages <= A"));

  // ouro-p-s (the same reported case): an empty pool first; then, on 10240 units (20 chunks of
  // 512), requests of one unit fill 512 pages a chunk: 20 chunks hold 20 growers' 10240.
  s = covered_point(Algorithm::ouro_p_s);
  s.pages = 1;
  s.A = s.T / 2;
  std::tie(parameter, message) = why_uncovered(s);
  CHECK(parameter == "--A");
  CHECK(mentions(message, "empty pool"));
  s.A = s.T;
  s.N = 20 * 512;
  CHECK(why_uncovered(s).first.empty());
  s.N = 20 * 512 + 1;  // a 21st grower
  std::tie(parameter, message) = why_uncovered(s);
  CHECK(parameter == "--N");
  CHECK(mentions(message, "21 growers and 20 chunks"));
}
