// CoRW's bit orders (--bit-choice lowest|rotated, core/bit_choice.hpp): the lowest order is the
// paper's; rotated views lane t's word rotated by t * w / lanes, so its offers, its share and the
// replacements of its lost bits are taken from that bit on, cyclically. Hand-worked cases, and the
// properties that make rotated a pure change of bit positions.
#include <catch2/catch.hpp>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/probe_sequence.hpp"
#include "alloclab/cpu_sim/corw_share.hpp"
#include "alloclab/cpu_sim/simulator.hpp"

using namespace alloclab;
using namespace alloclab::sim;

namespace {

Scenario corw(std::uint64_t N, std::uint64_t A, std::uint64_t T, unsigned w, unsigned lanes,
              std::uint64_t seed, BitChoice c) {
  Scenario s;
  s.algo = Algorithm::corw;
  s.N = N;
  s.A = A;
  s.T = T;
  s.w = w;
  s.lanes = lanes;
  s.seed = seed;
  s.bit_choice = c;
  return s;
}

SimOptions in_mode(Mode m) {
  SimOptions o;
  o.mode = m;
  o.host_threads = 1;
  return o;
}

}  // namespace

TEST_CASE("corw_share offers each lane's free bits from its rotation on", "[cpu_sim][corw]") {
  // w = 8, four lanes, all needing; rotations 0, 2, 4, 6 (lane * 8 / 4).
  //   lane 0: word 10, free bits {1, 5}    -> view order 1, 5        (pages 81, 85)
  //   lane 1: word 20, free bits {0, 3, 6} -> from bit 2: 3, 6, 0    (163, 166, 160)
  //   lane 2: word 30, nothing free
  //   lane 3: word 40, free bits {2, 7}    -> from bit 6: 7, 2       (327, 322)
  // Iteration 1: holders 0, 1, 3 offer 81, 163, 327; needers of rank 0, 1, 2 (lanes 0, 1, 2)
  // take them. Iteration 2: offers 85, 166, 322; lane 3 (rank 0 among the needers left) takes
  // lane 0's 85. Lowest order instead: iteration 1 offers 81, 160, 322, iteration 2 gives 85.
  std::vector<CorwLaneInput> in{
      {10, 0xdd, true, 0}, {20, 0xb6, true, 2}, {30, 0xff, true, 4}, {40, 0x7b, true, 6}};
  const auto rot = corw_share(in, 8, true);
  REQUIRE(rot.trace.size() == 2);
  CHECK(rot.trace[0].b == std::vector<std::int64_t>{81, 163, -1, 327});
  CHECK(rot.trace[1].b == std::vector<std::int64_t>{85, 166, -1, 322});
  CHECK(rot.pageID == std::vector<std::int64_t>{81, 163, 327, 85});
  CHECK(rot.handed_out == std::vector<std::uint64_t>{0x22, 0x08, 0, 0x80});
  for (auto& lane : in) lane.rot = 0;
  const auto low = corw_share(in, 8);
  CHECK(low.pageID == std::vector<std::int64_t>{81, 160, 322, 85});
  CHECK(low.handed_out == std::vector<std::uint64_t>{0x22, 0x01, 0, 0x04});
}

TEST_CASE("CoRW rotated, one warp on one all-free word: lane t takes bit t * w / lanes",
          "[cpu_sim][corw][bit_choice]") {
  // T = 32 pages in one 32-bit word, all free; one warp of 4 lanes, all reading word 0 (there is
  // no other). Rotated: lane t's view starts at bit 8t, so it offers bit 8t; the needing lane of
  // rank t takes lane t's offer and each lane claims its own bit: pages 0, 8, 16, 24, no
  // collision, one atomic each. Lowest: every lane offers bit 0 and claims it (lane order):
  // lane 0 wins it, lanes 1..3 each lose it once and take the lowest free bit of the value the
  // OR returned (1, 2, 3): pages 0, 1, 2, 3, 3 collisions, 3 failed claims, 7 atomics.
  for (Mode m : {Mode::sequential, Mode::lockstep, Mode::threads}) {
    CAPTURE(mode_name(m));
    const RunResult rot = run_once(corw(4, 32, 32, 32, 4, 7, BitChoice::rotated), in_mode(m), 0);
    CHECK(rot.first_page == std::vector<std::int64_t>{0, 8, 16, 24});
    CHECK(rot.steps == std::vector<std::uint32_t>{1, 1, 1, 1});
    CHECK(rot.collisions == 0);
    CHECK(rot.failed_claims == 0);
    CHECK(rot.atomics_issued == 4);
    const RunResult low = run_once(corw(4, 32, 32, 32, 4, 7, BitChoice::lowest), in_mode(m), 0);
    CHECK(low.first_page == std::vector<std::int64_t>{0, 1, 2, 3});
    CHECK(low.steps == std::vector<std::uint32_t>{1, 1, 1, 1});
    CHECK(low.collisions == 3);
    CHECK(low.failed_claims == 3);
    CHECK(low.atomics_issued == 7);
  }
}

