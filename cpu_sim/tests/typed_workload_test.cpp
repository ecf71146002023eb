// `alloclab workload --types` in the simulator (cpu_sim/typed_workload.hpp over the shared driver
// core/dynasoar/typed_workload.hpp): out of memory, blocks and F against hand-worked cases, churn
// keeping its live count, every family and mode verified, and the input errors naming their
// parameter.
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/workload.hpp"
#include "alloclab/cpu_sim/typed_workload.hpp"
#include "sim_test_helpers.hpp"

using namespace alloclab;
using alloclab::sim::testing::input_error;
using namespace alloclab::sim;

namespace {

Workload typed(WorkloadFamily f, std::vector<std::uint64_t> types, std::uint64_t pool) {
  Workload w;
  w.family = f;
  w.type_bytes = std::move(types);
  w.page_bytes = *std::min_element(w.type_bytes.begin(), w.type_bytes.end());
  const std::uint64_t largest = *std::max_element(w.type_bytes.begin(), w.type_bytes.end());
  w.size = SizeSpec{largest, largest};
  w.pool_bytes = pool;
  return w;
}

TypedWorkloadOptions in(Mode m) {
  TypedWorkloadOptions o;
  o.mode = m;
  return o;
}

}  // namespace

TEST_CASE("typed workload oom: one 64 B type on K blocks serves exactly 64 K objects",
          "[dynasoar][workload]") {
  // 8 blocks of 64 x 64 B = 4096 B: 512 slots. Batches of 64: the 9th fails whole. Threads mode
  // too (2 host threads): out of memory in a one-type batch is exact there (studies/dynasoar/).
  for (const char* algo : {"dynasoar", "dynasoar-nocoal", "dynasoar-norot"})
    for (const Mode m : {Mode::sequential, Mode::lockstep, Mode::threads}) {
      INFO(algo << " " << mode_name(m));
      Workload w = typed(WorkloadFamily::oom, {64}, 8 * 4096);
      w.batch = 64;
      TypedWorkloadOptions o = in(m);
      o.host_threads = 2;
      const WorkloadRun r = run_typed_workload(*parse_algorithm(algo), w, o, 0);
      REQUIRE(r.points.size() == 1);
      const WorkloadPoint& p = r.points[0];
      CHECK(p.count_at_failure == 512u);
      CHECK(p.batches_at_failure == 9u);
      CHECK(p.failed == 64u);
      CHECK(p.live_bytes == 512u * 64);  // utilisation 1
      CHECK(p.freed == 512u);            // everything freed at the end
      REQUIRE(p.typed_blocks);
      CHECK(p.typed_blocks->heap_blocks == 8u);
      CHECK(p.typed_blocks->blocks_in_use == 8u);
      CHECK(p.typed_blocks->blocks_min == 8u);
      CHECK(p.typed_blocks->slot_fragmentation == 0.0);
    }
}

TEST_CASE("typed workload oom: --batch-free 0.5 keeps half of each batch until the 512 slots fill",
          "[dynasoar][workload]") {
  // Each batch of 64 keeps 32: after 15 batches 480 live; the 16th serves 32 and fails 32.
  Workload w = typed(WorkloadFamily::oom, {64}, 8 * 4096);
  w.batch = 64;
  w.batch_free = 0.5;
  const WorkloadPoint p =
      run_typed_workload(*parse_algorithm("dynasoar"), w, in(Mode::sequential), 0).points.at(0);
  CHECK(p.count_at_failure == 512u);
  CHECK(p.batches_at_failure == 16u);
  CHECK(p.failed == 32u);
  CHECK(p.allocs == 15u * 64 + 32);
}

TEST_CASE("typed workload oom: types 60,64 on two blocks by hand", "[dynasoar][workload]") {
  // T_s = 60 B: a block is 3840 B, N = 64 for 60 B and floor(3840 / 64) = 60 for 64 B. Request g
  // is of type g mod 2 + 1, so the first two requests take one block each.
  const Algorithm ds = *parse_algorithm("dynasoar");
  SECTION("one request a batch: the 61st 64 B object (request 121) fails") {
    Workload w = typed(WorkloadFamily::oom, {60, 64}, 2 * 3840);
    w.batch = 1;
    const WorkloadPoint p = run_typed_workload(ds, w, in(Mode::sequential), 0).points.at(0);
    CHECK(p.count_at_failure == 121u);  // 61 of 60 B, 60 of 64 B
    CHECK(p.batches_at_failure == 122u);
    CHECK(p.live_bytes == 61u * 60 + 60u * 64);  // 7500 of 7680 B
    REQUIRE(p.typed_blocks);
    CHECK(p.typed_blocks->blocks_in_use == 2u);
    CHECK(p.typed_blocks->blocks_min == 2u);
    CHECK(p.typed_blocks->slot_fragmentation == Approx(3.0 / 124));  // 3 free of 64 + 60
  }
  SECTION("batches of 64: the heap is full to the byte, 4 requests of 64 B fail") {
    Workload w = typed(WorkloadFamily::oom, {60, 64}, 2 * 3840 + 100);  // the tail is unused
    w.batch = 64;
    const WorkloadPoint p = run_typed_workload(ds, w, in(Mode::sequential), 0).points.at(0);
    CHECK(p.count_at_failure == 124u);
    CHECK(p.batches_at_failure == 2u);
    CHECK(p.failed == 4u);
    CHECK(p.live_bytes == 7680u);
    CHECK(p.typed_blocks->heap_blocks == 2u);
    CHECK(p.typed_blocks->slot_fragmentation == 0.0);
  }
}

