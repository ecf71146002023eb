// The parallel-rounds model against the simulator's lockstep mode (Monte Carlo, stated
// tolerance), the rounds backend's wiring, and the rounds verdicts on synthetic rows.
#include <catch2/catch.hpp>

#include <cmath>

#include "alloclab/core/errors.hpp"
#include "alloclab/cpu_sim/simulator.hpp"
#include "alloclab/model/rounds.hpp"
#include "alloclab/validation/backends.hpp"
#include "alloclab/validation/rounds_backend.hpp"

using namespace alloclab;

namespace {

// |sim mean - model| within 4.5 standard errors of the trial mean: a correct model fails this
// with probability < 1e-5 per check (normal approximation over >= 200 trials).
void check_against_lockstep(const Scenario& s, std::uint64_t trials) {
  sim::SimOptions opt;
  opt.mode = sim::Mode::lockstep;
  opt.host_threads = 2;
  const auto t = sim::run_trials(s, opt, trials);
  const Record m = model::evaluate_rounds(s);
  for (const auto& [name, summary] :
       {std::pair<std::string, sim::Summary>{"tas", t.tas}, {"was", t.was}}) {
    const double model_value = *m.number(name);
    const double se = *summary.sd / std::sqrt(static_cast<double>(summary.n));
    INFO(name << ": sim " << summary.mean << " +- " << se << " (se), model " << model_value);
    CHECK(std::fabs(summary.mean - model_value) <= 4.5 * se);
  }
}

}  // namespace

TEST_CASE("rounds model vs lockstep simulation (Monte Carlo)", "[validation][rounds]") {
  Scenario s;
  s.lanes = 32;
  s.seed = 11;
  SECTION("RW, exact chain, near exhaustion") {
    s.algo = Algorithm::rw;
    s.N = 256;
    s.A = 300;
    s.T = 8192;
    check_against_lockstep(s, 400);
  }
  SECTION("RW, mean field + tail") {
    s.algo = Algorithm::rw;
    s.N = 2048;
    s.A = 2300;
    s.T = 65536;
    check_against_lockstep(s, 200);
  }
  SECTION("RW-BM w = 32, mean field + tail, clumped words") {
    s.algo = Algorithm::rwbm;
    s.w = 32;
    s.N = 4096;
    s.A = 4200;
    s.T = 262144;
    check_against_lockstep(s, 200);
  }
  SECTION("RW-BM w = 64, few threads (tail chain only)") {
    s.algo = Algorithm::rwbm;
    s.w = 64;
    s.N = 200;
    s.A = 210;
    s.T = 65536;
    check_against_lockstep(s, 400);
  }
}

TEST_CASE("rounds backend: selected by --modes rounds, model rows with mode rounds",
          "[validation][rounds]") {
  validation::BackendSettings settings;
  settings.model = true;
  settings.sim = true;
  settings.sim_modes = {"lockstep", "rounds"};
  const auto backends = validation::make_backends(settings);
  REQUIRE(backends.size() == 3);  // model (sequential), model (rounds), sim (lockstep)
  CHECK(backends[0].mode == "sequential");
  CHECK(backends[1].name == "model");
  CHECK(backends[1].mode == "rounds");
  CHECK(backends[2].mode == "lockstep");
  Scenario s;
  s.algo = Algorithm::queue;
  CHECK_FALSE(backends[1].applies(s));
  s.algo = Algorithm::rw;
  s.N = 10;
  s.A = 9;
  CHECK_FALSE(backends[1].applies(s));  // N > A
  settings.model = false;
  CHECK_THROWS_AS(validation::make_backends(settings), InputError);
  // The default (no rounds in --modes) is unchanged: one model backend.
  settings.model = true;
  settings.sim_modes = {"sequential"};
  CHECK(validation::make_backends(settings).size() == 2);
}

TEST_CASE("rounds verdicts: lockstep agreement, failure, hardware departure",
          "[validation][rounds]") {
  using validation::TidyRow;
  auto row = [](const std::string& backend, const std::string& mode, std::uint64_t N,
                const std::string& metric, double mean, double sd, std::uint64_t n) {
    TidyRow r;
    r.point = {Algorithm::rw, backend, mode, N, 10000, 1000000, 32, 32, 1};
    r.metric = metric;
    r.mean = mean;
    r.sd = sd;
    r.n = n;
    r.ci95 = 2 * sd / std::sqrt(static_cast<double>(n));
    return r;
  };
  std::vector<TidyRow> rows = {
      // N = 1000: the lockstep mean is 0.5 standard errors from the model; the GPU is 20% off.
      row("model", "rounds", 1000, "tas", 100.0, 0, 1),
      row("sim", "lockstep", 1000, "tas", 100.5, 4.472135955, 20),
      row("gpu", "", 1000, "tas", 120.0, 1, 20),
      // N = 2000: the lockstep mean is 50 standard errors off: the model is wrong there.
      row("model", "rounds", 2000, "tas", 100.0, 0, 1),
      row("sim", "lockstep", 2000, "tas", 150.0, 4.472135955, 20),
      row("gpu", "", 2000, "tas", 130.0, 1, 20),
      // A sequential model row must not be taken as the rounds reference.
      row("model", "sequential", 1000, "tas", 50.0, 0, 1)};
  const auto vs = validation::compare_rounds_model(rows);
  REQUIRE(vs.size() == 4);
  int seen = 0;
  for (const auto& v : vs) {
    INFO(v.check << " N=" << v.point.N << ": " << v.explanation);
    CHECK(v.reference == 100.0);
    if (v.point.backend == "sim" && v.point.N == 1000) {
      CHECK(v.outcome == validation::Outcome::pass);
      CHECK(std::fabs(v.z - 0.5) < 1e-6);
      ++seen;
    }
    if (v.point.backend == "sim" && v.point.N == 2000) {
      CHECK(v.outcome == validation::Outcome::fail);
      ++seen;
    }
    if (v.point.backend == "gpu" && v.point.N == 1000) {
      CHECK(v.outcome == validation::Outcome::expected_departure);
      ++seen;
    }
    if (v.point.backend == "gpu" && v.point.N == 2000) {
      CHECK(v.outcome == validation::Outcome::fail);
      ++seen;
    }
  }
  CHECK(seen == 4);
}
