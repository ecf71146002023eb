// The verdict rules for the CoRW / RW_malloc warp chains (validation/src/warp_models.cpp).
#include <catch2/catch.hpp>

#include <cmath>

#include "alloclab/validation/warp_models.hpp"

using namespace alloclab::validation;

namespace {
Verdict make(const std::string& algo, std::uint64_t N, std::uint64_t A, double observed,
             double reference, unsigned pages = 1) {
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
  CHECK_FALSE(judge_warp_chain_departure(make("rwbm", 1024, 5000, 2, 1), "3"));
}

TEST_CASE("CoRW: an excess below the repeated-word rate is explained, above it not",
          "[validation][warp]") {
  // W = 31250 words, 32 lanes: P(two lanes read the same word) = 1 - prod(1 - i/W) = 1.576%.
  double distinct = 1;
  for (int i = 1; i < 32; ++i) distinct *= 1 - i / 31250.0;
  const double rate = 1 - distinct;
  CHECK(rate == Approx(0.01576).epsilon(1e-3));
  auto ok = judge_warp_chain_departure(make("corw", 8192, 100000, 1 + 0.9 * rate, 1), "3");
  REQUIRE(ok);
  CHECK(ok->outcome == Outcome::expected_departure);
  // Above the rate, at a point taking little of the pool: FAIL.
  auto bad = judge_warp_chain_departure(make("corw", 1024, 100000, 1.03, 1), "3");
  REQUIRE(bad);
  CHECK(bad->outcome == Outcome::fail);
  // Below the model: never explained.
  auto below = judge_warp_chain_departure(make("corw", 8192, 100000, 0.999, 1), "3");
  CHECK(below->outcome == Outcome::fail);
  // Deep depletion (66% of the free pages taken), +3%: the clumping explanation.
  auto deep = judge_warp_chain_departure(make("corw", 65536, 100000, 1.03, 1), "3");
  CHECK(deep->outcome == Outcome::expected_departure);
}

TEST_CASE("RW_malloc: run depletion explains an excess only past a tenth of the pool's pieces",
          "[validation][warp]") {
  // A/T = 10%, n = 2: pieces of 2 free pages in the pool ~ T * sum over runs floor(len/2); with
  // run starts T (1-f) f, run length L geometric: T (1-f) f E[floor(L/2)] = 9091, so
  // N = 16384 asks for more than there are, N = 256 for about 3%.
  auto many = judge_warp_chain_departure(make("rwmalloc", 16384, 100000, 400, 3, 2), "3");
  CHECK(many->outcome == Outcome::expected_departure);
  auto few = judge_warp_chain_departure(make("rwmalloc", 256, 100000, 3.5, 3, 2), "3");
  CHECK(few->outcome == Outcome::fail);
}
