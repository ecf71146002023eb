// Special functions of the model: harmonic differences and expected maxima of geometric variables.
// Every routine here is accurate to ~1e-13 relative or better over the whole parameter range,
// including q = 1 - 1e-12 (where direct summation of an infinite series would need ~1e13 terms).
#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numbers>
#include <optional>
#include <span>
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

// ---- fast routes for the automatic WAS path
// ------------------------------------------------------
namespace {

constexpr int kMaxMomentOrder = 48;
// Largest accepted max|h_j/hbar - 1| for the moment expansion (its series in e_j converges for
// |e_j| < 1; at 0.4 the order stays <= 48 and the part of D beyond t = 96 is < 1e-23).
constexpr double kMaxSpread = 0.4;
constexpr double kTMax = 96.0;
constexpr std::size_t kMaxNodes = 160;   // 8 panels x 20 Gauss-Legendre points
constexpr std::size_t kNodesTo48 = 140;  // the first 7 panels cover [0, 48]

// Fixed nodes for int_0^96 dt: 20-point Gauss-Legendre on the geometric panels used by
// expected_max_geometric, plus [48, 96]. At each node: the weight, ln(1 - e^{-t}) and g_n(t),
// n = 1..48.
struct MomentTable {
  std::vector<double> w, ell;
  std::array<std::vector<double>, kMaxMomentOrder> g;  // g[n-1][i] = g_n(t_i)
};

MomentTable make_moment_table() {
  MomentTable tab;
  static constexpr std::array<double, 9> kPanels{0.0, 0.75, 1.5, 3.0, 6.0, 12.0, 24.0, 48.0, kTMax};
  using rule = boost::math::quadrature::gauss<double, 20>;
  const auto& x = rule::abscissa();
  const auto& wt = rule::weights();
  // phi^(n)(t) = p_n(v), v = 1/(e^t - 1): p_1 = v, p_{n+1}(v) = -v (1 + v) p_n'(v). All
  // coefficients of p_n have the sign (-1)^(n-1), so evaluating it at v > 0 does not cancel.
  std::vector<std::vector<double>> p(kMaxMomentOrder + 1);
  p[1] = {0.0, 1.0};
  for (int n = 1; n < kMaxMomentOrder; ++n) {
    std::vector<double> next(static_cast<std::size_t>(n) + 2, 0.0);
    for (std::size_t k = 1; k < p[n].size(); ++k) {
      const double dk = static_cast<double>(k) * p[n][k];  // d/dv: coefficient of v^(k-1)
      next[k] -= dk;                                       // -v * v^(k-1)
      next[k + 1] -= dk;                                   // -v^2 * v^(k-1)
    }
    p[static_cast<std::size_t>(n) + 1] = std::move(next);
  }
  auto add_node = [&](double t, double weight) {
    tab.w.push_back(weight);
    tab.ell.push_back(std::log1p(-std::exp(-t)));
    const double v = 1.0 / std::expm1(t);
    double tn_over_nfact = 1.0;
    for (int n = 1; n <= kMaxMomentOrder; ++n) {
      tn_over_nfact *= t / n;
      double poly = 0.0;
      const auto& c = p[static_cast<std::size_t>(n)];
      for (std::size_t k = c.size(); k-- > 0;) poly = poly * v + c[k];
      tab.g[static_cast<std::size_t>(n) - 1].push_back(tn_over_nfact * poly);
    }
  };
  for (std::size_t q = 0; q + 1 < kPanels.size(); ++q) {
    const double mid = 0.5 * (kPanels[q] + kPanels[q + 1]);
    const double half = 0.5 * (kPanels[q + 1] - kPanels[q]);
    for (std::size_t k = 0; k < x.size(); ++k) {
      add_node(mid - half * x[k], half * wt[k]);
      if (x[k] != 0.0) add_node(mid + half * x[k], half * wt[k]);
    }
  }
  return tab;
}

const MomentTable& moment_table() {
  static const MomentTable tab = make_moment_table();
  return tab;
}

// Per lane count: quadrature weights times (1 - e^{-t})^m, H_m, and the largest rate for which
// poisson_correction_bound(m, h) <= 1e-14.
struct LaneConstants {
  unsigned m = 0;
  double harmonic = 0.0, h_poisson = 0.0;
  std::vector<double> wp;
  std::size_t first_node = 0;
};

const LaneConstants& lane_constants(unsigned m) {
  // One entry per lane count (full and partial warps alternate), built on first use.
  thread_local std::vector<LaneConstants> cache;
  if (cache.size() <= m) cache.resize(m + 1);
  LaneConstants& c = cache[m];
  if (c.m != m) {
    const MomentTable& tab = moment_table();
    c.m = m;
    c.harmonic = harmonic_number(m);
    c.wp.resize(tab.w.size());
    for (std::size_t i = 0; i < tab.w.size(); ++i) c.wp[i] = tab.w[i] * std::exp(m * tab.ell[i]);
    // Nodes whose weight is below 1e-17 (5/3)^-m contribute < 1e-17 each (|expm1(C)| <=
    // e^{sum_j |ln(1 + e_j)|} <= (5/3)^m for |e_j| <= 0.4) and are skipped; they are the first
    // nodes, where (1 - e^{-t})^m is smallest.
    const double skip = 1e-17 * std::pow(0.6, static_cast<double>(m));
    c.first_node = 0;
    while (c.first_node < c.wp.size() && c.wp[c.first_node] < skip) ++c.first_node;
    const double log_b1 = std::log(2.0) + std::lgamma(m + 1.0) +
                          std::log(boost::math::zeta(m + 1.0)) -
                          (m + 1.0) * std::log(2.0 * std::numbers::pi);  // bound at h = 1
    c.h_poisson = std::exp((std::log(1e-14) - log_b1) / m);
  }
  return c;
}

// Bound on the relative error of the moment expansion truncated after order K (see
// expected_max_geometric_near_iid): the neglected part of the exponent, integrated over [0, 48],
// plus the part of D beyond t_max.
double moment_truncation_bound(unsigned m, double spread, int K, double harmonic, double t_max) {
  const double k1 = K + 1.0;
  const double g_bound_integral =
      (t_max + t_max * t_max / (2.0 * std::sqrt(2.0 * std::numbers::pi * K))) / k1;
  const double trunc = m * std::pow(spread, k1) / (1.0 - spread) * g_bound_integral;
  const double tail = m * std::exp(-t_max * (1.0 - spread)) / (1.0 - spread);
  return 1.01 * (trunc + tail) * (1.0 + spread) / harmonic;
}

}  // namespace

