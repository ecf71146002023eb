#include <catch2/catch.hpp>

#include <cmath>

#include "alloclab/model/model.hpp"
#include "reference.hpp"

using namespace alloclab::model;

TEST_CASE("Theorem 1 misses (w-1)/(2w)", "[model][theorem]") {
  for (unsigned w : {32u, 64u}) {
    const auto c = check_theorem1(1000, 1000, 1000000, w);
    // U' - U/w at A = N, from the 50-digit references.
    const ref::mp want = ref::rwbm_tas(1000, 1000, 1000000, w) -
                         ref::mp(1000000) / 1000 * ref::harmonic_difference(1000, 0) / w;
    CHECK(ref::rel(*c.residual, want) < 1e-10);
    // Not 0 as printed; -> (w-1)/(2w) as N/T -> 0 (here N/T = 1e-3).
    CHECK(*c.residual == Approx((w - 1.0) / (2.0 * w)).epsilon(1e-2));
    CHECK(check_theorem1(10, 10, 1000000000, w).residual.value() ==
          Approx((w - 1.0) / (2.0 * w)).epsilon(1e-6));
  }
}

TEST_CASE("Theorem 2 holds as lim (V' - V/w)", "[model][theorem]") {
  for (unsigned w : {32u, 64u}) {
    const auto c = check_theorem2(1000, 1001, 1000000, w, 32);
    CHECK(std::abs(*c.residual) < 1e-12);
    // Cross-check against 50-digit inclusion-exclusion for both sides.
    const ref::mp q = ref::mp(1000000 - 1) / 1000000;
    const ref::mp lhs = ref::max_geometric_iid(boost::multiprecision::pow(q, w), 32);
    const ref::mp V = ref::max_geometric_iid(q, 32);
    const ref::mp res = lhs - V / w - ref::mp(w - 1) / (2 * w);
    CHECK(std::abs(*c.residual - static_cast<double>(res)) < 1e-9);
  }
  CHECK_FALSE(check_theorem2(1000, 1000, 1000000, 32, 32).lhs.has_value());
}
