// The warp-sharing step of CoRW (paper 000, Algorithm 2, lines 8-17), as a pure function over
// the warp's registers so it can be tested step by step (Figure 5) and reused by every mode.
#pragma once

#include <cstdint>
#include <vector>

namespace alloclab::sim {

struct CorwLaneInput {
  std::uint64_t word_index = 0;  // p: the bitmap word this lane read
  std::uint64_t P = 0;           // its register copy (all w bits set = nothing to give, also
                                 // when the lane failed to lock the word: line 7)
  bool needs = false;            // pageID == -1
  // The lane's bit order (--bit-choice rotated, core/bit_choice.hpp): it views its word rotated
  // by `rot` (view bit j = word bit (j + rot) mod w), so it offers its free bits from bit rot
  // on, cyclically, instead of from bit 0. 0: the paper's lowest-first order.
  unsigned rot = 0;
};

// One iteration of the inner while loop (Figure 5 shows one block per iteration). "Lowest" below
// is in each lane's view (CorwLaneInput::rot).
struct CorwShareIteration {
  std::vector<std::int64_t> b;       // page lane t offers (line 11: its lowest free bit in its
                                     // view), -1 if its P is full
  std::vector<int> s;                // line 12
  std::vector<int> t_prime;          // line 13 (lane index, 0-based), -1 if none
  std::vector<std::int64_t> pageID;  // after line 14
};

struct CorwShareResult {
  std::vector<std::int64_t> pageID;       // page each lane ends with (-1 if still needing);
                                          // lanes that did not need keep -1
  std::vector<std::uint64_t> handed_out;  // per lane: bits of ITS word given to some lane (to be
                                          // set in BitMap[p] before releasing LockMap[p])
  std::vector<CorwShareIteration> trace;
};

// Deviation from Algorithm 2 (documented decision): line 10 sets the offered bit in P in every
// iteration, even when no needing lane takes it, so such pages would vanish. Here a lane marks
// its bit b in P only if some lane's t' points at it (havers of rank < number of needers);
// bits nobody took stay free. A lane's P is never written to the bitmap; only `handed_out` is.
CorwShareResult corw_share(const std::vector<CorwLaneInput>& lanes, unsigned w,
                           bool keep_trace = false);

}  // namespace alloclab::sim
