// The parallel-rounds model (rounds.hpp) against independently computed values: chains solved by
// hand, a brute-force enumeration of the lockstep process thread by thread (every target draw and
// every priority order, on an explicit bitmap), and the two exact chains against each other and
// against the mean-field method.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <numeric>
#include <utility>
#include <vector>

#include "alloclab/core/errors.hpp"
#include "alloclab/model/rounds.hpp"

using namespace alloclab::model;

namespace {

double rel(double got, double want) {
  return std::fabs(got - want) / std::fabs(want);
}

// Brute force of the lockstep round (cpu_sim/src/engine.hpp), written from the process'
// description and independent of src/: pages are bits of a T-bit mask, word j holds pages
// [j w, min((j+1) w, T)). In a round every active thread draws a word, reads it at the start of
// the round; threads whose word had a free page then claim in priority order (all m! orders
// equally likely), each taking the lowest page still free in its word, or losing if none is
// left. E[sum over rounds of (active threads, warps with an active lane, 1)] by recursion over
// (free mask, active set), self-loops divided out; averaged over all C(T, A) starting masks.
struct BruteForce {
  unsigned N, T, w, L, W;

  std::map<std::pair<std::uint32_t, std::uint32_t>, std::array<double, 3>> memo;

  std::array<double, 3> value(std::uint32_t free_mask, std::uint32_t active) {
    if (active == 0) return {0, 0, 0};
    const auto key = std::make_pair(free_mask, active);
    if (auto it = memo.find(key); it != memo.end()) return it->second;
    std::vector<unsigned> threads;
    for (unsigned t = 0; t < N; ++t)
      if (active >> t & 1u) threads.push_back(t);
    const unsigned m = static_cast<unsigned>(threads.size());
    std::array<double, 3> reward{static_cast<double>(m), 0, 1};
    for (unsigned k = 0; k * L < N; ++k) {
      std::uint32_t warp = 0;
      for (unsigned t = k * L; t < std::min(N, (k + 1) * L); ++t) warp |= 1u << t;
      if (active & warp) reward[1] += 1;
    }
    double outcomes = 1;
    for (unsigned i = 0; i < m; ++i) outcomes *= W;
    std::vector<unsigned> order(m);
    std::iota(order.begin(), order.end(), 0u);
    double perms = 0;
    do perms += 1;
    while (std::next_permutation(order.begin(), order.end()));
    const double p_each = 1.0 / (outcomes * perms);
    std::map<std::pair<std::uint32_t, std::uint32_t>, double> next;
    std::vector<unsigned> target(m, 0);
    for (std::uint64_t code = 0; code < static_cast<std::uint64_t>(outcomes); ++code) {
      std::uint64_t c = code;
      for (unsigned i = 0; i < m; ++i) {
        target[i] = static_cast<unsigned>(c % W);
        c /= W;
      }
      std::iota(order.begin(), order.end(), 0u);
      do {
        std::uint32_t mask = free_mask, act = active;
        for (unsigned i : order) {
          const unsigned lo = target[i] * w, hi = std::min(T, lo + w);
          bool had_free = false;
          for (unsigned p = lo; p < hi; ++p) had_free |= (free_mask >> p & 1u) != 0;
          if (!had_free) continue;  // read a full word: no claim this round
          for (unsigned p = lo; p < hi; ++p)
            if (mask >> p & 1u) {
              mask &= ~(1u << p);
              act &= ~(1u << threads[i]);
              break;
            }
        }
        next[{mask, act}] += p_each;
      } while (std::next_permutation(order.begin(), order.end()));
    }
    double stay = 0;
    std::array<double, 3> v = reward;
    for (const auto& [st, p] : next) {
      if (st == key) {
        stay += p;
        continue;
      }
      const auto h = value(st.first, st.second);
      for (int q = 0; q < 3; ++q) v[q] += p * h[q];
    }
    for (int q = 0; q < 3; ++q) v[q] /= 1.0 - stay;
    return memo[key] = v;
  }

  // (TAS, WAS, rounds)
  std::array<double, 3> solve(unsigned A) {
    std::array<double, 3> total{0, 0, 0};
    double count = 0;
    for (std::uint32_t mask = 0; mask < (1u << T); ++mask) {
      if (static_cast<unsigned>(__builtin_popcount(mask)) != A) continue;
      const auto v = value(mask, (1u << N) - 1);
      for (int q = 0; q < 3; ++q) total[q] += v[q];
      count += 1;
    }
    const double warps = static_cast<double>((N + L - 1) / L);
    return {total[0] / count / N, total[1] / count / warps, total[2] / count};
  }
};

// T/N (H_A - H_{A-N}) as a direct long-double sum. A function, not a lambda: GCC tries to
// evaluate a call of an (implicitly constexpr) lambda with constant arguments at compile time
// and gave up only after 6 CPU-s on the N = 2^20 sums below (docs/testing.md, "Build time").
double sequential_tas(std::uint64_t N, std::uint64_t A, std::uint64_t T) {
  long double s = 0;
  for (std::uint64_t k = A - N + 1; k <= A; ++k) s += 1.0L / static_cast<long double>(k);
  return static_cast<double>(static_cast<long double>(T) / static_cast<long double>(N) * s);
}

}  // namespace

