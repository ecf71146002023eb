// Models of DynaSOAr (Springer & Masuhara, ECOOP'19) that the simulator confirms
// (validation/tests/dynasoar_model_sim_test.cpp; studies/dynasoar/typed-heap.md):
//
//  * bitmap levels: a hierarchical bitmap of M bits has L(M) = 1 for M <= 64, else
//    1 + L(ceil(M / 64)) levels, ceil(log64 M) (§4.1); try_find_set reads one word a level and
//    makes no atomic: L loads, 0 atomics.
//  * set / clear propagation as containers fill: with the other bits set independently with
//    probability p (the density), a set of a clear bit (or a clear of a set bit) changes level l
//    exactly when the 64^l - 1 other bits under its level-l container are all clear, so it works
//    on E[levels] = sum_{l < L} (1 - p)^(64^l - 1) levels; one level more with probability
//    (1 - p)^63, which falls fast as containers fill (p = 1/64: 0.37; p = 0.1: 0.0013).
//  * the slow-path rate (blocks initialised / allocations) is at least 1 / N_T: a block serves at
//    most N_T objects before another must be initialised; sequential allocations of one type on
//    an empty heap meet it exactly.
//  * the fragmentation of random thinning (alloclab's, not the paper's): full blocks of N slots,
//    each object freed independently with probability q, a block deleted once empty (Alg. 9).
//    A block keeps k ~ Binomial(N, 1 - q) objects and survives when k > 0, so over many blocks
//    F = E[N - k | k > 0] / N = (q - q^N) / (1 - q^N): the type-bound free slots alone, with no
//    lost lookup. q -> 0 gives 0; N = 1 gives 0 (a block of one object never holds a free slot).
#pragma once

#include <cmath>
#include <cstdint>

namespace alloclab::model::dynasoar {

inline unsigned bitmap_levels(std::uint64_t bits) {
  unsigned levels = 1;
  while (bits > 64) {
    bits = (bits + 63) / 64;
    ++levels;
  }
  return levels;
}

struct FindCost {
  unsigned loads = 0, atomics = 0;
};
inline FindCost try_find_set_cost(std::uint64_t bits) {
  return {bitmap_levels(bits), 0};
}

// The probability that a set or clear reaches level l (l = 0: always), and the expected levels.
inline double propagation_probability(unsigned level, double p) {
  return std::pow(1 - p, std::pow(64.0, static_cast<double>(level)) - 1);
}
inline double expected_update_levels(std::uint64_t bits, double p) {
  double e = 0;
  for (unsigned l = 0; l < bitmap_levels(bits); ++l) e += propagation_probability(l, p);
  return e;
}

inline double slow_path_rate_lower_bound(unsigned capacity) {
  return 1.0 / static_cast<double>(capacity);
}

inline double thinned_fragmentation(unsigned capacity, double q) {
  if (q <= 0) return 0;
  const double all_gone = std::pow(q, static_cast<double>(capacity));
  return (q - all_gone) / (1 - all_gone);
}

}  // namespace alloclab::model::dynasoar
