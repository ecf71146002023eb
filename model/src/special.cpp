// Special functions of the model: harmonic differences and expected maxima of geometric variables.
// Every routine here is accurate to ~1e-13 relative or better over the whole parameter range,
// including q = 1 - 1e-12 (where direct summation of an infinite series would need ~1e13 terms).
#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <numbers>
#include <vector>

#include <boost/math/quadrature/gauss.hpp>
#include <boost/math/special_functions/bernoulli.hpp>
#include <boost/math/special_functions/binomial.hpp>
#include <boost/math/special_functions/zeta.hpp>

#include "alloclab/model/model.hpp"

namespace alloclab::model {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Below this argument the asymptotic series of H_n is not used: sums are direct.
constexpr std::uint64_t kAsymptoticFrom = 24;

// sum_{m=b+1}^{a} 1/m by direct summation, smallest terms first (for a - b small).
double harmonic_direct(std::uint64_t a, std::uint64_t b) {
  double s = 0.0;
  for (std::uint64_t m = a; m > b; --m) s += 1.0 / static_cast<double>(m);
  return s;
}

}  // namespace

double harmonic_difference(std::uint64_t a, std::uint64_t b) {
  if (a <= b) return 0.0;
  if (a - b <= 32) return harmonic_direct(a, b);
  if (b < kAsymptoticFrom)
    return harmonic_direct(kAsymptoticFrom, b) + harmonic_difference(a, kAsymptoticFrom);
  // H_n = ln n + gamma + 1/(2n) - sum_k B_2k / (2k n^2k). Each piece of the DIFFERENCE is formed
  // directly so nothing cancels when a - b << b: ln(a/b) = log1p((a-b)/b), 1/(2a) - 1/(2b) =
  // -(a-b)/(2ab), a^-2k - b^-2k = b^-2k expm1(2k log1p(-(a-b)/a)). With b >= 24 and k <= 8 the
  // truncation error of the difference is <= (a-b) * 17*|B_18|/18/b^19 < 1e-24 (a-b)/b, i.e.
  // relative 1e-24 of the result (~(a-b)/a).
  const double da = static_cast<double>(a), db = static_cast<double>(b);
  const double n = static_cast<double>(a - b);
  double s = std::log1p(n / db) - n / (2.0 * da * db);
  const double log_ratio = std::log1p(-n / da);  // ln(b/a)
  for (unsigned k = 1; k <= 8; ++k) {
    const double two_k = 2.0 * k;
    const double diff = std::pow(db, -two_k) * std::expm1(two_k * log_ratio);
    s -= boost::math::bernoulli_b2n<double>(static_cast<int>(k)) / two_k * diff;
  }
  return s;
}

double harmonic_number(std::uint64_t n) {
  return harmonic_difference(n, 0);
}

namespace {

// sum_{k>=0} [1 - prod_j (1 - q_j^k)], summed directly until the tail bound
// sum_{k>K} sum_j q_j^k <= sum_j q_j^{K+1}/(1-q_j) falls below 1e-17 of the sum.
// 1 - prod(1 - x_j) is accumulated as r <- r + x (1 - r): all terms non-negative, no cancellation.
double expected_max_direct(const std::vector<double>& q) {
  std::vector<double> qk(q.size(), 1.0);
  double sum = 1.0;  // k = 0: P(max > 0) = 1
  for (std::uint64_t k = 1;; ++k) {
    double r = 0.0, tail = 0.0;
    for (std::size_t j = 0; j < q.size(); ++j) {
      qk[j] *= q[j];
      r += qk[j] * (1.0 - r);
      tail += qk[j] * q[j] / (1.0 - q[j]);
    }
    sum += r;
    if (tail <= 1e-17 * sum || k > 100'000'000) break;
  }
  return sum;
}

// Inclusion-exclusion over subsets S of the lanes: sum_S (-1)^{|S|+1} / (1 - prod_{j in S} q_j).
// Exact; cancellation loses at most a factor ~2^m/(m H_m) (~100 for m = 12) so it is used only
// for m <= 12 lanes.
double expected_max_subsets(const std::vector<double>& h) {
  const std::size_t m = h.size();
  double s = 0.0;
  for (std::uint64_t mask = 1; mask < (std::uint64_t{1} << m); ++mask) {
    double hs = 0.0;
    int bits = 0;
    for (std::size_t j = 0; j < m; ++j)
      if (mask >> j & 1) {
        hs += h[j];
        ++bits;
      }
    const double term = 1.0 / -std::expm1(-hs);
    s += (bits % 2 == 1) ? term : -term;
  }
  return s;
}

// Size of the Poisson-summation correction (see expected_max_iid_geometric) for m lanes whose
// largest rate is h: |sum_k F(kh) - (1/2 + int F)| <= 2 m! zeta(m+1) h^m / (2 pi)^(m+1), where
// F(t) = 1 - prod(1 - e^{-h_j t}). Proof for equal rates: the n-th Poisson term is
// (2/h) Re[-m!/prod_{k=0}^m (k + i w_n)] with w_n = 2 pi n/h, bounded by (2/h) m!/w_n^(m+1). For
// unequal rates this is the leading asymptotic term with h = max h_j (used as an estimate; the
// tests check the result against 50-digit inclusion-exclusion).
double poisson_correction_bound(unsigned m, double h_max) {
  const double log_b = std::log(2.0) + std::lgamma(m + 1.0) + std::log(boost::math::zeta(m + 1.0)) +
                       m * std::log(h_max) - (m + 1.0) * std::log(2.0 * std::numbers::pi);
  return std::exp(log_b);
}

}  // namespace