TEST_CASE("typed workload alloc: blocks and F of 500 + 500 objects of 60 and 64 B by hand",
          "[dynasoar][workload]") {
  // Sequential: 500 of 60 B fill ceil(500 / 64) = 8 blocks, 500 of 64 B ceil(500 / 60) = 9; F =
  // (8 x 64 - 500 + 9 x 60 - 500) / (8 x 64 + 9 x 60) = 52 / 1052.
  for (const WorkloadFamily f :
       {WorkloadFamily::alloc, WorkloadFamily::fragmentation, WorkloadFamily::scaling}) {
    Workload w = typed(f, {60, 64}, 64 * 3840);
    w.N = 1000;
    const WorkloadPoint p =
        run_typed_workload(*parse_algorithm("dynasoar"), w, in(Mode::sequential), 0).points.at(0);
    CHECK(p.requests == 1000u);
    CHECK(p.allocs == 1000u);
    CHECK(p.freed == 1000u);
    CHECK(p.live_bytes == 500u * 60 + 500u * 64);
    REQUIRE(p.typed_blocks);
    CHECK(p.typed_blocks->blocks_in_use == 17u);
    CHECK(p.typed_blocks->blocks_min == 17u);
    CHECK(p.typed_blocks->slot_fragmentation == Approx(52.0 / 1052));
    // 17 distinct blocks of the 64 (the free bitmap's rotation picks which) span more than 16
    // blocks of bytes and at most the heap.
    REQUIRE(p.address_range_bytes);
    CHECK(*p.address_range_bytes <= 64u * 3840);
    CHECK(*p.address_range_bytes > 16u * 3840);
  }
  // Lockstep: warps race to initialise blocks, so at least the 17 (the driver checks it), verified.
  Workload w = typed(WorkloadFamily::alloc, {60, 64}, 64 * 3840);
  w.N = 1000;
  const WorkloadPoint p =
      run_typed_workload(*parse_algorithm("dynasoar"), w, in(Mode::lockstep), 0).points.at(0);
  CHECK(p.allocs == 1000u);
  CHECK(p.typed_blocks->blocks_min == 17u);
  CHECK(p.typed_blocks->blocks_in_use >= 17u);
}

TEST_CASE("typed workload churn keeps its live count and frees a quarter a round",
          "[dynasoar][workload]") {
  for (const Mode m : {Mode::sequential, Mode::lockstep, Mode::threads}) {
    INFO(mode_name(m));
    Workload w = typed(WorkloadFamily::churn, {60, 64}, 32 * 3840);
    w.N = 512;
    w.rounds = 5;
    w.free_fraction = 0.25;
    TypedWorkloadOptions o = in(m);
    o.host_threads = 2;
    const WorkloadRun r = run_typed_workload(*parse_algorithm("dynasoar"), w, o, 0);
    REQUIRE(r.points.size() == 6);
    CHECK(r.points[0].allocs == 512u);
    for (std::size_t k = 0; k < r.points.size(); ++k) {
      const WorkloadPoint& p = r.points[k];
      INFO("round " << k);
      CHECK(p.round == k);
      CHECK(p.failed == 0u);
      CHECK(p.live_objects == 512u);
      CHECK(p.live_bytes == 256u * 60 + 256u * 64);  // each thread keeps its type
      if (k > 0) {
        CHECK(p.requests == 128u);
        CHECK(p.allocs == 128u);
        CHECK(p.freed == (k == 5 ? 128u + 512u : 128u));  // the last round frees everything
      }
      REQUIRE(p.typed_blocks);
      CHECK(p.typed_blocks->blocks_min == 4u + 5u);  // ceil(256 / 64) + ceil(256 / 60)
      CHECK(p.typed_blocks->blocks_in_use >= 9u);
    }
  }
}

TEST_CASE("typed workload: two repeats of a lockstep churn count the same",
          "[dynasoar][workload]") {
  Workload w = typed(WorkloadFamily::churn, {28}, 16 * 64 * 28);
  w.N = 600;
  w.rounds = 3;
  TypedWorkloadOptions o = in(Mode::lockstep);
  o.repeats = 2;
  const WorkloadRun r = run_typed_workload(*parse_algorithm("dynasoar"), w, o, 0);
  CHECK(r.points.size() == 4);
  CHECK(r.points.back().live_objects == 600u);
}

TEST_CASE("typed workload input errors name their parameter", "[dynasoar][workload]") {
  const Algorithm ds = *parse_algorithm("dynasoar");
  const TypedWorkloadOptions seq = in(Mode::sequential);
  auto err = [&](Algorithm a, const Workload& w, const TypedWorkloadOptions& o) {
    return input_error([&] { check_typed_workload_input(a, w, o); });
  };
  Workload ok = typed(WorkloadFamily::alloc, {60, 64}, 1 << 20);
  CHECK(err(ds, ok, seq).empty());
  CHECK(err(*parse_algorithm("rw"), ok, seq) == "--allocator");
  CHECK(err(*parse_algorithm("bitmap-alloc"), ok, seq) == "--allocator");
  CHECK(err(ds, typed(WorkloadFamily::alloc, {60, 3841}, 1 << 20), seq) == "--types");
  CHECK(err(ds, typed(WorkloadFamily::alloc, {60, 3840}, 1 << 20), seq).empty());
  Workload none = ok;
  none.type_bytes.clear();
  CHECK(err(ds, none, seq) == "--types");
  CHECK(err(ds, typed(WorkloadFamily::alloc, {60, 64}, 3839), seq) == "--pool");
  CHECK(err(ds, typed(WorkloadFamily::mixed, {60, 64}, 1 << 20), seq) == "--workload");
  Workload prefilled = ok;
  prefilled.initial_free = 0.5;
  CHECK(err(ds, prefilled, seq) == "--free");
}
