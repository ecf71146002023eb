#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "alloclab/core/pool.hpp"

using alloclab::initially_free;
using alloclab::PagePermutation;

TEST_CASE("the page permutation is a bijection on 0..T-1", "[core][pool]") {
  for (std::uint64_t T :
       {1ULL, 2ULL, 3ULL, 5ULL, 31ULL, 64ULL, 1000ULL, 4097ULL, 65536ULL, 100003ULL}) {
    const PagePermutation pi(T, 99);
    std::vector<char> hit(T, 0);
    for (std::uint64_t p = 0; p < T; ++p) {
      const auto q = pi(p);
      REQUIRE(q < T);
      REQUIRE(hit[q] == 0);
      hit[q] = 1;
    }
  }
}

TEST_CASE("exactly A pages start free", "[core][pool]") {
  const std::uint64_t T = 50000;
  const PagePermutation pi(T, 3);
  for (std::uint64_t A : {0ULL, 1ULL, 250ULL, 25000ULL, 50000ULL}) {
    std::uint64_t free_count = 0;
    for (std::uint64_t p = 0; p < T; ++p) free_count += initially_free(pi, p, A);
    REQUIRE(free_count == A);
  }
}

TEST_CASE("free sets look uniform across seeds", "[core][pool]") {
  // Over 2000 seeds, each of T = 64 pages is free with probability A/T = 1/4.
  // Binomial sd = sqrt(2000 * 0.25 * 0.75) = 19.4; allow 5 sd per page.
  const std::uint64_t T = 64, A = 16;
  std::vector<int> free_times(T, 0);
  const int seeds = 2000;
  for (int s = 0; s < seeds; ++s) {
    const PagePermutation pi(T, static_cast<std::uint64_t>(s) + 1000);
    for (std::uint64_t p = 0; p < T; ++p) free_times[p] += initially_free(pi, p, A);
  }
  for (int c : free_times) CHECK(std::abs(c - seeds / 4) < 5 * 19.4);
  // Neighbouring pages are not correlated: P(p and p+1 both free) ~ (A/T)((A-1)/(T-1)).
  int both = 0;
  for (int s = 0; s < seeds; ++s) {
    const PagePermutation pi(T, static_cast<std::uint64_t>(s) + 77);
    both += initially_free(pi, 10, A) && initially_free(pi, 11, A);
  }
  const double expect = seeds * (16.0 / 64) * (15.0 / 63);  // 119
  CHECK(std::abs(both - expect) < 5 * std::sqrt(expect));
}
