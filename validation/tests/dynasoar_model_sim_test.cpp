// DynaSOAr's models (model/dynasoar.hpp) against the simulator's counters on the typed heap
// (cpu_sim/typed_heap.hpp): try_find_set's L loads and no atomics (L by hand as well), set and
// clear propagation as containers fill (on the bitmap's step machine), the slow-path rate's lower
// bound 1 / N_T, and the fragmentation of random thinning.
#include <catch2/catch.hpp>

#include <vector>

#include "alloclab/core/dynasoar/hbitmap_check.hpp"
#include "alloclab/core/dynasoar/types.hpp"
#include "alloclab/core/ouroboros/host_atomics.hpp"
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

TEST_CASE("dynasoar model: set and clear climb sum (1 - p)^(64^l - 1) levels",
          "[validation][dynasoar]") {
  // A bitmap of 64^3 bits (L = 3), each bit set with probability p; sets of random clear bits
  // and clears of random set bits, each undone after it, their levels counted by BitOp.
  using Bit = dynasoar::BitOp<ouro::HostAtomics>;
  const std::uint64_t M = 64 * 64 * 64;
  CHECK(dm::propagation_probability(0, 0.3) == 1.0);
  CHECK(dm::propagation_probability(1, 1.0 / 64) == Approx(std::pow(63.0 / 64, 63)));
  for (const double p : {0.001, 0.004, 1.0 / 64, 0.1}) {
    CAPTURE(p);
    std::vector<std::uint64_t> words(dynasoar::hb_total_words(M), 0);
    const dynasoar::HBitmap b{words.data(), M};
    std::vector<bool> set(M);
    const PhiloxStream rng(11, StreamDomain::workload, static_cast<std::uint64_t>(p * 1e6));
    std::vector<std::uint64_t> ones, zeros;
    for (std::uint64_t i = 0; i < M; ++i) {
      set[i] = rng.uniform01(i) < p;
      (set[i] ? ones : zeros).push_back(i);
    }
    dynasoar::hbitmap_assign(b, set);
    const int trials = 4000;
    for (const bool setting : {true, false}) {
      // At p = 0.001 about 262 bits are set: too few to average clears over (each of them is
      // alone in its container or not once for all); sets still reach level 2 there.
      if (!setting && ones.size() < 1000) continue;
      const auto& pool = setting ? zeros : ones;
      double levels = 0;
      for (int t = 0; t < trials; ++t) {
        const std::uint64_t pos = pool[rng.below(M + static_cast<std::uint64_t>(t), pool.size())];
        dynasoar::BitmapCounts c, undo;
        Bit op(setting ? dynasoar::BitOpKind::set : dynasoar::BitOpKind::clear, pos);
        while (op.step(b, c) != dynasoar::BitStatus::done) {
        }
        levels += c.levels;
        Bit back(setting ? dynasoar::BitOpKind::clear : dynasoar::BitOpKind::set, pos);
        while (back.step(b, undo) != dynasoar::BitStatus::done) {
        }
      }
      REQUIRE(dynasoar::hbitmap_consistency_error(b).empty());
      const double model = dm::expected_update_levels(M, p);
      // About 4 standard deviations of a mean of 4000 draws (and the bitmap's own draw).
      CHECK(std::abs(levels / trials - model) < 0.03);
    }
  }
}