std::optional<double> expected_max_geometric_near_iid(std::span<const double> h) {
  const std::size_t m = h.size();
  if (m == 0) return std::nullopt;
  double h_min = kInf, h_max = 0.0, sum = 0.0;
  for (double x : h) {
    h_min = std::min(h_min, x);
    h_max = std::max(h_max, x);
    sum += x;
  }
  if (!(h_min > 0) || std::isinf(h_max)) return std::nullopt;
  const auto lanes = static_cast<unsigned>(m);
  const LaneConstants& c = lane_constants(lanes);
  if (h_max > c.h_poisson) return std::nullopt;
  const double hbar = sum / static_cast<double>(m);
  // e_j = h_j/hbar - 1 (formed as a difference of rates: absolute error ~ eps).
  std::array<double, 256> e_small;  // NOLINT: written before read
  std::vector<double> e_big;
  double* e = e_small.data();
  if (m > e_small.size()) {
    e_big.resize(m);
    e = e_big.data();
  }
  double spread = 0.0;
  for (std::size_t j = 0; j < m; ++j) {
    e[j] = (h[j] - hbar) / hbar;
    spread = std::max(spread, std::abs(e[j]));
  }
  if (spread > kMaxSpread) return std::nullopt;
  // Integrate over [0, 48] (the first 140 nodes) where the slowest lane has decayed enough there
  // (spread <= 1/4: the part of D beyond 48 is < m e^{-36}/0.75), else over [0, 96].
  const double t_max = spread <= 0.25 ? 48.0 : kTMax;
  // Truncation: |g_n(t)| <= (1/n)(1 + t/sqrt(2 pi (n-1))) for n >= 2 (phi^(n)(t) =
  // -(-1)^n sum_r r^(n-1) e^{-rt}, so |g_n| is 1/n times a step-t Riemann sum of the Gamma(n)
  // density, <= its integral 1 plus t times its maximum). Hence the neglected exponent
  // sum_{n>K} m_n g_n is at most L s^(K+1)/(1-s) (1 + t/sqrt(2 pi K))/(K+1), s = max|e_j|, and the
  // integrand (a product of factors <= 1) changes by at most that much (times e^that).
  int K = 1;
  if (spread > 0.0)
    while (K < kMaxMomentOrder &&
           moment_truncation_bound(lanes, spread, K, c.harmonic, t_max) > 1e-13)
      ++K;
  if (moment_truncation_bound(lanes, spread, K, c.harmonic, t_max) > 1e-13) return std::nullopt;
  std::array<double, kMaxMomentOrder> mom{};
  for (std::size_t j = 0; j < m; ++j) {
    double pw = 1.0;
    for (int n = 0; n < K; ++n) {
      pw *= e[j];
      mom[static_cast<std::size_t>(n)] += pw;
    }
  }
  // C(t_i) = sum_n m_n g_n(t_i), then D = sum_i w_i (1 - e^{-t_i})^L expm1(C(t_i)). The loops
  // over the nodes are independent (vectorisable).
  const MomentTable& tab = moment_table();
  const std::size_t i0 = c.first_node, nodes = t_max < kTMax ? kNodesTo48 : tab.w.size();
  std::array<double, kMaxNodes> C;  // NOLINT: written before read
  for (std::size_t i = i0; i < nodes; ++i) C[i] = 0.0;
  for (int n = 0; n < K; ++n) {
    const double mn = mom[static_cast<std::size_t>(n)];
    const double* g = tab.g[static_cast<std::size_t>(n)].data();
    for (std::size_t i = i0; i < nodes; ++i) C[i] += mn * g[i];
  }
  double c_max = 0.0;
  for (std::size_t i = i0; i < nodes; ++i) c_max = std::max(c_max, std::abs(C[i]));
  std::array<double, 4> acc{};
  if (c_max < 0x1p-10) {
    // expm1 by its Taylor series: the first neglected term C^8/8! is < 1e-24 |C| here.
    for (std::size_t i = i0; i < nodes; ++i) {
      const double x = C[i];
      const double em1 =
          x * (1.0 +
               x * (1.0 / 2 +
                    x * (1.0 / 6 + x * (1.0 / 24 + x * (1.0 / 120 + x * (1.0 / 720 + x / 5040))))));
      acc[i % 4] += c.wp[i] * em1;
    }
  } else {
    for (std::size_t i = i0; i < nodes; ++i) acc[i % 4] += c.wp[i] * std::expm1(C[i]);
  }
  const double D = (acc[0] + acc[1]) + (acc[2] + acc[3]);
  // sum_k F(k) = 1/2 + int_0^inf F + (Poisson correction <= 1e-14 here); int F = (H_L - D)/hbar.
  return 0.5 + (c.harmonic - D) / hbar;
}

