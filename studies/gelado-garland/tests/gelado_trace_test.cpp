// `alloclab trace` for Gelado & Garland (PPoPP'19): Figure 1(a) and 1(b) and UAlloc's bins, each
// against values worked out by hand from the paper's prose (§3.2, §3.3, §4.2) and the layout's
// arithmetic, never from the trace's own output.
#include <catch2/catch.hpp>

#include <array>
#include <string>
#include <vector>

#include "alloclab/studies/gelado_traces.hpp"

using alloclab::cli::TraceRequest;
using alloclab::studies::semaphore_figure1_trace;
using alloclab::studies::ualloc_trace;

TEST_CASE("trace --figure 1b: C, E, R at every event of the bulk semaphore", "[gelado][trace]") {
  // By hand, from §3.3 and Alg. 1-2: T0 grows (E = 3, returns -1); T1-T3 each read, reserve
  // (R + 1) and wait; T4 finds C + E - R = 0 and grows too (E = 6); T5-T7 reserve T4's units;
  // T0's batch: signal(3, 3); T1-T3 each leave, drop R, take; T5 waits on at R = 3 <= C + E = 3;
  // T4's batch; T5-T7 each leave, drop R, take.
  const std::vector<std::array<int, 5>> expected{
      // thread, C, E, R, returns (9: none)
      {0, 0, 0, 0, 9}, {0, 0, 3, 0, -1},                    // T0
      {1, 0, 3, 0, 9}, {1, 0, 3, 1, 9},  {1, 0, 3, 1, 9},   // T1
      {2, 0, 3, 1, 9}, {2, 0, 3, 2, 9},  {2, 0, 3, 2, 9},   // T2
      {3, 0, 3, 2, 9}, {3, 0, 3, 3, 9},  {3, 0, 3, 3, 9},   // T3
      {4, 0, 3, 3, 9}, {4, 0, 6, 3, -1},                    // T4 grows
      {5, 0, 6, 3, 9}, {5, 0, 6, 4, 9},  {5, 0, 6, 4, 9},   // T5
      {6, 0, 6, 4, 9}, {6, 0, 6, 5, 9},  {6, 0, 6, 5, 9},   // T6
      {7, 0, 6, 5, 9}, {7, 0, 6, 6, 9},  {7, 0, 6, 6, 9},   // T7
      {0, 3, 3, 6, 9},                                      // T0's batch
      {1, 3, 3, 6, 9}, {1, 3, 3, 5, 9},  {1, 2, 3, 5, 0},   // T1 takes
      {2, 2, 3, 5, 9}, {2, 2, 3, 4, 9},  {2, 1, 3, 4, 0},   // T2
      {3, 1, 3, 4, 9}, {3, 1, 3, 3, 9},  {3, 0, 3, 3, 0},   // T3
      {5, 0, 3, 3, 9},                                      // T5 waits on
      {4, 3, 0, 3, 9},                                      // T4's batch
      {5, 3, 0, 3, 9}, {5, 3, 0, 2, 9},  {5, 2, 0, 2, 0},   // T5
      {6, 2, 0, 2, 9}, {6, 2, 0, 1, 9},  {6, 1, 0, 1, 0},   // T6
      {7, 1, 0, 1, 9}, {7, 1, 0, 0, 9},  {7, 0, 0, 0, 0}};  // T7
  const auto doc = semaphore_figure1_trace(true);
  const auto& events = doc.json.at("events");
  REQUIRE(events.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    CAPTURE(i + 1);
    CHECK(events[i].at("thread") == expected[i][0]);
    CHECK(events[i].at("C") == expected[i][1]);
    CHECK(events[i].at("E") == expected[i][2]);
    CHECK(events[i].at("R") == expected[i][3]);
    if (expected[i][4] == 9)
      CHECK(events[i].at("returns").is_null());
    else
      CHECK(events[i].at("returns") == expected[i][4]);
  }
  CHECK(doc.json.at("growers") == 2);  // the paper's bound: 8 requests / batches of 4
  CHECK(doc.json.at("takers") == 6);
  CHECK(doc.text.find("   13 T4      0  6  3       -1  C + E - R = 0 < N: grows") !=
        std::string::npos);
  CHECK(doc.svg.find("<svg") == 0);
}