double iid_poisson_correction(double h, unsigned lanes) {
  // Poisson summation of sum_{k>=0} F(kh), F(t) = 1 - (1 - e^{-t})^L (an exact identity):
  //   = H_L/h + 1/2 + (2/h) sum_{n>=1} G(2 pi n/h),  G(w) = Re[-L!/prod_{k=0}^L (k + i w)]
  // (int_0^inf F = H_L; the Fourier transform of F follows from the partial fractions
  // sum_i (-1)^i C(L,i)/(i+z) = L!/prod_{k=0}^L (z+k)). The product is formed as prod k/(k + i w)
  // to avoid overflow. Terms decay like n^-(L+1); we stop when |term| * n (a bound on the tail,
  // since terms fall at least like n^-2) is below 1e-17 of the running sum or of H_L/h.
  const double scale = harmonic_number(lanes) / h;
  double sum = 0.0;
  for (unsigned n = 1; n < 10'000'000; ++n) {
    const double w = 2.0 * std::numbers::pi * n / h;
    std::complex<double> prod = 1.0 / std::complex<double>(0.0, w);
    for (unsigned k = 1; k <= lanes; ++k)
      prod *= static_cast<double>(k) / std::complex<double>(k, w);
    const double term = 2.0 / h * -prod.real();
    sum += term;
    if (std::abs(term) * n <= 1e-17 * scale) break;
  }
  return sum;
}

double expected_max_iid_geometric(double h, unsigned lanes) {
  if (!(h > 0)) return kInf;
  if (std::isinf(h)) return 1.0;
  const unsigned L = lanes;
  if (L <= 12) {
    // Finite inclusion-exclusion, exact: sum_i (-1)^{i+1} C(L,i) / (1 - q^i).
    double s = 0.0;
    for (unsigned i = 1; i <= L; ++i) {
      const double term = boost::math::binomial_coefficient<double>(L, i) / -std::expm1(-h * i);
      s += (i % 2 == 1) ? term : -term;
    }
    return s;
  }
  if (h <= 1.5) return harmonic_number(L) / h + 0.5 + iid_poisson_correction(h, L);
  // Large h: the direct series converges geometrically, in at most ~(ln L + 40)/1.5 terms.
  const double q = std::exp(-h);
  double sum = 1.0, qk = 1.0;
  for (unsigned k = 1; k < 100000; ++k) {
    qk *= q;
    const double term = -std::expm1(L * std::log1p(-qk));
    sum += term;
    if (L * qk * q / (1.0 - q) <= 1e-17 * sum) break;
  }
  return sum;
}

double expected_max_geometric(const std::vector<double>& h) {
  if (h.empty()) return 0.0;
  double h_min = kInf, h_max = 0.0;
  for (double x : h) {
    h_min = std::min(h_min, x);
    h_max = std::max(h_max, x);
  }
  if (!(h_min > 0)) return kInf;
  if (h_min == h_max) return expected_max_iid_geometric(h_min, static_cast<unsigned>(h.size()));
  const auto m = static_cast<unsigned>(h.size());
  if (m <= 12) return expected_max_subsets(h);
  if (h_min < 0.1 && poisson_correction_bound(m, h_max) <= 1e-14) {
    // sum_k F(k) = 1/2 + int_0^inf F(x) dx + (Poisson correction, below 1e-14 here), with
    // F(x) = 1 - prod_j (1 - e^{-h_j x}). The integral is taken in t = h_min x (F is entire and
    // decays like sum e^{-h_j x}).
    std::vector<double> ratio(h.size());
    for (std::size_t j = 0; j < h.size(); ++j) ratio[j] = h[j] / h_min;
    auto F = [&](double t) {
      double r = 0.0;
      for (double s : ratio) r += std::exp(-s * t) * (1.0 - r);
      return r;
    };
    // Fixed composite 20-point Gauss-Legendre on geometric panels of [0, 48]: F <= L e^{-t}
    // (< 1e-18 beyond 48 for L <= 64), each panel is integrated to ~1e-16 (checked in the tests
    // against the exact i.i.d. value H_L and 50-digit inclusion-exclusion).
    static constexpr std::array<double, 8> kPanels{0.0, 0.75, 1.5, 3.0, 6.0, 12.0, 24.0, 48.0};
    double integral = 0.0;
    for (std::size_t p = 0; p + 1 < kPanels.size(); ++p)
      integral +=
          boost::math::quadrature::gauss<double, 20>::integrate(F, kPanels[p], kPanels[p + 1]);
    return 0.5 + integral / h_min;
  }
  std::vector<double> q(h.size());
  for (std::size_t j = 0; j < h.size(); ++j) q[j] = std::exp(-h[j]);
  return expected_max_direct(q);
}

}  // namespace alloclab::model
