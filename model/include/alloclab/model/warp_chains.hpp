// Models the paper lacks for the warp-cooperative allocators: CoRW
// (paper 000, Algorithm 2) and RW_malloc (Algorithm 3). Both serve a warp in rounds; each round
// yields a random "capacity" C (CoRW: distinct free bits among the words the lanes read;
// RW_malloc: n-page pieces in the window's free runs) and min(need, C) needing lanes are served.
// The number of lanes still in need is an absorbing Markov chain on {0..m}, solved with Eigen.
//
// What the chain gives, per warp of m lanes:
//   rounds       E[R], R = rounds until no lane needs: the warp's steps (the simulator's WAS)
//   lane_rounds  E[sum_r need_r] / m = mean over lanes of the round in which the lane was served
//                (the simulator's per-thread steps, hence TAS). The paper says "TAS = WAS" for
//                CoRW; in the implementation a lane stops counting once served, so TAS <= WAS.
//
// Approximations (stated in the report): free pages are a uniformly random subset of the pool
// at every moment (the pages earlier warps took are not correlated with word position; the
// first-free-bit choice actually clumps what is left, as RW-BM's erratum shows); no contention
// between warps (the sequential schedule: one warp at a time, in a random order).
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "alloclab/core/result.hpp"
#include "alloclab/core/scenario.hpp"

namespace alloclab::model {

// ---- generic absorbing chain ---------------------------------------------------------------

struct WarpRounds {
  double rounds = 0;       // E[R]
  double lane_rounds = 0;  // E[sum_r need_r] / m
};

// capacity_pmf(need) returns P(C = c) for c = 0..need-1 in the state where `need` lanes still
// need (C >= need serves them all). Solved as (I - Q) x = 1 with Q lower triangular.
WarpRounds solve_need_chain(unsigned m,
                            const std::function<std::vector<double>(unsigned need)>& capacity_pmf);

// A chain's expected rounds for a record: null where infinite (a warp that cannot finish).
inline std::optional<double> finite_rounds(double v) {
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

// ---- CoRW ------------------------------------------------------------------------------------

// P(D = d), d = 0..m: the number of distinct words among m uniform draws (with replacement)
// from W words.
std::vector<double> distinct_words_pmf(unsigned m, std::uint64_t W);

// Hypergeometric P(F = f) for f = 0..fmax: free pages F among s distinct pages drawn from T
// pages of which a are free.
std::vector<double> hypergeometric_pmf_head(std::uint64_t T, std::uint64_t a, std::uint64_t s,
                                            unsigned fmax);

// One warp of m lanes starting with a0 free pages (of T, words of w bits): each round every
// lane reads a fresh random word, F = free bits in the distinct words read, min(need, F) lanes
// are served (the CoRW semantics with in-round retries: bits are lost only to other warps, which
// the sequential schedule excludes). The free count falls by one per lane served.
WarpRounds corw_warp(unsigned m, std::uint64_t a0, std::uint64_t T, unsigned w);

// The sequential schedule of the simulator: warps (consecutive groups of L thread ids, the last
// one partial when L does not divide N) are served one after another in a uniformly random
// order; a warp served after j others sees A minus their pages. Returns {WAS, TAS}: the mean
// over warps of E[R] and the mean over threads of their serving round.
struct SequentialWarps {
  double was = 0;
  double tas = 0;
};
// warp_model(m, a0) must give the chain for a warp of m lanes starting with a0 free pages;
// pages_per_lane = pages each served lane takes. Warps are evaluated at every service position
// when there are at most `exact_limit` of them, otherwise at `exact_limit` evenly spaced
// positions (midpoint rule; the chain is smooth in a0 away from exhaustion, the last position
// is always included).
SequentialWarps sequential_average(
    std::uint64_t N, std::uint64_t A, unsigned lanes, unsigned pages_per_lane,
    const std::function<WarpRounds(unsigned, std::uint64_t)>& warp_model,
    std::uint64_t exact_limit = ~std::uint64_t{0});

// Model record for --allocator corw (keys: tas, was, tas_first_warp, was_first_warp); defined in
// model/src/corw.cpp, which registers it in the model table.
Record evaluate_corw(const Scenario& s);

// ---- RW_malloc -------------------------------------------------------------------------------

// Number of w-bit words with exactly k free (set-to-0) bits that contain a run of >= n
// consecutive free bits, for k = 0..w (exact integer DP over bit positions; w <= 64).
std::vector<std::uint64_t> words_with_run_counts(unsigned w, unsigned n);

// P(a w-bit word holds a run of >= n free bits): bits free independently with probability f.
double word_run_probability(unsigned w, unsigned n, double f);
// The same for a word of the pool (T pages, a free, uniformly placed): k ~ hypergeometric.
double word_run_probability_pool(unsigned w, unsigned n, std::uint64_t a, std::uint64_t T);

// Capacity of a window of `words` consecutive words of w bits with bits free independently with
// probability f: C = sum over maximal free runs of floor(length / n); runs are cut at word
// boundaries when `joined` is false (the GPU kernel, Algorithm 3 as written) and continue across
// words when true (the simulator, the text of §4.3). Returns P(C = c), c = 0..cmax-1, and
// P(C >= cmax) as the last element (size cmax + 1).
std::vector<double> window_capacity_pmf(unsigned words, unsigned w, unsigned n, double f,
                                        bool joined, unsigned cmax);

// One warp of RW_malloc: m lanes each wanting n pages, free fraction f held for the warp.
WarpRounds rwmalloc_warp(unsigned m, unsigned lanes, unsigned w, unsigned n, double f, bool joined);

// Figure 11's setting: an empty pool, requests of n pages until one fails. With runs inside one
// word (GPU) every word ends up packed from bit 0 with w mod n bits left over: utilisation
// n floor(w/n) / w exactly (0 for n > w).
double rwmalloc_utilisation_in_word(unsigned w, unsigned n);

// Model record for --allocator rwmalloc (keys: p_word, p_window, p_window_in_word, tas, was,
// tas_in_word, was_in_word, utilisation_in_word); model/src/rwmalloc.cpp, which registers it in
// the model table.
Record evaluate_rwmalloc(const Scenario& s);

}  // namespace alloclab::model
