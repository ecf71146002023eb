// The written-pattern store against hand-worked cases: which bytes an object writes, that a write
// into another object's bytes is caught at that object's check, and that the table forgets what
// was checked (so a long run's store follows its live set).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "alloclab/core/errors.hpp"
#include "alloclab/cpu_sim/pattern_store.hpp"

using namespace alloclab;
using namespace alloclab::sim;

TEST_CASE("pattern store: an object writes its first and last min(8, size) bytes",
          "[workload][pattern]") {
  // size -> bytes written: head min(8, size) plus the tail bytes not in the head.
  const std::vector<std::pair<std::uint64_t, std::uint64_t>> cases = {
      {1, 1}, {5, 5}, {8, 8}, {12, 12}, {16, 16}, {17, 16}, {100, 16}, {4096, 16}};
  for (const auto& [size, written] : cases) {
    INFO("size " << size);
    PatternStore store;
    store.write(7, 1000, size);
    CHECK(store.bytes_held() == written);
    CHECK(store.check_and_forget(7, 1000, size) == written);
    CHECK(store.bytes_held() == 0);
  }
}

TEST_CASE("pattern store: neighbours sharing an 8-byte word do not disturb each other",
          "[workload][pattern]") {
  // 100-byte objects at 0 and 100: bytes 96..99 (object 1's tail) and 100..103 (object 2's
  // head) lie in one word.
  PatternStore store;
  store.write(1, 0, 100);
  store.write(2, 100, 100);
  CHECK(store.bytes_held() == 32);
  CHECK(store.check_and_forget(2, 100, 100) == 16);
  CHECK(store.check_and_forget(1, 0, 100) == 16);
  CHECK(store.bytes_held() == 0);
}

TEST_CASE("pattern store: a write over another live object's bytes is caught at its check",
          "[workload][pattern]") {
  SECTION("an object overlapping the tail of another") {
    // Object 2 starts 4 bytes before object 1 ends: it overwrites object 1's offsets 96..99.
    PatternStore store;
    store.write(1, 0, 100);
    store.write(2, 96, 100);
    CHECK_THROWS_AS(store.check_and_forget(1, 0, 100), VerificationError);
  }
  SECTION("an object at the same address") {
    PatternStore store;
    store.write(1, 512, 256);
    store.write(2, 512, 256);
    CHECK_THROWS_AS(store.check_and_forget(1, 512, 256), VerificationError);
    // The later object's bytes are its own.
    PatternStore again;
    again.write(1, 512, 256);
    again.write(2, 512, 256);
    CHECK(again.check_and_forget(2, 512, 256) == 16);
  }
  SECTION("an object that was never written, or is checked twice") {
    PatternStore store;
    CHECK_THROWS_AS(store.check_and_forget(3, 0, 64), VerificationError);
    store.write(3, 0, 64);
    CHECK(store.check_and_forget(3, 0, 64) == 16);
    CHECK_THROWS_AS(store.check_and_forget(3, 0, 64), VerificationError);
  }
  SECTION("the same object id at another address") {
    PatternStore store;
    store.write(4, 0, 64);
    CHECK_THROWS_AS(store.check_and_forget(4, 64, 64), VerificationError);
  }
}

TEST_CASE("pattern store: many objects written and checked in another order",
          "[workload][pattern]") {
  // 20,000 disjoint objects of 1..300 bytes at unaligned addresses (the table grows many times and
  // deletions shift clusters back); checked in a shuffled order, half of them then rewritten.
  std::mt19937_64 rng(5);
  struct Ob {
    std::uint64_t id, begin, size;
  };
  std::vector<Ob> obs;
  std::uint64_t at = 3;
  for (std::uint64_t id = 0; id < 20000; ++id) {
    const std::uint64_t size = 1 + rng() % 300;
    obs.push_back({id, at, size});
    at += size + rng() % 5;  // sometimes adjacent, sometimes a gap
  }
  auto written = [](std::uint64_t size) { return std::min<std::uint64_t>(size, 16); };
  PatternStore store;
  std::uint64_t expected = 0;
  for (const auto& o : obs) {
    store.write(o.id, o.begin, o.size);
    expected += written(o.size);
  }
  CHECK(store.bytes_held() == expected);
  std::shuffle(obs.begin(), obs.end(), rng);
  for (std::size_t i = 0; i < obs.size() / 2; ++i) {
    REQUIRE(store.check_and_forget(obs[i].id, obs[i].begin, obs[i].size) == written(obs[i].size));
    store.write(obs[i].id + 100000, obs[i].begin, obs[i].size);  // reallocated
    obs[i].id += 100000;
  }
  std::shuffle(obs.begin(), obs.end(), rng);
  for (const auto& o : obs)
    REQUIRE(store.check_and_forget(o.id, o.begin, o.size) == written(o.size));
  CHECK(store.bytes_held() == 0);
}
