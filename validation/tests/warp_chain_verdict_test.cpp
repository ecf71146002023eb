// The verdict rules for the CoRW / RW_malloc warp chains (validation/src/warp_chain_verdict.cpp).
#include <catch2/catch.hpp>

#include <cmath>

#include "alloclab/validation/warp_chain_verdict.hpp"

using namespace alloclab;
using namespace alloclab::validation;

namespace {
Verdict make(Algorithm algo, std::uint64_t N, std::uint64_t A, double observed, double reference,
             unsigned pages = 1) {
  Verdict v;
  v.point.algo = algo;
  v.point.backend = "sim";
  v.point.mode = "sequential";
  v.point.N = N;
  v.point.A = A;
  v.point.T = 1000000;
  v.point.w = 32;
  v.point.lanes = 32;
  v.point.pages = pages;
  v.observed = observed;
  v.reference = reference;
  v.relative_error = (observed - reference) / reference;
  v.z = 10;
  return v;
}
}  // namespace

TEST_CASE("warp-chain verdicts: only corw and rwmalloc", "[validation][warp]") {
  CHECK_FALSE(judge_warp_chain_departure(make(Algorithm::rwbm, 1024, 5000, 2, 1), "3"));
}

TEST_CASE("CoRW: an excess below the repeated-word rate is explained, above it not",
          "[validation][warp]") {
  // W = 31250 words, 32 lanes: P(two lanes read the same word) = 1 - prod(1 - i/W) = 1.576%.
  double distinct = 1;
  for (int i = 1; i < 32; ++i) distinct *= 1 - i / 31250.0;
  const double rate = 1 - distinct;
  CHECK(rate == Approx(0.01576).epsilon(1e-3));
  auto ok = judge_warp_chain_departure(make(Algorithm::corw, 8192, 100000, 1 + 0.9 * rate, 1), "3");
  REQUIRE(ok);
  CHECK(ok->outcome == Outcome::expected_departure);
  // Above the rate, at a point taking little of the pool: FAIL.
  auto bad = judge_warp_chain_departure(make(Algorithm::corw, 1024, 100000, 1.03, 1), "3");
  REQUIRE(bad);
  CHECK(bad->outcome == Outcome::fail);
  // Below the model: never explained.
  auto below = judge_warp_chain_departure(make(Algorithm::corw, 8192, 100000, 0.999, 1), "3");
  CHECK(below->outcome == Outcome::fail);
  // Deep depletion (66% of the free pages taken), +3%: the clumping explanation.
  auto deep = judge_warp_chain_departure(make(Algorithm::corw, 65536, 100000, 1.03, 1), "3");
  CHECK(deep->outcome == Outcome::expected_departure);
}

TEST_CASE("RW_malloc: run depletion explains an excess only past a tenth of the pool's pieces",
          "[validation][warp]") {
  // A/T = 10%, n = 2: pieces of 2 free pages in the pool ~ T * sum over runs floor(len/2); with
  // run starts T (1-f) f, run length L geometric: T (1-f) f E[floor(L/2)] = 9091, so
  // N = 16384 asks for more than there are, N = 256 for about 3%.
  auto many = judge_warp_chain_departure(make(Algorithm::rwmalloc, 16384, 100000, 400, 3, 2), "3");
  CHECK(many->outcome == Outcome::expected_departure);
  auto few = judge_warp_chain_departure(make(Algorithm::rwmalloc, 256, 100000, 3.5, 3, 2), "3");
  CHECK(few->outcome == Outcome::fail);
}

TEST_CASE("CoRW: the clumping explanation holds up to +5% and from a quarter of the pool taken",
          "[validation][warp][thresholds]") {
  // Above the repeated-word rate (1.58% at W = 31250), the clumping explanation applies only to
  // excesses of at most 5% at points whose requests take at least 25% of the free pages.
  // N = 65536 of A = 100000: 66% taken.
  CHECK(judge_warp_chain_departure(make(Algorithm::corw, 65536, 100000, 1.049, 1), "3")->outcome ==
        Outcome::expected_departure);
  CHECK(judge_warp_chain_departure(make(Algorithm::corw, 65536, 100000, 1.051, 1), "3")->outcome ==
        Outcome::fail);
  // +3% at 26% and at 24% of the free pages taken.
  CHECK(judge_warp_chain_departure(make(Algorithm::corw, 26000, 100000, 1.03, 1), "3")->outcome ==
        Outcome::expected_departure);
  CHECK(judge_warp_chain_departure(make(Algorithm::corw, 24000, 100000, 1.03, 1), "3")->outcome ==
        Outcome::fail);
}

TEST_CASE("RW_malloc: run depletion from a tenth of the pool's pieces on",
          "[validation][warp][thresholds]") {
  // n = 2 pages, A/T = 10%, T = 10^6, pages free independently with f = 0.1: a free run starts at
  // a free page after a taken one (T (1-f) f starts), its length L is geometric (P(L >= k) =
  // f^(k-1)), and it holds floor(L/2) pieces, E = sum_m P(L >= 2m) = f / (1 - f^2). Pieces:
  // T (1-f) f * f / (1-f^2) = T f^2 / (1+f) = 9091. A tenth of that is N = 909. The model counts
  // runs inside each warp's window of 1024 bits; a window edge splits a run only where the pages
  // on both sides are free (f^2 of ~977 edges: ~10 runs in 10^6 pages), far too few to move the
  // edge past N = 870 or 950.
  CHECK(
      judge_warp_chain_departure(make(Algorithm::rwmalloc, 950, 100000, 3.5, 3, 2), "3")->outcome ==
      Outcome::expected_departure);
  // Below a tenth, and far from the clumping explanation's quarter of the free pages: FAIL.
  CHECK(
      judge_warp_chain_departure(make(Algorithm::rwmalloc, 870, 100000, 3.5, 3, 2), "3")->outcome ==
      Outcome::fail);
}
