#include <catch2/catch.hpp>

#include <cmath>

#include "alloclab/validation/verdict.hpp"

using namespace alloclab;
using namespace alloclab::validation;

namespace {
TidyRow row(const std::string& backend, const std::string& mode, const std::string& metric,
            double mean, double sd, std::uint64_t n, double ci95 = 0) {
  TidyRow r;
  r.point = {Algorithm::rw, backend, mode, 1000, 10000, 1000000, 32, 32, 1};
  r.metric = metric;
  r.mean = mean;
  r.sd = sd;
  r.n = n;
  r.ci95 = ci95;
  return r;
}
const Verdict& find(const std::vector<Verdict>& vs, const std::string& check,
                    const std::string& mode) {
  for (const auto& v : vs)
    if (v.check == check && v.point.mode == mode) return v;
  FAIL("no verdict " << check << " " << mode);
  return vs.front();
}
}  // namespace

TEST_CASE("model vs simulation: z-scores and family-wise threshold", "[validation]") {
  // Model TAS 10, WAS bound 30. Sequential sim: mean 10.1, sd 1, n 100 -> se 0.1, z = 1.
  // Lockstep sim: mean 11 (z = 10): a departure the parallel rounds are expected to cause.
  const std::vector<TidyRow> rows = {row("model", "sequential", "tas", 10, 0, 1),
                                     row("model", "sequential", "was_bound", 30, 0, 1),
                                     row("sim", "sequential", "tas", 10.1, 1, 100, 0.198),
                                     row("sim", "sequential", "was", 25, 2, 100, 0.4),
                                     row("sim", "lockstep", "tas", 11, 1, 100, 0.198)};
  const auto vs = compare_backends(rows);
  const auto& seq = find(vs, "model vs sim: tas", "sequential");
  CHECK(seq.z == Approx(1.0));
  CHECK(seq.inside_ci95);
  CHECK(seq.outcome == Outcome::pass);
  const auto& lock = find(vs, "model vs sim: tas", "lockstep");
  CHECK(lock.z == Approx(10.0));
  CHECK(lock.outcome == Outcome::expected_departure);
  const auto& bound = find(vs, "sim WAS <= bound", "sequential");
  CHECK(bound.outcome == Outcome::pass);
  CHECK(all_acceptable(vs));
}

TEST_CASE("a sequential simulation far from the model fails", "[validation]") {
  const std::vector<TidyRow> rows = {row("model", "sequential", "tas", 10, 0, 1),
                                     row("sim", "sequential", "tas", 10.6, 1, 100, 0.198)};
  const auto vs = compare_backends(rows);
  REQUIRE(vs.size() == 1);
  // 2 comparisons? no: one; z = 6 > Phi^-1(0.975) = 1.96.
  CHECK(vs[0].outcome == Outcome::fail);
  CHECK_FALSE(all_acceptable(vs));
}

TEST_CASE("the family-wise threshold grows with the number of comparisons", "[validation]") {
  // z = 2.2 passes a single per-point 95% test? No (1.96). With 50 comparisons the Bonferroni
  // threshold is Phi^-1(1 - 0.025/50) = 3.29, so z = 2.2 is not evidence of disagreement.
  std::vector<TidyRow> rows;
  for (int i = 0; i < 50; ++i) {
    auto m = row("model", "sequential", "tas", 10, 0, 1);
    auto s = row("sim", "sequential", "tas", 10.22, 1, 100, 0.198);
    m.point.N = s.point.N = 1000 + static_cast<std::uint64_t>(i);
    rows.push_back(m);
    rows.push_back(s);
  }
  const auto vs = compare_backends(rows);
  REQUIRE(vs.size() == 50);
  CHECK_FALSE(vs[0].inside_ci95);
  CHECK(vs[0].outcome == Outcome::pass);
}

TEST_CASE("a WAS above its bound fails", "[validation]") {
  const std::vector<TidyRow> rows = {row("model", "sequential", "was_bound", 30, 0, 1),
                                     row("gpu", "", "was", 40, 2, 20, 0.9)};
  const auto vs = compare_backends(rows);
  REQUIRE(vs.size() == 1);
  CHECK(vs[0].outcome == Outcome::fail);
}

TEST_CASE("hardware departures are explained by collisions when the data say so", "[validation]") {
  auto coll = row("gpu", "", "collisions", 500, 0, 20);  // 0.5 per thread for N = 1000
  const std::vector<TidyRow> rows = {row("model", "sequential", "tas", 10, 0, 1),
                                     row("gpu", "", "tas", 10.6, 0.1, 20, 0.05), coll};
  const auto vs = compare_backends(rows);
  REQUIRE(vs.size() == 1);
  CHECK(vs[0].outcome == Outcome::expected_departure);
  CHECK(vs[0].collisions_per_thread == Approx(0.5));
  CHECK_THAT(vs[0].explanation, Catch::Contains("account for most of the excess"));
}

