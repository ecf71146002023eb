// `alloclab explain`'s derivations (model/explain.hpp) at points small enough to work by hand:
// every value below is computed here from the definitions, not from the model's functions.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include "alloclab/core/errors.hpp"
#include "alloclab/model/explain.hpp"

using namespace alloclab;
using namespace alloclab::model;

namespace {

Scenario point(Algorithm algo, std::uint64_t N, std::uint64_t A, std::uint64_t T, unsigned w = 32) {
  Scenario s;
  s.algo = algo;
  s.N = N;
  s.A = A;
  s.T = T;
  s.w = w;
  return s;
}

// The line labelled `label` in any section; fails the test when there is none.
const ExplainLine& line(const Explanation& x, const std::string& label) {
  for (const auto& sec : x.sections)
    for (const auto& l : sec.lines)
      if (l.label == label) return l;
  FAIL("no line " << label);
  throw std::logic_error("unreachable");
}

bool touches(const Explanation& x, const std::string& key) {
  return std::find(x.errata.begin(), x.errata.end(), key) != x.errata.end();
}

}  // namespace

TEST_CASE("explain rw at N = 2, A = 4, T = 8, worked by hand", "[model][explain]") {
  const auto x = explain(point(Algorithm::rw, 2, 4, 8), false);
  // Thread 0 sees 4 free pages of 8, thread 1 sees 3.
  CHECK(*line(x, "p_0").value == Approx(0.5));
  CHECK(*line(x, "E[steps_0]").value == Approx(2.0));
  CHECK(*line(x, "p_(N-1)").value == Approx(3.0 / 8));
  CHECK(*line(x, "E[steps_(N-1)]").value == Approx(8.0 / 3));
  // TAS = (2 + 8/3)/2 = 7/3 = T/N (H_4 - H_2) = 4 (1/3 + 1/4).
  CHECK(*line(x, "TAS").value == Approx(7.0 / 3).epsilon(1e-12));
  CHECK(*line(x, "H_A - H_(A-N)").value == Approx(1.0 / 3 + 1.0 / 4).epsilon(1e-12));
  CHECK(*line(x, "sum").value == Approx(8 * (1.0 / 3 + 1.0 / 4)).epsilon(1e-12));
  // Eq. (2): T/N ln(A/(A-N)) = 4 ln 2, 18.8% above the exact 7/3.
  CHECK(*line(x, "Eq. (2)").value == Approx(4 * std::log(2.0)).epsilon(1e-12));
  CHECK_THAT(line(x, "Eq. (2)").meaning, Catch::Contains("+18.8%"));
  // q = (8 - 4 + 2)/8; collisions N(N-1)/(2T) = 1/8, times A/T = 1/16.
  CHECK(*line(x, "q").value == Approx(0.75));
  CHECK(*line(x, "birthday").value == Approx(0.125));
  CHECK(*line(x, "bound").value == Approx(0.0625));
  CHECK(line(x, "TAS").substituted == "8/2 x 0.583333");
  CHECK_FALSE(touches(x, "eq2-at-a-equals-n"));
  CHECK_FALSE(x.assumptions.empty());
  CHECK_FALSE(x.hardware.empty());
}

TEST_CASE("explain rw at A = N: Eq. (2) is infinite, the exact TAS finite, the erratum named",
          "[model][explain]") {
  const auto x = explain(point(Algorithm::rw, 3, 3, 6), false);
  CHECK_FALSE(line(x, "Eq. (2)").value.has_value());
  CHECK_FALSE(line(x, "Eq. (3)").value.has_value());  // q = 1
  // T/N (H_3 - H_0) = 2 (1 + 1/2 + 1/3) = 11/3.
  CHECK(*line(x, "TAS").value == Approx(11.0 / 3).epsilon(1e-12));
  CHECK(touches(x, "eq2-at-a-equals-n"));
}

TEST_CASE("explain rwbm at N = 1, A = 1, T = 2, w = 2, worked by hand", "[model][explain]") {
  const auto x = explain(point(Algorithm::rwbm, 1, 1, 2, 2), false);
  // x_0 = 1/2, p_0 = 1 - 1/4: one word read succeeds with probability 3/4, TAS = 4/3.
  CHECK(*line(x, "x_0").value == Approx(0.5));
  CHECK(*line(x, "p_0").value == Approx(0.75));
  CHECK(*line(x, "TAS").value == Approx(4.0 / 3).epsilon(1e-12));
  // RW's TAS at this point is T/N (H_1 - H_0) = 2; U/w = 1; the residual s(1/2) = 4/3 - 1.
  CHECK(*line(x, "U/w").value == Approx(1.0));
  CHECK(*line(x, "TAS - U/w").value == Approx(1.0 / 3).epsilon(1e-12));
  CHECK(touches(x, "eq4-clumping"));
  CHECK(touches(x, "theorem1"));  // A = N: the corner Theorem 1 speaks of
}

