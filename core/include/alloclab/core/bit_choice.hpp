// Which free bit of a bitmap word an RW-BM thread (or a CoRW lane) claims (`--bit-choice`; which
// allocators support which: Capabilities::bit_choices, core/algorithm.hpp). Not in the paper: its
// RW-BM ("details skipped") and the authors' kernels take the LOWEST free bit, so every thread
// that reads the same word at the same time targets the same bit and all but one lose the claim
// (a collision). At high N/T many threads share a word; spreading their targets over the word's
// free bits makes most of those claims succeed. Shared by the simulator and the CUDA kernel.
//
// Every choice is a pure function of (word value, the thread's probe number, its lane), so it is
// the same on every backend and for every retry rule:
//  * lowest  : the lowest free bit (the paper's and the default: the committed data use it).
//  * random  : the free bit of rank floor(u * f / 2^32) among the word's f free bits, where u is
//              the LOW 32 bits of the thread's 64-bit probe number for this step
//              (probe_bits(seed, thread, k), core/probe_sequence.hpp). The probed word is
//              mul_high(probe, W), a function of the HIGH bits, so the probe-word sequence is
//              unchanged and u is uniform given the word up to a relative bias of W / 2^32
//              (below 1% for W <= 2^25 words). No extra Philox call: the GPU keeps its speed.
//  * rotated : the first free bit at or after bit (lane * w / L), cyclically, where lane =
//              thread mod L and L = lanes per warp (CoRW: every bit set of a lane's word - its
//              offers, its share, its claims - is taken in that cyclic order instead of from
//              bit 0; cpu_sim/corw_share.hpp). lane * w / L (rather than lane mod w) spreads
//              the L start offsets evenly over the whole word for any w: w = 32, L = 32 gives
//              offset = lane; w = 64 gives 2 * lane (lane mod 64 would leave bits 32..63 as
//              start points of no lane); w < L maps several lanes onto one offset.
// A claim lost to another thread retries with the SAME rule on the value the atomic returned
// (lowest: its lowest free bit; random: the same u ranks the remaining free bits; rotated: the
// first free bit at or after the same offset), within the same step, as the lowest rule does.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "alloclab/core/bit_tricks.hpp"
#include "alloclab/core/hd.hpp"

namespace alloclab {

enum class BitChoice : unsigned char { lowest = 0, random = 1, rotated = 2 };

inline constexpr std::string_view kBitChoiceNames[] = {"lowest", "random", "rotated"};

inline std::string_view name(BitChoice c) {
  return kBitChoiceNames[static_cast<unsigned>(c)];
}

inline std::optional<BitChoice> parse_bit_choice(std::string_view text) {
  for (unsigned i = 0; i < 3; ++i)
    if (kBitChoiceNames[i] == text) return static_cast<BitChoice>(i);
  return std::nullopt;
}

// A set of bit choices (Capabilities::bit_choices, core/algorithm.hpp): bit c for choice c.
constexpr unsigned bit_choice_bit(BitChoice c) {
  return 1u << static_cast<unsigned>(c);
}
inline constexpr unsigned kOnlyLowest = bit_choice_bit(BitChoice::lowest);
inline constexpr unsigned kEveryBitChoice = (1u << 3) - 1;

// "lowest|rotated": the names of the choices in `set`.
inline std::string bit_choice_names(unsigned set) {
  std::string out;
  for (unsigned i = 0; i < 3; ++i) {
    if (!(set & bit_choice_bit(static_cast<BitChoice>(i)))) continue;
    if (!out.empty()) out += '|';
    out += kBitChoiceNames[i];
  }
  return out;
}

// The rotated choice's start offset of lane `lane` of a warp of `lanes`: lane * w / lanes.
// RW-BM starts its search for a free bit there; CoRW views its word rotated by it (view bit j =
// word bit (j + offset) mod w), so that its lowest free bits, its share and its hand-out order
// are taken from that bit on.
ALLOCLAB_HD unsigned rotation_offset(unsigned lane, unsigned w, unsigned lanes) {
  return lane * w / lanes;
}

// What a thread needs to choose its bit at one step: u (random) and its start offset (rotated).
struct BitChoiceKey {
  std::uint32_t u = 0;  // low 32 bits of the step's probe number
  unsigned offset = 0;  // rotation_offset(thread mod lanes, w, lanes)
};

ALLOCLAB_HD BitChoiceKey bit_choice_key(std::uint64_t probe, std::uint64_t thread, unsigned w,
                                        unsigned lanes) {
  const auto lane = static_cast<unsigned>(thread % lanes);
  return {static_cast<std::uint32_t>(probe), rotation_offset(lane, w, lanes)};
}

// The free bit this thread targets in `word` (low w bits; set = used), or -1 if there is none.
ALLOCLAB_HD int choose_free_bit(BitChoice c, std::uint64_t word, unsigned w, BitChoiceKey key) {
  switch (c) {
    case BitChoice::random:
      return bits::ranked_free_bit(word, w, key.u);
    case BitChoice::rotated:
      return bits::first_free_bit_from(word, w, key.offset);
    default:
      return bits::first_free_bit(word, w);
  }
}

}  // namespace alloclab
