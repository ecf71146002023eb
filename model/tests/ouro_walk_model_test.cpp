// The model of variant C's walk under concurrency (model/ouro_walk.hpp) against independent
// references: a direct sum of floor(i / f) over the lanes, cases worked by hand, and a Monte Carlo
// of random refills for the (K - 1) / 2 of a churn round.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

#include "alloclab/model/model.hpp"
#include "alloclab/model/ouro_tickets.hpp"
#include "alloclab/model/ouro_walk.hpp"

using namespace alloclab::model;

TEST_CASE("C's walk: the uniform case equals the direct sum of floor(i / f)", "[model][ouro]") {
  for (std::uint32_t f : {1u, 2u, 3u, 32u, 512u})
    for (std::uint64_t c = 1; c <= 1500; c += 37)
      for (std::uint64_t dead : {0u, 5u}) {
        CAPTURE(f, c, dead);
        double sum = 0;  // lane i is served at the live entry floor(i / f), after `dead` holes
        for (std::uint64_t i = 0; i < c; ++i) sum += static_cast<double>(dead + i / f);
        CHECK(walk_uniform(c, f, dead) == Approx(sum / static_cast<double>(c)).epsilon(1e-12));
      }
}

TEST_CASE("C's walk: entries listed from front, worked by hand", "[model][ouro]") {
  // Free pages 2, 0 (a dead entry), 3, 1; five lanes take the pages at positions 0, 0, 2, 2, 2.
  const std::vector<std::uint32_t> entries{2, 0, 3, 1};
  CHECK(walk_of_lanes_together(entries, 5) == Approx(6.0 / 5.0));
  CHECK(walk_of_lanes_together(entries, 6) == Approx(9.0 / 6.0));  // the sixth at position 3
  CHECK(walk_of_lanes_together(entries, 1) == 0.0);                // one lane: the front chunk
  CHECK_THROWS_AS(walk_of_lanes_together(entries, 7), std::invalid_argument);
  CHECK_THROWS_AS(walk_of_lanes_together(entries, 0), std::invalid_argument);
  // Five lanes over chunks of two free pages: positions 0, 0, 1, 1, 2 = 4 / 5; with three holes
  // ahead every lane passes them too.
  CHECK(walk_uniform(5, 2, 0) == Approx(0.8));
  CHECK(walk_uniform(5, 2, 3) == Approx(3.8));
}

TEST_CASE("C's walk after a refill: (K - 1) / 2 whatever the pages per chunk", "[model][ouro]") {
  // A churn round on K full chunks of p pages: half of all K p live pages freed at random (so a
  // chunk keeps a hypergeometric number), then as many lanes take them again. Chunks with no free
  // page are not in the queue; the rest are, in chunk order. The mean walk over many rounds is the
  // mean position of the queued entries weighted by their pages.
  std::mt19937_64 rng(20261126);
  for (auto [K, p] : {std::pair<std::uint32_t, std::uint32_t>{64, 512}, {512, 32}, {128, 16}}) {
    CAPTURE(K, p);
    std::vector<std::uint32_t> live(std::size_t{K} * p);
    std::iota(live.begin(), live.end(), 0u);
    double sum = 0;
    constexpr int kTrials = 400;
    for (int t = 0; t < kTrials; ++t) {
      std::shuffle(live.begin(), live.end(), rng);
      std::vector<std::uint32_t> free_of(K, 0);
      for (std::size_t i = 0; i < live.size() / 2; ++i) ++free_of[live[i] / p];
      std::vector<std::uint32_t> queued;
      for (auto f : free_of)
        if (f > 0) queued.push_back(f);
      sum += walk_of_lanes_together(queued, live.size() / 2);
    }
    CHECK(sum / kTrials == Approx(walk_after_refill(K)).epsilon(0.01));
  }
  CHECK(walk_after_refill(1) == 0.0);
  CHECK(walk_after_refill(512) == 255.5);
  CHECK_THROWS_AS(walk_after_refill(0), std::invalid_argument);
}

TEST_CASE("C's walk: lanes_walking_together inverts the uniform case", "[model][ouro]") {
  for (std::uint32_t f : {1u, 2u, 32u, 512u})
    for (std::uint64_t c : {1u, 2u, 31u, 100u, 4096u, 270336u}) {
      CAPTURE(f, c);
      const double w = walk_uniform(c, f, 0);
      const std::uint64_t back = lanes_walking_together(w, f);
      // The smallest lane count whose walk reaches w: at most c, and one lane fewer falls short.
      CHECK(back <= c);
      CHECK(walk_uniform(back, f, 0) >= w);
      if (back > 1) CHECK(walk_uniform(back - 1, f, 0) < w);
    }
  // f = 1: lane i walks i, the mean (c - 1) / 2: a walk of 10 is 21 lanes.
  CHECK(lanes_walking_together(10.0, 1) == 21);
  CHECK(lanes_walking_together(0.0, 32) == 1);
}

TEST_CASE("P's tickets: paper 000's queue model with a ticket per warp group", "[model][ouro]") {
  // g = 1 is the queue model's (N + 1) / 2 (model/queue.cpp's TAS, an independent formula).
  for (std::uint64_t n : {1u, 2u, 33u, 1000u})
    CHECK(ouro_p_ticket_positions(n, 1) == Approx(queue_tas(n)));
  // 64 lanes in groups of 32: two tickets, positions 1 and 2, mean 1.5; 40 lanes: 32 wait 1 and
  // 8 wait 2, (32 + 16) / 40 = 1.2 (worked by hand).
  CHECK(ouro_p_ticket_positions(64, 32) == Approx(1.5));
  CHECK(ouro_p_ticket_positions(40, 32) == Approx(1.2));
  // 2^20 requests in full warps: 32768 tickets, (32768 + 1) / 2.
  CHECK(ouro_p_ticket_positions(1u << 20, 32) == Approx(16384.5));
  CHECK(ouro_p_hit_atomics_per_request(1) == 3.0);
  CHECK(ouro_p_hit_atomics_per_request(32) == 1.0625);
}
