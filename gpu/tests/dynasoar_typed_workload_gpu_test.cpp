// `alloclab workload --types --backend gpu` (gpu/src/dynasoar_typed_workload.cpp): the workload
// families over the GPU's typed heap. Out of memory of one type is exact on the device (the
// linux-scalability test's finding), so oom's count is checked against the slots by hand; with two
// types the warps' races decide which blocks each type gets, so only the capacity bounds it. The
// heap checks itself after every kernel and the driver checks the live counts, the blocks and the
// empty heap at the end: a case that returns was verified. Label gpu: skipped without a device
// (the input checks need none).
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/workload.hpp"
#include "alloclab/gpu/dynasoar_typed_workload.hpp"
#include "gpu_support.hpp"

using namespace alloclab;
using namespace alloclab::gpu;
using gpu::test::require_device;

namespace {

const Algorithm kTyped[] = {Algorithm::dynasoar, Algorithm::dynasoar_nocoal,
                            Algorithm::dynasoar_norot};

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

}  // namespace

TEST_CASE("GPU typed workload input errors name their parameter (no device needed)",
          "[gpu][dynasoar][workload]") {
  auto err = [](Algorithm a, const Workload& w) {
    try {
      check_typed_workload_input_gpu(a, w, TypedWorkloadGpuOptions{});
    } catch (const InputError& e) {
      return e.parameter();
    }
    return std::string();
  };
  const Workload ok = typed(WorkloadFamily::alloc, {60, 64}, 1 << 20);
  CHECK(err(Algorithm::rw, ok) == "--allocator");
  CHECK(err(Algorithm::bitmap_alloc, ok) == "--allocator");
  if (!built_with_cuda()) return;  // no typed heap at all without CUDA
  CHECK(err(Algorithm::dynasoar, ok).empty());
  CHECK(err(Algorithm::dynasoar, typed(WorkloadFamily::alloc, {60, 3841}, 1 << 20)) == "--types");
  CHECK(err(Algorithm::dynasoar, typed(WorkloadFamily::alloc, {60, 64}, 3839)) == "--pool");
  CHECK(err(Algorithm::dynasoar, typed(WorkloadFamily::mixed, {60, 64}, 1 << 20)) == "--workload");
}

TEST_CASE("GPU typed workload oom: one 64 B type on 8 blocks serves exactly 512 objects",
          "[gpu][dynasoar][workload]") {
  require_device();
  for (const Algorithm a : kTyped) {
    INFO(name(a));
    Workload w = typed(WorkloadFamily::oom, {64}, 8 * 4096);
    w.batch = 64;
    const WorkloadRun r = run_typed_workload_gpu(a, w, TypedWorkloadGpuOptions{}, 0);
    REQUIRE(r.points.size() == 1);
    const WorkloadPoint& p = r.points[0];
    CHECK(p.count_at_failure == 512u);
    CHECK(p.batches_at_failure == 9u);
    CHECK(p.failed == 64u);
    CHECK(p.live_bytes == 512u * 64);
    CHECK(p.freed == 512u);
    REQUIRE(p.typed_blocks);
    CHECK(p.typed_blocks->blocks_in_use == 8u);
    CHECK(p.typed_blocks->slot_fragmentation == 0.0);
  }
}

TEST_CASE("GPU typed workload oom: types 60,64 on two blocks stay within the 124 slots",
          "[gpu][dynasoar][workload]") {
  require_device();
  for (const Algorithm a : kTyped) {
    INFO(name(a));
    Workload w = typed(WorkloadFamily::oom, {60, 64}, 2 * 3840);
    w.batch = 64;
    const WorkloadPoint p = run_typed_workload_gpu(a, w, TypedWorkloadGpuOptions{}, 0).points.at(0);
    REQUIRE(p.count_at_failure);
    CHECK(*p.count_at_failure <= 124u);  // 64 of 60 B + 60 of 64 B
    // The first batch's 4 groups (2 warps x 2 types, 16 lanes each) race for the 2 free blocks;
    // the two that win are served whole, whatever their types.
    CHECK(*p.count_at_failure >= 32u);
    CHECK(p.live_bytes <= 7680u);
    CHECK(p.typed_blocks->heap_blocks == 2u);
  }
}

TEST_CASE("GPU typed workload alloc and churn: counts, blocks and live objects",
          "[gpu][dynasoar][workload]") {
  require_device();
  // 2048 blocks: more than the requests of a batch, so no allocation fails even where every
  // request initialises a block of its own (dynasoar-nocoal's lanes racing).
  for (const Algorithm a : kTyped) {
    INFO(name(a));
    Workload w = typed(WorkloadFamily::alloc, {60, 64}, 2048 * 3840);
    w.N = 1000;
    const WorkloadPoint p = run_typed_workload_gpu(a, w, TypedWorkloadGpuOptions{}, 0).points.at(0);
    CHECK(p.allocs == 1000u);
    CHECK(p.freed == 1000u);
    CHECK(p.live_bytes == 500u * 60 + 500u * 64);
    CHECK(p.typed_blocks->blocks_min == 17u);  // ceil(500 / 64) + ceil(500 / 60)
    CHECK(p.typed_blocks->blocks_in_use >= 17u);

    Workload c = typed(WorkloadFamily::churn, {60, 64}, 2048 * 3840);
    c.N = 512;
    c.rounds = 4;
    c.free_fraction = 0.25;
    const WorkloadRun r = run_typed_workload_gpu(a, c, TypedWorkloadGpuOptions{}, 0);
    REQUIRE(r.points.size() == 5);
    for (const WorkloadPoint& q : r.points) {
      CHECK(q.failed == 0u);
      CHECK(q.live_objects == 512u);
      CHECK(q.live_bytes == 256u * 60 + 256u * 64);
      if (q.round > 0) CHECK(q.allocs == 128u);
    }
  }
}
