// Ouroboros' base index queue (Winter et al., §3.3, Alg. 1) on a ring of a few slots, one
// operation at a time, for `alloclab trace` (teaching): enqueues of page indices 1, 2, ... and
// dequeues as a script gives them, the ring, the fill count and the virtual positions front and
// back recorded after each, so that the wrap-around (position mod size) can be followed. The
// core's step machines run alone (core/ouroboros/index_queue.hpp). With the paper's printed full
// check (`old > size`) the (size + 1)-th enqueue is admitted and waits on a slot that holds a
// live index: its wait is bounded and reported (the erratum).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace alloclab::sim {

struct QueueTraceStep {
  std::string what;     // "enqueue 3", "dequeue"
  std::string outcome;  // "at position 5, slot 1 (the ring wrapped)", "empty", ...
  std::int32_t fill_count = 0;
  std::uint64_t front = 0, back = 0;
  std::vector<std::int64_t> slots;  // each slot's index; -1: the deletion marker (empty)
  bool stuck = false;               // an enqueue admitted with no free slot (printed check)
};

// `ops`: a comma list of `e` (enqueue the next index) and `d` (dequeue), at most 64, on a ring of
// `slots` slots (2 .. 16). InputError "--slots" / "--ops" otherwise. A stuck enqueue ends the
// trace (it holds its position for good).
std::vector<QueueTraceStep> trace_index_queue(std::uint32_t slots, const std::string& ops,
                                              bool printed_check);

}  // namespace alloclab::sim