TEST_CASE("the GPU queue's WAS is explained by warp-consecutive tickets", "[validation]") {
  // N = 64, L = 32: warps hold tickets 1..32 and 33..64, so WAS = (32 + 64) / 2 = 48 (by hand),
  // where the model's random-position WAS is 32 * 65 / 33 = 63.03.
  auto model = row("model", "sequential", "was", 32.0 * 65 / 33, 0, 1);
  auto gpu = row("gpu", "", "was", 48, 0, 20);
  model.point.algo = gpu.point.algo = Algorithm::queue;
  model.point.N = gpu.point.N = 64;
  auto vs = compare_backends({model, gpu});
  REQUIRE(vs.size() == 1);
  CHECK(vs[0].outcome == Outcome::expected_departure);
  CHECK_THAT(vs[0].explanation, Catch::Contains("consecutive tickets"));
  gpu.mean = 50;  // anything else is not explained by that mechanism
  vs = compare_backends({model, gpu});
  CHECK(vs[0].outcome == Outcome::fail);
}

TEST_CASE("a GPU departure is explained when the lockstep simulation agrees", "[validation]") {
  const auto model = row("model", "sequential", "was", 1693, 0, 1);
  const auto lock = row("sim", "lockstep", "was", 2725.8, 95.6, 20, 44.8);
  const auto gpu = row("gpu", "", "was", 2725.9, 94.3, 20, 44.1);
  const auto vs = compare_backends({model, lock, gpu});
  const auto& g = find(vs, "model vs gpu: was", "");
  CHECK(g.outcome == Outcome::expected_departure);
  CHECK_THAT(g.explanation, Catch::Contains("agrees with the lockstep simulation"));
  // Without any simulation at the point, the same departure is unexplained.
  const auto alone = compare_backends({model, gpu});
  REQUIRE(alone.size() == 1);
  CHECK(alone[0].outcome == Outcome::fail);
}

TEST_CASE("a WAS a little above its bound, within noise, passes", "[validation]") {
  // se = 2 / sqrt(100) = 0.2; 30.3 is 1.5 se above the bound of 30.
  const auto vs = compare_backends({row("model", "sequential", "was_bound", 30, 0, 1),
                                    row("sim", "lockstep", "was", 30.3, 2, 100, 0.4)});
  REQUIRE(vs.size() == 1);
  CHECK(vs[0].z == Approx(1.5));
  CHECK(vs[0].outcome == Outcome::pass);
}

TEST_CASE("a sequential simulation is compared on service-order warps", "[validation]") {
  // The model's WAS is over warps consecutive in service order; the simulator's `was` (thread-id
  // warps) is a different quantity and must not be compared with it.
  const auto vs =
      compare_backends({row("model", "sequential", "was", 1693, 0, 1),
                        row("sim", "sequential", "was", 2178, 79, 20, 37),
                        row("sim", "sequential", "was_service_order", 1690, 40, 20, 19)});
  REQUIRE(vs.size() == 1);
  CHECK(vs[0].check == "model vs sim: was_service_order");
  CHECK(vs[0].outcome == Outcome::pass);
}

TEST_CASE("hardware between the sequential and lockstep simulations is explained", "[validation]") {
  const auto model = row("model", "sequential", "was", 2.509, 0, 1);
  const auto seq = row("sim", "sequential", "was", 4.207, 0.043, 20, 0.020);
  const auto lock = row("sim", "lockstep", "was", 4.868, 0.039, 20, 0.018);
  const auto gpu = row("gpu", "", "was", 4.435, 0.032, 20, 0.015);
  auto vs = compare_backends({model, seq, lock, gpu});
  const auto& g = find(vs, "model vs gpu: was", "");
  CHECK(g.outcome == Outcome::expected_departure);
  CHECK_THAT(g.explanation, Catch::Contains("range of the scheduling extremes"));
  auto outside = gpu;
  outside.mean = 5.5;  // far above every extreme
  vs = compare_backends({model, seq, lock, outside});
  CHECK(find(vs, "model vs gpu: was", "").outcome == Outcome::fail);
}

