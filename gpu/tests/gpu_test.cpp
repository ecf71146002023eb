// GPU kernels: every allocator serves its requests correctly (verification inside measure()
// throws on any violation), out-of-memory counts, k requests per thread, set-up of a 2^30-page
// pool. Label gpu: skipped with a reason where no device is present.
#include <catch2/catch.hpp>

#include <set>

#include "alloclab/core/errors.hpp"
#include "gpu_support.hpp"

using namespace alloclab;
using namespace alloclab::gpu;
using gpu::test::require_device;
using gpu::test::scenario;

namespace {
MeasureOptions quick() {
  MeasureOptions o;
  o.repeats = 2;
  o.keep_per_thread = true;
  return o;
}
}  // namespace

TEST_CASE("every allocator serves N requests from a half-free pool", "[gpu]") {
  require_device();
  for (Kernel k : {Kernel::queue, Kernel::rw, Kernel::rwbm, Kernel::corw, Kernel::rwmalloc,
                   Kernel::cudamalloc}) {
    INFO(kernel_name(k));
    const auto s = scenario(kernel_algorithm(k).value_or(Algorithm::rwbm), 5000, 50000, 100000);
    const auto r = measure(k, s, quick());
    CHECK(r.taken == 5000);
    CHECK(r.failed == 0);
    CHECK(r.kernel_ms > 0);
    std::set<std::int64_t> pages(r.first_page.begin(), r.first_page.end());
    CHECK(pages.size() == 5000);
    if (r.has_steps) {
      CHECK(r.tas >= 1.0);
      CHECK(r.was >= r.tas);
      CHECK(r.steps_max >= r.steps_p99);
      CHECK(r.steps_p99 >= r.steps_p50);
    }
  }
}

TEST_CASE("low free fractions, w = 64, partial warps", "[gpu]") {
  require_device();
  for (Kernel k : {Kernel::rw, Kernel::rwbm, Kernel::corw, Kernel::rwmalloc}) {
    for (unsigned w : {32u, 64u}) {
      INFO(kernel_name(k) << " w=" << w);
      auto s = scenario(*kernel_algorithm(k), 4001, 5000, 1000000);
      s.w = w;
      const auto r = measure(k, s, quick());
      CHECK(r.taken == 4001);
    }
  }
}

TEST_CASE("RW_malloc hands out disjoint runs of n pages", "[gpu]") {
  require_device();
  auto s = scenario(Algorithm::rwmalloc, 3000, 500000, 1000000);
  s.pages = 5;
  const auto r = measure(Kernel::rwmalloc, s, quick());
  CHECK(r.taken == 3000);
  std::set<std::int64_t> starts(r.first_page.begin(), r.first_page.end());
  REQUIRE(starts.size() == 3000);
  std::int64_t prev = -100;
  for (auto p : starts) {
    CHECK(p >= prev + 5);
    prev = p;
  }
}

TEST_CASE("k requests per thread", "[gpu]") {
  require_device();
  for (Kernel k : {Kernel::queue, Kernel::rw, Kernel::rwbm, Kernel::corw, Kernel::rwmalloc}) {
    INFO(kernel_name(k));
    auto o = quick();
    o.per_thread = 4;
    const auto r = measure(k, scenario(*kernel_algorithm(k), 2048, 20000, 40000), o);
    CHECK(r.taken == 4 * 2048);
  }
}

TEST_CASE("out of memory: the queue serves exactly A, random walks at most A", "[gpu]") {
  require_device();
  const auto q = measure(Kernel::queue, scenario(Algorithm::queue, 300, 200, 4096), quick());
  CHECK(q.taken == 200);
  CHECK(q.failed == 100);
  for (Kernel k : {Kernel::rw, Kernel::rwbm, Kernel::corw}) {
    INFO(kernel_name(k));
    auto o = quick();
    o.max_steps = 20000;
    const auto r = measure(k, scenario(*kernel_algorithm(k), 300, 200, 4096), o);
    CHECK(r.taken + r.failed == 300);
    CHECK(r.taken <= 200);
    CHECK(r.taken >= 190);  // 20000 probes of 4096 pages find (nearly) every free page
    CHECK(r.steps_max == 20000);
  }
}

TEST_CASE("a 2^30-page pool is set up in well under a second", "[gpu]") {
  require_device();
  MeasureOptions o;
  o.repeats = 1;
  const auto r =
      measure(Kernel::rwbm, scenario(Algorithm::rwbm, 1 << 20, 1ull << 29, 1ull << 30), o);
  CHECK(r.taken == (1u << 20));
  CHECK(r.setup_ms < 1000.0);
  WARN("2^30-page pool set-up: " << r.setup_ms << " ms; allocation " << r.kernel_ms << " ms");
}

TEST_CASE("parameters the GPU cannot run are input errors", "[gpu]") {
  require_device();
  auto s = scenario(Algorithm::corw, 64, 1000, 10000);
  s.lanes = 16;
  CHECK_THROWS_AS(measure(Kernel::corw, s, quick()), InputError);
  s.lanes = 32;
  s.w = 16;
  CHECK_THROWS_AS(measure(Kernel::rwbm, s, quick()), InputError);
}
