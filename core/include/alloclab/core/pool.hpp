// The initial page pool, identical on CPU and GPU: "T pages of which exactly A are free, chosen at
// random from the seed".
//
// A keyed pseudo-random permutation pi of [0, T) decides it: page p starts free iff pi(p) < A.
// That gives exactly A free pages, costs O(1) per page with no shared state (so the GPU builds a
// 2^30-page pool in one pass) and is the same function on both sides. pi is a 6-round balanced
// Feistel network on 2^(2h) >= T values with cycle walking (at most 4 expected walks since
// 2^(2h) < 4T); rounds use the murmur3 finaliser keyed by Philox-derived round keys. This is a
// pseudo-random permutation, not a uniformly random one: ample for choosing free sets, and
// documented as such in docs/simulator.md.
#pragma once

#include <cstdint>

#include "alloclab/core/hd.hpp"
#include "alloclab/core/random_stream.hpp"

namespace alloclab {

ALLOCLAB_HD std::uint64_t mix64(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

class PagePermutation {
 public:
  static constexpr int kRounds = 6;

  ALLOCLAB_HD PagePermutation(std::uint64_t T, std::uint64_t seed) : T_(T), half_bits_(1) {
    while ((std::uint64_t{1} << (2 * half_bits_)) < T_) ++half_bits_;
    const PhiloxStream keys(seed, StreamDomain::pool, 0);
    for (int r = 0; r < kRounds; ++r) round_key_[r] = keys.bits(static_cast<std::uint64_t>(r));
  }

  // pi(p) for p in [0, T).
  ALLOCLAB_HD std::uint64_t operator()(std::uint64_t p) const {
    std::uint64_t x = p;
    do {
      x = encrypt(x);
    } while (x >= T_);  // cycle walking: stays inside [0, T) and remains a bijection
    return x;
  }

  ALLOCLAB_HD std::uint64_t size() const { return T_; }

 private:
  ALLOCLAB_HD std::uint64_t encrypt(std::uint64_t x) const {
    const std::uint64_t mask = (std::uint64_t{1} << half_bits_) - 1;
    std::uint64_t left = x >> half_bits_;
    std::uint64_t right = x & mask;
    for (int r = 0; r < kRounds; ++r) {
      const std::uint64_t next = left ^ (mix64(right ^ round_key_[r]) & mask);
      left = right;
      right = next;
    }
    return (left << half_bits_) | right;
  }

  std::uint64_t T_;
  unsigned half_bits_;
  std::uint64_t round_key_[kRounds];
};

// Whether page p is free before any request, for a pool of T pages with A free.
ALLOCLAB_HD bool initially_free(const PagePermutation& pi, std::uint64_t p, std::uint64_t A) {
  return pi(p) < A;
}

}  // namespace alloclab