TEST_CASE("a sample without spread is judged by the rule of three", "[validation]") {
  // RW-BM at 50% free: 20 trials, every warp took one step, so sd = 0. The model's WAS exceeds
  // 1 by 7e-9, far below 3 / (20 trials * 32 warps) = 0.0047: agreement.
  auto model = row("model", "sequential", "was", 1 + 7e-9, 0, 1);
  auto sim = row("sim", "sequential", "was_service_order", 1, 0, 20);
  model.point.N = sim.point.N = 1024;
  auto vs = compare_backends({model, sim});
  REQUIRE(vs.size() == 1);
  CHECK(vs[0].outcome == Outcome::pass);
  sim.mean = 1.01;  // an excess of 0.01 with no spread is not explained by chance
  vs = compare_backends({model, sim});
  CHECK(vs[0].outcome == Outcome::fail);
}

// ---- the constants that decide verdicts, pinned by hand-worked cases on both sides ----------

TEST_CASE("one comparison of 100 trials: the threshold is Student's t at 97.5%, 99 dof",
          "[validation][thresholds]") {
  // family_alpha = 0.05 over 1 comparison: two-sided 95%, t_{0.975, 99} = 1.9842 (tables).
  // se = 1 / sqrt(100) = 0.1. z = 1.97 passes (it would fail the normal 1.96); z = 2.00 fails.
  auto judge = [](double z) {
    const auto vs = compare_backends({row("model", "sequential", "tas", 10, 0, 1),
                                      row("sim", "sequential", "tas", 10 + 0.1 * z, 1, 100)});
    REQUIRE(vs.size() == 1);
    CHECK(vs[0].z == Approx(z));
    return vs[0].outcome;
  };
  CHECK(judge(1.97) == Outcome::pass);
  CHECK(judge(2.00) == Outcome::fail);
  CHECK(judge(-1.97) == Outcome::pass);
  CHECK(judge(-2.00) == Outcome::fail);
}

TEST_CASE("model vs GPU: a resolved TAS difference within 5% agrees, beyond 5% needs a reason",
          "[validation][thresholds]") {
  // sd 0.01 over 20 trials: z is in the hundreds, so only the relative tolerance can pass it.
  // RW, no simulation and no collisions at the point: nothing else explains a difference.
  auto judge = [](double gpu_tas) {
    const auto vs = compare_backends(
        {row("model", "sequential", "tas", 10, 0, 1), row("gpu", "", "tas", gpu_tas, 0.01, 20)});
    REQUIRE(vs.size() == 1);
    return vs[0].outcome;
  };
  CHECK(judge(10.49) == Outcome::pass);  // +4.9%
  CHECK(judge(9.51) == Outcome::pass);   // -4.9%
  CHECK(judge(10.51) == Outcome::fail);  // +5.1%
  CHECK(judge(9.49) == Outcome::fail);   // -5.1%
}

TEST_CASE("failed atomic claims explain a GPU TAS excess only when they are half of it or more",
          "[validation][thresholds]") {
  // N = 1000, TAS 10.6 vs 10: an excess of 0.6 steps per thread (6%, beyond the 5% tolerance).
  // Half of it is 0.3 failed claims per thread, i.e. 300 claims.
  auto judge = [](double collisions) {
    const auto vs = compare_backends({row("model", "sequential", "tas", 10, 0, 1),
                                      row("gpu", "", "tas", 10.6, 0.1, 20),
                                      row("gpu", "", "collisions", collisions, 0, 20)});
    REQUIRE(vs.size() == 1);
    return vs[0].outcome;
  };
  CHECK(judge(310) == Outcome::expected_departure);
  CHECK(judge(290) == Outcome::fail);
}

TEST_CASE("the rule of three at its edge: 3 / (trials x warps)", "[validation][thresholds]") {
  // N = 1024 threads = 32 warps, 20 trials, no spread: an excess of WAS below
  // 3 / (20 * 32) = 0.0046875 is within chance, above it is not.
  auto judge = [](double observed) {
    auto model = row("model", "sequential", "was", 1, 0, 1);
    auto sim = row("sim", "sequential", "was_service_order", observed, 0, 20);
    model.point.N = sim.point.N = 1024;
    const auto vs = compare_backends({model, sim});
    REQUIRE(vs.size() == 1);
    return vs[0].outcome;
  };
  CHECK(judge(1.0046) == Outcome::pass);
  CHECK(judge(1.0048) == Outcome::fail);
  // TAS counts threads: 3 / (20 * 1024) = 1.465e-4.
  auto model = row("model", "sequential", "tas", 1, 0, 1);
  auto sim = row("sim", "sequential", "tas", 1.00014, 0, 20);
  model.point.N = sim.point.N = 1024;
  CHECK(compare_backends({model, sim})[0].outcome == Outcome::pass);
  sim.mean = 1.00015;
  CHECK(compare_backends({model, sim})[0].outcome == Outcome::fail);
}
