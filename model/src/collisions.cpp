// Collisions of RW and RW-BM under parallel rounds: see collisions.hpp for the model.
#include "alloclab/model/collisions.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/probe_sequence.hpp"

namespace alloclab::model {
namespace {

// Binomial(m, q) pmf for k = 0..kmax (the threads reading one target: each of the m reads one
// of 1/q targets uniformly). m is an expected count in the mean field, so it may be fractional:
// the recursion P(k) = P(k-1) (m-k+1)/k q/(1-q) stops at the first k > m or once the tail is
// below 1e-15, and the pmf is renormalised (exact for integer m, as in round 1).
std::vector<double> binomial_pmf(double m, double q) {
  std::vector<double> p;
  double pk = std::exp(m * std::log1p(-q)), total = 0;
  const double ratio = q / (1 - q);
  for (unsigned k = 0;; ++k) {
    if (k > 0) {
      if (static_cast<double>(k) > m + 1) break;
      pk *= (m - k + 1) / k * ratio;
      if (pk <= 0) break;
    }
    p.push_back(pk);
    total += pk;
    if (k >= 2 && k > m * q && 1.0 - total < 1e-15) break;
  }
  for (double& x : p) x /= total;
  return p;
}

// Done when fewer than this many threads remain unfinished (expected).
constexpr double kDone = 1e-9;

void check(std::uint64_t A, std::uint64_t T) {
  if (T == 0) throw InputError("--T", "need T >= 1");
  if (A > T) throw InputError("--A", "A exceeds T");
}

}  // namespace

double taken_probability(unsigned j, unsigned f, double p, bool independent_pairs) {
  if (j > f) return 1.0;
  return independent_pairs ? -std::expm1((j - 1) * std::log1p(-std::min(p, 1.0)))
                           : std::min(1.0, (j - 1) * p);
}

double word_collisions_lockstep(unsigned k, unsigned f, double p, bool independent_pairs) {
  double c = 0;
  for (unsigned j = 2; j <= k; ++j) c += taken_probability(j, f, p, independent_pairs);
  return c;
}

double word_collisions_synchronous(unsigned k, unsigned f) {
  double c = 0;
  for (unsigned i = 1; i <= std::min(k, f); ++i) c += k - i;
  return c;
}

double rotated_pair_probability(unsigned f, unsigned w, unsigned lanes) {
  if (f == 0 || f > w) return 0;
  // none[x] = P(a given set of x bits holds no free bit) = C(w - x, f) / C(w, f).
  std::vector<double> none(w + 1, 0.0);
  for (unsigned x = 0; x <= w; ++x) {
    if (w - x < f) continue;
    double r = 1;
    for (unsigned i = 0; i < f; ++i) r *= static_cast<double>(w - x - i) / (w - i);
    none[x] = r;
  }
  // Offsets o1, o2 share a target iff no free bit lies in [o1, o2) or none in [o2, o1)
  // (cyclically); for o1 != o2 the two events are disjoint because f >= 1.
  double sum = 0;
  for (unsigned l1 = 0; l1 < lanes; ++l1)
    for (unsigned l2 = 0; l2 < lanes; ++l2) {
      const unsigned o1 = l1 * w / lanes, o2 = l2 * w / lanes;
      const unsigned d = (o2 + w - o1) % w;
      sum += d == 0 ? 1.0 : none[d] + none[w - d];
    }
  return sum / (static_cast<double>(lanes) * lanes);
}

double pair_probability(BitChoice c, unsigned f, unsigned w, unsigned lanes) {
  switch (c) {
    case BitChoice::random:
      return 1.0 / f;
    case BitChoice::rotated:
      return rotated_pair_probability(f, w, lanes);
    default:
      return 1.0;
  }
}

CollisionEstimate rw_collisions_rounds(std::uint64_t N, std::uint64_t A, std::uint64_t T,
                                       std::uint64_t max_rounds) {
  check(A, T);
  CollisionEstimate e;
  double m = static_cast<double>(N), F = static_cast<double>(A);
  const double Td = static_cast<double>(T);
  std::uint64_t r = 0;
  for (; r < max_rounds && m > kDone && F > kDone; ++r) {
    // K ~ Bin(m, 1/T) threads on a page: E[(K - 1)^+] = E[K] - 1 + P(K = 0)
    const double none = std::expm1(m * std::log1p(-1 / Td));  // P(K = 0) - 1
    const double c = F * std::max(m / Td + none, 0.0);
    const double won = std::min(m, F * -none);
    e.collisions += c;
    if (r == 0) e.first_round = c;
    m -= won;
    F -= won;
  }
  e.rounds = static_cast<double>(r);
  e.unserved = std::max(m, 0.0);
  e.truncated = m > kDone && F > kDone;
  return e;
}

std::optional<CollisionEstimate> rwbm_collisions_rounds(const Scenario& s, RetryRule rule,
                                                        std::uint64_t max_rounds) {
  check(s.A, s.T);
  if (s.w < 1 || s.w > 64) throw InputError("--w", "word width must be in 1..64");
  if (rule == RetryRule::synchronous && s.bit_choice != BitChoice::lowest) return std::nullopt;
  const unsigned w = s.w;
  const double W = static_cast<double>(word_count(s.T, w));
  const double p0 = static_cast<double>(s.A) / (W * w);  // free fraction of the word slots
  // n[f]: expected words with f free bits; binomial start.
  std::vector<double> n(w + 1), next(w + 1), pair(w + 1, 0.0);
  for (unsigned f = 0; f <= w; ++f) {
    n[f] = W * std::exp(std::lgamma(w + 1.0) - std::lgamma(f + 1.0) - std::lgamma(w - f + 1.0) +
                        (f ? f * std::log(p0) : 0.0) + (w - f ? (w - f) * std::log1p(-p0) : 0.0));
    if (f >= 1) pair[f] = pair_probability(s.bit_choice, f, w, s.lanes);
  }
  if (p0 >= 1) std::fill(n.begin(), n.end(), 0.0), n[w] = W;
  const bool independent_pairs = s.bit_choice == BitChoice::rotated;
  CollisionEstimate e;
  double m = static_cast<double>(s.N);
  std::uint64_t r = 0;
  double F = static_cast<double>(s.A);
  for (; r < max_rounds && m > kDone && F > kDone; ++r) {
    const auto P = binomial_pmf(m, 1 / W);
    std::fill(next.begin(), next.end(), 0.0);
    next[0] = n[0];
    double c = 0, won = 0;
    for (unsigned f = 1; f <= w; ++f) {
      if (n[f] == 0) continue;
      double lost = 0;  // C(k, f), the lockstep rule's sum over j = 2..k, accumulated
      for (unsigned k = 0; k < P.size(); ++k) {
        if (k >= 2) lost += taken_probability(k, f, pair[f], independent_pairs);
        const double weight = n[f] * P[k];
        const unsigned served = std::min(k, f);
        c += weight * (rule == RetryRule::lockstep ? lost : word_collisions_synchronous(k, f));
        won += weight * served;
        next[f - served] += weight;
      }
    }
    won = std::min(won, m);
    e.collisions += c;
    if (r == 0) e.first_round = c;
    m -= won;
    F -= won;
    n.swap(next);
  }
  e.rounds = static_cast<double>(r);
  e.unserved = std::max(m, 0.0);
  e.truncated = m > kDone && F > kDone;
  return e;
}

}  // namespace alloclab::model
