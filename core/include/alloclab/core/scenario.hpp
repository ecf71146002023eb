// One grid point: what every backend (model, simulator, GPU) is asked to evaluate.
#pragma once

#include <cmath>
#include <cstdint>

#include "alloclab/core/algorithm.hpp"
#include "alloclab/core/bit_choice.hpp"

namespace alloclab {

struct Scenario {
  Algorithm algo = Algorithm::rw;
  std::uint64_t N = 1;     // requesting threads, one request each (k with --per-thread)
  std::uint64_t A = 1;     // free pages before the requests
  std::uint64_t T = 1;     // total pages
  unsigned w = 32;         // bits per bitmap word (RW-BM, CoRW, RW_malloc)
  unsigned lanes = 32;     // threads per warp, L
  unsigned pages = 1;      // consecutive pages per request (RW_malloc), n
  std::uint64_t seed = 1;  // root of every random stream of a run
  // RW-BM: which free bit of a word a thread claims (bit_choice.hpp); other algorithms ignore it.
  BitChoice bit_choice = BitChoice::lowest;
};

// Free pages A of a pool of T pages of which a fraction f is free (--free f, every command):
// f * T rounded to the nearest integer. The GPU builds the same pool from the same A.
inline std::uint64_t free_pages_of_fraction(double f, std::uint64_t T) {
  return static_cast<std::uint64_t>(std::llround(f * static_cast<double>(T)));
}

// Warps are consecutive groups of `lanes` threads; the last one may be partial.
inline std::uint64_t warp_count(const Scenario& s) {
  return (s.N + s.lanes - 1) / s.lanes;
}

}  // namespace alloclab
