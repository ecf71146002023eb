// The CoRW and RW_malloc warp chains against independent computations: hand-solved chains,
// brute-force enumeration of draws, pools and bit strings, and 50-digit binomial products.
#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <map>
#include <numeric>
#include <vector>

#include "alloclab/model/warp_chains.hpp"
#include "reference.hpp"

using namespace alloclab::model;

TEST_CASE("need chain: a hand-solved two-lane chain", "[model][chain]") {
  // P(C=0) = 0.5, P(C=1) = 0.3, P(C>=2) = 0.2 in every state.
  // From 1: E1 = 1/(1-0.5) = 2. From 2: E2 = (1 + 0.3 E1)/(1-0.5) = 3.2.
  // Lane-rounds: x1 = 2, x2 = (2 + 0.3 x1)/0.5 = 5.2, per lane 2.6.
  const auto r = solve_need_chain(2, [](unsigned need) {
    std::vector<double> p = {0.5, 0.3};
    p.resize(need);
    return p;
  });
  CHECK(r.rounds == Approx(3.2).epsilon(1e-14));
  CHECK(r.lane_rounds == Approx(2.6).epsilon(1e-14));
  // A state that can never be left gives infinity.
  const auto stuck = solve_need_chain(1, [](unsigned) { return std::vector<double>{1.0}; });
  CHECK(std::isinf(stuck.rounds));
}

TEST_CASE("distinct words among m draws: enumeration of all draw sequences", "[model][corw]") {
  const unsigned m = 4;
  const std::uint64_t W = 5;
  std::vector<double> count(m + 1, 0);
  for (unsigned code = 0; code < 625; ++code) {  // 5^4 sequences
    unsigned c = code, seen = 0;
    for (unsigned k = 0; k < m; ++k, c /= 5) seen |= 1u << (c % 5);
    count[static_cast<unsigned>(std::popcount(seen))] += 1;
  }
  const auto p = distinct_words_pmf(m, W);
  for (unsigned d = 0; d <= m; ++d) CHECK(p[d] == Approx(count[d] / 625).margin(1e-15));
}

TEST_CASE("hypergeometric head against 50-digit binomial coefficients", "[model][corw]") {
  auto choose = [](std::uint64_t n, std::uint64_t k) {
    ref::mp c = 1;
    for (std::uint64_t i = 0; i < k; ++i) c = c * ref::mp(n - i) / ref::mp(i + 1);
    return c;
  };
  struct Case {
    std::uint64_t T, a, s;
  };
  for (const Case c : {Case{60, 20, 15}, Case{1000000, 5000, 1024}, Case{1000000, 32, 2048},
                       Case{40, 35, 10}}) {  // the last: at least 5 free pages are drawn
    const auto h = hypergeometric_pmf_head(c.T, c.a, c.s, 31);
    for (unsigned f = 0; f <= 31; ++f) {
      ref::mp want = 0;
      if (f <= c.a && f <= c.s && c.s - f <= c.T - c.a)
        want = choose(c.a, f) * choose(c.T - c.a, c.s - f) / choose(c.T, c.s);
      CHECK(h[f] == Approx(static_cast<double>(want)).epsilon(1e-9).margin(1e-300));
    }
  }
}

// The CoRW chain's transition law by brute force on a tiny pool: T = 8 pages in W = 2 words of
// w = 4, m = 2 lanes. For each free count a, every placement of the a free pages (C(8,a)) and
// every pair of words the lanes read (4 ordered pairs) is enumerated; the capacity is the number
// of free bits in the distinct words read. Then the 2-lane chain is solved by hand:
// E2 = (1 + P(C=1 | a0) E1) / (1 - P(C=0 | a0)), E1 = 1/(1 - P(C=0 | a0-1)).
TEST_CASE("CoRW warp chain: tiny pool by enumeration", "[model][corw]") {
  const unsigned T = 8, w = 4;
  auto law = [&](unsigned a) {
    std::vector<double> cnt(9, 0);
    double total = 0;
    for (unsigned mask = 0; mask < 256; ++mask) {
      if (std::popcount(mask) != static_cast<int>(a)) continue;
      for (unsigned x = 0; x < 2; ++x)
        for (unsigned y = 0; y < 2; ++y) {
          unsigned words = (1u << x) | (1u << y), F = 0;
          for (unsigned k = 0; k < 2; ++k)
            if (words >> k & 1u) F += static_cast<unsigned>(std::popcount((mask >> (4 * k)) & 15u));
          cnt[F] += 1;
          total += 1;
        }
    }
    for (auto& v : cnt) v /= total;
    return cnt;
  };
  for (unsigned a0 : {2u, 3u, 5u}) {
    const auto hi = law(a0), lo = law(a0 - 1);
    const double E1 = 1 / (1 - lo[0]);
    const double E2 = (1 + hi[1] * E1) / (1 - hi[0]);
    const double X2 = (2 + hi[1] * E1) / (1 - hi[0]);  // lane-rounds from 2 (x1 = E1)
    const auto r = corw_warp(2, a0, T, w);
    CHECK(r.rounds == Approx(E2).epsilon(1e-12));
    CHECK(r.lane_rounds == Approx(X2 / 2).epsilon(1e-12));
  }
  // Every page free: each round finds >= w >= m free bits, one round.
  CHECK(corw_warp(32, 1000000, 1000000, 32).rounds == Approx(1.0).epsilon(1e-15));
}

