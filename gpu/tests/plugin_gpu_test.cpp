// The two plug-ins of the repository (gpu/plugins: docs/plugin-allocators.md) through the GPU
// workload driver, with counts worked out by hand from what each plug-in does: ext-bump hands out
// consecutive 16 B-rounded ranges of its pool and never reuses them; ext-bump-warp one block per
// warp of 32 slices, each a 16 B header and the object; ext-corw is the registry's CoRW behind the
// plug-in interface. The contract tests (gpu_test.cpp, workload_test.cpp) enrol them besides, as
// every allocator on the gpu backend. The declarations need no device; the rest is label gpu.
#include <catch2/catch.hpp>

#include "alloclab/core/errors.hpp"
#include "alloclab/gpu/workload.hpp"
#include "alloclab/testing/workload_support.hpp"
#include "gpu_support.hpp"

using namespace alloclab;
using namespace alloclab::gpu;
using alloclab::testing::one_size_workload;
using gpu::test::require_device;

namespace {

Algorithm plugin_named(const char* name) {
  const auto a = parse_algorithm(name);
  INFO(name << " is not declared: gpu/plugins is configured by default");
  REQUIRE(a);
  return *a;
}

std::string rejected(Algorithm a, const Workload& w, const WorkloadOptions& o = {}) {
  try {
    check_workload_input(a, w, o);
  } catch (const InputError& e) {
    return e.parameter();
  }
  return "";
}

}  // namespace

TEST_CASE("the repository's plug-ins are declared with or without CUDA, on the gpu only", "[gpu]") {
  for (const char* name : {"ext-bump", "ext-bump-warp", "ext-corw"}) {
    const Algorithm a = plugin_named(name);
    INFO(name);
    CHECK(is_plugin(a));
    CHECK(caps(a).requests == RequestKind::bytes);
    CHECK_FALSE(caps(a).has(BackendKind::sim));
    CHECK_FALSE(caps(a).has(BackendKind::model));
    CHECK(algorithm_names().find(name) != std::string::npos);
  }
  // The registry's own table is what it was: no plug-in in it.
  for (const auto& a : kAlgorithms) CHECK_FALSE(std::string(a.name).starts_with("ext-"));
  // Checks that need no device: the workload is accepted on the GPU (a pool of bytes, any size
  // for ext-bump, up to one page for ext-corw), not prefilled.
  const auto w = one_size_workload(WorkloadFamily::alloc, 1024, 256, 1 << 20);
  CHECK(rejected(plugin_named("ext-bump"), w) == "");
  CHECK(rejected(plugin_named("ext-corw"), w) == "");
  auto prefilled = w;
  prefilled.initial_free = 0.5;
  CHECK(rejected(plugin_named("ext-bump"), prefilled) == "--free");
}

TEST_CASE("with CUDA, each plug-in's header declarations reach the registry", "[gpu]") {
  if (!built_with_cuda()) return;  // without CUDA only the names are known
  const Capabilities& bump = caps(plugin_named("ext-bump"));
  CHECK(bump.alignment_bytes == 16);
  CHECK_FALSE(bump.frees);  // reuses_freed = false: the report's floor
  CHECK_FALSE(bump.warp_collective);
  const Capabilities& corw = caps(plugin_named("ext-corw"));
  CHECK(corw.warp_collective);
  CHECK(corw.frees);
  // ext-corw declares no per-warp variant (a page cannot hold a warp's 32 objects).
  CHECK_FALSE(caps(plugin_named("ext-corw-warp")).has(BackendKind::gpu));
  CHECK(caps(plugin_named("ext-bump-warp")).has(BackendKind::gpu));
  CHECK(caps(plugin_named("ext-bump-warp")).alignment_bytes == 16);
}

TEST_CASE("ext-bump packs its objects and fills its pool to the byte", "[gpu]") {
  require_device();
  const Algorithm bump = plugin_named("ext-bump");
  // 3000 objects of 256 B: one range of 3000 x 256 bytes, nothing between them.
  const WorkloadRun a =
      run_workload(bump, one_size_workload(WorkloadFamily::alloc, 3000, 256, 1 << 20), {}, 0);
  REQUIRE(a.points.size() == 1);
  CHECK(a.points[0].allocs == 3000);
  REQUIRE(a.points[0].address_range_bytes);
  CHECK(*a.points[0].address_range_bytes == 3000 * 256);
  // 100 B objects take 112 B (16 B rounding): the last ends 12 B past its request.
  const WorkloadRun b =
      run_workload(bump, one_size_workload(WorkloadFamily::alloc, 3000, 100, 1 << 20), {}, 0);
  CHECK(*b.points[0].address_range_bytes == 2999 * 112 + 100);
  // Out of memory on the workload's pool of 2 MiB: floor(2^21 / 112) = 18724 objects fit, in
  // batches of 512 the 37th fails (36 x 512 = 18432 < 18724 < 37 x 512).
  auto oom = one_size_workload(WorkloadFamily::oom, 1, 100, 2 << 20);
  oom.batch = 512;
  const WorkloadPoint o = run_workload(bump, oom, {}, 0).points.at(0);
  REQUIRE(o.count_at_failure);
  CHECK(*o.count_at_failure == 18724);
  CHECK(o.allocs == 18724);
  REQUIRE(o.batches_at_failure);
  CHECK(*o.batches_at_failure == 37);
  // Registers of its kernels and its initialisation are reported.
  REQUIRE(a.alloc_registers);
  REQUIRE(a.free_registers);
  CHECK(*a.alloc_registers > 0);
  CHECK(*a.free_registers > 0);
  CHECK(a.points[0].init_seconds > 0);
}

