// The analytic model of RW (Eq. 2-3) and RW-BM (Eq. 4-5): the exact expected WAS of the paper's
// sequential model, birthday collisions and Theorems 1-2. See model.hpp. The queue baseline is
// in queue.cpp; each allocator's record and model-table entry in model/src/<name>.cpp.
#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <numbers>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <boost/math/quadrature/gauss.hpp>
#include <boost/math/special_functions/bernoulli.hpp>

#include "alloclab/model/model.hpp"

namespace alloclab::model {
namespace {

double d(std::uint64_t v) {
  return static_cast<double>(v);
}

}  // namespace

// ---- RW ----------------------------------------------------------------------------------------

double rw_tas_exact(std::uint64_t N, std::uint64_t A, std::uint64_t T) {
  return d(T) / d(N) * harmonic_difference(A, A - N);
}

std::optional<double> rw_tas_log_approx(std::uint64_t N, std::uint64_t A, std::uint64_t T) {
  if (A == N) return std::nullopt;
  return d(T) / d(N) * std::log1p(d(N) / d(A - N));  // ln(A/(A-N)) without cancellation
}

// ---- RW-BM: Eq. (4) ----------------------------------------------------------------------------
namespace {

// s(x) = 1/(1-x^w) - 1/(w(1-x)) = Q(x)/(w P(x)) and its first K derivatives (Leibniz rule on
// s * wP = Q). P = sum_{i<w} x^i, Q = sum_{l<=w-2} (w-1-l) x^l are polynomials, so s is smooth on
// [0,1] (s(1) = (w-1)/(2w)); its singularities are the roots of P, the w-th roots of unity other
// than 1, at distance 2 sin(pi/w) from x = 1.
constexpr int kEulerMaclaurinOrder = 4;  // corrections up to f^(7)
using Derivs = std::array<double, 2 * kEulerMaclaurinOrder>;

Derivs s_derivatives(double x, unsigned w, int K) {
  Derivs P{}, Q{}, s{};
  for (int k = 0; k < K; ++k) {
    // k-th derivatives of P and Q by Horner on the differentiated coefficients.
    double p = 0.0, q = 0.0;
    for (int i = static_cast<int>(w) - 1; i >= k; --i) {
      double falling = 1.0;
      for (int t = 0; t < k; ++t) falling *= (i - t);
      p = p * x + falling;
      if (i <= static_cast<int>(w) - 2)
        q = q * x + falling * (w - 1.0 - i);
      else
        q = q * x;
    }
    P[static_cast<std::size_t>(k)] = p;
    Q[static_cast<std::size_t>(k)] = q;
  }
  // Binomial coefficients C(k, i), k < 8, by Pascal's rule (exact in double).
  static constexpr auto kBinomial = [] {
    std::array<std::array<double, 2 * kEulerMaclaurinOrder>, 2 * kEulerMaclaurinOrder> b{};
    for (std::size_t k = 0; k < b.size(); ++k) {
      b[k][0] = 1.0;
      for (std::size_t i = 1; i <= k; ++i) b[k][i] = b[k - 1][i - 1] + (i < k ? b[k - 1][i] : 0.0);
    }
    return b;
  }();
  for (int k = 0; k < K; ++k) {
    double acc = Q[static_cast<std::size_t>(k)];
    for (int i = 1; i <= k; ++i)
      acc -= kBinomial[static_cast<std::size_t>(k)][static_cast<std::size_t>(i)] * w *
             P[static_cast<std::size_t>(i)] * s[static_cast<std::size_t>(k - i)];
    s[static_cast<std::size_t>(k)] = acc / (w * P[0]);
  }
  return s;
}

double s_value(double x, unsigned w) {
  return s_derivatives(x, w, 1)[0];
}

// sum_{a=a0}^{a1} s(1 - a/T).
double s_sum(std::uint64_t a0, std::uint64_t a1, std::uint64_t T, unsigned w) {
  if (w == 1 || a1 < a0) return 0.0;
  const double t = d(T);
  if (a1 - a0 < 256) {
    double sum = 0.0;
    for (std::uint64_t a = a0; a <= a1; ++a) sum += s_value(1.0 - d(a) / t, w);
    return sum;
  }
  // Euler-Maclaurin with f(a) = s(1 - a/T), f^(m)(a) = (-1/T)^m s^(m)(x):
  //   sum = int f + (f(a0)+f(a1))/2 + sum_{k<=4} B_2k/(2k)! (f^(2k-1)(a1) - f^(2k-1)(a0)) + R,
  //   |R| <= 2 zeta(8)/(2 pi)^8 int |f^(8)|. f's singularities lie at distance
  // rho = 2 T sin(pi/w) (>= 0.098 T for w <= 64) from the real axis, so |f^(8)| ~ 8! M/rho^8 and
  // |R|/sum < 1e-12 for T >= 256 (the direct sum covers fewer terms). Checked against 50-digit
  // direct sums in the tests.
  const double x0 = 1.0 - d(a0) / t, x1 = 1.0 - d(a1) / t;  // x1 < x0
  // int s over [x1, x0]: composite 20-point Gauss-Legendre on panels of length <= 0.05. The
  // poles of s (roots of P) are >= sin(2 pi/w) >= 0.098 away from [0,1], so each panel's Bernstein
  // ellipse parameter is >= 7 and the rule's error < 7^-40: negligible.
  const auto panels = static_cast<int>(std::ceil((x0 - x1) / 0.05));
  double integral = 0.0;
  for (int p = 0; p < panels; ++p) {
    const double lo = x1 + (x0 - x1) * p / panels, hi = x1 + (x0 - x1) * (p + 1) / panels;
    integral += boost::math::quadrature::gauss<double, 20>::integrate(
        [w](double x) { return s_value(x, w); }, lo, hi);
  }
  integral *= t;
  const Derivs s0 = s_derivatives(x0, w, 2 * kEulerMaclaurinOrder);
  const Derivs s1 = s_derivatives(x1, w, 2 * kEulerMaclaurinOrder);
  double sum = integral + 0.5 * (s0[0] + s1[0]);
  double factorial = 1.0;  // (2k)!
  for (int k = 1; k <= kEulerMaclaurinOrder; ++k) {
    factorial *= (2.0 * k - 1.0) * (2.0 * k);
    const auto m = static_cast<std::size_t>(2 * k - 1);
    const double scale = -std::pow(1.0 / t, static_cast<double>(m));  // (-1/T)^m, m odd
    sum += boost::math::bernoulli_b2n<double>(k) / factorial * scale * (s1[m] - s0[m]);
  }
  return sum;
}

}  // namespace

double rwbm_tas_excess_over_rw(std::uint64_t N, std::uint64_t A, std::uint64_t T, unsigned w) {
  // Thread j sees a = A - j free pages: a runs over A-N+1 .. A.
  return s_sum(A - N + 1, A, T, w) / d(N);
}

double rwbm_tas(std::uint64_t N, std::uint64_t A, std::uint64_t T, unsigned w) {
  // 1/(1 - x^w) = T/(w a) + s(x) with x = 1 - a/T: the singular part sums to the harmonic
  // difference exactly, the smooth part by Euler-Maclaurin. Both parts are positive: no
  // cancellation.
  return rw_tas_exact(N, A, T) / w + rwbm_tas_excess_over_rw(N, A, T, w);
}

// ---- WAS ---------------------------------------------------------------------------------------
namespace {

// -ln q for q = ((T - a)/T)^w, i.e. the rate of a geometric variable with p = 1 - q.
double rate(double a, double T, unsigned w) {
  return -static_cast<double>(w) * std::log1p(-a / T);
}

}  // namespace

std::optional<double> was_bound(std::uint64_t N, std::uint64_t A, std::uint64_t T, unsigned w,
                                unsigned lanes) {
  // Eq. (3)/(5): every lane is bounded by a geometric variable with q = (T-A+N)/T (per word:
  // q^w). Infinite at A = N (q = 1).
  if (A == N) return std::nullopt;
  return expected_max_iid_geometric(rate(d(A - N), d(T), w), lanes);
}

namespace {

// E[max] for the warp whose first lane is served (0-based) at position i*L, with m lanes.
// i may be fractional: the interpolation below treats E as a smooth function of i.
struct WarpModel {
  double A, T;
  unsigned w, L;
  bool reference = false;  // every_warp: the general exact routine, not the fast routes
  double expected_max(double i, unsigned m) const {
    if (reference || m > 256) {
      std::vector<double> h(m);
      for (unsigned j = 0; j < m; ++j) h[j] = rate(A - (i * L + j), T, w);
      return reference ? expected_max_geometric(h) : expected_max_geometric_fast(h);
    }
    std::array<double, 256> h;  // NOLINT: written before read
    for (unsigned j = 0; j < m; ++j) h[j] = rate(A - (i * L + j), T, w);
    return expected_max_geometric_fast(std::span<const double>(h.data(), m));
  }
  double a_mid(double i) const { return A - i * L - (L - 1) / 2.0; }
};

// Chebyshev-Lobatto interpolation of g(i) = a_mid(i) E(i) over a panel of warps, at nested
// degrees 8 and 16 (the degree-8 nodes are the even degree-16 nodes, so raising the degree reuses
// them).
constexpr unsigned kChebDegree = 16;
constexpr double kPanelRatio = 2.0;  // largest a_mid ratio across one panel

struct ChebTables {
  std::array<double, kChebDegree + 1> x{};          // cos(pi k/16)
  std::array<double, 2 * kChebDegree> cos_table{};  // cos(pi r/16), r = 0..31
};

const ChebTables& cheb_tables() {
  static const ChebTables t = [] {
    ChebTables c;
    for (unsigned k = 0; k <= kChebDegree; ++k)
      c.x[k] = std::cos(std::numbers::pi * k / kChebDegree);
    for (unsigned r = 0; r < 2 * kChebDegree; ++r)
      c.cos_table[r] = std::cos(std::numbers::pi * r / kChebDegree);
    return c;
  }();
  return t;
}

// Coefficients c_j (j = 0..n) of the degree-n interpolant through g at cos(pi k/n), n | 16, from
// the values at degree-16 node indices k * (16/n): the interpolant is sum'' c_j T_j (first and
// last halved).
template <unsigned n>
std::array<double, n + 1> cheb_coefficients(const std::array<double, kChebDegree + 1>& g16) {
  const ChebTables& t = cheb_tables();
  constexpr unsigned stride = kChebDegree / n;
  std::array<double, n + 1> c{};
  for (unsigned j = 0; j <= n; ++j) {
    double acc = 0.0;
    for (unsigned k = 0; k <= n; ++k) {
      const double weight = (k == 0 || k == n) ? 0.5 : 1.0;
      acc += weight * g16[k * stride] * t.cos_table[(j * k * stride) % (2 * kChebDegree)];
    }
    c[j] = 2.0 / n * acc;
  }
  return c;
}

// Sum over the integer warps lo..hi of (interpolant)/a_mid, the interpolant evaluated by Clenshaw.
template <std::size_t m>
double sum_interpolant(const WarpModel& wm, std::array<double, m> c, std::uint64_t lo,
                       std::uint64_t hi) {
  const unsigned n = m - 1;
  c[0] *= 0.5;
  c[n] *= 0.5;
  const double mid = 0.5 * (d(lo) + d(hi)), half = 0.5 * (d(hi) - d(lo));
  // Two warps at a time (independent Clenshaw recurrences in one SSE2 vector; GCC/Clang vector
  // extension), then the rest.
  using v2 = double __attribute__((vector_size(16)));
  v2 acc2 = {0.0, 0.0};
  std::uint64_t ii = lo;
  for (; ii + 1 <= hi; ii += 2) {
    const double i0 = d(ii);
    const v2 idx = {i0, i0 + 1.0};
    const v2 x = (idx - mid) / half;
    v2 b1 = {0.0, 0.0}, b2 = b1;
    for (unsigned j = n; j >= 1; --j) {
      const v2 b0 = 2.0 * x * b1 - b2 + c[j];
      b2 = b1;
      b1 = b0;
    }
    const v2 a = wm.A - idx * static_cast<double>(wm.L) - (wm.L - 1) / 2.0;  // a_mid
    acc2 += (x * b1 - b2 + c[0]) / a;
  }
  double s = acc2[0] + acc2[1];
  for (; ii <= hi; ++ii) {
    const double x = (d(ii) - mid) / half;
    double b1 = 0.0, b2 = 0.0;
    for (unsigned j = n; j >= 1; --j) {
      const double b0 = 2.0 * x * b1 - b2 + c[j];
      b2 = b1;
      b1 = b0;
    }
    s += (x * b1 - b2 + c[0]) / wm.a_mid(d(ii));
  }
  return s;
}

// Sum of E(i) over integer i in [lo, hi] (full warps).
double sum_warps(const WarpModel& wm, std::uint64_t lo, std::uint64_t hi, int depth) {
  const std::uint64_t count = hi - lo + 1;
  auto exact = [&] {
    double s = 0.0;
    for (std::uint64_t i = lo; i <= hi; ++i) s += wm.expected_max(d(i), wm.L);
    return s;
  };
  if (count <= 20 || depth > 12) return exact();
  const double a_hi = wm.a_mid(d(lo)), a_lo = wm.a_mid(d(hi));
  auto split = [&] {
    const std::uint64_t mid = lo + count / 2;
    return sum_warps(wm, lo, mid - 1, depth + 1) + sum_warps(wm, mid, hi, depth + 1);
  };
  if (a_hi > kPanelRatio * a_lo) return split();
  // Interpolate g(i) = a_mid(i) E(i) (a * E is nearly constant: E ~ T H_L/(w a) for small a/T)
  // at Chebyshev-Lobatto points; accept when the last Chebyshev coefficients are below 1e-14 of
  // the first (they bound the interpolation error of an analytic function up to a small factor):
  // first at degree 8 (the last three coefficients), then at degree 16 (the last two), otherwise
  // split the panel.
  const ChebTables& t = cheb_tables();
  const double mid = 0.5 * (d(lo) + d(hi)), half = 0.5 * (d(hi) - d(lo));
  std::array<double, kChebDegree + 1> g{};
  auto node = [&](unsigned k) {
    const double i = mid + half * t.x[k];
    g[k] = wm.a_mid(i) * wm.expected_max(i, wm.L);
  };
  for (unsigned k = 0; k <= kChebDegree; k += 2) node(k);
  const auto c8 = cheb_coefficients<8>(g);
  if (std::abs(c8[6]) + std::abs(c8[7]) + std::abs(c8[8]) <= 1e-14 * std::abs(c8[0]))
    return sum_interpolant(wm, c8, lo, hi);
  for (unsigned k = 1; k < kChebDegree; k += 2) node(k);
  const auto c16 = cheb_coefficients<16>(g);
  if (std::abs(c16[15]) + std::abs(c16[16]) > 1e-14 * std::abs(c16[0])) return split();
  return sum_interpolant(wm, c16, lo, hi);
}

}  // namespace

double was_sequential_model(std::uint64_t N, std::uint64_t A, std::uint64_t T, unsigned w,
                            unsigned lanes, WarpSumMethod method) {
  // Warps are consecutive groups of L threads in service order (model.hpp); the last one may be
  // partial. WAS = mean over warps of E[max over the warp's lanes].
  const WarpModel wm{d(A), d(T), w, lanes, method == WarpSumMethod::every_warp};
  const std::uint64_t full = N / lanes, part = N % lanes;
  double sum = part ? wm.expected_max(d(full), static_cast<unsigned>(part)) : 0.0;
  if (full > 0) {
    if (method == WarpSumMethod::every_warp || full <= 24) {
      for (std::uint64_t i = 0; i < full; ++i) sum += wm.expected_max(d(i), lanes);
    } else {
      // Warps whose lanes see fewer than 32 L free pages vary fastest (E ~ 1/a, relative spread
      // of the lanes' rates ~ L/a): they are always computed exactly. The others are summed by
      // sum_warps (checked piecewise interpolation).
      const double a_cut = 32.0 * lanes;
      std::uint64_t bulk = 0;  // warps 0..bulk-1 have smallest a >= a_cut
      if (d(A) - (lanes - 1) >= a_cut)
        bulk = std::min<std::uint64_t>(
            full, static_cast<std::uint64_t>((d(A) - (lanes - 1) - a_cut) / lanes) + 1);
      if (bulk > 0) sum += sum_warps(wm, 0, bulk - 1, 0);
      for (std::uint64_t i = bulk; i < full; ++i) sum += wm.expected_max(d(i), lanes);
    }
  }
  return sum / d(full + (part ? 1 : 0));
}

// ---- collisions --------------------------------------------------------------------------------

double collisions_expected(std::uint64_t N, std::uint64_t T) {
  return d(N) * (d(N) - 1.0) / (2.0 * d(T));
}
double collisions_bound(std::uint64_t N, std::uint64_t A, std::uint64_t T) {
  return collisions_expected(N, T) * d(A) / d(T);
}

// ---- theorems ----------------------------------------------------------------------------------
namespace {

std::string g(double v) {
  return fmt::format("{:.6g}", v);
}

}  // namespace

TheoremCheck check_theorem1(std::uint64_t N, std::uint64_t A, std::uint64_t T, unsigned w) {
  TheoremCheck c;
  const double U = rw_tas_exact(N, A, T);
  c.lhs = rwbm_tas(N, A, T, w);
  c.rhs_printed = U / w;
  c.residual = rwbm_tas_excess_over_rw(N, A, T, w);
  c.corrected_limit_residual = (w - 1.0) / (2.0 * w);
  if (std::abs(*c.residual) <= 1e-12 * std::abs(*c.rhs_printed)) {
    c.lead = "holds";
    c.verdict = "holds (residual 0)";
  } else {
    c.lead = A == N ? "false as printed" : "A>N, not the limit";
    c.verdict = fmt::format(
        "{}: U'-U/w = {} != 0; it tends to (w-1)/(2w) = {} (Thm 1 lacks the term Thm 2 has)",
        A == N ? "FALSE as printed at A=N" : "A>N, not the limit", g(*c.residual),
        g(c.corrected_limit_residual));
  }
  return c;
}

TheoremCheck check_theorem2(std::uint64_t N, std::uint64_t A, std::uint64_t T, unsigned w,
                            unsigned lanes) {
  TheoremCheck c;
  c.corrected_limit_residual = 0.0;
  if (A == N) {
    c.lead = "holds";
    c.verdict =
        "V and V' are infinite at A=N; read as lim (V' - V/w) = (w-1)/(2w): holds (residual -> 0)";
    return c;
  }
  const double h = -std::log1p(-d(A - N) / d(T));
  const double V = expected_max_iid_geometric(h, lanes);
  c.lhs = expected_max_iid_geometric(w * h, lanes);
  c.rhs_printed = V / w + (w - 1.0) / (2.0 * w);
  // V' - V/w - (w-1)/(2w) = C(wh) - C(h)/w, with the Poisson corrections C formed directly.
  // (direct difference when w h is large: then V' is O(1) and nothing cancels).
  c.residual = w * h > 1.5
                   ? *c.lhs - *c.rhs_printed
                   : iid_poisson_correction(w * h, lanes) - iid_poisson_correction(h, lanes) / w;
  const bool holds = std::abs(*c.residual) <= 1e-9 * std::abs(*c.lhs);
  c.lead = holds ? "holds" : "A-N large";
  c.verdict =
      holds ? "holds (as lim_{A->N} (V' - V/w))"
            : fmt::format("A-N large: residual {} (the theorem is only a limit)", g(*c.residual));
  return c;
}

// ---- theorem records ----------------------------------------------------------------------

std::vector<Record> theorem_records(const Scenario& s) {
  std::vector<Record> out;
  auto base = [&](const char* theorem, const char* claim) {
    Record r;
    r.set("theorem", std::string(theorem));
    r.set("claim", std::string(claim));
    r.set_int("N", s.N).set_int("A", s.A).set_int("T", s.T).set_int("w", s.w);
    r.set_int("lanes", s.lanes);
    return r;
  };
  const TheoremCheck t1 = check_theorem1(s.N, s.A, s.T, s.w);
  Record r1 = base("1", "lim_{A->N} U' = U/w");
  r1.set_quantity("lhs", t1.lhs).set_quantity("rhs", t1.rhs_printed);
  r1.set_quantity("residual", t1.residual);
  r1.set("limit_residual", t1.corrected_limit_residual);
  r1.set("verdict", t1.verdict);
  out.push_back(std::move(r1));
  const TheoremCheck t2 = check_theorem2(s.N, s.A, s.T, s.w, s.lanes);
  Record r2 = base("2", "lim_{A->N} V' = V/w + (w-1)/(2w)");
  const char* inf = "infinite at A = N";
  r2.set_quantity("lhs", t2.lhs, inf).set_quantity("rhs", t2.rhs_printed, inf);
  r2.set_quantity("residual", t2.residual, "limit A->N is 0 (see verdict)");
  r2.set("limit_residual", t2.corrected_limit_residual);
  r2.set("verdict", t2.verdict);
  out.push_back(std::move(r2));
  return out;
}

}  // namespace alloclab::model
