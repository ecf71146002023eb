// The warp-round chains of CoRW and RW_malloc (see warp_chains.hpp for the model and its
// approximations).
#include "alloclab/model/warp_chains.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "alloclab/core/errors.hpp"

namespace alloclab::model {

WarpRounds solve_need_chain(unsigned m,
                            const std::function<std::vector<double>(unsigned need)>& capacity_pmf) {
  // Transient states need = 1..m (index need-1); from `need` the chain moves to need - c with
  // probability P(C = c) for c < need and to 0 (absorbed) otherwise. I - Q is lower triangular
  // in this indexing; its diagonal is P(C >= 1) (formed as 1 - P(C = 0): the pmf head only).
  if (m == 0) return {};
  Eigen::MatrixXd IQ = Eigen::MatrixXd::Zero(m, m);
  for (unsigned need = 1; need <= m; ++need) {
    const std::vector<double> p = capacity_pmf(need);
    const unsigned i = need - 1;
    IQ(i, i) = 1.0 - p.at(0);
    for (unsigned c = 1; c < need && c < p.size(); ++c) IQ(i, i - c) = -p[c];
  }
  const double inf = std::numeric_limits<double>::infinity();
  for (unsigned i = 0; i < m; ++i)
    if (!(IQ(i, i) > 0)) return {inf, inf};  // a state that can never be left
  Eigen::MatrixXd rhs(m, 2);
  for (unsigned i = 0; i < m; ++i) {
    rhs(i, 0) = 1.0;                         // one round per visit
    rhs(i, 1) = static_cast<double>(i + 1);  // `need` lane-rounds per visit
  }
  const Eigen::MatrixXd x = IQ.triangularView<Eigen::Lower>().solve(rhs);
  return {x(m - 1, 0), x(m - 1, 1) / static_cast<double>(m)};
}

std::vector<double> distinct_words_pmf(unsigned m, std::uint64_t W) {
  std::vector<double> p(m + 1, 0.0);
  p[0] = 1.0;
  const double Wd = static_cast<double>(W);
  for (unsigned k = 0; k < m; ++k)
    for (unsigned d = k + 1; d >= 1; --d) {
      // a new draw hits one of the d-1 words seen (stays) or a new one (d-1 -> d)
      const double stay = p[d] * static_cast<double>(d) / Wd;
      const double grow = p[d - 1] * std::max(0.0, Wd - static_cast<double>(d - 1)) / Wd;
      p[d] = stay + grow;
      if (d == 1) p[0] = 0.0;
    }
  return p;
}

namespace {
long double log_choose(std::uint64_t n, std::uint64_t k) {
  return std::lgamma(static_cast<long double>(n) + 1) -
         std::lgamma(static_cast<long double>(k) + 1) -
         std::lgamma(static_cast<long double>(n - k) + 1);
}
}  // namespace

std::vector<double> hypergeometric_pmf_head(std::uint64_t T, std::uint64_t a, std::uint64_t s,
                                            unsigned fmax) {
  std::vector<double> p(fmax + 1, 0.0);
  if (a > T || s > T) throw InputError("--A", "hypergeometric: a and s must not exceed T");
  const std::uint64_t lo = s > T - a ? s - (T - a) : 0;  // at least this many free are drawn
  const std::uint64_t hi = std::min(a, s);
  if (lo > fmax) return p;
  // log P(lo) with long-double lgamma (abs. error ~1e-11 at T = 2^25), then the exact ratio
  // P(f+1)/P(f) = (a-f)(s-f) / ((f+1)(T-a-s+f+1)).
  long double v = std::exp(log_choose(a, lo) + log_choose(T - a, s - lo) - log_choose(T, s));
  for (std::uint64_t f = lo; f <= std::min<std::uint64_t>(hi, fmax); ++f) {
    p[f] = static_cast<double>(v);
    v *= static_cast<long double>(a - f) * static_cast<long double>(s - f) /
         (static_cast<long double>(f + 1) * static_cast<long double>(T - a - s + f + 1));
  }
  return p;
}

WarpRounds corw_warp(unsigned m, std::uint64_t a0, std::uint64_t T, unsigned w) {
  if (a0 < m) throw InputError("--N", "CoRW model: a warp needs as many free pages as lanes");
  const std::uint64_t W = (T + w - 1) / w;
  const std::vector<double> dp = distinct_words_pmf(m, W);
  // Terms of the occupancy distribution below 1e-18 of the total cannot move a double.
  auto cap = [&](unsigned need) {
    const std::uint64_t a = a0 - (m - need);
    std::vector<double> p(need, 0.0);
    for (unsigned d = 1; d <= m; ++d) {
      if (dp[d] < 1e-18) continue;
      // Pages past T in the last word are permanently used; counted as pages here (exact for
      // T divisible by w, as on the standard grid).
      const std::uint64_t s = std::min<std::uint64_t>(std::uint64_t{d} * w, T);
      const auto h = hypergeometric_pmf_head(T, a, s, need - 1);
      for (unsigned f = 0; f < need; ++f) p[f] += dp[d] * h[f];
    }
    return p;
  };
  return solve_need_chain(m, cap);
}

SequentialWarps sequential_average(
    std::uint64_t N, std::uint64_t A, unsigned lanes, unsigned pages_per_lane,
    const std::function<WarpRounds(unsigned, std::uint64_t)>& warp_model,
    std::uint64_t exact_limit) {
  const std::uint64_t K = (N + lanes - 1) / lanes;
  const unsigned r = static_cast<unsigned>(N % lanes);
  const std::uint64_t full_pages = std::uint64_t{lanes} * pages_per_lane;
  // Service positions j to evaluate, with weights summing to K: every position, or the last
  // `tail` exactly and midpoints of equal bins before (the chain varies fast only near
  // exhaustion, i.e. at the last positions).
  std::vector<std::pair<std::uint64_t, double>> pos;
  if (K <= exact_limit) {
    for (std::uint64_t j = 0; j < K; ++j) pos.emplace_back(j, 1.0);
  } else {
    const std::uint64_t tail = std::max<std::uint64_t>(exact_limit / 4, 1);
    const std::uint64_t bins = exact_limit - tail, body = K - tail;
    for (std::uint64_t b = 0; b < bins; ++b) {
      // The sum over positions lo..last of a smooth g: Simpson's rule on [lo, last] (even
      // length) plus the Euler-Maclaurin end correction (g(lo) + g(last))/2.
      const std::uint64_t lo = body * b / bins, hi = body * (b + 1) / bins;
      if (hi <= lo) continue;
      if (hi - lo < 3) {
        for (std::uint64_t j = lo; j < hi; ++j) pos.emplace_back(j, 1.0);
        continue;
      }
      std::uint64_t last = hi - 1;
      if ((last - lo) % 2) pos.emplace_back(last--, 1.0);
      const double len = static_cast<double>(last - lo);
      pos.emplace_back(lo, len / 6 + 0.5);
      pos.emplace_back(lo + (last - lo) / 2, len * 4 / 6);
      pos.emplace_back(last, len / 6 + 0.5);
    }
    for (std::uint64_t j = body; j < K; ++j) pos.emplace_back(j, 1.0);
  }
  auto full_at = [&](std::uint64_t j) {  // a full warp at service position j
    if (r == 0 || K < 2) return warp_model(lanes, A - full_pages * j);
    // the partial warp is among the j earlier ones with probability j/(K-1); the last position
    // (q = 1) may leave too few pages for the other case, which then has weight 0
    const double q = static_cast<double>(j) / static_cast<double>(K - 1);
    if (q == 0) return warp_model(lanes, A - full_pages * j);
    if (q == 1)
      return warp_model(lanes, A - full_pages * j + std::uint64_t{lanes - r} * pages_per_lane);
    const WarpRounds g = warp_model(lanes, A - full_pages * j);
    const WarpRounds h =
        warp_model(lanes, A - full_pages * j + std::uint64_t{lanes - r} * pages_per_lane);
    return WarpRounds{q * h.rounds + (1 - q) * g.rounds,
                      q * h.lane_rounds + (1 - q) * g.lane_rounds};
  };
  double full_rounds = 0, full_lane = 0, part_rounds = 0, part_lane = 0;
  for (const auto& [j, wt] : pos) {
    if (r == 0 || K >= 2) {
      const WarpRounds g = full_at(j);
      full_rounds += wt * g.rounds;
      full_lane += wt * g.lane_rounds;
    }
    if (r != 0) {
      const WarpRounds g = warp_model(r, A - full_pages * j);
      part_rounds += wt * g.rounds;
      part_lane += wt * g.lane_rounds;
    }
  }
  const double Kd = static_cast<double>(K);
  full_rounds /= Kd;
  full_lane /= Kd;
  part_rounds /= Kd;
  part_lane /= Kd;
  const double n_full = r == 0 ? Kd : Kd - 1;
  SequentialWarps out;
  out.was = (n_full * full_rounds + (r ? part_rounds : 0.0)) / Kd;
  out.tas = (n_full * lanes * full_lane + (r ? r * part_lane : 0.0)) / static_cast<double>(N);
  return out;
}

// ---- RW_malloc -------------------------------------------------------------------------------

std::vector<std::uint64_t> words_with_run_counts(unsigned w, unsigned n) {
  if (w < 1 || w > 64) throw InputError("--w", "word width must be 1..64");
  if (n < 1) throw InputError("--pages", "pages per request must be >= 1");
  // no_run[k][r]: prefixes with k free bits, ending in a free run of r < n, no run >= n so far.
  std::vector<std::vector<std::uint64_t>> no_run(w + 1, std::vector<std::uint64_t>(n, 0));
  no_run[0][0] = 1;
  for (unsigned pos = 0; pos < w; ++pos) {
    std::vector<std::vector<std::uint64_t>> nx(w + 1, std::vector<std::uint64_t>(n, 0));
    for (unsigned k = 0; k <= pos; ++k)
      for (unsigned r = 0; r < n; ++r) {
        const std::uint64_t c = no_run[k][r];
        if (!c) continue;
        nx[k][0] += c;                         // used bit
        if (r + 1 < n) nx[k + 1][r + 1] += c;  // free bit, run still short
      }
    no_run.swap(nx);
  }
  std::vector<std::uint64_t> choose(w + 1, 0);
  choose[0] = 1;
  for (unsigned i = 1; i <= w; ++i)
    for (unsigned k = i; k >= 1; --k) choose[k] += choose[k - 1];
  std::vector<std::uint64_t> out(w + 1);
  for (unsigned k = 0; k <= w; ++k) {
    std::uint64_t none = 0;
    for (unsigned r = 0; r < n; ++r) none += no_run[k][r];
    out[k] = choose[k] - none;
  }
  return out;
}

double word_run_probability(unsigned w, unsigned n, double f) {
  const auto c = words_with_run_counts(w, n);
  double p = 0;
  for (unsigned k = 0; k <= w; ++k)
    if (c[k])
      p += static_cast<double>(c[k]) * std::pow(f, k) * std::pow(1 - f, static_cast<double>(w - k));
  return p;
}

double word_run_probability_pool(unsigned w, unsigned n, std::uint64_t a, std::uint64_t T) {
  const auto c = words_with_run_counts(w, n);
  const auto h = hypergeometric_pmf_head(T, a, w, w);
  double p = 0, choose = 1;  // C(w, k) as a double, built incrementally
  for (unsigned k = 0; k <= w; ++k) {
    if (k > 0) choose = choose * static_cast<double>(w - k + 1) / static_cast<double>(k);
    p += h[k] * static_cast<double>(c[k]) / choose;
  }
  return p;
}

std::vector<double> window_capacity_pmf(unsigned words, unsigned w, unsigned n, double f,
                                        bool joined, unsigned cmax) {
  // State (r, c): current free run modulo n (a run reaching n yields one piece and restarts),
  // pieces so far c (lumped at cmax). Reset of r at a word boundary when runs stay in a word.
  const unsigned S = cmax + 1;
  std::vector<double> cur(n * S, 0.0), nx(n * S);
  cur[0] = 1.0;
  for (unsigned word = 0; word < words; ++word) {
    for (unsigned b = 0; b < w; ++b) {
      std::fill(nx.begin(), nx.end(), 0.0);
      for (unsigned r = 0; r < n; ++r)
        for (unsigned c = 0; c < S; ++c) {
          const double v = cur[r * S + c];
          if (v == 0) continue;
          nx[c] += v * (1 - f);  // used bit: r = 0
          if (r + 1 == n)
            nx[std::min(c + 1, cmax)] += v * f;
          else
            nx[(r + 1) * S + c] += v * f;
        }
      cur.swap(nx);
    }
    if (!joined)
      for (unsigned r = 1; r < n; ++r)
        for (unsigned c = 0; c < S; ++c) {
          cur[c] += cur[r * S + c];
          cur[r * S + c] = 0;
        }
  }
  std::vector<double> out(S, 0.0);
  for (unsigned r = 0; r < n; ++r)
    for (unsigned c = 0; c < S; ++c) out[c] += cur[r * S + c];
  return out;
}

WarpRounds rwmalloc_warp(unsigned m, unsigned lanes, unsigned w, unsigned n, double f,
                         bool joined) {
  const std::vector<double> pmf = window_capacity_pmf(lanes, w, n, f, joined, m);
  return solve_need_chain(
      m, [&](unsigned need) { return std::vector<double>(pmf.begin(), pmf.begin() + need); });
}

double rwmalloc_utilisation_in_word(unsigned w, unsigned n) {
  return n > w ? 0.0 : static_cast<double>(n * (w / n)) / static_cast<double>(w);
}

}  // namespace alloclab::model
