// DynaSOAr's typed heap of byte-sized types (cpu_sim/typed_heap.hpp) and its application
// workloads (typed_apps.hpp): capacities and input errors by hand, the heap against a reference
// kept here (byte ranges in a std::map, blocks' slots counted for F), Wa-Tor's bookkeeping and
// determinism, linux-scalability's capacity by hand.
#include <catch2/catch.hpp>

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "alloclab/core/dynasoar/types.hpp"
#include "alloclab/core/errors.hpp"
#include "alloclab/core/random_stream.hpp"
#include "alloclab/cpu_sim/typed_apps.hpp"
#include "sim_test_helpers.hpp"

using namespace alloclab;
using alloclab::sim::testing::input_error;
using namespace alloclab::sim;

namespace {

TypedHeapOptions options(const std::string& types, std::uint64_t heap_bytes, TypedMode mode) {
  TypedHeapOptions o;
  o.types = dynasoar::parse_types("--types", types);
  o.heap_bytes = heap_bytes;
  o.mode = mode;
  return o;
}

}  // namespace

TEST_CASE("typed sizes: N_T = floor(64 smallest / size) by hand and bad input", "[dynasoar]") {
  const auto t = dynasoar::parse_types("--types", "60,64");
  CHECK(t.capacity(1) == 64);
  CHECK(t.capacity(2) == 60);  // 3840 / 64
  CHECK(t.block_bytes() == 3840);
  const auto u = dynasoar::parse_types("--types", "28,100,1792");
  CHECK(u.capacity(1) == 64);
  CHECK(u.capacity(2) == 17);  // 1792 / 100
  CHECK(u.capacity(3) == 1);   // 64 x 28
  CHECK(dynasoar::parse_types("--types", "60,3840").capacity(2) == 1);
  CHECK(input_error([] { dynasoar::parse_types("--types", "60,3841"); }) == "--types");
  CHECK(input_error([] { dynasoar::parse_types("--types", ""); }) == "--types");
  CHECK(input_error([] { dynasoar::parse_types("--types", "0"); }) == "--types");
  CHECK(input_error([&] { t.blocks_of("--pool", 3839); }) == "--pool");
  CHECK(t.blocks_of("--pool", 3840 * 3 + 100) == 3);
  CHECK(input_error([] { TypedHeap h(options("60,64", 3000, TypedMode::lockstep)); }) == "--pool");
}

TEST_CASE("typed heap: a 64 B type fills 60 slots of a 60 B block and type-bound free slots",
          "[dynasoar]") {
  for (const TypedMode mode : {TypedMode::sequential, TypedMode::lockstep}) {
    TypedHeap h(options("60,64", 2 * 3840, mode));
    // One group of 60 (in lockstep two warps would each initialise a block of their own).
    std::vector<TypedRequest> sixty(60, TypedRequest{2, 0});
    std::set<std::uint64_t> addresses;
    for (const auto& o : h.allocate(sixty)) {
      REQUIRE(o);
      CHECK(o->block == 0);  // 60 slots: one block exactly
      addresses.insert(h.address(*o));
    }
    CHECK(addresses.size() == 60);
    CHECK(*addresses.rbegin() + 64 <= 3840);  // the last object ends inside the block
    CHECK(h.fragmentation() == 0.0);
    // One more of 64 B takes the second block: F = 59 free of 120 slots.
    const auto one = h.allocate({TypedRequest{2, 0}});
    REQUIRE(one[0]);
    CHECK(one[0]->block == 1);
    CHECK(h.fragmentation() == Approx(59.0 / 120.0));
    // No block is free: a 60 B object fails although 59 slots of 64 B are free (type-bound).
    CHECK(!h.allocate({TypedRequest{1, 0}})[0]);
    CHECK(h.failed() == 1);
    // Freeing the lone object deletes its block; then the 60 B object fits there (64 slots).
    h.free({*one[0]});
    CHECK(h.blocks_in_use() == 1);
    std::vector<TypedRequest> sixty_four(64, TypedRequest{1, 7});
    for (const auto& o : h.allocate(sixty_four)) {
      REQUIRE(o);
      CHECK(o->block == 1);
    }
    CHECK(h.fragmentation() == 0.0);
  }
}