double expected_max_geometric_direct(std::span<const double> h) {
  const std::size_t m = h.size();
  if (m == 0) return 0.0;
  double h_min = kInf;
  for (double x : h) h_min = std::min(h_min, x);
  if (!(h_min > 0)) return kInf;
  // Lanes padded to a multiple of 4 with q = 0 (factor 1): four independent product chains, in
  // two 2-wide vectors (GCC/Clang vector extension; SSE2 on any x86-64).
  const std::size_t m4 = (m + 3) / 4 * 4;
  std::array<double, 256> q_small, qk_small;  // NOLINT: written before read
  std::vector<double> q_big, qk_big;
  double *q = q_small.data(), *qk = qk_small.data();
  if (m4 > q_small.size()) {
    q_big.assign(m4, 0.0);
    qk_big.assign(m4, 0.0);
    q = q_big.data();
    qk = qk_big.data();
  }
  for (std::size_t j = 0; j < m4; ++j) {
    q[j] = j < m ? std::exp(-h[j]) : 0.0;
    qk[j] = 1.0;
  }
  const double q_max = std::exp(-h_min);
  const double tail_factor = static_cast<double>(m) * q_max / -std::expm1(-h_min);
  double sum = 1.0, qk_max = 1.0;  // k = 0 contributes 1
  using v2 = double __attribute__((vector_size(16)));
  for (std::uint64_t k = 1; k < 100'000'000; ++k) {
    v2 pa = {1.0, 1.0}, pb = {1.0, 1.0};
    for (std::size_t j = 0; j < m4; j += 4) {
      v2 qa, qb, qka, qkb;
      std::memcpy(&qa, q + j, sizeof qa);
      std::memcpy(&qb, q + j + 2, sizeof qb);
      std::memcpy(&qka, qk + j, sizeof qka);
      std::memcpy(&qkb, qk + j + 2, sizeof qkb);
      qka *= qa;
      qkb *= qb;
      std::memcpy(qk + j, &qka, sizeof qka);
      std::memcpy(qk + j + 2, &qkb, sizeof qkb);
      pa *= 1.0 - qka;
      pb *= 1.0 - qkb;
    }
    const v2 prod = pa * pb;
    sum += 1.0 - prod[0] * prod[1];
    // Tail: sum_{k'>k} [1 - prod] <= sum_j q_j^(k+1)/(1 - q_j) <= m q_max^(k+1)/(1 - q_max).
    qk_max *= q_max;
    if (qk_max * tail_factor <= 1e-17 * sum) break;
  }
  return sum;
}

double expected_max_geometric_fast(std::span<const double> h) {
  if (h.empty()) return 0.0;
  double h_min = kInf, h_max = 0.0;
  for (double x : h) {
    h_min = std::min(h_min, x);
    h_max = std::max(h_max, x);
  }
  if (!(h_min > 0)) return kInf;
  if (h_min == h_max) return expected_max_iid_geometric(h_min, static_cast<unsigned>(h.size()));
  if (const auto v = expected_max_geometric_near_iid(h)) return *v;
  if (h_min >= 0.05) return expected_max_geometric_direct(h);
  return expected_max_geometric(std::vector<double>(h.begin(), h.end()));
}

}  // namespace alloclab::model
