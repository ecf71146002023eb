// RW-BM claim semantics of the GPU kernel (gpu/src/rwbm.cu): a lost claim retries the next free
// bit of the word the atomic returned, within the same step; only an exhausted word costs a
// step. Pinned on a hand-worked lockstep round.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <vector>

#include "alloclab/core/probe_sequence.hpp"
#include "alloclab/cpu_sim/simulator.hpp"
#include "detail.hpp"

using namespace alloclab;
using namespace alloclab::sim;

TEST_CASE("lockstep RW-BM: three threads on one word with two free bits", "[cpu_sim][rwbm]") {
  // T = 64 pages in two 32-bit words. Word 0 has exactly two free pages (5 and 9), word 1 is
  // all free. Pick a probe seed whose round-0 probes send all three threads to word 0.
  Scenario s;
  s.algo = Algorithm::rwbm;
  s.N = 3;
  s.A = 0;  // start all used, then free the pages we want
  s.T = 64;
  s.w = 32;
  s.lanes = 32;
  SimOptions o;
  o.mode = Mode::lockstep;
  o.host_threads = 1;
  std::uint64_t seed = 1;
  auto word0 = [&](std::uint64_t sd) {
    for (std::uint64_t i = 0; i < 3; ++i)
      if (bitmap_probe_word(sd, i, 0, 2) != 0) return false;
    return true;
  };
  while (!word0(seed)) ++seed;
  // Round-0 priority order (lower wins; ties by id), computed independently of the engine.
  std::array<std::uint64_t, 3> order{0, 1, 2};
  std::sort(order.begin(), order.end(), [&](std::uint64_t x, std::uint64_t y) {
    const auto px = detail::round_priority(seed, x, 0), py = detail::round_priority(seed, y, 0);
    return px != py ? px < py : x < y;
  });
  CAPTURE(seed, order[0], order[1], order[2]);

  auto a = make_allocator(s, o, 7);
  a->free(5, 1);
  a->free(9, 1);
  a->free(32, 32);
  const auto before = a->used_pages();
  const RunResult r = a->allocate(seed);
  verify(s, o, r, before, a->used_pages());

  // Round 1: the first thread takes bit 5; the second loses bit 5 (one collision), retries the
  // next free bit of the value its atomic returned, 9, and wins in the same step; the third
  // loses bit 5 too (one collision), finds the returned word full and fails the round.
  CHECK(r.first_page[order[0]] == 5);
  CHECK(r.steps[order[0]] == 1);
  CHECK(r.first_page[order[1]] == 9);
  CHECK(r.steps[order[1]] == 1);
  CHECK(r.steps[order[2]] >= 2);  // moved on to another word
  CHECK(r.first_page[order[2]] >= 32);
  CHECK(r.first_page[order[2]] < 64);
  CHECK(r.collisions == 2);  // one per lost claim; later rounds have a single thread
  CHECK(r.taken == 3);
  CHECK(r.failed == 0);
}

TEST_CASE("RW-BM: a word with a free bit never costs a second step without contention",
          "[cpu_sim][rwbm]") {
  // Sequential mode has no races: every step that reads a word with a free bit succeeds, so
  // steps = 1 + number of full words read first, and there are no collisions.
  Scenario s;
  s.algo = Algorithm::rwbm;
  s.N = 2000;
  s.A = 100000;
  s.T = 200000;
  for (Mode m : {Mode::sequential, Mode::lockstep}) {
    SimOptions o;
    o.mode = m;
    const RunResult r = run_once(s, o, 0);
    CAPTURE(mode_name(m));
    if (m == Mode::sequential) CHECK(r.collisions == 0);
    // Half-free 32-bit words are essentially never full: every thread succeeds at step 1.
    CHECK(*std::max_element(r.steps.begin(), r.steps.end()) == 1);
  }
}