// sequential_average against the mean over all K! service orders of K = 3 warps (two full warps
// of 4 lanes and one of 2: N = 10) of an arbitrary per-warp function.
TEST_CASE("sequential warp average: all service orders", "[model][chain]") {
  auto g = [](unsigned m, std::uint64_t a0) {
    return WarpRounds{static_cast<double>(m) + 1000.0 / static_cast<double>(a0),
                      std::sqrt(static_cast<double>(a0)) / m};
  };
  const std::uint64_t A = 40;
  const unsigned pages = 3;
  std::vector<unsigned> sizes = {4, 4, 2};
  std::vector<int> order = {0, 1, 2};
  double was = 0, tas = 0, orders = 0;
  do {
    std::uint64_t taken = 0;
    for (int k : order) {
      const auto r = g(sizes[static_cast<unsigned>(k)], A - taken);
      was += r.rounds / 3;
      tas += r.lane_rounds * sizes[static_cast<unsigned>(k)] / 10;
      taken += std::uint64_t{sizes[static_cast<unsigned>(k)]} * pages;
    }
    orders += 1;
  } while (std::next_permutation(order.begin(), order.end()));
  const auto s = sequential_average(10, A, 4, pages, g);
  CHECK(s.was == Approx(was / orders).epsilon(1e-14));
  CHECK(s.tas == Approx(tas / orders).epsilon(1e-14));
  // Full warps only: the plain mean over positions.
  const auto f = sequential_average(8, A, 4, 1, g);
  CHECK(f.was == Approx((g(4, 40).rounds + g(4, 36).rounds) / 2).epsilon(1e-14));
}

TEST_CASE("sequential warp average: binned positions approach the exact mean", "[model][chain]") {
  auto g = [](unsigned m, std::uint64_t a0) { return corw_warp(m, a0, 1000000, 32); };
  const auto exact = sequential_average(65536, 70000, 32, 1, g);
  const auto binned = sequential_average(65536, 70000, 32, 1, g, 256);
  CHECK(binned.was == Approx(exact.was).epsilon(1e-6));
  CHECK(binned.tas == Approx(exact.tas).epsilon(1e-6));
}

TEST_CASE("words holding a run of n free bits: all 2^w words", "[model][rwmalloc]") {
  for (unsigned w = 1; w <= 16; ++w)
    for (unsigned n = 1; n <= w + 1; ++n) {
      std::vector<std::uint64_t> brute(w + 1, 0);
      for (std::uint32_t x = 0; x < (1u << w); ++x) {  // bit set = free here
        unsigned run = 0, best = 0;
        for (unsigned b = 0; b < w; ++b) {
          run = (x >> b & 1u) ? run + 1 : 0;
          best = std::max(best, run);
        }
        if (best >= n) ++brute[static_cast<unsigned>(std::popcount(x))];
      }
      CHECK(words_with_run_counts(w, n) == brute);
    }
  // w = 64: n = 1 holds for every word with a free bit; n = 64 only for the empty word;
  // k = 33 free bits of 64 always include two adjacent ones (pigeonhole).
  const auto c64 = words_with_run_counts(64, 2);
  CHECK(c64[33] == 1777090076065542336ull);  // C(64, 33)
  CHECK(c64[1] == 0);
  CHECK(words_with_run_counts(64, 64)[64] == 1);
}

