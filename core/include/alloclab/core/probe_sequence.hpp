// Which page or word a thread probes at each step: the contract shared by the CPU simulator and
// the CUDA kernels. Thread i of a run (0 <= i < N, global index, warp = i / lanes) draws its k-th
// probe (k = 0, 1, ...) from PhiloxStream(seed, probe, i). Any backend that follows these
// functions probes exactly the same places, so a contention-free run agrees step for step.
#pragma once

#include <cstdint>

#include "alloclab/core/hd.hpp"
#include "alloclab/core/random_stream.hpp"

namespace alloclab {

// Seed of trial t of a run (trial 0 uses the seed itself).
ALLOCLAB_HD std::uint64_t trial_seed(std::uint64_t seed, std::uint64_t trial) {
  return seed + trial * 0x9E3779B97F4A7C15ULL;
}

// Bitmap words for T pages of w bits each; bits past T in the last word are permanently "used".
ALLOCLAB_HD std::uint64_t word_count(std::uint64_t T, unsigned w) { return (T + w - 1) / w; }

// RW (Algorithm 1): the page thread `thread` probes at step k.
ALLOCLAB_HD std::uint64_t rw_probe_page(std::uint64_t seed, std::uint64_t thread, std::uint64_t k,
                                        std::uint64_t T) {
  return PhiloxStream(seed, StreamDomain::probe, thread).below(k, T);
}

// RW-BM and CoRW: the bitmap word thread `thread` reads at step (round) k.
ALLOCLAB_HD std::uint64_t bitmap_probe_word(std::uint64_t seed, std::uint64_t thread,
                                            std::uint64_t k, std::uint64_t words) {
  return PhiloxStream(seed, StreamDomain::probe, thread).below(k, words);
}

// RW_malloc: the first word of the window a warp reads in round k; drawn from the stream of the
// warp's lane-0 thread (global index warp * lanes). The window is words [p, p + lanes) clipped
// to the bitmap.
ALLOCLAB_HD std::uint64_t rwmalloc_window_start(std::uint64_t seed, std::uint64_t warp,
                                                unsigned lanes, std::uint64_t k,
                                                std::uint64_t words) {
  return PhiloxStream(seed, StreamDomain::probe, warp * lanes).below(k, words);
}

}  // namespace alloclab
