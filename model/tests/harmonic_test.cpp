#include <catch2/catch.hpp>

#include <cstdint>

#include "alloclab/model/model.hpp"
#include "reference.hpp"

using namespace alloclab::model;

TEST_CASE("harmonic numbers: exact small values", "[model][harmonic]") {
  CHECK(harmonic_number(0) == 0.0);
  CHECK(harmonic_number(1) == 1.0);
  CHECK(harmonic_number(4) == Approx(25.0 / 12).epsilon(1e-15));
  CHECK(ref::rel(harmonic_number(1ull << 40), ref::harmonic_difference(1ull << 40, 0)) < 1e-14);
}

TEST_CASE("harmonic differences: no cancellation for N << A", "[model][harmonic]") {
  const std::uint64_t As[] = {1, 2, 25, 1000, 123457, 1000000, 4294967296ull, 1ull << 40};
  const std::uint64_t Ns[] = {1, 2, 33, 1000, 65536, 1000000};
  for (auto A : As)
    for (auto N : Ns) {
      if (N > A) continue;
      for (std::uint64_t B : {A - N, A - N + (A > N ? 1 : 0)}) {
        if (B > A || A - B > 200000) continue;
        INFO("A=" << A << " B=" << B);
        CHECK(ref::rel(harmonic_difference(A, B), ref::harmonic_difference(A, B)) < 1e-13);
      }
    }
  // Huge spans through mp digamma.
  CHECK(ref::rel(harmonic_difference(1ull << 40, 1ull << 39),
                 ref::harmonic_difference(1ull << 40, 1ull << 39)) < 1e-13);
}
