// The parallel-rounds model of RW and RW-BM; see rounds.hpp for the process and the methods.
#include "alloclab/model/rounds.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "alloclab/core/errors.hpp"

namespace alloclab::model {
namespace {

double d(std::uint64_t v) {
  return static_cast<double>(v);
}

// ---- rewards -----------------------------------------------------------------------------------
// Per round spent with m unfinished threads: tas gets m (divided by N at the end), was gets the
// mean over warps of P(the warp still has an unfinished lane), rounds gets 1 (m > 0).
struct Warps {
  std::uint64_t N;
  unsigned L;
  std::uint64_t full;      // warps of L lanes
  unsigned partial_lanes;  // lanes of the last warp when L does not divide N (0: none)
  double count;

  Warps(std::uint64_t n, unsigned lanes)
      : N(n),
        L(lanes),
        full(n / lanes),
        partial_lanes(static_cast<unsigned>(n % lanes)),
        count(d((n + lanes - 1) / lanes)) {}

  // P(all `lanes` lanes of a warp finished | m unfinished, a uniform m-subset of N) =
  // C(N-lanes, m)/C(N, m) = prod_{i<lanes} (N-m-i)/(N-i), for real m; and its second derivative.
  void done_prob(double m, unsigned lanes, double& g, double& g2) const {
    g = 1.0;
    double s1 = 0, s2 = 0;
    for (unsigned i = 0; i < lanes; ++i) {
      const double c = d(N) - m - i;
      if (c <= 0) {
        g = g2 = 0;
        return;
      }
      g *= c / (d(N) - i);
      s1 += 1.0 / c;
      s2 += 1.0 / (c * c);
    }
    g2 = g * (s1 * s1 - s2);
  }
  // Mean over warps of P(warp busy) at m, and its second derivative in m.
  void busy(double m, double& f, double& f2) const {
    double g, g2;
    done_prob(m, L, g, g2);
    f = d(full) * (1.0 - g);
    f2 = -d(full) * g2;
    if (partial_lanes) {
      done_prob(m, partial_lanes, g, g2);
      f += 1.0 - g;
      f2 -= g2;
    }
    f /= count;
    f2 /= count;
  }
  double busy(double m) const {
    double f, f2;
    busy(m, f, f2);
    return f;
  }
};

struct Values {
  double tas = 0, was = 0, rounds = 0;  // expected accumulated rewards
};

// Expected accumulated rewards of a chain over m = 0..M that only falls: row(m) fills
// P(S = s), s = 0..m, and returns P(S >= 1) computed without cancellation.
std::vector<Values> solve_falling_chain(
    std::uint64_t M, const Warps& warps,
    const std::function<double(std::uint64_t, std::vector<double>&)>& row) {
  std::vector<Values> h(M + 1);
  std::vector<double> P;
  for (std::uint64_t m = 1; m <= M; ++m) {
    const double leave = row(m, P);
    Values v{d(m), warps.busy(d(m)), 1.0};
    for (std::uint64_t s = 1; s < P.size() && s <= m; ++s) {
      if (P[s] == 0) continue;
      v.tas += P[s] * h[m - s].tas;
      v.was += P[s] * h[m - s].was;
      v.rounds += P[s] * h[m - s].rounds;
    }
    h[m] = {v.tas / leave, v.was / leave, v.rounds / leave};
  }
  return h;
}

// RW: the exact distribution of S = distinct free pages hit by m uniform probes of T pages, a of
// them free. Probe by probe: a probe hits a new free page with probability (a - s)/T.
double rw_row(std::uint64_t m, std::uint64_t a, std::uint64_t T, std::vector<double>& P) {
  const std::uint64_t smax = std::min(m, a);
  P.assign(smax + 1, 0.0);
  P[0] = 1.0;
  const double t = d(T);
  for (std::uint64_t b = 0; b < m; ++b) {
    for (std::uint64_t s = std::min(b + 1, smax); s >= 1; --s) {
      const double stay = d(T - a + s) / t, enter = d(a - s + 1) / t;
      P[s] = P[s] * stay + P[s - 1] * enter;
      if (P[s] < 1e-300) P[s] = 0;  // keep denormals out of the inner loop
    }
    P[0] *= d(T - a) / t;
  }
  return -std::expm1(d(m) * std::log1p(-d(a) / t));
}

// Binomial(m, p) probabilities in log space (p may be near 0 or 1); returns P(S >= 1).
double binomial_row(std::uint64_t m, double p, std::vector<double>& P) {
  P.assign(m + 1, 0.0);
  if (p >= 1.0) {
    P[m] = 1.0;
    return 1.0;
  }
  const double lp = std::log(p), lq = std::log1p(-p), lm = std::lgamma(d(m) + 1);
  for (std::uint64_t s = 0; s <= m; ++s)
    P[s] = std::exp(lm - std::lgamma(d(s) + 1) - std::lgamma(d(m - s) + 1) + d(s) * lp +
                    d(m - s) * lq);
  return -std::expm1(d(m) * lq);
}

// E[h(m)] for m ~ normal(mu, var) over integer-indexed values h: linear interpolation plus the
// second-order term 1/2 h'' var.
double expect_normal(const std::vector<Values>& h, double mu, double var, double Values::*field) {
  const std::uint64_t M = h.size() - 1;
  const double x = std::clamp(mu, 0.0, d(M));
  const std::uint64_t lo = std::min<std::uint64_t>(static_cast<std::uint64_t>(x), M - 1);
  const double frac = x - d(lo);
  const double lin = (1 - frac) * (h[lo].*field) + frac * (h[lo + 1].*field);
  double curv = 0;
  if (M >= 2) {
    const std::uint64_t c = std::clamp<std::uint64_t>(lo, 1, M - 1);
    curv = (h[c + 1].*field) - 2 * (h[c].*field) + (h[c - 1].*field);
  }
  return lin + 0.5 * curv * var;
}

void check_inputs(std::uint64_t N, std::uint64_t A, std::uint64_t T, unsigned w, unsigned lanes) {
  if (N < 1) throw InputError("--N", "the rounds model needs N >= 1");
  if (A > T) throw InputError("--A", "A must not exceed T");
  if (N > A)
    throw InputError("--N", "the rounds model needs N <= A (otherwise some request never ends)");
  if (w < 1 || w > 64) throw InputError("--w", "word width must be 1..64");
  if (lanes < 1) throw InputError("--lanes", "need at least one lane");
}

RoundsResult finish(const Values& v, std::uint64_t N, std::string method,
                    std::uint64_t bulk_rounds) {
  RoundsResult r;
  r.tas = v.tas / d(N);
  r.was = v.was;
  r.rounds = v.rounds;
  r.method = std::move(method);
  r.bulk_rounds = bulk_rounds;
  return r;
}

// ---- RW-BM word profiles -----------------------------------------------------------------------
// profile[f] = (expected) number of words with f free bits, f = 0..w.
using Profile = std::vector<double>;

// One round with m probes (real m) over W words: hits per word ~ Binomial(m, 1/W). Returns the
// expected successes sum_f n_f E[min(K, f)]; writes the expected next profile if `next`.
double profile_round(const Profile& n, double m, double W, Profile* next) {
  const std::size_t w = n.size() - 1;
  // pmf of K for k = 0..w (real m: the generalised binomial coefficient).
  std::vector<double> pk(w + 1, 0.0);
  pk[0] = std::exp(m * std::log1p(-1.0 / W));
  const double ratio = 1.0 / (W - 1.0);
  for (std::size_t k = 0; k < w; ++k)
    pk[k + 1] = (m - d(k) > 0) ? pk[k] * (m - d(k)) / d(k + 1) * ratio : 0.0;
  if (W == 1.0) {  // every probe on the one word
    std::fill(pk.begin(), pk.end(), 0.0);
    if (m <= d(w)) {
      const auto k = static_cast<std::size_t>(std::llround(m));
      pk[std::min(k, w)] = 1.0;
    }
  }
  // tail[f] = P(K >= f)
  std::vector<double> tail(w + 2, 0.0);
  double cum = 0;
  for (std::size_t f = 0; f <= w; ++f) {
    tail[f] = std::max(0.0, 1.0 - cum);
    cum += pk[f];
  }
  double S = 0, kpk = 0;  // kpk = sum_{k<f} k P(k)
  for (std::size_t f = 0; f <= w; ++f) {
    S += n[f] * (kpk + d(f) * tail[f]);
    kpk += d(f) * pk[f];
  }
  if (next) {
    Profile& o = *next;
    o.assign(w + 1, 0.0);
    o[0] = n[0];
    for (std::size_t f = 1; f <= w; ++f) {
      o[0] += n[f] * tail[f];
      for (std::size_t g = 1; g <= f; ++g) o[g] += n[f] * pk[f - g];
    }
  }
  return S;
}

double free_bits(const Profile& n) {
  double a = 0;
  for (std::size_t f = 1; f < n.size(); ++f) a += d(f) * n[f];
  return a;
}

// The start: A free pages placed uniformly among T; W-1 words of w bits and a last word of
// T-(W-1)w bits. Hypergeometric P(f free in a word of c bits) as a product (no lgamma of T).
Profile initial_profile(std::uint64_t A, std::uint64_t T, unsigned w) {
  const std::uint64_t W = (T + w - 1) / w, last = T - (W - 1) * w;
  Profile n(w + 1, 0.0);
  auto add = [&](std::uint64_t c, double count) {
    for (std::uint64_t f = 0; f <= c; ++f) {
      if (f > A || c - f > T - A) continue;
      double p = 1.0;  // C(c, f) prod_{i<f} (A-i)/(T-i) prod_{i<c-f} (T-A-i)/(T-f-i)
      for (std::uint64_t i = 0; i < f; ++i) p *= d(c - i) / d(f - i) * d(A - i) / d(T - i);
      for (std::uint64_t i = 0; i < c - f; ++i) p *= d(T - A - i) / d(T - f - i);
      n[f] += count * p;
    }
  };
  add(w, d(W - 1));
  add(last, 1.0);
  return n;
}

// One success taken from a uniformly random non-full word, `amount` (<= 1) of it.
void remove_bit(Profile& n, double amount) {
  double z = 0;
  for (std::size_t f = 1; f < n.size(); ++f) z += n[f];
  if (z <= 0) return;
  const Profile old = n;
  for (std::size_t f = 1; f < n.size(); ++f) {
    const double moved = amount * old[f] / z;
    n[f] -= moved;
    n[f - 1] += moved;
  }
}

}  // namespace

// ---- RW ---------------------------------------------------------------------------------------

RoundsResult rw_rounds(std::uint64_t N, std::uint64_t A, std::uint64_t T, unsigned lanes,
                       const RoundsOptions& o) {
  check_inputs(N, A, T, 1, lanes);
  const Warps warps(N, lanes);
  const bool exact = o.force_exact || (!o.force_mean_field && N <= o.exact_max_threads) ||
                     N <= std::max<std::uint64_t>(o.tail_threads, 1);
  const std::uint64_t M = exact ? N : std::max<std::uint64_t>(o.tail_threads, 2);
  const auto h = solve_falling_chain(M, warps, [&](std::uint64_t m, std::vector<double>& P) {
    return rw_row(m, A - N + m, T, P);
  });
  if (exact) return finish(h[N], N, "exact_chain", 0);

  // Bulk: mean and variance of m (linear-noise approximation), rewards at the mean plus the
  // second-order term of the WAS reward. E[S | m] = a (1 - q^m), q = 1 - 1/T, a = A - N + m.
  const double lq = std::log1p(-1.0 / d(T)), lq2 = std::log1p(-2.0 / d(T));
  double mu = d(N), var = 0;
  Values acc;
  std::uint64_t r = 0;
  while (mu + 6 * std::sqrt(var) + 1 > d(M)) {
    double f, f2;
    warps.busy(mu, f, f2);
    acc.tas += mu;
    acc.was += f + 0.5 * f2 * var;
    acc.rounds += 1;
    const double a = d(A) - d(N) + mu;
    const double qm = std::exp(mu * lq), p1 = -std::expm1(mu * lq);
    const double ES = a * p1;
    const double dES = p1 - a * qm * lq;
    const double d2ES = -2 * qm * lq - a * qm * lq * lq;
    const double cov = std::exp(mu * lq2) - std::exp(2 * mu * lq);  // P(both hit) - p1^2
    const double VS = std::max(0.0, a * p1 * (1 - p1) + a * (a - 1) * cov);
    mu = mu - ES - 0.5 * d2ES * var;
    var = (1 - dES) * (1 - dES) * var + VS;
    if (++r > 200'000'000)
      throw InputError("--T", "the rounds model's bulk would take over 2e8 rounds here");
  }
  acc.tas += expect_normal(h, mu, var, &Values::tas);
  acc.was += expect_normal(h, mu, var, &Values::was);
  acc.rounds += expect_normal(h, mu, var, &Values::rounds);
  return finish(acc, N, "mean_field+tail", r);
}

// ---- RW-BM ------------------------------------------------------------------------------------

double profile_state_estimate(std::uint64_t T, unsigned w) {
  const double W = std::ceil(d(T) / w);
  // C(W + w, w), saturating
  double c = 1;
  for (unsigned i = 1; i <= w; ++i) {
    c = c * (W + i) / i;
    if (c > 1e18) return 1e18;
  }
  return c;
}

RoundsResult rwbm_rounds_exact_profiles(std::uint64_t N, std::uint64_t A, std::uint64_t T,
                                        unsigned w, unsigned lanes) {
  check_inputs(N, A, T, w, lanes);
  const std::uint64_t W = (T + w - 1) / w, last = T - (W - 1) * w;
  if (W > 64 || profile_state_estimate(T, w) > 1e6)
    throw InputError("--T", "the exact profile chain is for tiny pools only");
  const Warps warps(N, lanes);
  // Sorted free counts of the W words, one char each (std::string rather than a vector of bytes:
  // GCC 12 at -O3 flags the vector's memcmp with a false -Wstringop-overread).
  using State = std::string;
  std::map<State, Values> memo;
  std::vector<double> log_fact(N + 1, 0.0);
  for (std::uint64_t i = 1; i <= N; ++i) log_fact[i] = log_fact[i - 1] + std::log(d(i));

  std::function<Values(const State&)> value = [&](const State& st) -> Values {
    if (auto it = memo.find(st); it != memo.end()) return it->second;
    std::uint64_t a = 0;
    for (char f : st) a += static_cast<std::uint64_t>(f);
    const std::uint64_t m = a - (A - N);
    if (m == 0) return memo[st] = Values{};
    // Every composition k of m into W parts, probability m!/prod k_j! / W^m.
    std::map<State, double> next;
    std::vector<std::uint64_t> k(W, 0);
    const double base = log_fact[m] - d(m) * std::log(d(W));
    std::function<void(std::size_t, std::uint64_t, double)> rec =
        [&](std::size_t j, std::uint64_t left, double lp) {
          if (j + 1 == W) {
            k[j] = left;
            State s2(W, '\0');
            for (std::size_t i = 0; i < W; ++i)
              s2[i] = static_cast<char>(st[i] - static_cast<char>(std::min<std::uint64_t>(
                                                    k[i], static_cast<std::uint64_t>(st[i]))));
            std::sort(s2.begin(), s2.end());
            next[s2] += std::exp(base + lp - log_fact[left]);
            return;
          }
          for (std::uint64_t x = 0; x <= left; ++x) {
            k[j] = x;
            rec(j + 1, left - x, lp - log_fact[x]);
          }
        };
    rec(0, m, 0.0);
    double stay = 0;
    Values v{d(m), warps.busy(d(m)), 1.0};
    for (const auto& [s2, p] : next) {
      if (s2 == st) {
        stay += p;
        continue;
      }
      const Values h = value(s2);
      v.tas += p * h.tas;
      v.was += p * h.was;
      v.rounds += p * h.rounds;
    }
    const double leave = 1.0 - stay;
    return memo[st] = Values{v.tas / leave, v.was / leave, v.rounds / leave};
  };

  // Start: multivariate hypergeometric over the words' capacities.
  Values total;
  std::vector<std::uint64_t> f(W, 0);
  double log_c_TA = 0;  // log C(T, A)
  for (std::uint64_t i = 0; i < A; ++i) log_c_TA += std::log(d(T - i) / d(A - i));
  auto log_choose = [](std::uint64_t n, std::uint64_t k) {
    return std::lgamma(d(n) + 1) - std::lgamma(d(k) + 1) - std::lgamma(d(n - k) + 1);
  };
  std::function<void(std::size_t, std::uint64_t, double)> start =
      [&](std::size_t j, std::uint64_t left, double lp) {
        const std::uint64_t cap = (j + 1 == W) ? last : w;
        if (j + 1 == W) {
          if (left > cap) return;
          f[j] = left;
          State st(W, '\0');
          for (std::size_t i = 0; i < W; ++i) st[i] = static_cast<char>(f[i]);
          std::sort(st.begin(), st.end());
          const double p = std::exp(lp + log_choose(cap, left) - log_c_TA);
          const Values v = value(st);
          total.tas += p * v.tas;
          total.was += p * v.was;
          total.rounds += p * v.rounds;
          return;
        }
        for (std::uint64_t x = 0; x <= std::min<std::uint64_t>(cap, left); ++x) {
          f[j] = x;
          start(j + 1, left - x, lp + log_choose(cap, x));
        }
      };
  start(0, A, 0.0);
  return finish(total, N, "exact_profiles", 0);
}

RoundsResult rwbm_rounds_mean_field(std::uint64_t N, std::uint64_t A, std::uint64_t T, unsigned w,
                                    unsigned lanes, const RoundsOptions& o) {
  check_inputs(N, A, T, w, lanes);
  const Warps warps(N, lanes);
  const double W = std::ceil(d(T) / w);
  const double slack = d(A) - d(N);
  const std::uint64_t M = std::max<std::uint64_t>(std::min(N, o.tail_threads), 1);

  // Bulk (skipped when N <= M): profile by the exact one-round expectation, m = free bits - slack.
  Profile n = initial_profile(A, T, w);
  std::vector<std::pair<double, Profile>> history;  // (mean m, profile) at the start of rounds
  double mu = d(N), var = 0;
  Values acc;
  std::uint64_t r = 0;
  if (N > M) {
    Profile next;
    while (mu + 6 * std::sqrt(var) + 1 > d(M)) {
      history.emplace_back(mu, n);
      double f, f2;
      warps.busy(mu, f, f2);
      acc.tas += mu;
      acc.was += f + 0.5 * f2 * var;
      acc.rounds += 1;
      const double ES = profile_round(n, mu, W, &next);
      // Variance of S approximated as binomial(m, ES/m); its slope in m with the profile fixed.
      const double dES = profile_round(n, mu + 0.5, W, nullptr) -
                         profile_round(n, std::max(0.0, mu - 0.5), W, nullptr);
      const double VS = ES * std::max(0.0, 1 - ES / mu);
      n.swap(next);
      mu = free_bits(n) - slack;
      var = (1 - dES) * (1 - dES) * var + VS;
      if (++r > 50'000'000)
        throw InputError("--T", "the rounds model's bulk would take over 5e7 rounds here");
    }
  } else {
    mu = d(N);
  }

  // Tail: the profile at each integer m <= M (free bits slack + m).
  std::vector<Profile> at(M + 1);
  {
    // From the bulk history where it covers m (interpolated in m between rounds) ...
    for (std::uint64_t m = M; m >= 1 && !history.empty(); --m) {
      const double x = d(m);
      if (x <= mu) break;
      std::size_t i = 0;
      while (i + 1 < history.size() && history[i + 1].first >= x) ++i;
      const auto& [m0, p0] = history[i];
      const Profile& p1 = (i + 1 < history.size()) ? history[i + 1].second : n;
      const double m1 = (i + 1 < history.size()) ? history[i + 1].first : mu;
      const double t = (m0 - m1) > 0 ? (m0 - x) / (m0 - m1) : 0.0;
      at[m].resize(w + 1);
      for (unsigned f = 0; f <= w; ++f) at[m][f] = (1 - t) * p0[f] + t * p1[f];
    }
    // ... below it, one bit at a time from a uniformly random non-full word.
    Profile cur = n;
    double cur_m = mu;
    for (std::uint64_t m = std::min<std::uint64_t>(M, static_cast<std::uint64_t>(std::floor(mu)));
         m >= 1; --m) {
      remove_bit(cur, cur_m - d(m));
      cur_m = d(m);
      if (at[m].empty()) at[m] = cur;
    }
  }
  const auto h = solve_falling_chain(M, warps, [&](std::uint64_t m, std::vector<double>& P) {
    const double ES = profile_round(at[m], d(m), W, nullptr);
    return binomial_row(m, std::clamp(ES / d(m), 0.0, 1.0), P);
  });
  if (N <= M) return finish(h[N], N, "mean_field+tail", 0);
  acc.tas += expect_normal(h, mu, var, &Values::tas);
  acc.was += expect_normal(h, mu, var, &Values::was);
  acc.rounds += expect_normal(h, mu, var, &Values::rounds);
  return finish(acc, N, "mean_field+tail", r);
}

RoundsResult rwbm_rounds(std::uint64_t N, std::uint64_t A, std::uint64_t T, unsigned w,
                         unsigned lanes, const RoundsOptions& o) {
  check_inputs(N, A, T, w, lanes);
  const std::uint64_t W = (T + w - 1) / w;
  // Exact where the profile chain is small: few states and few hit patterns per round.
  double compositions = 1;  // C(N + W - 1, W - 1)
  for (std::uint64_t i = 1; i < W && compositions < 1e9; ++i)
    compositions = compositions * d(N + i) / d(i);
  if (W <= 16 && profile_state_estimate(T, w) <= 2000 && compositions <= 2e4)
    return rwbm_rounds_exact_profiles(N, A, T, w, lanes);
  return rwbm_rounds_mean_field(N, A, T, w, lanes, o);
}

}  // namespace alloclab::model