TEST_CASE("typed heap: random batches against byte ranges and F counted here", "[dynasoar]") {
  for (const unsigned retries : {1u, 5u})
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
      TypedHeapOptions o = options("60,64,100", 40 * 3840, TypedMode::lockstep);
      o.retries = retries;
      o.seed = seed;
      TypedHeap h(o);
      const std::uint64_t size[] = {0, 60, 64, 100};
      const unsigned cap[] = {0, 64, 60, 38};     // floor(3840 / size)
      std::map<std::uint64_t, TypedObject> live;  // byte address -> object
      const PhiloxStream rng(seed, StreamDomain::workload, 99);
      std::uint64_t k = 0;
      for (int round = 0; round < 12; ++round) {
        std::vector<TypedRequest> batch(200);
        for (std::uint64_t i = 0; i < batch.size(); ++i)
          batch[i] = TypedRequest{static_cast<unsigned>(1 + rng.below(k++, 3)), i / 32};
        for (const auto& got : h.allocate(batch)) {
          if (!got) continue;
          const std::uint64_t a = h.address(*got);
          CHECK(a == got->block * 3840 + got->slot * size[got->type]);
          CHECK(got->slot < cap[got->type]);
          auto next = live.lower_bound(a);
          if (next != live.end()) CHECK(a + size[got->type] <= next->first);
          if (next != live.begin()) {
            const auto& [pa, po] = *std::prev(next);
            CHECK(pa + size[po.type] <= a);
          }
          live.emplace(a, *got);
        }
        // parallel_do's enumeration is the live objects of each type.
        for (unsigned t = 1; t <= 3; ++t) {
          std::set<std::uint64_t> want, got;
          for (const auto& [a, ob] : live)
            if (ob.type == t) want.insert(a);
          for (const auto& ob : h.enumerate(t)) got.insert(h.address(ob));
          CHECK(got == want);
        }
        // F from the objects held here: per block, slots of its type minus objects.
        std::map<std::uint64_t, std::pair<unsigned, unsigned>> per_block;  // cap, used
        for (const auto& [a, ob] : live) {
          per_block[ob.block].first = cap[ob.type];
          ++per_block[ob.block].second;
        }
        double slots = 0, free_slots = 0;
        for (const auto& [b, cu] : per_block) {
          slots += cu.first;
          free_slots += cu.first - cu.second;
        }
        CHECK(h.fragmentation() == Approx(slots == 0 ? 0.0 : free_slots / slots));
        CHECK(h.live_objects() == live.size());
        // Free about half of them.
        std::vector<TypedObject> gone;
        for (auto it = live.begin(); it != live.end();) {
          if (rng.below(k++, 2) == 0) {
            gone.push_back(it->second);
            it = live.erase(it);
          } else {
            ++it;
          }
        }
        h.free(gone);
      }
      CHECK_THROWS_AS(h.free({TypedObject{0, 63, 1}, TypedObject{0, 63, 1}}), VerificationError);
    }
}

TEST_CASE("linux-scalability: capacity by hand and exact out of memory and every block back",
          "[dynasoar]") {
  for (const TypedMode mode : {TypedMode::sequential, TypedMode::lockstep}) {
    LinuxScalabilityOptions o;
    o.heap = options("64", 64 * 4096, mode);  // 64 blocks of 64 slots: 4096 objects
    o.threads = 1000;
    const LinuxScalabilityRun r = run_linux_scalability(o);
    CHECK(r.capacity == 4096);
    CHECK(r.n_max == 4);         // 4000 <= 4096 < 5000
    CHECK(r.allocated == 4096);  // the fifth batch takes exactly the 96 slots left
    CHECK(r.failed == 904);
    CHECK(r.utilisation == Approx(4000.0 * 64 / (64 * 4096)));
    CHECK(r.blocks_left == 0);
    CHECK(r.counts.invalidated == 64);
    // The slow-path rate's lower bound 1/N_T; sequentially each block is filled before the next.
    CHECK(r.slow_path_rate >= 1.0 / 64);
    if (mode == TypedMode::sequential) CHECK(r.counts.blocks_initialised == 64);
  }
  LinuxScalabilityOptions bad;
  bad.heap = options("64,128", 64 * 4096, TypedMode::lockstep);
  CHECK(input_error([&] { run_linux_scalability(bad); }) == "--types");
}

TEST_CASE("wator: populations add up and runs are verified and deterministic", "[dynasoar]") {
  WatorOptions o;
  o.heap = options("60,64", 2 << 20, TypedMode::lockstep);
  o.width = 32;
  o.height = 32;
  o.iterations = 60;
  for (const unsigned retries : {1u, 5u}) {
    o.heap.retries = retries;
    const WatorRun a = run_wator(o), b = run_wator(o);
    REQUIRE(a.iterations.size() == 61);
    for (std::size_t i = 1; i < a.iterations.size(); ++i) {
      const WatorIteration& p = a.iterations[i - 1];
      const WatorIteration& c = a.iterations[i];
      // Nothing appears or vanishes but by births, meals and starvation (no births failed here).
      CHECK(c.failed == 0);
      CHECK(c.fish == p.fish + c.fish_births - c.fish_eaten);
      CHECK(c.sharks == p.sharks + c.shark_births - c.shark_deaths);
      CHECK(c.fragmentation >= 0.0);
      CHECK(c.fragmentation < 1.0);
      CHECK(c.fragmentation == b.iterations[i].fragmentation);
      CHECK(c.fish == b.iterations[i].fish);
    }
    CHECK(a.iterations[0].fish + a.iterations[0].sharks > 400);  // half of 1024 cells, about
  }
  WatorOptions bad = o;
  bad.heap = options("60", 2 << 20, TypedMode::lockstep);
  CHECK(input_error([&] { run_wator(bad); }) == "--types");
}
