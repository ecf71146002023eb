// Sequential mode against the model, computed here independently by direct summation (the
// model/ module is separate): TAS = (1/N) sum_{j<N} T/(A-j); for one warp (N = L) the exact
// WAS = sum_{k>=0} [1 - prod_{j<N} (1 - q_j^k)] with q_j = 1 - (A-j)/T.
// Criterion: |simulated mean - model| <= 2 x the 95% Student-t half-width (about 4 standard
// errors: the seeds are fixed, so this is deterministic and not flaky at the edge).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "alloclab/cpu_sim/simulator.hpp"

using namespace alloclab;
using namespace alloclab::sim;

namespace {
double tas_model(double N, double A, double T) {
  double s = 0;
  for (double j = 0; j < N; ++j) s += T / (A - j);
  return s / N;
}
double was_model_one_warp(unsigned N, double A, double T) {
  double total = 0;
  for (std::uint64_t k = 0;; ++k) {
    double prod = 1;
    for (unsigned j = 0; j < N; ++j) prod *= 1 - std::pow(1 - (A - j) / T, static_cast<double>(k));
    const double term = 1 - prod;
    total += term;
    if (k > 10 && term < 1e-12) break;
  }
  return total;
}
}  // namespace

TEST_CASE("sequential RW TAS agrees with the model", "[cpu_sim][model]") {
  struct P {
    std::uint64_t N, A, T;
  };
  const P p = GENERATE(P{100, 50000, 100000}, P{500, 50000, 100000}, P{100, 1000, 100000},
                       P{500, 1000, 100000}, P{100, 500, 100000},  // A/T = 0.5%
                       P{500, 500, 100000},                        // A = N, A/T = 0.5%
                       P{64, 64, 20000});                          // A = N
  Scenario s;
  s.algo = Algorithm::rw;
  s.N = p.N;
  s.A = p.A;
  s.T = p.T;
  s.seed = 2024;
  SimOptions o;
  const auto tr = run_trials(s, o, 40);
  const double model =
      tas_model(static_cast<double>(p.N), static_cast<double>(p.A), static_cast<double>(p.T));
  CAPTURE(p.N, p.A, p.T, tr.tas.mean, *tr.tas.ci95, model);
  CHECK(std::abs(tr.tas.mean - model) <= 2 * *tr.tas.ci95);
  CHECK(tr.failed.mean == 0);
}

TEST_CASE("sequential RW WAS agrees with the exact one-warp value", "[cpu_sim][model]") {
  struct P {
    std::uint64_t A, T;
  };
  const P p = GENERATE(P{64, 2000}, P{32, 500}, P{1000, 2000});
  Scenario s;
  s.algo = Algorithm::rw;
  s.N = 32;
  s.lanes = 32;
  s.A = p.A;
  s.T = p.T;
  s.seed = 77;
  SimOptions o;
  const auto tr = run_trials(s, o, 400);
  const double model = was_model_one_warp(32, static_cast<double>(p.A), static_cast<double>(p.T));
  CAPTURE(p.A, p.T, tr.was.mean, *tr.was.ci95, model);
  CHECK(std::abs(tr.was.mean - model) <= 2 * *tr.was.ci95);
  const double tmodel = tas_model(32, static_cast<double>(p.A), static_cast<double>(p.T));
  CHECK(std::abs(tr.tas.mean - tmodel) <= 2 * *tr.tas.ci95);
}

TEST_CASE("sequential queue TAS is (N+1)/2 exactly", "[cpu_sim][model]") {
  Scenario s;
  s.algo = Algorithm::queue;
  s.N = 1000;
  s.A = 5000;
  s.T = 10000;
  const RunResult r = run_once(s, SimOptions{}, 0);
  CHECK(metrics(s, r).tas == Approx(500.5));
}

TEST_CASE("sequential RW WAS over service-order warps agrees with the model's WAS",
          "[cpu_sim][model]") {
  // The model's WAS: warps = consecutive groups of L threads in the order it serves them; the
  // thread served at position j (0-based) takes a geometric number of steps with failure
  // probability q_j = 1 - (A - j)/T, so E[max of a group] = sum_k [1 - prod_j (1 - q_j^k)].
  // Computed here by direct summation over consecutive service positions.
  const std::uint64_t N = 64, A = 100, T = 1000;
  const unsigned L = 32;
  double model = 0;
  std::uint64_t groups = 0;
  for (std::uint64_t first = 0; first < N; first += L, ++groups) {
    double e = 0;
    for (std::uint64_t k = 0;; ++k) {
      double prod = 1;
      for (std::uint64_t j = first; j < std::min<std::uint64_t>(N, first + L); ++j)
        prod *= 1 - std::pow(1 - static_cast<double>(A - j) / static_cast<double>(T),
                             static_cast<double>(k));
      e += 1 - prod;
      if (k > 10 && 1 - prod < 1e-13) break;
    }
    model += e;
  }
  model /= static_cast<double>(groups);

  Scenario s;
  s.algo = Algorithm::rw;
  s.N = N;
  s.A = A;
  s.T = T;
  s.lanes = L;
  s.seed = 31337;
  SimOptions o;
  const std::uint64_t trials = 4000;
  const auto tr = run_trials(s, o, trials);
  REQUIRE(tr.was_service_order.has_value());
  const Summary& so = *tr.was_service_order;
  const double se = *so.sd / std::sqrt(static_cast<double>(so.n));
  CAPTURE(model, so.mean, se, tr.was.mean);
  CHECK(so.n == trials);
  CHECK(std::abs(so.mean - model) <= 4 * se);

  // Not defined outside sequential mode.
  o.mode = Mode::lockstep;
  CHECK_FALSE(run_trials(s, o, 2).was_service_order.has_value());
  CHECK_FALSE(metrics(s, run_once(s, o, 0)).was_service_order.has_value());
}
