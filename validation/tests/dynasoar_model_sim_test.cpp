// DynaSOAr's models (model/dynasoar.hpp) against the simulator's counters on the typed heap
// (cpu_sim/typed_heap.hpp): try_find_set's L loads and no atomics (L by hand as well), the
// slow-path rate's lower bound 1 / N_T, and the fragmentation of random thinning.
#include <catch2/catch.hpp>

#include <vector>

#include "alloclab/core/dynasoar/types.hpp"
#include "alloclab/core/random_stream.hpp"
#include "alloclab/cpu_sim/typed_heap.hpp"
#include "alloclab/model/dynasoar.hpp"

using namespace alloclab;
using namespace alloclab::sim;
namespace dm = alloclab::model::dynasoar;

namespace {
TypedHeapOptions heap_of(const std::string& types, std::uint64_t blocks, TypedMode mode) {
  TypedHeapOptions o;
  o.types = dynasoar::parse_types("--types", types);
  o.heap_bytes = blocks * o.types.block_bytes();
  o.mode = mode;
  return o;
}
}  // namespace

TEST_CASE("dynasoar model: L = ceil(log64 M) by hand", "[validation][dynasoar]") {
  CHECK(dm::bitmap_levels(1) == 1);
  CHECK(dm::bitmap_levels(64) == 1);
  CHECK(dm::bitmap_levels(65) == 2);
  CHECK(dm::bitmap_levels(4096) == 2);
  CHECK(dm::bitmap_levels(4097) == 3);
  CHECK(dm::bitmap_levels(262144) == 3);  // Listing 1: 16,777,216 objects, M = 262,144
  CHECK(dm::bitmap_levels(262145) == 4);
}

TEST_CASE("dynasoar model: a lookup that finds an active block is L loads and no atomic",
          "[validation][dynasoar]") {
  for (const std::uint64_t M : {1ull, 64ull, 65ull, 4096ull, 4097ull}) {
    CAPTURE(M);
    TypedHeap h(heap_of("64", M, TypedMode::sequential));
    h.allocate({TypedRequest{1, 0}});  // the slow path: a block becomes active
    const dynasoar::DsCounts before = h.counts();
    h.allocate({TypedRequest{1, 0}});  // the fast path: one lookup, one reservation
    const dynasoar::DsCounts& after = h.counts();
    CHECK(after.lookups - before.lookups == 1);
    CHECK(after.lookup_fails == before.lookup_fails);
    CHECK(after.bitmap.loads - before.bitmap.loads == dm::try_find_set_cost(M).loads);
    CHECK(after.bitmap.atomics - before.bitmap.atomics == dm::try_find_set_cost(M).atomics);
    CHECK(after.block_atomics - before.block_atomics == 1);  // Alg. 6's atomicOr
  }
}

TEST_CASE("dynasoar model: the slow-path rate is at least 1/N_T and met sequentially",
          "[validation][dynasoar]") {
  // Types of 64 and 100 B: N = 64 and floor(4096 / 100) = 40.
  for (const unsigned type : {1u, 2u}) {
    const unsigned N = type == 1 ? 64 : 40;
    for (const TypedMode mode : {TypedMode::sequential, TypedMode::lockstep}) {
      TypedHeap h(heap_of("64,100", 64, mode));
      std::vector<TypedRequest> batch(10 * N);
      for (std::uint64_t i = 0; i < batch.size(); ++i) batch[i] = TypedRequest{type, i / 32};
      for (const auto& o : h.allocate(batch)) REQUIRE(o);
      const double rate = static_cast<double>(h.counts().blocks_initialised) / (10.0 * N);
      CHECK(rate >= dm::slow_path_rate_lower_bound(N) * (1 - 1e-12));
      if (mode == TypedMode::sequential) CHECK(rate == Approx(dm::slow_path_rate_lower_bound(N)));
    }
  }
}

TEST_CASE("dynasoar model: random thinning leaves F = (q - q^N) / (1 - q^N)",
          "[validation][dynasoar]") {
  struct P {
    const char* types;
    unsigned type, N;
    std::uint64_t blocks;
    double q;
  };
  // N = 64 (64 B), 2 (2048 B, 32 x 64), 5 (800 B: floor(4096 / 800)).
  for (const P p : {P{"64", 1, 64, 200, 0.5}, P{"64", 1, 64, 200, 0.9},
                    P{"64,2048", 2, 2, 4000, 0.5}, P{"64,800", 2, 5, 2000, 0.6}}) {
    CAPTURE(p.types, p.N, p.q);
    TypedHeap h(heap_of(p.types, p.blocks, TypedMode::lockstep));
    std::vector<TypedRequest> batch(p.blocks * p.N);
    for (std::uint64_t i = 0; i < batch.size(); ++i) batch[i] = TypedRequest{p.type, i / 32};
    std::vector<TypedObject> held;
    for (const auto& o : h.allocate(batch)) {
      REQUIRE(o);
      held.push_back(*o);
    }
    REQUIRE(h.fragmentation() == 0.0);  // every block full
    std::vector<TypedObject> gone;
    const PhiloxStream rng(7, StreamDomain::workload, p.N);
    for (std::uint64_t i = 0; i < held.size(); ++i)
      if (rng.uniform01(i) < p.q) gone.push_back(held[i]);
    h.free(gone);
    // About 4 standard deviations of the per-block average.
    const double sd = std::sqrt(p.q * (1 - p.q) / static_cast<double>(p.N * p.blocks));
    CHECK(std::abs(h.fragmentation() - dm::thinned_fragmentation(p.N, p.q)) < 4 * sd + 0.01);
  }
}
