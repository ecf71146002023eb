// Variant C's walk, replayed: lanes that hold a unit of the semaphore start their walks of one
// class's chunk queue (ouro-c-s) together and step in lockstep (every lane one memory operation
// a round, in lane order), on a queue prepared entry by entry: f free pages on entry j's chunk,
// or a dead entry (a hole, as a flashed chunk leaves) where f = 0. The walks are the shared step
// machines (core/ouroboros/chunk_page.hpp's ChunkTakeOp), the ones the simulator and the GPU run;
// what this replay fixes is only the start: every lane at front in the same round, which the
// model of model/ouro_walk.hpp assumes and a real run only approaches.
#pragma once

#include <cstdint>
#include <span>

namespace alloclab::sim {

struct WalkReplay {
  double mean_walk = 0;        // positions passed before the serving entry, per lane
  std::uint32_t max_walk = 0;  // the longest walk of a lane
  std::uint64_t rounds = 0;    // lockstep rounds until the last lane had its page
  std::uint64_t pages_taken = 0;
};

// `page_class`: Ouroboros class k (pages of 16 * 2^k bytes); free_per_entry[j] <= its pages per
// chunk. std::invalid_argument where the entries hold fewer free pages than `lanes`, or a count
// exceeds a chunk's pages; VerificationError (core/errors.hpp) where a page is handed out twice or
// a lane does not finish within the replay's bound.
WalkReplay replay_lanes_together(unsigned page_class, std::span<const std::uint32_t> free_per_entry,
                                 std::uint64_t lanes);

}  // namespace alloclab::sim
