// gg-tbuddy (TBuddy, Gelado & Garland §4.1) on the GPU. measure() verifies every run itself: after
// the allocation the tree is checked at rest (I1, I2, summaries, no lock, the blocks tiling the
// pool, the semaphores) with the blocks handed out, and after the free it is the pristine tree.
// Here: what a buddy allocator must hand out, worked by hand.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "alloclab/gpu/measure.hpp"
#include "alloclab/gpu/workload.hpp"
#include "alloclab/testing/workload_support.hpp"
#include "gpu_support.hpp"

using namespace alloclab;
using namespace alloclab::gpu;
using gpu::test::quick;
using gpu::test::require_device;
using gpu::test::scenario;

namespace {

// The first pages handed out, sorted; each request's block must start at a multiple of its size.
std::vector<std::uint64_t> blocks_of(const MeasureResult& r, std::uint64_t block) {
  std::vector<std::uint64_t> out;
  for (const std::int64_t p : r.first_page)
    if (p >= 0) {
      CHECK(static_cast<std::uint64_t>(p) % block == 0);
      out.push_back(static_cast<std::uint64_t>(p));
    }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("gg-tbuddy GPU: blocks of 2^ceil(log2 n) pages, aligned and disjoint", "[gpu][tbuddy]") {
  require_device();
  for (unsigned n : {1u, 3u, 4u, 16u}) {
    CAPTURE(n);
    const std::uint64_t block = std::uint64_t{1} << (n <= 1 ? 0 : n <= 4 ? 2 : 4);
    auto s = scenario(Algorithm::gg_tbuddy, 2000, 1 << 16, 1 << 16);
    s.pages = n;
    const MeasureResult r = measure(Algorithm::gg_tbuddy, s, quick());
    CHECK(r.taken == 2000);  // 2000 blocks of at most 16 pages fit 65536 pages
    CHECK(r.failed == 0);
    const auto first = blocks_of(r, block);
    REQUIRE(first.size() == 2000);
    for (std::size_t j = 1; j < first.size(); ++j) CHECK(first[j] >= first[j - 1] + block);
  }
}

TEST_CASE("gg-tbuddy GPU: out of memory serves every free page, then null, no hang",
          "[gpu][tbuddy]") {
  require_device();
  // 1024 pages, half of them free at random: single pages can be carved out of any free block,
  // so exactly A = 512 of 3000 requests are served and 2488 fail (growers up to the root signal
  // their failure so that no waiter is left behind).
  auto s = scenario(Algorithm::gg_tbuddy, 3000, 512, 1024);
  s.pages = 1;
  MeasureOptions o = quick();
  o.keep_free_pages = true;
  const MeasureResult r = measure(Algorithm::gg_tbuddy, s, o);
  CHECK(r.taken == 512);
  CHECK(r.failed == 2488);
  REQUIRE(r.free_after_alloc);
  CHECK(r.free_after_alloc->empty());
  REQUIRE(r.free_after_free);
  CHECK(r.free_after_free->size() == 512);
}

TEST_CASE("gg-tbuddy GPU: one request alone splits down from the root, worked by hand",
          "[gpu][tbuddy]") {
  require_device();
  // An empty pool of 2^10 pages is one Available root. A request of order 2 finds sem[2] empty
  // and grows at orders 2 .. 9 (8 waits that grow), takes the root's unit (1 wait that takes)
  // and splits 8 times on its way down.
  const Workload w = testing::one_size_workload(WorkloadFamily::alloc, 1, 4 * 256, 1024 * 256);
  gpu::WorkloadOptions o;
  o.counters = true;
  const WorkloadPoint p = gpu::run_workload(Algorithm::gg_tbuddy, w, o, 0).points.at(0);
  REQUIRE(p.allocs == 1);
  std::uint64_t took = 0, grew = 0, splits = 0;
  for (const auto& [count, v] : p.op_counts) {
    if (count == "waits_took") took = v;
    if (count == "waits_grew") grew = v;
    if (count == "splits") splits = v;
  }
  CHECK(took == 1);
  CHECK(grew == 8);
  CHECK(splits == 8);
}
