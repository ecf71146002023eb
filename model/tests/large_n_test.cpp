// The test grid reaches N = 10^6: TAS of RW and RW-BM at N = 10^6 against 50-digit
// direct sums (independent of model/src: no digamma, no Euler-Maclaurin, x^w by squaring).
#include <catch2/catch.hpp>

#include <boost/multiprecision/cpp_bin_float.hpp>
#include <cstdint>

#include "alloclab/model/model.hpp"

namespace {
using mp = boost::multiprecision::cpp_bin_float_50;

// T/N * sum_{j<N} 1/(A-j), term by term.
double rw_tas_direct(std::uint64_t N, std::uint64_t A, std::uint64_t T) {
  mp s = 0;
  for (std::uint64_t j = 0; j < N; ++j) s += mp(1) / mp(A - j);
  return static_cast<double>(s * mp(T) / mp(N));
}

// Eq. (4), term by term; w is a power of two, so x^w is log2(w) squarings.
double rwbm_tas_direct(std::uint64_t N, std::uint64_t A, std::uint64_t T, unsigned w) {
  mp s = 0;
  const mp inv_T = mp(1) / mp(T);
  for (std::uint64_t j = 0; j < N; ++j) {
    mp x = mp(T - A + j) * inv_T;
    for (unsigned k = 1; k < w; k *= 2) x *= x;
    s += mp(1) / (1 - x);
  }
  return static_cast<double>(s / mp(N));
}

double rel(double a, double b) {
  return std::fabs(a - b) / std::fabs(b);
}
}  // namespace

TEST_CASE("RW TAS at N = 10^6 against a 50-digit direct sum", "[model][large]") {
  const std::uint64_t N = 1000000, T = 4294967296ULL;
  for (std::uint64_t A : {N, N + 1, 2 * N, 400 * N}) {
    INFO("A = " << A);
    CHECK(rel(alloclab::model::rw_tas_exact(N, A, T), rw_tas_direct(N, A, T)) <= 1e-10);
  }
}

TEST_CASE("RW-BM TAS (Eq. 4) at N = 10^6 against a 50-digit direct sum", "[model][large]") {
  const std::uint64_t N = 1000000, T = 4294967296ULL;
  for (unsigned w : {32u, 64u})
    for (std::uint64_t A : {N, N + 1, 10 * N}) {
      INFO("w = " << w << ", A = " << A);
      CHECK(rel(alloclab::model::rwbm_tas(N, A, T, w), rwbm_tas_direct(N, A, T, w)) <= 1e-10);
    }
}