TEST_CASE("rounds: chains solved by hand", "[model][rounds]") {
  // RW, N = A = T = 2: both probes on one page (1/2) -> one success, else two. With one thread
  // left (a = 1 of 2) the success probability is 1/2: 2 more rounds. TAS = (2 + 1/2 * 2)/2 = 3/2;
  // rounds = 1 + 1/2 * 2 = 2 (= WAS with one warp of two lanes; = TAS with one-lane warps).
  CHECK(rel(rw_rounds(2, 2, 2, 32).tas, 1.5) < 1e-14);
  CHECK(rel(rw_rounds(2, 2, 2, 32).was, 2.0) < 1e-14);
  CHECK(rel(rw_rounds(2, 2, 2, 32).rounds, 2.0) < 1e-14);
  CHECK(rel(rw_rounds(2, 2, 2, 1).was, 1.5) < 1e-14);
  // One thread, A of T free: geometric, TAS = WAS = T/A.
  CHECK(rel(rw_rounds(1, 3, 7, 32).tas, 7.0 / 3.0) < 1e-14);
  CHECK(rel(rwbm_rounds(1, 1, 64, 32, 32).tas, 2.0) < 1e-14);  // one non-full word of two
  // RW-BM, N = A = 2, T = 4, w = 2 (two words). Start: both free pages in one word (1/3) or one
  // in each (2/3). Profile (2,0): both threads on the free word (1/4) finish; split (1/2): one
  // finishes; both on the full word (1/4): nothing. h = (2 + 1/2 * 2)/(3/4) = 4 thread-rounds,
  // (1 + 1/2 * 2)/(3/4) = 8/3 rounds. Profile (1,1): same word (1/2) -> one finishes, split ->
  // both: h = 2 + 1/2 * 2 = 3 thread-rounds, 1 + 1/2 * 2 = 2 rounds. The last thread (one free
  // page, one word of two non-full) needs 2 rounds. TAS = (4/3 + 2)/2 = 5/3, rounds = 20/9.
  const auto bm = rwbm_rounds_exact_profiles(2, 2, 4, 2, 32);
  CHECK(rel(bm.tas, 5.0 / 3.0) < 1e-14);
  CHECK(rel(bm.rounds, 20.0 / 9.0) < 1e-14);
  CHECK(rel(bm.was, 20.0 / 9.0) < 1e-14);
  CHECK(rwbm_rounds(2, 2, 4, 2, 32).method == "exact_profiles");
}

TEST_CASE("rounds: exact chains vs brute-force enumeration of the lockstep process",
          "[model][rounds]") {
  struct Case {
    unsigned N, A, T, w, L;
  };
  // RW (w = 1) and RW-BM (w = 2, 3; partial last word for T = 5, w = 2); lanes 1, 2, 3 (partial
  // warps for N = 4, L = 3).
  for (const Case c :
       {Case{2, 2, 3, 1, 2}, Case{3, 3, 5, 1, 2}, Case{3, 4, 6, 1, 1}, Case{4, 4, 5, 1, 3},
        Case{4, 5, 6, 1, 2}, Case{2, 3, 4, 2, 2}, Case{3, 3, 5, 2, 2}, Case{4, 4, 6, 2, 3},
        Case{4, 5, 6, 3, 2}, Case{3, 4, 6, 3, 1}}) {
    INFO("N=" << c.N << " A=" << c.A << " T=" << c.T << " w=" << c.w << " L=" << c.L);
    BruteForce bf{c.N, c.T, c.w, c.L, (c.T + c.w - 1) / c.w, {}};
    const auto want = bf.solve(c.A);
    const auto prof = rwbm_rounds_exact_profiles(c.N, c.A, c.T, c.w, c.L);
    CHECK(rel(prof.tas, want[0]) < 1e-12);
    CHECK(rel(prof.was, want[1]) < 1e-12);
    CHECK(rel(prof.rounds, want[2]) < 1e-12);
    if (c.w == 1) {
      const auto chain = rw_rounds(c.N, c.A, c.T, c.L);
      CHECK(chain.method == "exact_chain");
      CHECK(rel(chain.tas, want[0]) < 1e-12);
      CHECK(rel(chain.was, want[1]) < 1e-12);
      CHECK(rel(chain.rounds, want[2]) < 1e-12);
    }
  }
}

