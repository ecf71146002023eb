// `alloclab trace --allocator gallatin`: a team's path through the segment tree, the block tree
// and a block's slices, against a case worked by hand from Alg. 1-4 (McCoy & Pandey, PPoPP'24)
// and the trace's geometry (segments of 32 KiB, blocks of 8 slices).
#include <catch2/catch.hpp>

#include <string>

#include "alloclab/studies/gallatin_trace.hpp"

using alloclab::cli::TraceRequest;
using alloclab::studies::gallatin_trace;

TEST_CASE("trace --allocator gallatin: two teams of 16 B, one block running out, frees",
          "[gallatin][trace]") {
  // By hand. 4 MiB = 128 segments of 32 KiB: vEB trees of 2 levels (2 root bits, 128 leaves).
  // Class 0: slices of 16 B, blocks of 8 x 16 = 128 B, 256 blocks a segment.
  //  team 0 (5 lanes): slot 0 empty -> get_block finds block tree 0 empty -> get_segment claims
  //    segment 0 (leaf 0 of the segment tree cleared), formats it (ring of 256), inserts it in
  //    block tree 0 (leaf 0 and root bit 0 set); the gate takes 1 of 256, block 0 dequeued. One
  //    atomicAdd(5) on its malloc counter: slices 0-4, offsets 0, 16, ..., 64.
  //  team 1 (4 lanes): slot 0 holds block 0 at 5. atomicAdd(4) -> old 5: slices 5-7 (3 lanes);
  //    the team took the last slice: get_block -> block 1 of segment 0 (no format); the lane
  //    left over adds 1 on block 1: slice 0, offset 128. Two atomicAdds on malloc counters.
  //  f0: block 0's free counter + 5 (one atomicAdd): 5 < 8, nothing goes back.
  //  f1: block 0's + 3 -> 8: every slice back, block 0 returns to segment 0's ring (255 + 1
  //    ... the ring had 254 after two blocks were taken: 255); block 1's + 1.
  TraceRequest r;
  r.allocator = "gallatin";
  r.ops = "a16x5,a16x4,f0,f1";
  const auto doc = gallatin_trace(r);
  const auto& steps = doc.json.at("steps");
  REQUIRE(steps.size() == 4);
  const auto& t0 = steps[0];
  REQUIRE(t0.at("lanes").size() == 5);
  for (int i = 0; i < 5; ++i) {
    CHECK(t0.at("lanes")[i].at("offset") == 16 * i);
    CHECK(t0.at("lanes")[i].at("segment") == 0);
    CHECK(t0.at("lanes")[i].at("block") == 0);
    CHECK(t0.at("lanes")[i].at("slice") == i);
  }
  CHECK(t0.at("slot_block_before").is_null());
  CHECK(t0.at("malloc_counter_adds") == 1);  // the team's one atomic
  CHECK(t0.at("segments_formatted") == 1);
  CHECK(t0.at("block_refills") == 1);
  const std::string leaves0 = t0.at("segment_tree")[1];
  CHECK(leaves0 == "." + std::string(127, '1'));
  CHECK(t0.at("segment_tree")[0] == "11");  // the root's word for leaves 0-63 still not empty
  CHECK(t0.at("block_trees").at("0")[0] == "1.");
  CHECK(t0.at("block_trees").at("0")[1] == "1" + std::string(127, '.'));
  CHECK(t0.at("slots").at("0").at("malloc_counter") == 5);

  const auto& t1 = steps[1];
  REQUIRE(t1.at("lanes").size() == 4);
  for (int i = 0; i < 3; ++i) {
    CHECK(t1.at("lanes")[i].at("block") == 0);
    CHECK(t1.at("lanes")[i].at("slice") == 5 + i);
  }
  CHECK(t1.at("lanes")[3].at("block") == 1);
  CHECK(t1.at("lanes")[3].at("slice") == 0);
  CHECK(t1.at("lanes")[3].at("offset") == 128);
  CHECK(t1.at("slot_block_before") == 0);
  CHECK(t1.at("malloc_counter_before") == 5);
  CHECK(t1.at("malloc_counter_adds") == 2);
  CHECK(t1.at("segments_formatted") == 0);
  CHECK(t1.at("block_refills") == 1);
  CHECK(t1.at("slots").at("0").at("block") == 1);
  CHECK(t1.at("slots").at("0").at("malloc_counter") == 1);
  CHECK(t1.at("slots").at("0").at("ring_available") == 254);

  CHECK(steps[2].at("blocks_returned") == 0);
  CHECK(steps[3].at("blocks_returned") == 1);
  CHECK(steps[3].at("slots").at("0").at("ring_available") == 255);
  CHECK(steps[3].at("slots").at("0").at("free_counter") == 1);
  CHECK(doc.svg.find("<svg") == 0);
}
