#include <catch2/catch.hpp>

#include <cstdint>

#include "alloclab/model/model.hpp"
#include "reference.hpp"

using namespace alloclab::model;

TEST_CASE("queue TAS and exact WAS, hand-worked", "[model][queue]") {
  CHECK(queue_tas(5) == 3.0);
  // N = 5, L = 2: max of 2 distinct positions of 1..5, by enumeration of the 10 pairs: 40/10.
  double brute = 0;
  for (int a = 1; a <= 5; ++a)
    for (int b = a + 1; b <= 5; ++b) brute += b;
  CHECK(queue_was_exact(4 * 2 + 0, 2) == Approx(2.0 * 9 / 3));
  CHECK(brute / 10 == Approx(4.0));
  CHECK(queue_was_exact(5, 2) != Approx(4.0));  // N = 5 has a partial warp of 1 lane
  // Warps of 2, 2 and 1 lanes: (2*6/3 + 2*6/3 + 1*6/2)/3 = 11/3.
  CHECK(queue_was_exact(5, 2) == Approx(11.0 / 3).epsilon(1e-15));
  CHECK(queue_was_exact(3200, 32) == Approx(32.0 * 3201 / 33).epsilon(1e-15));
}

TEST_CASE("Eq. (1) equals N - S_32(N)/N^32 for small to huge N", "[model][queue]") {
  for (std::uint64_t N : {1ull, 2ull, 3ull, 31ull, 32ull, 33ull, 127ull, 128ull, 129ull, 1000ull,
                          12345ull, 200000ull}) {
    ref::mp s = 0;
    for (std::uint64_t m = 1; m <= N; ++m) s += boost::multiprecision::pow(ref::mp(m) / N, 32);
    INFO("N=" << N);
    CHECK(ref::rel(queue_was_eq1(N, 32), ref::mp(N) - s) < 1e-12);
  }
  // Huge N: Eq. (1) -> 32N/33 - 1/2; compare with the exact Faulhaber polynomial in 50 digits.
  const ref::mp n = ref::mp(1ull << 40);
  const ref::mp faulhaber = n / 33 + ref::mp(1) / 2 + ref::mp(8) / (3 * n);  // next term O(n^-3)
  CHECK(ref::rel(queue_was_eq1(1ull << 40, 32), n - faulhaber) < 1e-14);
  // Eq. (1) and the exact WAS disagree by -(3L+1)/(2(L+1)) for large N (off-by-one, see notes).
  CHECK(queue_was_eq1(1000000, 32) - queue_was_exact(1000000, 32) ==
        Approx(-97.0 / 66).epsilon(1e-5));
}