TEST_CASE("CoRW rotated replaces a lost bit from the lane's rotation on, wrapping around",
          "[cpu_sim][corw][bit_choice]") {
  // T = 8 pages in one 8-bit word, A = 4: with seed 196 the free pages are 0, 1, 6, 7 (asserted
  // below from the pool itself). One warp of 4 lanes, rotations 0, 2, 4, 6, all on word 0.
  // Plan (the snapshots): lane 0 offers bit 0, lanes 1, 2, 3 the first free bit from 2, 4, 6:
  // bit 6 each; lane t takes lane t's offer, so each claims its own offer, in lane order:
  //   lane 0 ORs bit 0: wins.   lane 1 ORs bit 6: wins.
  //   lane 2 ORs bit 6: lost (1 collision); free now 1, 7; the first from bit 4 is 7: wins.
  //   lane 3 ORs bit 6: lost (1 collision); free now 1; from bit 6 cyclically: 1: wins.
  // Each lane won one bit and hands it to itself: pages 0, 6, 7, 1; 2 collisions, 2 failed
  // claims, 6 atomics. Lowest: all claim bit 0; lanes 1, 2, 3 lose it and take 1, 6, 7:
  // pages 0, 1, 6, 7, 3 collisions, 7 atomics.
  const Scenario probe = corw(4, 4, 8, 8, 4, 196, BitChoice::rotated);
  {
    auto a = make_allocator(probe, SimOptions{}, trial_seed(probe.seed, 0));
    REQUIRE((a->used_pages().front() & 0xff) == 0x3c);  // pages 2..5 used: 0, 1, 6, 7 free
  }
  for (Mode m : {Mode::sequential, Mode::lockstep, Mode::threads}) {
    CAPTURE(mode_name(m));
    const RunResult rot = run_once(probe, in_mode(m), 0);
    CHECK(rot.first_page == std::vector<std::int64_t>{0, 6, 7, 1});
    CHECK(rot.steps == std::vector<std::uint32_t>{1, 1, 1, 1});
    CHECK(rot.collisions == 2);
    CHECK(rot.failed_claims == 2);
    CHECK(rot.atomics_issued == 6);
    Scenario lowest = probe;
    lowest.bit_choice = BitChoice::lowest;
    const RunResult low = run_once(lowest, in_mode(m), 0);
    CHECK(low.first_page == std::vector<std::int64_t>{0, 1, 6, 7});
    CHECK(low.collisions == 3);
    CHECK(low.atomics_issued == 7);
  }
}

TEST_CASE("CoRW rotated with every lane at offset 0 is lowest", "[cpu_sim][corw][bit_choice]") {
  // One lane per warp (lanes = 1): lane 0's offset 0 * w / 1 = 0 for every thread, so rotated
  // must reproduce lowest exactly, contention included (many one-lane warps per word).
  for (Mode m : {Mode::sequential, Mode::lockstep}) {
    for (unsigned w : {32u, 64u}) {
      CAPTURE(mode_name(m), w);
      const RunResult low =
          run_once(corw(3000, 4000, 8192, w, 1, 11, BitChoice::lowest), in_mode(m), 0);
      const RunResult rot =
          run_once(corw(3000, 4000, 8192, w, 1, 11, BitChoice::rotated), in_mode(m), 0);
      CHECK(rot.first_page == low.first_page);
      CHECK(rot.steps == low.steps);
      CHECK(rot.collisions == low.collisions);
      CHECK(rot.failed_claims == low.failed_claims);
      CHECK(rot.atomics_issued == low.atomics_issued);
      if (m == Mode::lockstep) CHECK(low.collisions > 0);  // the case does have contention
    }
  }
}

TEST_CASE("CoRW bit orders change bit positions only: same steps, same words",
          "[cpu_sim][corw][bit_choice]") {
  // A lane's share and the bits it wins are counts fixed by the free-bit counts of the words
  // read (a lost bit is replaced until the share is held or the word is full), whichever bits
  // it targets; so every lane gets its page in the same round from the same word. Only the bit,
  // and the collisions, change; at ~6 threads per word (lockstep) rotated loses fewer bits.
  for (unsigned w : {32u, 64u})
    for (Mode m : {Mode::sequential, Mode::lockstep}) {
      CAPTURE(w, mode_name(m));
      const RunResult low =
          run_once(corw(20000, 25000, 100000, w, 32, 4, BitChoice::lowest), in_mode(m), 0);
      const RunResult rot =
          run_once(corw(20000, 25000, 100000, w, 32, 4, BitChoice::rotated), in_mode(m), 0);
      CHECK(rot.steps == low.steps);
      std::uint64_t same_word = 0, same_page = 0;
      for (std::size_t i = 0; i < low.first_page.size(); ++i) {
        same_word += rot.first_page[i] / w == low.first_page[i] / w;
        same_page += rot.first_page[i] == low.first_page[i];
      }
      CHECK(same_word == low.first_page.size());
      CHECK(same_page < low.first_page.size());
      CHECK(rot.collisions <= low.collisions);
      if (m == Mode::lockstep) CHECK(rot.collisions < low.collisions);
    }
}

TEST_CASE("CoRW rejects a bit choice it does not implement", "[cpu_sim][corw][bit_choice]") {
  CHECK_THROWS_AS(run_once(corw(64, 1000, 4096, 32, 32, 1, BitChoice::random), SimOptions{}, 0),
                  InputError);
  Scenario lockmap = corw(64, 1000, 4096, 32, 32, 1, BitChoice::rotated);
  lockmap.algo = Algorithm::corw_lockmap;  // the paper's Algorithm 2 as written: lowest only
  CHECK_THROWS_AS(run_once(lockmap, SimOptions{}, 0), InputError);
}
