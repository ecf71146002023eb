// Collisions (failed atomic claims) of RW and RW-BM when many threads run at once: a model the
// paper does not have. Paper 000 (Sec. 3.2.2) only bounds them by the birthday count
// N(N-1)/(2T) (model.hpp: collisions_expected / collisions_bound), which counts pairs of threads
// that probe the same page, not lost claims, and ignores that threads keep probing.
//
// Parallel rounds (the lockstep simulator's schedule, cpu_sim/src/engine.hpp): in round r the
// m_r unfinished threads each probe one uniformly random target (a page for RW, a word for
// RW-BM) against the state at the start of the round. A target is read by K ~ Bin(m_r,
// 1/targets) threads.
//  * RW: a free page read by K threads: one wins, K - 1 lose (one collision each).
//    E[collisions in round r] = F_r (m_r/T - 1 + (1 - 1/T)^m_r), successes F_r (1 - (1 - 1/T)^m_r).
//  * RW-BM: a word with f free bits read by K threads serves min(K, f) of them whatever bits
//    they target (core/bit_choice.hpp); the lost claims depend on the retry rule and the choice:
//      lockstep rule (the simulator: claims resolved one after another, a loser retries on the
//        value its atomic returned, which already holds every earlier claim, so it loses at most
//        once): thread j (in claim order) loses iff its target is among the j - 1 bits already
//        taken, with probability q_j; C(K, f) = sum_{j=2..K} q_j, q_j = 1 for j > f, else
//          lowest : q_j = 1 (so C = K - 1, exact);
//          random : q_j = (j - 1)/f (exact if the taken bits are a uniform subset of the free
//                   ones, which the uniform choice nearly keeps them);
//          rotated: q_j = 1 - (1 - p)^(j-1), p = rotated_pair_probability (exact for j = 2;
//                   for j > 2 as if the j - 1 earlier targets coincided with thread j's
//                   independently; the union bound (j - 1) p overshoots Monte Carlo by ~17% at
//                   f = 8, k = 5, this form undershoots by ~4%).
//      synchronous rule (lowest only; an upper model of the GPU: the K threads issue every
//        retry at the same moment, so all losers get the same returned word and target the same
//        next bit again): stage i has K - i + 1 contenders and K - i losers,
//          C(K, f) = sum_{i=1..min(K, f)} (K - i).
//    Word occupancy n_r(f) (expected words with f free bits, f = 0..w) starts binomial
//    Bin(w, A/T) (the pool is a uniform random set of A pages) and is carried through the
//    rounds exactly in expectation: a word with f free bits hit by K threads keeps f - min(K, f).
//    So the model keeps the clumping of free bits that Eq. (4) misses (studies/pham/errata.md).
// Mean field: m_{r+1} = m_r - E[successes in round r], F likewise; the expectation of the next
// round is taken at the expected m_r (the process concentrates: sd(m_r) ~ sqrt(m_r)).
// Rounds stop when fewer than 1e-9 threads (or free pages: N > A, the pool runs out, as in the
// simulator, whose remaining requests then fail) remain, or after max_rounds (truncated).
#pragma once

#include <cstdint>
#include <optional>

#include "alloclab/core/bit_choice.hpp"
#include "alloclab/core/scenario.hpp"

namespace alloclab::model {

enum class RetryRule {
  lockstep,    // losers retry on a word that holds every earlier claim (the lockstep simulator)
  synchronous  // losers retry together and collide again (lowest bit choice only)
};

struct CollisionEstimate {
  double collisions = 0;   // expected failed atomic claims, all rounds
  double first_round = 0;  // of which in round 1 (all N threads probe)
  double rounds = 0;       // rounds until fewer than 1e-9 threads remain (mean field)
  double unserved = 0;     // expected threads unfinished when the recursion stopped (N > A: N - A)
  bool truncated = false;  // stopped at max_rounds
};

// RW (Algorithm 1), pages: needs A <= T (N > A allowed: the pool runs out).
CollisionEstimate rw_collisions_rounds(std::uint64_t N, std::uint64_t A, std::uint64_t T,
                                       std::uint64_t max_rounds = 1000000);

// RW-BM with s.w bits per word and s.bit_choice (s.lanes for rotated); needs N <= A <= T, w in
// 1..64 (N > A allowed). nullopt for the synchronous rule with a choice other than lowest (not
// modelled).
std::optional<CollisionEstimate> rwbm_collisions_rounds(const Scenario& s, RetryRule rule,
                                                        std::uint64_t max_rounds = 1000000);

// ---- building blocks (exposed for tests) -----------------------------------------------------

// q_j above: thread j's target already taken, given the pair probability p; independent_pairs
// selects 1 - (1 - p)^(j-1) (rotated) instead of min(1, (j - 1) p) (lowest, random).
double taken_probability(unsigned j, unsigned f, double p, bool independent_pairs);
// Expected lost claims on one word with f >= 1 free bits read by k threads in one round
// (lockstep rule): sum_{j=2..k} taken_probability(j, f, p, independent_pairs).
double word_collisions_lockstep(unsigned k, unsigned f, double p, bool independent_pairs);
// The same under the synchronous rule (lowest bit): sum_{i=1..min(k,f)} (k - i).
double word_collisions_synchronous(unsigned k, unsigned f);

// Rotated choice: probability that two threads with independent uniform lanes (0..L-1, offset
// lane * w / L) reading one word whose f free bits are a uniform random f-subset of the w bits
// target the same free bit (the first free bit at or after their offset, cyclically).
double rotated_pair_probability(unsigned f, unsigned w, unsigned lanes);

// Pair probability of a choice (lowest 1, random 1/f, rotated as above); f >= 1.
double pair_probability(BitChoice c, unsigned f, unsigned w, unsigned lanes);

}  // namespace alloclab::model