TEST_CASE("RW-BM bit choices: rotated lanes never collide on a free word, lowest always does",
          "[cpu_sim][rwbm][bit_choice]") {
  // Hand-worked: T = 64 pages in two all-free 32-bit words, one warp of N = 32 threads. Round 1:
  // k threads read word 0 and 32 - k read word 1. Rotated: lane l starts at bit l * 32 / 32 = l,
  // lanes differ, so every thread wins its own bit at once: 0 collisions, page = word * 32 + l.
  // Lowest: on each word the first thread wins and each other loses exactly one claim (its retry
  // sees the bits already taken), so 32 - (#words read) collisions; everyone still succeeds.
  Scenario s;
  s.algo = Algorithm::rwbm;
  s.N = 32;
  s.A = 64;
  s.T = 64;
  s.w = 32;
  s.lanes = 32;
  SimOptions o;
  o.mode = Mode::lockstep;
  o.host_threads = 1;
  for (std::uint64_t seed : {1ull, 2ull, 3ull}) {
    s.seed = seed;
    const std::uint64_t tseed = trial_seed(seed, 0);
    std::uint64_t on_word0 = 0;
    for (std::uint64_t i = 0; i < 32; ++i) on_word0 += bitmap_probe_word(tseed, i, 0, 2) == 0;
    const std::uint64_t words_read = (on_word0 > 0) + (on_word0 < 32);
    s.bit_choice = BitChoice::rotated;
    const RunResult rot = run_once(s, o, 0);
    CHECK(rot.collisions == 0);
    for (std::uint64_t i = 0; i < 32; ++i) {
      CHECK(rot.steps[i] == 1);
      CHECK(rot.first_page[i] ==
            static_cast<std::int64_t>(bitmap_probe_word(tseed, i, 0, 2) * 32 + i));
    }
    s.bit_choice = BitChoice::lowest;
    const RunResult low = run_once(s, o, 0);
    CHECK(low.collisions == 32 - words_read);
    for (auto st : low.steps) CHECK(st == 1);
  }
}

TEST_CASE("RW-BM bit choices change collisions only: same steps and words", "[cpu_sim][rwbm]") {
  // A word with f free bits serves min(k, f) of the k threads that read it in one lockstep round
  // (or the one thread reading it in sequential mode) whichever bits they target, and its free
  // count drops by the same number: so steps, and the word of every page, must not change.
  Scenario s;
  s.algo = Algorithm::rwbm;
  s.N = 20000;
  s.T = 100000;
  s.A = 25000;
  s.seed = 4;
  for (unsigned w : {32u, 64u})
    for (Mode mode : {Mode::sequential, Mode::lockstep}) {
      s.w = w;
      SimOptions o;
      o.mode = mode;
      o.host_threads = 1;
      s.bit_choice = BitChoice::lowest;
      const RunResult low = run_once(s, o, 0);
      for (BitChoice c : {BitChoice::random, BitChoice::rotated}) {
        CAPTURE(w, mode_name(mode), name(c));
        s.bit_choice = c;
        const RunResult r = run_once(s, o, 0);
        CHECK(r.steps == low.steps);
        std::uint64_t same_word = 0, same_page = 0;
        for (std::uint64_t i = 0; i < s.N; ++i) {
          same_word += r.first_page[i] / static_cast<std::int64_t>(w) ==
                       low.first_page[i] / static_cast<std::int64_t>(w);
          same_page += r.first_page[i] == low.first_page[i];
        }
        CHECK(same_word == s.N);
        CHECK(same_page < s.N);  // the choice did change pages
        if (mode == Mode::sequential) CHECK(r.collisions == 0);
        if (mode == Mode::lockstep) CHECK(r.collisions < low.collisions);
      }
    }
}

TEST_CASE("RW-BM random choice: one thread takes the free bit ranked by its probe's low bits",
          "[cpu_sim][rwbm][bit_choice]") {
  // Independent replay of one thread (no contention): read word mul_high(x, W) of the initial
  // pool, take the free bit of rank floor((x mod 2^32) * f / 2^32).
  Scenario s;
  s.algo = Algorithm::rwbm;
  s.N = 1;
  s.T = 100000;
  s.A = 300;  // mostly full words: several steps, few free bits per word
  s.w = 32;
  s.bit_choice = BitChoice::random;
  SimOptions o;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    s.seed = seed;
    auto a = make_allocator(s, o, trial_seed(seed, 0));
    const auto used = a->used_pages();  // 64 pages per element
    const RunResult r = a->allocate(trial_seed(seed, 0));
    const std::uint64_t W = s.T / 32;
    std::int64_t expect = -1;
    std::uint32_t steps = 0;
    for (std::uint64_t k = 0; expect < 0; ++k) {
      ++steps;
      const std::uint64_t x = probe_bits(trial_seed(seed, 0), 0, k);
      const std::uint64_t word = mul_high_u64(x, W);
      std::vector<std::int64_t> free_pages;
      for (std::uint64_t p = word * 32; p < word * 32 + 32; ++p)
        if (!((used[p / 64] >> (p % 64)) & 1)) free_pages.push_back(static_cast<std::int64_t>(p));
      if (free_pages.empty()) continue;
      const std::uint64_t rank = ((x & 0xFFFFFFFFull) * free_pages.size()) >> 32;
      expect = free_pages[rank];
    }
    CAPTURE(seed);
    CHECK(r.first_page[0] == expect);
    CHECK(r.steps[0] == steps);
  }
}
