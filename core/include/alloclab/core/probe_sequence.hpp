// Which page or word a thread probes at each step: the contract shared by the CPU simulator and
// the CUDA kernels. Thread i of a run (0 <= i < N, global index, warp = i / lanes) draws its k-th
// probe (k = 0, 1, ...) from PhiloxStream(seed, probe, i). Any backend that follows these
// functions probes exactly the same places, so a contention-free run agrees step for step.
#pragma once

#include <cstdint>

#include "alloclab/core/hd.hpp"
#include "alloclab/core/random_stream.hpp"

namespace alloclab {

// The 64 random bits behind probe k of thread `thread`. Two probes share one Philox call: probe k
// uses half (k & 1) of block k / 2 of PhiloxStream(seed, probe, thread), i.e. probe 2j is
// bits(j) (words 1:0 of block j) and probe 2j+1 is words 3:2 of block j. (Halves the Philox cost
// per probe on both backends; the CPU simulator computes 8 blocks = 16 probes at a time with the
// same numbers, see cpu_sim/src/modes.cpp, and its tests check equality with this function.)
ALLOCLAB_HD std::uint64_t probe_bits(std::uint64_t seed, std::uint64_t thread, std::uint64_t k) {
  std::uint64_t block[2];
  PhiloxStream(seed, StreamDomain::probe, thread).bits2(k >> 1, block);
  return block[k & 1];
}

// Seed of trial t of a run (trial 0 uses the seed itself).
ALLOCLAB_HD std::uint64_t trial_seed(std::uint64_t seed, std::uint64_t trial) {
  return seed + trial * 0x9E3779B97F4A7C15ULL;
}

// Bitmap words for T pages of w bits each; bits past T in the last word are permanently "used".
ALLOCLAB_HD std::uint64_t word_count(std::uint64_t T, unsigned w) {
  return (T + w - 1) / w;
}

// RW (Algorithm 1): the page thread `thread` probes at step k.
ALLOCLAB_HD std::uint64_t rw_probe_page(std::uint64_t seed, std::uint64_t thread, std::uint64_t k,
                                        std::uint64_t T) {
  return mul_high_u64(probe_bits(seed, thread, k), T);
}

// RW-BM and CoRW: the bitmap word thread `thread` reads at step (round) k.
ALLOCLAB_HD std::uint64_t bitmap_probe_word(std::uint64_t seed, std::uint64_t thread,
                                            std::uint64_t k, std::uint64_t words) {
  return mul_high_u64(probe_bits(seed, thread, k), words);
}

// RW_malloc: the first word of the window a warp reads in round k; drawn from the stream of the
// warp's lane-0 thread (global index warp * lanes). The window is words [p, p + lanes) clipped
// to the bitmap.
ALLOCLAB_HD std::uint64_t rwmalloc_window_start(std::uint64_t seed, std::uint64_t warp,
                                                unsigned lanes, std::uint64_t k,
                                                std::uint64_t words) {
  return mul_high_u64(probe_bits(seed, warp * lanes, k), words);
}

}  // namespace alloclab