TEST_CASE("ext-bump-warp: one block of 32 slices per warp", "[gpu]") {
  require_device();
  // 1024 threads of 256 B: 32 warps, each one malloc of 32 x (16 + 256) B from the bump, the
  // blocks back to back; the first object starts 16 B into the first block, the last ends at the
  // end of the last: range = 1024 x 272 - 16.
  const WorkloadRun r =
      run_workload(plugin_named("ext-bump-warp"),
                   one_size_workload(WorkloadFamily::alloc, 1024, 256, 1 << 20), {}, 0);
  CHECK(r.points[0].allocs == 1024);
  REQUIRE(r.points[0].address_range_bytes);
  CHECK(*r.points[0].address_range_bytes == 1024 * 272 - 16);
  // A partial warp (1000 = 31 x 32 + 8) and churn, whose frees give a block back only with its
  // last slice (the bump reuses nothing, so the rounds take new blocks: 2048 + 3 x 512 slices).
  auto churn = one_size_workload(WorkloadFamily::churn, 1000, 256, 1 << 20);
  churn.rounds = 3;
  churn.free_fraction = 0.25;
  const WorkloadRun c = run_workload(plugin_named("ext-bump-warp"), churn, {}, 0);
  REQUIRE(c.points.size() == 4);
  for (const auto& p : c.points) CHECK(p.failed == 0);
}

TEST_CASE("ext-corw counts what the registry's corw counts where the run is deterministic",
          "[gpu]") {
  require_device();
  const Algorithm ext = plugin_named("ext-corw");
  // Every request served: the same counts and bytes.
  const auto w = one_size_workload(WorkloadFamily::alloc, 4096, 256, 4 << 20);
  const WorkloadPoint mine = run_workload(ext, w, {}, 0).points.at(0);
  const WorkloadPoint theirs = run_workload(Algorithm::corw, w, {}, 0).points.at(0);
  CHECK(mine.allocs == 4096);
  CHECK(mine.allocs == theirs.allocs);
  CHECK(mine.failed == theirs.failed);
  CHECK(mine.live_bytes == theirs.live_bytes);
  // Out of memory: both fill every page of 2^20 / 256 = 4096 (8 whole batches of 512).
  auto oom = one_size_workload(WorkloadFamily::oom, 1, 256, 1 << 20);
  oom.batch = 512;
  WorkloadOptions o;
  o.max_steps = 4096;
  const WorkloadPoint mine_oom = run_workload(ext, oom, o, 0).points.at(0);
  const WorkloadPoint theirs_oom = run_workload(Algorithm::corw, oom, o, 0).points.at(0);
  REQUIRE(mine_oom.count_at_failure);
  REQUIRE(theirs_oom.count_at_failure);
  CHECK(*mine_oom.count_at_failure == 4096);
  CHECK(*theirs_oom.count_at_failure == 4096);
  CHECK(*mine_oom.batches_at_failure == *theirs_oom.batches_at_failure);
  // Its pages are the workload's: a request above one page is null, counted as failed.
  const WorkloadPoint big =
      run_workload(ext, one_size_workload(WorkloadFamily::alloc, 64, 512, 1 << 20), {}, 0)
          .points.at(0);
  CHECK(big.failed == 64);
}

TEST_CASE("registers and initialisation time: the registry's kernels report theirs too", "[gpu]") {
  require_device();
  const auto w = one_size_workload(WorkloadFamily::alloc, 1024, 256, 1 << 20);
  for (Algorithm a : {Algorithm::queue, Algorithm::rw, Algorithm::rwbm, Algorithm::corw,
                      Algorithm::rwmalloc, plugin_named("ext-corw")}) {
    INFO(name(a));
    const WorkloadRun r = run_workload(a, w, {}, 0);
    REQUIRE(r.alloc_registers);
    REQUIRE(r.free_registers);
    CHECK(*r.alloc_registers > 0);
    CHECK(*r.alloc_registers <= 255);
    CHECK(*r.free_registers > 0);
  }
}