TEST_CASE("trace --figure 1a: S at every event of the counting semaphore", "[gelado][trace]") {
  // By hand, from §3.2: T0 reads 0 and sets -1 (returns 0); T1-T7 block on -1; signal(4) leaves
  // 3; T1-T3 take (3 -> 2 -> 1 -> 0, returning 1); T4 reads 0 and grows; T5-T7 block; T4's
  // signal leaves 3; T5-T7 take.
  const std::vector<std::array<int, 3>> expected{
      {0, 0, 9},  {0, -1, 0},  // T0 grows
      {1, -1, 9}, {2, -1, 9}, {3, -1, 9}, {4, -1, 9}, {5, -1, 9}, {6, -1, 9},
      {7, -1, 9}, {0, 3, 9},                                                  // signal(4)
      {1, 3, 9},  {1, 2, 1},  {2, 2, 9},  {2, 1, 1},  {3, 1, 9},  {3, 0, 1},  // T1-T3 take
      {4, 0, 9},  {4, -1, 0},                                                 // T4 grows
      {5, -1, 9}, {6, -1, 9}, {7, -1, 9},                                     // block again
      {4, 3, 9},                                                              // T4's signal
      {5, 3, 9},  {5, 2, 1},  {6, 2, 9},  {6, 1, 1},  {7, 1, 9},  {7, 0, 1}};
  const auto doc = semaphore_figure1_trace(false);
  const auto& events = doc.json.at("events");
  REQUIRE(events.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    CAPTURE(i + 1);
    CHECK(events[i].at("thread") == expected[i][0]);
    CHECK(events[i].at("S") == expected[i][1]);
    if (expected[i][2] == 9)
      CHECK(events[i].at("returns").is_null());
    else
      CHECK(events[i].at("returns") == expected[i][2]);
  }
  CHECK(doc.json.at("growers") == 2);
  CHECK(doc.json.at("takers") == 6);
}

TEST_CASE("trace --allocator gg-ualloc: a bin of 1 KB fills, the next one opens, frees retire",
          "[gelado][trace]") {
  // By hand (§4.2, ualloc_layout.hpp): a 1 KB slot class (k = 7) has 3 slots a bin (3968 B of
  // body, no tail above 128 B); bins 0-1 are the chunk's special ones, so the first grower takes
  // bin 2 of chunk 0 (offset 2 x 4096 + 128), keeps slot 0 and signals the other 2 (C = 2). Two
  // takers fill slots 1, 2 (+1024 B each); the third exhausts the bin, which leaves its list
  // (C = 0). The fourth request grows bin 3 (offset 3 x 4096 + 128, C = 2). Freeing the first
  // request's three objects: the first relinks bin 2 at the head (C = 3), the second C = 4, the
  // third empties it: signal, then try-wait(3) retires it (C = 5 - 3 = 2), back to its chunk;
  // the fourth object empties bin 3 too: C = 3 - 3 = 0, the list empty, both bins free.
  TraceRequest r;
  r.allocator = "gg-ualloc";
  r.ops = "a1024x3,a1024,f0,f1";
  const auto doc = ualloc_trace(r);
  const auto& steps = doc.json.at("steps");
  REQUIRE(steps.size() == 8);
  const std::vector<long> offsets{8320, 9344, 10368, 12416};
  const std::vector<int> C{2, 1, 0, 2, 3, 4, 2, 0};
  const std::vector<std::string> maps{"HH7", "HH7", "HH7", "HH77", "HH77", "HH77", "HH.7", "HH.."};
  for (std::size_t i = 0; i < steps.size(); ++i) {
    CAPTURE(i);
    const auto& state = steps[i].at("state");
    CHECK(state.at("classes").at(0).at("class") == 7);
    CHECK(state.at("classes").at(0).at("C") == C[i]);
    CHECK(state.at("classes").at(0).at("E") == 0);
    CHECK(state.at("classes").at(0).at("R") == 0);
    const std::string bins = state.at("chunks").at(0).at("bins");
    CHECK(bins == maps[i] + std::string(64 - maps[i].size(), '.'));
    if (i < 4) CHECK(steps[i].at("offset") == offsets[i]);
  }
  CHECK(steps[0].at("grew") == true);
  CHECK(steps[0].at("chunk_refills") == 1);
  CHECK(steps[1].at("grew") == false);
  CHECK(steps[2].at("unlinks") == 1);  // exhausted: off the list
  CHECK(steps[2].at("state").at("classes").at(0).at("list").empty());
  CHECK(steps[3].at("chunk_refills") == 0);  // bin 3 from chunk 0, already the arena's
  CHECK(steps[4].at("relinks") == 1);
  const auto& list = steps[4].at("state").at("classes").at(0).at("list");
  REQUIRE(list.size() == 2);
  CHECK(list[0].at("bin") == 2);  // linked at the head
  CHECK(list[0].at("free") == 1);
  CHECK(list[1].at("bin") == 3);
  CHECK(steps[6].at("retires") == 1);
  CHECK(steps[7].at("retires") == 1);
  CHECK(steps[7].at("state").at("classes").at(0).at("list").empty());
  CHECK(doc.svg.find("<svg") == 0);
}
