// The GPU backend follows the registry (core/algorithm.hpp): every allocator declared on the gpu
// backend has a GPU entry in a CUDA build (none without CUDA), and the input checks that need no
// device reject what the registry's capabilities and the pools rule out. No device needed.
#include <catch2/catch.hpp>

#include <functional>
#include <string>

#include "alloclab/core/errors.hpp"
#include "gpu_support.hpp"

using namespace alloclab;
using namespace alloclab::gpu;
using gpu::test::scenario;

namespace {

// The parameter an InputError names, or "" when the call is accepted.
std::string rejected(const std::function<void()>& call) {
  try {
    call();
  } catch (const InputError& e) {
    return e.parameter();
  }
  return "";
}

std::string rejected(const Scenario& s, const MeasureOptions& o = {}) {
  return rejected([&] { check_input(s.algo, s, o); });
}

}  // namespace

TEST_CASE("every allocator the registry declares on gpu has a GPU entry, and no other", "[gpu]") {
  const auto declared = algorithms_on(BackendKind::gpu);
  REQUIRE_FALSE(declared.empty());
  if (built_with_cuda())
    CHECK(algorithms_with_gpu_entry() == declared);
  else
    CHECK(algorithms_with_gpu_entry().empty());
}

TEST_CASE("an allocator without the gpu backend is an input error that says where it runs",
          "[gpu]") {
  for (const auto& a : kAlgorithms) {
    INFO(a.name);
    const auto s = scenario(a.id, 64, 1000, 10000);
    const auto why = why_no_gpu_backend(a.id);
    if (a.caps.has(BackendKind::gpu)) {
      CHECK_FALSE(why);
      CHECK(rejected(s) == "");
    } else {
      REQUIRE(why);
      CHECK(why->find(std::string(a.name)) != std::string::npos);
      CHECK(why->find('\n') == std::string::npos);
      CHECK(rejected(s) == "--allocator");
      // measure() checks before it looks for a device.
      CHECK(rejected([&] { (void)measure(a.id, s, {}); }) == "--allocator");
      if (a.caps.has(BackendKind::sim))
        CHECK(why->find("alloclab simulate --allocator " + std::string(a.name)) !=
              std::string::npos);
    }
  }
}

TEST_CASE("warp-collective allocators need lanes = 32 on the GPU", "[gpu]") {
  for (Algorithm a : algorithms_on(BackendKind::gpu)) {
    INFO(name(a));
    auto s = scenario(a, 64, 1000, 10000);
    s.lanes = 16;
    CHECK(rejected(s) == (caps(a).warp_collective ? "--lanes" : ""));
    s.lanes = 32;
    CHECK(rejected(s) == "");
  }
}

TEST_CASE("only allocators whose requests are not one page take --pages", "[gpu]") {
  for (Algorithm a : algorithms_on(BackendKind::gpu)) {
    INFO(name(a));
    auto s = scenario(a, 64, 1000, 10000);
    s.pages = 2;
    CHECK(rejected(s) == (caps(a).requests == RequestKind::one_page ? "--pages" : ""));
  }
}

TEST_CASE("size limits of a run: N times per-thread at most 2^31 and N at least 1", "[gpu]") {
  for (Algorithm a : algorithms_on(BackendKind::gpu)) {
    INFO(name(a));
    MeasureOptions o;
    o.per_thread = 4;
    // A pool of 2^31 pages, or the largest the allocator's own structure holds where that is
    // less (TBuddy's tree: 2^22 leaves), found by asking: the limits checked here are N's.
    std::uint64_t T = 1ull << 31;
    if (rejected(scenario(a, 1, T, T)) == "--T") T = 1ull << 22;
    CHECK(rejected(scenario(a, (1ull << 29) + 1, T, T), o) == "--N");
    CHECK(rejected(scenario(a, 1ull << 29, T, T), o) == "");
    CHECK(rejected(scenario(a, 0, 1000, 10000)) == "--N");
    o.per_thread = 0;
    CHECK(rejected(scenario(a, 64, 1000, 10000), o) == "--per-thread");
  }
}

TEST_CASE("the pools' and allocators' own checks (built with CUDA)", "[gpu]") {
  if (!built_with_cuda()) return;  // the stub knows no pools; measure() reports NoDevice
  for (Algorithm a : algorithms_on(BackendKind::gpu)) {
    INFO(name(a));
    // Bitmap words of w bits where --w matters: the kernels have w = 32 and 64.
    auto s = scenario(a, 64, 1000, 10000);
    for (unsigned w : {16u, 32u, 64u}) {
      s.w = w;
      CHECK(rejected(s) == (caps(a).bitmap_words && w == 16 ? "--w" : ""));
    }
  }
  // The queue keeps 32-bit page ids.
  CHECK(rejected(scenario(Algorithm::queue, 64, 1000, 1ull << 32)) == "--T");
  CHECK(rejected(scenario(Algorithm::queue, 64, 1000, (1ull << 32) - 1)) == "");
  // RW_malloc finds its runs inside one word.
  auto s = scenario(Algorithm::rwmalloc, 64, 1000, 10000);
  s.pages = 33;
  CHECK(rejected(s) == "--pages");
  s.w = 64;
  CHECK(rejected(s) == "");
}

TEST_CASE("only the device-heap allocator asks for a malloc heap, sized for its requests",
          "[gpu]") {
  MeasureOptions o;
  o.page_bytes = 256;
  for (Algorithm a : algorithms_on(BackendKind::gpu)) {
    INFO(name(a));
    const auto big = scenario(a, 1ull << 30, 1ull << 31, 1ull << 31);
    // Plug-ins hand out bytes too, from a pool of their own (docs/plugin-allocators.md).
    if (caps(a).requests != RequestKind::bytes || is_plugin(a) || !built_with_cuda()) {
      CHECK(device_heap_bytes(a, big, o) == 0);
      continue;
    }
    // Twice the bytes of all requests: 2 * 2^30 * 256 = 2^39; at least 2 GiB; or --cuda-heap.
    CHECK(device_heap_bytes(a, big, o) == (1ull << 39));
    CHECK(device_heap_bytes(a, scenario(a, 1000, 1, 1), o) == (1ull << 31));
    MeasureOptions given = o;
    given.heap_bytes = 12345;
    CHECK(device_heap_bytes(a, big, given) == 12345);
  }
}