TEST_CASE("rounds: the two exact chains agree where both apply (w = 1)", "[model][rounds]") {
  // The chain over m and the chain over word profiles are different computations of the same
  // process; with one-bit words they must agree (pools too large for the brute force).
  for (auto [N, A, T] : {std::array<unsigned, 3>{6, 6, 9}, {8, 10, 12}, {10, 10, 11}}) {
    INFO("N=" << N << " A=" << A << " T=" << T);
    const auto a = rw_rounds(N, A, T, 4), b = rwbm_rounds_exact_profiles(N, A, T, 1, 4);
    CHECK(rel(a.tas, b.tas) < 1e-12);
    CHECK(rel(a.was, b.was) < 1e-12);
    CHECK(rel(a.rounds, b.rounds) < 1e-12);
  }
}

TEST_CASE("rounds: mean field + tail vs the exact chain (RW)", "[model][rounds]") {
  // The exact chain costs O(N^3); at N = 600 both run. Measured agreement is ~1e-6 (TAS) and
  // ~1e-5 (WAS); the tolerance leaves a margin but would catch a missing correction term.
  RoundsOptions exact, mf;
  exact.force_exact = true;
  mf.force_mean_field = true;
  for (std::uint64_t A : {600ull, 620ull, 700ull, 6000ull, 100000ull}) {
    INFO("A=" << A);
    const auto e = rw_rounds(600, A, 1000000, 32, exact), m = rw_rounds(600, A, 1000000, 32, mf);
    REQUIRE(e.method == "exact_chain");
    REQUIRE(m.method == "mean_field+tail");
    CHECK(m.bulk_rounds > 0);
    CHECK(rel(m.tas, e.tas) < 2e-5);
    CHECK(rel(m.was, e.was) < 1e-4);
    CHECK(rel(m.rounds, e.rounds) < 1e-4);
  }
}

TEST_CASE("rounds: RW-BM mean field with one-bit words vs the exact RW chain", "[model][rounds]") {
  // With w = 1 the profile machinery must reduce to RW; its tail's binomial S is the one
  // approximation, measured at 2e-5..1e-4 here.
  RoundsOptions exact;
  exact.force_exact = true;
  for (auto [N, A, T] :
       {std::array<std::uint64_t, 3>{200, 250, 10000}, {600, 700, 1000000}, {600, 6000, 1000000}}) {
    INFO("N=" << N << " A=" << A << " T=" << T);
    const auto e = rw_rounds(N, A, T, 32, exact), m = rwbm_rounds_mean_field(N, A, T, 1, 32);
    CHECK(rel(m.tas, e.tas) < 5e-4);
    CHECK(rel(m.was, e.was) < 5e-4);
  }
}

TEST_CASE("rounds: limits and bad input", "[model][rounds]") {
  // Everything free and few threads: almost every probe succeeds at once.
  CHECK(rw_rounds(4, 1000000, 1000000, 32).tas < 1.0 + 1e-5);
  // The rounds model of RW-BM never needs more steps than RW's at the same point (a word holds
  // w chances).
  CHECK(rwbm_rounds(2048, 5000, 1000000, 32, 32).tas < rw_rounds(2048, 5000, 1000000, 32).tas);
  CHECK_THROWS_AS(rw_rounds(10, 9, 100, 32), alloclab::InputError);
  CHECK_THROWS_AS(rw_rounds(10, 200, 100, 32), alloclab::InputError);
  CHECK_THROWS_AS(rwbm_rounds_exact_profiles(10, 100, 100000, 32, 32), alloclab::InputError);
}

TEST_CASE("rounds: RW's TAS equals the sequential T/N (H_A - H_{A-N}) exactly", "[model][rounds]") {
  // Why: in a round, the probes taken in priority order each succeed with probability
  // (free pages left)/T, exactly as in one-at-a-time service, so the total number of probes has
  // the same law under both schedules (only WAS, which depends on which thread probes when,
  // differs). The reference is a direct long-double sum, independent of src/ (sequential_tas).
  for (auto [N, A, T] : {std::array<std::uint64_t, 3>{256, 300, 4096},
                         {500, 500, 1000000},
                         {100, 5000, 6000},
                         {7, 7, 7}}) {
    INFO("N=" << N << " A=" << A << " T=" << T);
    CHECK(rel(rw_rounds(N, A, T, 32).tas, sequential_tas(N, A, T)) < 1e-12);
  }
  // The mean-field method at N = 2^20 keeps the identity to its own accuracy.
  CHECK(rel(rw_rounds(1048576, 3355443, 33554432, 32).tas,
            sequential_tas(1048576, 3355443, 33554432)) < 1e-6);
  CHECK(rel(rw_rounds(1048576, 1048576, 33554432, 32).tas,
            sequential_tas(1048576, 1048576, 33554432)) < 1e-6);
}
