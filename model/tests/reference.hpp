// 50-digit references, written independently of model/src: direct sums, finite
// inclusion-exclusion, digamma. Never call the code under test from here.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include <boost/math/special_functions/digamma.hpp>
#include <boost/multiprecision/cpp_bin_float.hpp>

namespace ref {
using mp = boost::multiprecision::cpp_bin_float_50;

// H_a - H_b: direct sum when short, else mp digamma (50 digits leave >= 35 after cancellation).
inline mp harmonic_difference(std::uint64_t a, std::uint64_t b) {
  if (a - b <= 200000) {
    mp s = 0;
    for (std::uint64_t m = a; m > b; --m) s += mp(1) / mp(m);
    return s;
  }
  return boost::math::digamma(mp(a) + 1) - boost::math::digamma(mp(b) + 1);
}

// Eq. (4) by its direct N-term sum.
inline mp rwbm_tas(std::uint64_t N, std::uint64_t A, std::uint64_t T, unsigned w) {
  mp s = 0;
  for (std::uint64_t j = 0; j < N; ++j) {
    const mp x = mp(T - A + j) / mp(T);
    s += 1 / (1 - boost::multiprecision::pow(x, w));
  }
  return s / N;
}

// Finite inclusion-exclusion: sum_{S nonempty} (-1)^{|S|+1}/(1 - prod_{j in S} q_j).
inline mp max_geometric_subsets(const std::vector<mp>& q) {
  mp s = 0;
  const std::size_t m = q.size();
  for (std::uint64_t mask = 1; mask < (std::uint64_t{1} << m); ++mask) {
    mp prod = 1;
    int bits = 0;
    for (std::size_t j = 0; j < m; ++j)
      if (mask >> j & 1) {
        prod *= q[j];
        ++bits;
      }
    s += (bits % 2 ? 1 : -1) / (1 - prod);
  }
  return s;
}

// i.i.d.: sum_{i=1}^L (-1)^{i+1} C(L,i)/(1 - q^i).
inline mp max_geometric_iid(const mp& q, unsigned L) {
  mp s = 0, c = 1;
  for (unsigned i = 1; i <= L; ++i) {
    c = c * (L - i + 1) / i;  // C(L, i), exact in 50 digits
    s += (i % 2 ? 1 : -1) * c / (1 - boost::multiprecision::pow(q, i));
  }
  return s;
}

// Relative error (absolute where the reference is 0).
inline double rel(double got, const mp& want) {
  if (want == 0) return std::abs(got);
  return static_cast<double>(abs((mp(got) - want) / want));
}
}  // namespace ref
