// The explorer on tiny programs whose numbers of executions are worked by hand: Mazurkiewicz
// traces (orders of the conflicting accesses) counted by formula, not by the explorer.
#include <catch2/catch.hpp>

#include <cstdint>
#include <functional>
#include <vector>

#include "alloclab/check/explorer.hpp"
#include "alloclab/check/scheduler.hpp"

namespace {

using namespace alloclab::check;
using A = CheckAtomics;

// Shared words, and each thread's body.
struct Tiny final : Program {
  std::vector<std::uint64_t> words = std::vector<std::uint64_t>(4, 0);
  std::vector<std::function<void(Tiny&)>> bodies;
  std::size_t threads() const override { return bodies.size(); }
  void reset() override { std::fill(words.begin(), words.end(), 0); }
  void run_thread(std::size_t t) override { bodies[t](*this); }
};

std::function<void(Tiny&)> rmws(std::size_t word, int n) {
  return [word, n](Tiny& p) {
    for (int i = 0; i < n; ++i) A::fetch_add(p.words[word], std::uint64_t{1});
  };
}

std::uint64_t binomial(std::uint64_t n, std::uint64_t k) {
  std::uint64_t r = 1;
  for (std::uint64_t i = 1; i <= k; ++i) r = r * (n - k + i) / i;
  return r;
}

ExploreStats run(Tiny& p, ExploreOptions o = {}) {
  const ExploreResult r = explore(p, o);
  CHECK_FALSE(r.violation);
  CHECK(r.stats.complete);
  return r.stats;
}

}  // namespace

TEST_CASE("check: 2 threads x 1 RMW on one word: exactly 2 executions", "[check]") {
  Tiny p;
  p.bodies = {rmws(0, 1), rmws(0, 1)};
  CHECK(run(p).executions == 2);
}

TEST_CASE("check: RMWs on independent words: 1 execution with DPOR", "[check]") {
  Tiny p;
  p.bodies = {rmws(0, 2), rmws(1, 2), rmws(2, 1)};
  const ExploreStats s = run(p);
  CHECK(s.executions == 1);
  // Without DPOR, sleep sets alone also keep one execution; the other orders are cut where
  // every enabled thread sleeps.
  ExploreOptions no_dpor;
  no_dpor.dpor = false;
  const ExploreStats t = run(p, no_dpor);
  CHECK(t.executions == 1);
  CHECK(t.sleep_blocked > 0);
}

TEST_CASE("check: all conflicting: the multinomial number of interleavings", "[check]") {
  // Two threads of n RMWs on one word: every interleaving is its own trace, C(2n, n).
  for (int n = 1; n <= 4; ++n) {
    Tiny p;
    p.bodies = {rmws(0, n), rmws(0, n)};
    CHECK(run(p).executions ==
          binomial(2 * static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(n)));
  }
  // Three threads of 1 and 2 RMWs: 5! / (1! 2! 2!) = 30; three of one each: 3! = 6.
  Tiny p;
  p.bodies = {rmws(0, 1), rmws(0, 2), rmws(0, 2)};
  CHECK(run(p).executions == 30);
  Tiny q;
  q.bodies = {rmws(0, 1), rmws(0, 1), rmws(0, 1)};
  CHECK(run(q).executions == 6);
}

TEST_CASE("check: reads commute, and two read-write races make 4 traces", "[check]") {
  Tiny p;
  p.bodies = {[](Tiny& s) { A::load(s.words[0]); }, [](Tiny& s) { A::load(s.words[0]); }};
  CHECK(run(p).executions == 1);
  // T0 writes x, T2 writes y, T1 reads x then y: each read before or after its write, 2 x 2.
  Tiny q;
  q.bodies = {[](Tiny& s) { A::exchange(s.words[0], std::uint64_t{1}); },
              [](Tiny& s) {
                A::load(s.words[0]);
                A::load(s.words[1]);
              },
              [](Tiny& s) { A::exchange(s.words[1], std::uint64_t{1}); }};
  CHECK(run(q).executions == 4);
}

TEST_CASE("check: the preemption bound counts schedules by their preemptions", "[check]") {
  // 2 threads x 2 RMWs on one word: AABB and BBAA have no preemption; ABBA and BAAB one;
  // ABAB and BABA two.
  const std::uint64_t want[] = {2, 4, 6};
  for (unsigned bound = 0; bound <= 2; ++bound) {
    Tiny p;
    p.bodies = {rmws(0, 2), rmws(0, 2)};
    ExploreOptions o;
    o.preemptions = bound;
    CHECK(run(p, o).executions == want[bound]);
  }
}

TEST_CASE("check: a spin on a flag nobody sets is a deadlock, one that is set is a wait",
          "[check]") {
  Tiny p;
  p.bodies = {[](Tiny& s) {
    while (A::load(s.words[0]) == 0) Execution::current().note_spin();
  }};
  const ExploreResult r = explore(p, {});
  REQUIRE(r.violation);
  CHECK(r.violation->message.rfind("deadlock", 0) == 0);
  CHECK(r.violation->schedule.size() == 2);  // two reads of the same 0: a wait
  Tiny q;
  q.bodies = {[](Tiny& s) {
                while (A::load(s.words[0]) == 0) Execution::current().note_spin();
              },
              [](Tiny& s) { A::exchange(s.words[0], std::uint64_t{1}); }};
  const ExploreResult r2 = explore(q, {});
  CHECK_FALSE(r2.violation);
  // The setter before the first read, or after one or two reads (then the spinner waits);
  // a third read never comes before the set: unfair schedules are not explored.
  CHECK(r2.stats.executions == 3);
  CHECK(r2.stats.spin_waits >= 1);
}