TEST_CASE("P(word holds a run): i.i.d. bits and pool words", "[model][rwmalloc]") {
  // i.i.d.: brute-force weights over all 2^12 words.
  const unsigned w = 12, n = 3;
  const double f = 0.37;
  double brute = 0;
  for (std::uint32_t x = 0; x < (1u << w); ++x) {
    unsigned run = 0, best = 0;
    for (unsigned b = 0; b < w; ++b) {
      run = (x >> b & 1u) ? run + 1 : 0;
      best = std::max(best, run);
    }
    if (best >= n) brute += std::pow(f, std::popcount(x)) * std::pow(1 - f, w - std::popcount(x));
  }
  CHECK(word_run_probability(w, n, f) == Approx(brute).epsilon(1e-13));
  CHECK(word_run_probability(32, 1, 0.1) == Approx(1 - std::pow(0.9, 32)).epsilon(1e-13));
  CHECK(word_run_probability(32, 32, 0.9) == Approx(std::pow(0.9, 32)).epsilon(1e-13));
  // Pool of T = 12 pages, a = 5 free, words of 4: enumerate the C(12,5) placements; word 0.
  double hits = 0, total = 0;
  for (unsigned mask = 0; mask < 4096; ++mask) {
    if (std::popcount(mask) != 5) continue;
    const unsigned word = mask & 15u;
    total += 1;
    hits += (word & (word >> 1)) != 0 ? 1 : 0;  // a run of 2 free bits in the word
  }
  CHECK(word_run_probability_pool(4, 2, 5, 12) == Approx(hits / total).epsilon(1e-12));
}

TEST_CASE("window capacity: all bit strings of a two-word window", "[model][rwmalloc]") {
  const unsigned words = 2, w = 5, n = 2, cmax = 3;
  const double f = 0.6;
  for (bool joined : {true, false}) {
    std::vector<double> brute(cmax + 1, 0);
    for (std::uint32_t x = 0; x < (1u << (words * w)); ++x) {
      unsigned cap = 0, run = 0;
      for (unsigned b = 0; b < words * w; ++b) {
        if (!joined && b % w == 0) {
          cap += run / n;
          run = 0;
        }
        if (x >> b & 1u) {
          ++run;
        } else {
          cap += run / n;
          run = 0;
        }
      }
      cap += run / n;
      const int k = std::popcount(x);
      brute[std::min(cap, cmax)] += std::pow(f, k) * std::pow(1 - f, words * w - k);
    }
    const auto p = window_capacity_pmf(words, w, n, f, joined, cmax);
    for (unsigned c = 0; c <= cmax; ++c) CHECK(p[c] == Approx(brute[c]).epsilon(1e-12));
  }
  // n = 1: the capacity is binomial(words*w, f) whether runs are joined or not.
  const auto b = window_capacity_pmf(4, 8, 1, 0.25, false, 40);
  CHECK(b[0] == Approx(std::pow(0.75, 32)).epsilon(1e-12));
  CHECK(b[1] == Approx(32 * 0.25 * std::pow(0.75, 31)).epsilon(1e-12));
}

TEST_CASE("RW_malloc utilisation at exhaustion inside a word: greedy packing",
          "[model][rwmalloc]") {
  // Figure 11's setting with runs kept in a word: every word is packed from bit 0 with
  // n-page requests until fewer than n bits are left.
  for (unsigned w : {32u, 64u})
    for (unsigned n = 1; n <= w; ++n) {
      unsigned used = 0;
      while (w - used >= n) used += n;
      CHECK(rwmalloc_utilisation_in_word(w, n) == Approx(double(used) / w).epsilon(1e-15));
    }
  CHECK(rwmalloc_utilisation_in_word(32, 33) == 0.0);
}

TEST_CASE("RW_malloc with one page per request is a window of distinct words",
          "[model][rwmalloc]") {
  // n = 1: joined and in-word capacities coincide (binomial), so do the chains.
  const auto j = rwmalloc_warp(32, 32, 32, 1, 0.01, true);
  const auto s = rwmalloc_warp(32, 32, 32, 1, 0.01, false);
  CHECK(j.rounds == Approx(s.rounds).epsilon(1e-13));
  CHECK(j.lane_rounds <= j.rounds);
}

TEST_CASE("CoRW model at A = N with a partial last warp", "[model][corw]") {
  // N = 4999 = 156 full warps + 7 lanes, A = N: the last full warp can only be served last but
  // one; the chain must still be finite, and above the A = 5000, N = 4992 value per warp.
  auto g = [](unsigned m, std::uint64_t a0) { return corw_warp(m, a0, 1000000, 32); };
  const auto s = sequential_average(4999, 4999, 32, 1, g);
  CHECK(std::isfinite(s.was));
  CHECK(s.tas < s.was);
}
