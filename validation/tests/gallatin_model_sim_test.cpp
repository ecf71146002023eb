// gallatin: the simulator matches its sequential model exactly (model/src/gallatin.cpp): the
// atomics per request (teams of one in sequential mode, warp teams in lockstep), the block
// refills and the segments formatted, over classes, pool sizes (one vEB level and two) and N.
#include <catch2/catch.hpp>

#include <string>

#include "alloclab/cpu_sim/simulator.hpp"
#include "alloclab/model/model.hpp"

using namespace alloclab;

namespace {
std::uint64_t op_count(const sim::RunResult& r, const std::string& name) {
  for (const auto& [n, v] : r.op_counts)
    if (n == name) return v;
  return ~std::uint64_t{0};
}
}  // namespace

TEST_CASE("gallatin: the simulator matches the model of atomics per slice allocation",
          "[validation][gallatin]") {
  struct P {
    std::uint64_t N, segments;
    unsigned pages;
  };
  const P p = GENERATE(P{10000, 1, 4}, P{4096, 1, 1}, P{65536, 4, 16}, P{131072, 64, 256},
                       P{131072, 65, 256}, P{100000, 8, 33}, P{32768, 8, 128});
  for (const sim::Mode mode : {sim::Mode::sequential, sim::Mode::lockstep}) {
    CAPTURE(p.N, p.segments, p.pages, sim::mode_name(mode));
    Scenario s;
    s.algo = Algorithm::gallatin;
    s.N = p.N;
    s.A = s.T = p.segments << 20;
    s.pages = p.pages;
    s.seed = 3;
    const Record m = model::evaluate(s);
    sim::SimOptions o;
    o.mode = mode;
    const sim::RunResult r = sim::run_once(s, o, 0);
    CHECK(r.failed == 0);
    CHECK(op_count(r, "block_refills") == m.number("block_refills"));
    CHECK(op_count(r, "segments_formatted") == m.number("segments_formatted"));
    const auto key =
        mode == sim::Mode::sequential ? "atomics_per_request" : "atomics_per_request_teams";
    if (const auto want = m.number(key))
      CHECK(static_cast<double>(r.atomics_issued) / static_cast<double>(s.N) ==
            Approx(*want).epsilon(1e-12));
  }
}
