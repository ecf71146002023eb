// Which sweep points the gpu backend measures (gpu_applies): hand-worked points against the
// registry's declarations; the device heap a gpu sweep sizes. No device needed.
#include <catch2/catch.hpp>

#include "alloclab/gpu/measure.hpp"
#include "alloclab/validation/backends.hpp"

using namespace alloclab;
using namespace alloclab::validation;

namespace {
Scenario point(Algorithm a, std::uint64_t N, std::uint64_t A, std::uint64_t T, unsigned pages = 1) {
  Scenario s;
  s.algo = a;
  s.N = N;
  s.A = A;
  s.T = T;
  s.pages = pages;
  return s;
}
}  // namespace

TEST_CASE("the gpu backend skips allocators the registry does not declare on the gpu",
          "[validation]") {
  // corw-lockmap is the simulator's literal Algorithm 2: no GPU kernel, even at a tiny point.
  CHECK_FALSE(gpu_applies(point(Algorithm::corw_lockmap, 1, 1000, 10000)));
  for (const auto& a : kAlgorithms) {
    INFO(a.name);
    if (!a.caps.has(BackendKind::gpu)) CHECK_FALSE(gpu_applies(point(a.id, 1, 1000, 10000)));
  }
}

TEST_CASE("a pool of pages covers N * pages up to A", "[validation]") {
  // One page per request: 1000 requests fit 1000 free pages, 1001 do not.
  CHECK(gpu_applies(point(Algorithm::rw, 1000, 1000, 4000)));
  CHECK_FALSE(gpu_applies(point(Algorithm::rw, 1001, 1000, 4000)));
  CHECK(gpu_applies(point(Algorithm::queue, 1000, 1000, 4000)));
  CHECK_FALSE(gpu_applies(point(Algorithm::rwbm, 1001, 1000, 4000)));
  // Four consecutive pages per request: 250 * 4 = 1000 fit, 251 * 4 = 1004 do not, although
  // N = 251 alone is far below A.
  CHECK(gpu_applies(point(Algorithm::rwmalloc, 250, 1000, 4000, 4)));
  CHECK_FALSE(gpu_applies(point(Algorithm::rwmalloc, 251, 1000, 4000, 4)));
}

TEST_CASE("the device heap has no pool of A pages: every N applies", "[validation]") {
  // cudamalloc requests bytes from a heap sized for the run; A = T = 1 says nothing about it.
  CHECK(gpu_applies(point(Algorithm::cudamalloc, 1u << 20, 1, 1)));
  CHECK(gpu_applies(point(Algorithm::cudamalloc, 64, 1000, 10000, 8)));
}

TEST_CASE("a gpu sweep sizes the device malloc heap once, for its largest heap point",
          "[validation]") {
  // Hand-worked: the device-heap allocator (requests of bytes) asks for twice the bytes of all
  // its requests (N requests of pages * 256 bytes, the gpu backend's page size), at least 2 GiB;
  // allocators of a page pool ask for none, however large their point.
  const Algorithm heap_user = Algorithm::cudamalloc;
  REQUIRE(caps(heap_user).requests == RequestKind::bytes);
  const auto small = point(heap_user, 1000, 1, 1);           // 2*256000 B < 2 GiB
  const auto large = point(heap_user, 1ull << 22, 1, 1, 4);  // 2 * 2^22 * 4 * 256 = 2^33
  const auto larger_pool = point(Algorithm::rw, 1ull << 30, 1ull << 31, 1ull << 31);
  const auto skipped = point(Algorithm::corw_lockmap, 1ull << 40, 1ull << 41, 1ull << 41);
  CHECK(gpu_sweep_heap_bytes({}) == 0);
  CHECK(gpu_sweep_heap_bytes({larger_pool, skipped}) == 0);
  if (!gpu::built_with_cuda()) {  // no device code: nothing draws on a heap
    CHECK(gpu_sweep_heap_bytes({small, large}) == 0);
    return;
  }
  CHECK(gpu_sweep_heap_bytes({small}) == (1ull << 31));
  // The largest point decides, wherever it stands in the sweep.
  CHECK(gpu_sweep_heap_bytes({small, larger_pool, large}) == (1ull << 33));
  CHECK(gpu_sweep_heap_bytes({large, small, skipped}) == (1ull << 33));
}
