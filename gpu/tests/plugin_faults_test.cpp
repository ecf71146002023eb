// The driver's checks catch a plug-in that breaks the contract (plugin_faults.hpp), with a message
// that says what and where, and the watchdog stops one that hangs. Label gpu: skipped without a
// device. (A separate executable: the faulty plug-ins must not join the contract tests.)
#include <catch2/catch.hpp>

#include <chrono>
#include <string>

#include "alloclab/core/errors.hpp"
#include "alloclab/gpu/workload.hpp"
#include "alloclab/testing/workload_support.hpp"
#include "gpu_support.hpp"
#include "plugin_faults.hpp"

using namespace alloclab;
using namespace alloclab::gpu;
using alloclab::testing::one_size_workload;
using gpu::test::require_device;

namespace {

Algorithm plugin_named(const char* name) {
  const auto a = parse_algorithm(name);
  REQUIRE(a);
  return *a;
}

// The VerificationError a workload of `name` throws ("" where it passes).
std::string failure(const char* name, const Workload& w) {
  try {
    (void)run_workload(plugin_named(name), w, {}, 0);
  } catch (const VerificationError& e) {
    return e.what();
  }
  return "";
}

bool has(const std::string& text, const std::string& part) {
  INFO(text);
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("plug-in faults: overlapping objects name the first pair", "[gpu]") {
  require_device();
  const std::string e =
      failure("ext-test-overlap", one_size_workload(WorkloadFamily::alloc, 64, 64, 1 << 20));
  // 64 objects at one address: 63 neighbours overlap in address order.
  CHECK(has(e, "ext-test-overlap: 63 objects overlap another after the allocations"));
  CHECK(has(e, "the first pair in address order: the object of thread "));
  CHECK(has(e, " and the object of thread "));
}

TEST_CASE("plug-in faults: an object outside the pool, or not aligned as declared", "[gpu]") {
  require_device();
  const auto w = one_size_workload(WorkloadFamily::alloc, 64, 64, 1 << 20);
  CHECK(has(failure("ext-test-outside", w), "1 objects outside the pool"));
  CHECK(has(failure("ext-test-misaligned", w), "64 objects outside the pool or not aligned to 16"));
}

TEST_CASE("plug-in faults: memory lost after the frees", "[gpu]") {
  require_device();
  // 3000 objects of 256 B fit the 4096 of 1 MiB once; after the frees the second identical run
  // gets the 1096 left.
  const std::string e =
      failure("ext-test-leak", one_size_workload(WorkloadFamily::alloc, 3000, 256, 1 << 20));
  CHECK(has(e,
            "a second identical run after everything was freed served 1096 requests, the "
            "first 3000"));
}

TEST_CASE("plug-in faults: a hung kernel is stopped by the watchdog", "[gpu]") {
  require_device();
  test::shut_stall_gate(true);
  WorkloadOptions o;
  o.watchdog_seconds = 0.5;
  o.warmup = 0;
  const auto start = std::chrono::steady_clock::now();
  std::string what;
  try {
    (void)run_workload(plugin_named("ext-test-stall"),
                       one_size_workload(WorkloadFamily::alloc, 256, 64, 1 << 20), o, 0);
  } catch (const KernelHung& e) {
    what = e.what();
  }
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  test::recover_from_stall();
  CHECK(has(what, "ext-test-stall: the allocation kernel ran past the watchdog's 0.5 s"));
  CHECK(waited >= 0.5);
  CHECK(waited < 30);
  // The gate open, the same plug-in runs through.
  const WorkloadRun r =
      run_workload(plugin_named("ext-test-stall"),
                   one_size_workload(WorkloadFamily::alloc, 256, 64, 1 << 20), o, 0);
  CHECK(r.points.at(0).allocs == 256);
}
