// `alloclab explain` for every allocator the registry holds (plug-ins included), end to end: exit
// 0 and an answer; an allocator with neither model nor simulator answers one line (exit 0); every
// other prints a derivation whose numbers that name a source ("sim:<mode>:<count>",
// "record:<key>") equal that source recomputed here through the simulator's and the model's own
// API at the same point and seed, and whose quick simulations equal run_trials'.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "alloclab/cli/grid.hpp"
#include "alloclab/core/algorithm.hpp"
#include "alloclab/cpu_sim/simulator.hpp"
#include "alloclab/model/model.hpp"
#include "alloclab/model/model_table.hpp"
#include "child_process.hpp"

using namespace alloclab;

namespace {

constexpr std::uint64_t kTrials = 2, kSeed = 7, kN = 64;

// A point every allocator runs at: an empty pool of 65536 pages (Ouroboros VL keeps 13 chunks
// of a small pool for its queue), or one granule where its pool
// comes in granules (Gallatin's 16 MiB segment, UAlloc's 256 KB chunk), in its own page units.
std::uint64_t pool_pages(Algorithm a) {
  const auto& c = caps(a);
  if (c.pool_granule_bytes == 0) return 65536;
  return c.pool_granule_bytes / (c.fixed_page_bytes ? c.fixed_page_bytes : 4096);
}

Scenario scenario_of(Algorithm a) {
  cli::GridOptions g;
  g.N = std::to_string(kN);
  g.T = std::to_string(pool_pages(a));
  g.free_fraction = "1";
  g.seed = kSeed;
  const auto points = cli::expand_grid_points(g, a, cli::GridUse::model);
  REQUIRE(points.size() == 1);
  REQUIRE_FALSE(points[0].invalid.has_value());
  Scenario s = points[0].scenario;
  s.seed = kSeed;
  return s;
}

double simulated(const sim::TrialsResult& r, const std::string& name) {
  if (name == "tas") return r.tas.mean;
  if (name == "was") return r.was.mean;
  if (name == "collisions") return r.collisions.mean / static_cast<double>(kN);
  for (const auto& [count, summary] : r.op_counts_per_request)
    if (count == name) return summary.mean;
  FAIL("the simulation reports no count " << name);
  return 0;
}

}  // namespace

TEST_CASE("explain answers for every registered allocator, each sourced number recomputed",
          "[cli][explain]") {
  for (Algorithm a : algorithms_on()) {
    const std::string algo(name(a));
    INFO(algo);
    const Scenario s = scenario_of(a);
    const auto r = testing::run_child(
        {ALLOCLAB_EXE, "explain", "--allocator", algo, "--N", std::to_string(kN), "--T",
         std::to_string(s.T), "--free", "1", "--trials", std::to_string(kTrials), "--seed",
         std::to_string(kSeed), "--threads", "1", "--format", "json"},
        ALLOCLAB_EXPLAIN_WORK, 300);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    REQUIRE_FALSE(r.out.empty());
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j.at("algo") == algo);
    const bool modelled = caps(a).has(BackendKind::model),
               simulated_ = caps(a).has(BackendKind::sim);
    if (j.contains("no_model")) {
      // Nothing to derive: said in one line, only where there is neither model nor simulator.
      CHECK_FALSE(modelled);
      CHECK_FALSE(simulated_);
      const std::string line = j.at("no_model");
      CHECK(line.find('\n') == std::string::npos);
      CHECK(line.find(algo) == 0);
      // The text format: the same line, alone.
      const auto t = testing::run_child(
          {ALLOCLAB_EXE, "explain", "--allocator", algo, "--N", "64", "--T", "4096", "--free", "1"},
          ALLOCLAB_EXPLAIN_WORK, 60);
      CHECK(t.exit_code == 0);
      CHECK(t.out == line + "\n");
      continue;
    }
    REQUIRE(j.at("sections").size() > 0);
    std::map<std::string, sim::TrialsResult> runs;  // by mode, recomputed here
    if (simulated_) {
      for (sim::Mode m : {sim::Mode::sequential, sim::Mode::lockstep}) {
        sim::SimOptions o;
        o.mode = m;
        o.host_threads = 1;
        runs[sim::mode_name(m)] = sim::run_trials(s, o, kTrials);
      }
      REQUIRE(j.at("simulations").size() == 2);
      for (const auto& q : j.at("simulations")) {
        const auto& run = runs.at(q.at("mode").get<std::string>());
        CHECK(q.at("tas").at("mean").get<double>() == Approx(run.tas.mean).epsilon(1e-12));
        CHECK(q.at("was").at("mean").get<double>() == Approx(run.was.mean).epsilon(1e-12));
        CHECK(q.at("trials").get<std::uint64_t>() == kTrials);
      }
    }
    const Record record = modelled ? model::evaluate(s) : Record{};
    std::size_t sourced = 0, numbers = 0;
    for (const auto& sec : j.at("sections"))
      for (const auto& l : sec.value("lines", nlohmann::json::array())) {
        if (l.at("value").is_null()) continue;
        ++numbers;
        const std::string source = l.value("source", "");
        const double v = l.at("value").get<double>();
        INFO(l.at("label").get<std::string>() << " from '" << source << "'");
        if (source.rfind("sim:", 0) == 0) {
          const auto colon = source.find(':', 4);
          const std::string mode = source.substr(4, colon - 4), count = source.substr(colon + 1);
          REQUIRE(runs.count(mode) == 1);
          CHECK(v == Approx(simulated(runs.at(mode), count)).epsilon(1e-12));
          ++sourced;
        } else if (source.rfind("record:", 0) == 0) {
          const auto expected = record.number(source.substr(7));
          REQUIRE(expected.has_value());
          CHECK(v == Approx(*expected).epsilon(1e-12));
          ++sourced;
        } else if (l.at("label") == "TAS" && record.number("tas")) {
          // the sequential model's TAS, as `alloclab model` prints it
          CHECK(v == Approx(*record.number("tas")).epsilon(1e-12));
        }
      }
    CHECK(numbers > 0);
    // An allocator explained from its counters names the source of every simulated number.
    if (!modelled && simulated_) CHECK(sourced > 0);
  }
}
