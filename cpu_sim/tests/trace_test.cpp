// The lockstep round record of `alloclab trace` (cpu_sim/trace.hpp), against the run it records
// and against paper 000's §3.2.2 claim that serving the requests one at a time gives the same
// outcome: replayed in the order their claims landed, every thread takes the same page after
// the same number of probes.
#include <catch2/catch.hpp>

#include <map>

#include "alloclab/cpu_sim/simulator.hpp"
#include "alloclab/cpu_sim/trace.hpp"

using namespace alloclab;
using namespace alloclab::sim;

namespace {

Scenario small(Algorithm algo, std::uint64_t N, std::uint64_t A, std::uint64_t T, unsigned w,
               std::uint64_t seed) {
  Scenario s;
  s.algo = algo;
  s.N = N;
  s.A = A;
  s.T = T;
  s.w = w;
  s.seed = seed;
  return s;
}

// Checks one trace against the unrecorded lockstep run of the same trial and against the
// one-at-a-time replay; returns whether two threads crossed (saw one free page, RW, in one round).
bool check_trace(const Scenario& s) {
  const LockstepTrace t = trace_lockstep(s);
  SimOptions o;
  o.mode = Mode::lockstep;
  o.host_threads = 1;
  const RunResult r = run_once(s, o, 0);
  REQUIRE(t.used_before.size() == s.T);
  std::uint64_t free_before = 0;
  for (bool u : t.used_before) free_before += !u;
  CHECK(free_before == s.A);
  // Every unfinished thread probes once a round; a thread's rounds are its steps.
  std::map<std::uint64_t, std::uint64_t> rounds_of;
  bool crossed = false;
  std::vector<bool> used = t.used_before;
  for (const auto& round : t.rounds) {
    std::map<std::uint64_t, int> claimants;
    for (const auto& p : round.probes) {
      ++rounds_of[p.thread];
      if (p.saw_free) ++claimants[p.target];
      if (p.won >= 0) {
        CHECK(p.saw_free);
        CHECK_FALSE(used[static_cast<std::uint64_t>(p.won)]);  // never a page already taken
        used[static_cast<std::uint64_t>(p.won)] = true;
      }
    }
    for (const auto& [target, k] : claimants) crossed = crossed || k > 1;
    CHECK(round.used_after == used);  // the pool after the round: before + the round's wins
  }
  for (std::uint64_t i = 0; i < s.N; ++i) {
    CHECK(rounds_of[i] == r.steps[i]);
    // the trace's last round for thread i holds its page
  }
  const auto replay = replay_one_at_a_time(s, t);
  for (std::uint64_t i = 0; i < s.N; ++i) {
    INFO("thread " << i);
    CHECK(replay[i].page == r.first_page[i]);
    CHECK(replay[i].probes == r.steps[i]);
  }
  return crossed;
}

}  // namespace

TEST_CASE("trace: RW's rounds add up to the run, and one at a time gives the same outcome",
          "[sim][trace]") {
  int crossings = 0;
  for (std::uint64_t seed = 1; seed <= 60; ++seed)
    crossings += check_trace(small(Algorithm::rw, 7, 9, 16, 32, seed));
  CHECK(crossings > 0);  // Figure 3's situation occurs among these seeds
}

TEST_CASE("trace: RW-BM (lowest free bit) replays one at a time to the same pages",
          "[sim][trace]") {
  for (std::uint64_t seed = 1; seed <= 30; ++seed)
    check_trace(small(Algorithm::rwbm, 12, 20, 64, 8, seed));
}

TEST_CASE("trace: only the per-thread random walks are traced", "[sim][trace]") {
  CHECK_THROWS_WITH(trace_lockstep(small(Algorithm::queue, 2, 4, 8, 32, 1)),
                    Catch::Contains("--allocator"));
}
