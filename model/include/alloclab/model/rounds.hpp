// The parallel-rounds model of RW and RW-BM (not in paper 000).
//
// The process is the simulator's lockstep mode (cpu_sim/src/engine.hpp) and what the GPU kernels
// (gpu/src/rw.cu, rwbm.cu) do when all threads run at once: in round r = 1, 2, ... every
// unfinished thread draws one uniform target (RW: a page of T; RW-BM: a word of W = ceil(T/w))
// and reads it against the state at the start of the round. Threads whose target had a free
// page/bit claim it in a random priority order:
//   RW:    of the k threads on one free page, one wins, the other k-1 lose (a collision);
//   RW-BM: of the k threads on one word with f free bits, min(k, f) win (a lost atomicOr retries
//          the next free bit of the returned value within the round), the rest lose;
// threads on a used page / full word lose. Losers try again next round. So with m unfinished
// threads the free count is a = A - (N - m), and a round's successes are
//   RW:    S = number of distinct free pages hit by m uniform probes,
//   RW-BM: S = sum over words of min(hits, free bits of the word).
// Step counts: a thread's steps = the round in which it succeeds (one probe per round).
//
// Quantities (A >= N; with A < N some request never succeeds):
//   tas    = E[sum_r m_r] / N                (m_r = unfinished threads at the start of round r)
//   was    = mean over warps of E[max of the warp's lanes' steps]. Threads are exchangeable (own
//            random streams, random priorities), so given m_r the unfinished set is a uniformly
//            random m_r-subset and P(a warp of L lanes is done before round r) =
//            C(N-L, m_r)/C(N, m_r). Hence was = sum_r E[1 - C(N-L, m_r)/C(N, m_r)], exact for
//            the exact chains, with no independence assumption between lanes.
//   rounds = E[number of rounds until every thread is done] (the kernel's duration in rounds).
//
// Methods (`method` in the result):
//   exact_chain        RW: an absorbing Markov chain over m (N+1 states); the row of state m is
//                      the exact occupancy distribution of S (a dynamic programme over the m
//                      probes). Expected accumulated rewards by backward recursion (m only
//                      falls, self-loops divided out). Used for N <= exact_max_threads.
//   exact_profiles     RW-BM on tiny pools: the chain over word profiles (how many words hold f
//                      free bits, f = 0..w), which is the exact state of the process; the start
//                      is the multivariate hypergeometric placement of the A free pages. Used
//                      where the profile state space is small (tests, tiny --T).
//   mean_field+tail    Large N: the mean of the state (m, and for RW-BM the word profile) is
//                      advanced round by round by the exact one-round expectation given that
//                      state, with a second-order (linear-noise) correction from the variance
//                      of m; once the mean falls to where the last tail_threads threads remain
//                      (mean + 6 sd below tail_threads), the expected remaining rewards come from
//                      a chain over m <= tail_threads, averaged over a normal distribution of m.
//                      RW: the tail chain is the exact one. RW-BM: in the tail, the word profile
//                      at free count a is the mean-field profile (bulk history, then one bit
//                      at a time from a uniformly random non-full word), and S given m is
//                      binomial with the exact expected S of that profile (an approximation).
#pragma once

#include <cstdint>
#include <string>

#include "alloclab/core/result.hpp"
#include "alloclab/core/scenario.hpp"

namespace alloclab::model {

struct RoundsOptions {
  std::uint64_t exact_max_threads = 512;  // RW: exact chain up to this N
  std::uint64_t tail_threads = 256;       // mean_field+tail: size of the tail chain
  bool force_exact = false;               // RW: exact chain whatever N (slow, O(N^3))
  bool force_mean_field = false;          // RW: mean_field+tail even for small N (validation)
};

struct RoundsResult {
  double tas = 0, was = 0, rounds = 0;
  std::string method;
  std::uint64_t bulk_rounds = 0;  // mean_field+tail: rounds advanced by the mean-field map
};

// RW in parallel rounds (w = 1). Requires 1 <= N <= A <= T, lanes >= 1.
RoundsResult rw_rounds(std::uint64_t N, std::uint64_t A, std::uint64_t T, unsigned lanes,
                       const RoundsOptions& options = {});

// RW-BM in parallel rounds, words of w bits (the last word holds T - (W-1)w pages when w does
// not divide T). Exact profile chain where profile_state_estimate() <= 20000, else mean
// field + tail.
RoundsResult rwbm_rounds(std::uint64_t N, std::uint64_t A, std::uint64_t T, unsigned w,
                         unsigned lanes, const RoundsOptions& options = {});

// The exact profile chain for RW-BM (w = 1 is RW), whatever the size: only for tiny pools.
RoundsResult rwbm_rounds_exact_profiles(std::uint64_t N, std::uint64_t A, std::uint64_t T,
                                        unsigned w, unsigned lanes);

// The mean-field+tail method for RW-BM, whatever the size (validation of the method).
RoundsResult rwbm_rounds_mean_field(std::uint64_t N, std::uint64_t A, std::uint64_t T, unsigned w,
                                    unsigned lanes, const RoundsOptions& options = {});

// Number of word profiles of the exact chain (multisets of W free counts in 0..w), saturating.
double profile_state_estimate(std::uint64_t T, unsigned w);

// The record of `alloclab model --schedule rounds`: the scenario, schedule = rounds, then what
// the allocator's model-table entry adds (model_table.hpp: tas, was, rounds, method and the
// collisions of the same process). Null tas/was/rounds with a note where N > A. An allocator
// without a rounds model throws InputError ("--allocator").
Record evaluate_rounds(const Scenario& s, const RoundsOptions& options = {});

}  // namespace alloclab::model