TEST_CASE("explain queue at N = 4: TAS 5/2, a warp's 4 lanes' largest position 4",
          "[model][explain]") {
  const auto x = explain(point(Algorithm::queue, 4, 4, 4), false);
  CHECK(*line(x, "TAS").value == Approx(2.5));
  // 4 distinct positions of 1..4: the largest is 4; m(N+1)/(m+1) = 4 x 5/5.
  CHECK(*line(x, "WAS").value == Approx(4.0));
  // Eq. (1) at N = 4, L = 32: 4 - (1 + 2^32 + 3^32 + 4^32)/4^32.
  const double eq1 =
      4 - (1 + std::pow(2.0, 32) + std::pow(3.0, 32) + std::pow(4.0, 32)) / std::pow(4.0, 32);
  CHECK(*line(x, "Eq. (1)").value == Approx(eq1).epsilon(1e-12));
  CHECK(*line(x, "gap").value == Approx(eq1 - 4).epsilon(1e-12));
  CHECK(x.errata == std::vector<std::string>{"eq1"});
}

TEST_CASE("explain ouro-p-s: 1024 requests of 16 B on an empty pool, worked by hand",
          "[model][explain]") {
  Scenario s = point(Algorithm::ouro_p_s, 1024, 1u << 20, 1u << 20);
  s.pages = 1;
  const auto x = explain(s, false);
  // 16 B pages, 512 to a chunk: the requests served 1st and 513th grow (13 + 512 steps), the
  // other 1022 take a page in 3. TAS = (1022 x 3 + 2 x 525) / 1024; the 32 warps of the service
  // order hold a grower in warps 0 and 16: WAS = (2 x 525 + 30 x 3) / 32.
  CHECK(*line(x, "p").value == 512);
  CHECK(*line(x, "G").value == 2);
  CHECK(*line(x, "chunks").value == 2);
  CHECK(*line(x, "TAS").value == Approx((1022.0 * 3 + 2 * 525) / 1024).epsilon(1e-12));
  CHECK(*line(x, "WAS").value == Approx((2.0 * 525 + 30 * 3) / 32).epsilon(1e-12));
  CHECK(*line(x, "static").value == 4.0 * (1u << 20));  // 2^20 indices of 4 bytes
  CHECK(touches(x, "ouro-21-bit-count"));
  CHECK(touches(x, "ouro-alg1-full-check"));
  CHECK_FALSE(touches(x, "ouro-vlq-static"));
  s.algo = Algorithm::ouro_c_vl;
  const auto y = explain(s, false);
  CHECK(touches(y, "ouro-vlq-static"));
  CHECK(touches(y, "ouro-alg4-atomicmax"));
}

TEST_CASE("explain gallatin: 65536 requests of 256 B on 16 segments, worked by hand",
          "[model][explain]") {
  Scenario s = point(Algorithm::gallatin, 65536, 1u << 24, 1u << 24);  // 16 segments of 2^20
  s.pages = 16;                                                        // 256 B: class k = 4
  const auto x = explain(s, false);
  CHECK(*line(x, "k").value == 4);
  CHECK(*line(x, "B").value == 16);  // 256 >> 4 blocks a segment
  CHECK(*line(x, "L").value == 1);   // 16 segments: one vEB word
  // 256 thread blocks of 256 requests on SMs b mod 132, slots SM mod max(4, 132 >> 4) = 8:
  // slots 0-3 serve 33 thread blocks (8448 requests: 3 blocks), slots 4-7 serve 31 (7936: 2).
  CHECK(*line(x, "R").value == 4 * 3 + 4 * 2);
  CHECK(*line(x, "G").value == 2);  // ceil(20 / 16)
  CHECK(*line(x, "D").value == 1);  // floor(20 / 16)
  // 4 x 20 refills + 1 x (2 + 1) tree atomics + 2 x 2 for the formats counted in flight + 2
  // segment-tree removes (one word, no parent).
  CHECK(*line(x, "fixed").value == 89);
  CHECK(*line(x, "teams of one").value == Approx((65536.0 + 89) / 65536).epsilon(1e-12));
  CHECK(*line(x, "warp teams").value == Approx((2048.0 + 89) / 65536).epsilon(1e-12));
}

TEST_CASE("explain refuses what it cannot derive, naming the parameter", "[model][explain]") {
  CHECK_THROWS_AS(explain(point(Algorithm::rw, 5, 4, 8), false), InputError);  // N > A
  CHECK_THROWS_WITH(explain(point(Algorithm::queue, 2, 4, 8), true),
                    Catch::Contains("rounds schedule"));
  CHECK_THROWS_WITH(explain(point(Algorithm::cudamalloc, 2, 4, 8), false),
                    Catch::Contains("no model"));
}

TEST_CASE("explain --schedule rounds: RW's TAS equals the sequential one, its WAS is larger",
          "[model][explain]") {
  const auto x = explain(point(Algorithm::rw, 64, 128, 1024), true);
  const auto& tas = line(x, "TAS (rounds)");
  // The rounds schedule keeps RW's TAS law: T/N (H_128 - H_64), computed here by a direct sum.
  double h = 0;
  for (int k = 65; k <= 128; ++k) h += 1.0 / k;
  CHECK(*tas.value == Approx(1024.0 / 64 * h).epsilon(1e-9));
  CHECK(*line(x, "WAS (rounds)").value > *line(x, "WAS").value);
  CHECK(*line(x, "rounds").value >= *line(x, "WAS (rounds)").value);
}

TEST_CASE("numbers print as integers when they are, else with 6 digits", "[model][explain]") {
  CHECK(explain_number(100) == "100");
  CHECK(explain_number(2.0 / 3) == "0.666667");
  CHECK(explain_number(1e20) == "1e+20");
  CHECK(explain_number(INFINITY) == "inf");
}
