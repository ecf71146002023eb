// `alloclab trace --allocator dynasoar*`: the hierarchical bitmaps' levels as objects are
// allocated and freed, against cases worked by hand from Alg. 1-2, 6-9 and §4.1-4.2 (Springer &
// Masuhara, ECOOP'19): which bits each operation sets or clears, level by level.
#include <catch2/catch.hpp>

#include <string>
#include <tuple>
#include <vector>

#include "alloclab/studies/dynasoar_trace.hpp"

using alloclab::cli::TraceRequest;
using alloclab::studies::dynasoar_trace;

namespace {

using Change = std::tuple<std::string, int, int, bool>;  // bitmap, level, bit, set

std::vector<Change> changes(const nlohmann::json& step) {
  std::vector<Change> out;
  for (const auto& c : step.at("changes"))
    out.emplace_back(c.at("bitmap"), c.at("level"), c.at("bit"), c.at("set"));
  return out;
}

TraceRequest request(const std::string& allocator, const std::string& ops) {
  TraceRequest r;
  r.allocator = allocator;
  r.ops = ops;
  return r;
}

}  // namespace

TEST_CASE("trace dynasoar-norot: set-first and clear-last carry up a level", "[dynasoar][trace]") {
  // By hand: 8192 pages = 128 blocks, so every block bitmap has 2 levels (level 1: 2 bits, one
  // per container of 64 blocks). Type 32 (32 pages): 2 slots a block.
  //  a32: active[32] empty: 5 lookups fail (r = 5), the slow path claims free's first bit,
  //    block 0 (its container keeps 63 bits: level 1 unchanged); allocated[32] and active[32]
  //    set bit 0, each the first of its container: set-first carries to level 1 bit 0.
  //  a32: lookup finds block 0; the reservation of slot 1 fills it: active[32] clears bit 0,
  //    the last of its container: clear-last clears level 1 bit 0 too.
  //  a32: 5 lookups fail, block 1 claimed: allocated[32] bit 1 (container not empty: no carry),
  //    active[32] bit 1, the first again: level 1 bit 0 set.
  //  f0 (block 0 slot 0): block 0 was full (FIRST): active[32] bit 0 set; level 1 already set.
  //  f1 (block 0 slot 1): empty: invalidated and deleted: active[32] and allocated[32] clear bit
  //    0 (bit 1 keeps their containers non-empty), free sets bit 0.
  const auto doc = dynasoar_trace(request("dynasoar-norot", "a32,a32,a32,f0,f1"));
  const auto& steps = doc.json.at("steps");
  REQUIRE(steps.size() == 5);
  // Within a step: bitmaps by name (active, allocated, free), the top level first.
  CHECK(changes(steps[0]) == std::vector<Change>{{"active[32]", 1, 0, true},
                                                 {"active[32]", 0, 0, true},
                                                 {"allocated[32]", 1, 0, true},
                                                 {"allocated[32]", 0, 0, true},
                                                 {"free", 0, 0, false}});
  CHECK(changes(steps[1]) ==
        std::vector<Change>{{"active[32]", 1, 0, false}, {"active[32]", 0, 0, false}});
  CHECK(changes(steps[2]) == std::vector<Change>{{"active[32]", 1, 0, true},
                                                 {"active[32]", 0, 1, true},
                                                 {"allocated[32]", 0, 1, true},
                                                 {"free", 0, 1, false}});
  CHECK(changes(steps[3]) == std::vector<Change>{{"active[32]", 0, 0, true}});
  CHECK(changes(steps[4]) == std::vector<Change>{{"active[32]", 0, 0, false},
                                                 {"allocated[32]", 0, 0, false},
                                                 {"free", 0, 0, true}});
  CHECK(steps[0].at("objects")[0].at("block") == 0);
  CHECK(steps[0].at("objects")[0].at("slot") == 0);
  CHECK(steps[1].at("objects")[0].at("slot") == 1);
  CHECK(steps[1].at("objects")[0].at("page") == 32);
  CHECK(steps[2].at("objects")[0].at("page") == 64);
  CHECK(steps[0].at("lookups") == 5);
  CHECK(steps[0].at("lookup_fails") == 5);
  CHECK(steps[0].at("blocks_initialised") == 1);
  CHECK(steps[1].at("lookups") == 1);
  CHECK(steps[1].at("blocks_initialised") == 0);
  CHECK(steps[3].at("deleted_blocks") == 0);
  CHECK(steps[4].at("deleted_blocks") == 1);
  const std::string free_top = steps[4].at("bitmaps").at("free")[0];
  CHECK(free_top == "11");
  CHECK(doc.svg.find("<svg") == 0);
}

TEST_CASE("trace dynasoar: rotation moves the first claim, coalescing shares one atomicOr",
          "[dynasoar][trace]") {
  // Rotation, seed 1, warp 0: the lookups use seeds 2..6, the slow path's claim seed 7, so
  // free's search starts at bit 7 of each level: level 1 (bits 0, 1) wraps to bit 0, level 0
  // gives block 7; the reservation starts at slot (7 + 0) mod 64 = 7 and wraps to slot 0.
  // Warp 1 then finds block 7 in active[32] (from bit 3: 7) and takes its other slot, 1.
  auto r = request("dynasoar", "a32,a32");
  r.grid.seed = 1;
  const auto rotated = dynasoar_trace(r).json.at("steps");
  CHECK(rotated[0].at("objects")[0].at("block") == 7);
  CHECK(rotated[0].at("objects")[0].at("slot") == 0);
  CHECK(rotated[1].at("objects")[0].at("block") == 7);
  CHECK(rotated[1].at("objects")[0].at("slot") == 1);
  CHECK(rotated[1].at("objects")[0].at("page") == 7 * 64 + 32);
  // Coalescing: three lanes asking one page each, served by their leader: one atomicOr takes
  // slots 0-2 of block 0 (no rotation). Without coalescing each lane reserves on its own.
  const auto coalesced = dynasoar_trace(request("dynasoar-norot", "a1x3")).json.at("steps");
  CHECK(coalesced[0].at("reserves") == 1);
  REQUIRE(coalesced[0].at("objects").size() == 3);
  for (int i = 0; i < 3; ++i) {
    CHECK(coalesced[0].at("objects")[i].at("block") == 0);
    CHECK(coalesced[0].at("objects")[i].at("slot") == i);
  }
  auto lone = request("dynasoar-nocoal", "a1x3");
  lone.grid.seed = 0;
  const auto alone = dynasoar_trace(lone).json.at("steps");
  CHECK(alone[0].at("reserves") == 3);
  REQUIRE(alone[0].at("objects").size() == 3);
}
