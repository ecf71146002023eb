#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

#include "alloclab/core/random_stream.hpp"

using alloclab::PhiloxStream;
using alloclab::StreamDomain;

TEST_CASE("Philox stream reproduces Random123's known-answer vector", "[core][random]") {
  // Random123 kat_vectors: philox4x32 10 rounds, counter 0, key 0 ->
  //   6627e8d5 e169c58d bc57ac4c 9b00dbd8. bits() returns words 1:0.
  const PhiloxStream s(0, StreamDomain::probe, 0);
  CHECK(s.bits(0) == 0xe169c58d6627e8d5ULL);
}

TEST_CASE("streams are pure functions of (seed, domain, thread, index)", "[core][random]") {
  const PhiloxStream a(42, StreamDomain::probe, 7);
  const PhiloxStream b(42, StreamDomain::probe, 7);
  for (std::uint64_t k = 0; k < 100; ++k) REQUIRE(a.bits(k) == b.bits(k));
  CHECK(a.bits(3) != PhiloxStream(43, StreamDomain::probe, 7).bits(3));
  CHECK(a.bits(3) != PhiloxStream(42, StreamDomain::pool, 7).bits(3));
  CHECK(a.bits(3) != PhiloxStream(42, StreamDomain::probe, 8).bits(3));
  CHECK(a.bits(3) != a.bits(4));
}

TEST_CASE("below(n) is uniform on 0..n-1", "[core][random]") {
  // Chi-square over 10 cells of n = 10: 100000 draws; the 99.9% point of chi2(9) is 27.9.
  const PhiloxStream s(2024, StreamDomain::probe, 1);
  std::vector<int> cells(10, 0);
  const int draws = 100000;
  for (int k = 0; k < draws; ++k) {
    const auto v = s.below(static_cast<std::uint64_t>(k), 10);
    REQUIRE(v < 10);
    ++cells[v];
  }
  double chi2 = 0;
  for (int c : cells) chi2 += (c - draws / 10.0) * (c - draws / 10.0) / (draws / 10.0);
  CHECK(chi2 < 27.9);
  CHECK(s.below(0, 1) == 0);
  // A huge range still lands in range.
  for (std::uint64_t k = 0; k < 1000; ++k) REQUIRE(s.below(k, (1ULL << 40) + 3) < (1ULL << 40) + 3);
}

TEST_CASE("uniform01 lies in 0 <= u < 1 with mean 1/2", "[core][random]") {
  const PhiloxStream s(5, StreamDomain::order, 0);
  double sum = 0;
  const int n = 200000;
  for (int k = 0; k < n; ++k) {
    const double u = s.uniform01(static_cast<std::uint64_t>(k));
    REQUIRE(u >= 0.0);
    REQUIRE(u < 1.0);
    sum += u;
  }
  // sd of the mean = sqrt(1/12/n) ~ 6.5e-4; allow 5 sd.
  CHECK(std::fabs(sum / n - 0.5) < 5 * std::sqrt(1.0 / 12.0 / n));
}
