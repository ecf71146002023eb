// The Ouroboros allocators (ouro-p-*, ouro-c-*) on the GPU:
// requests served from an empty pool in every size class, disjoint pages
// aligned to their class, out of memory exact to the page (warp groups that find too few pages
// fall back lane by lane), several requests per thread. measure() also verifies every run: the
// pool checks its semaphores at rest (no promise or reservation left), the pages its classes
// hold against the requests served, and after the free that every page is back (variant C: per
// chunk, its count against its mask, and a chunk with free pages in its queue).
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "alloclab/core/ouroboros/chunk_queue_virtual.hpp"
#include "alloclab/core/ouroboros/config.hpp"
#include "alloclab/core/ouroboros/layout.hpp"
#include "alloclab/core/ouroboros/queue_chunk.hpp"
#include "gpu_support.hpp"

using namespace alloclab;
using namespace alloclab::gpu;
using gpu::test::quick;
using gpu::test::require_device;
using gpu::test::scenario;

namespace {

// Every unit of every page handed out (first unit + the request's units), sorted.
std::vector<std::uint64_t> units_handed_out(const MeasureResult& r, unsigned units) {
  std::vector<std::uint64_t> out;
  for (auto first : r.first_page)
    if (first >= 0)
      for (unsigned j = 0; j < units; ++j) out.push_back(static_cast<std::uint64_t>(first) + j);
  std::sort(out.begin(), out.end());
  return out;
}

// Every Ouroboros allocator of the registry on the GPU (those with size classes whose names
// start with "ouro-": Gallatin has size classes too, its cases are in gallatin_gpu_test.cpp).
std::vector<Algorithm> ouroboros() {
  std::vector<Algorithm> out;
  for (const auto& a : kAlgorithms)
    if (a.caps.size_classes && a.caps.has(BackendKind::gpu) && a.name.starts_with("ouro-"))
      out.push_back(a.id);
  return out;
}

}  // namespace

TEST_CASE("Ouroboros serves every size class from an empty pool, pages disjoint and aligned",
          "[gpu][ouro]") {
  require_device();
  for (const Algorithm a : ouroboros())
    for (unsigned units : {1u, 3u, 64u, 512u}) {
      INFO(name(a) << " units " << units);
      const unsigned k = ouro::page_class_of_units(units);
      auto s = scenario(a, 5000, 0, 0);
      // A chunk per request at most, and room for the Queue-Chunks a virtualized queue keeps
      // (C over VL: a ring of 16384 entries, 16 + 2 + 10).
      s.T = s.A = (5000 + 32) * 512;
      s.pages = units;
      const auto r = measure(a, s, quick());
      CHECK(r.taken == 5000);
      CHECK(r.failed == 0);
      const auto taken = units_handed_out(r, units);
      CHECK(std::adjacent_find(taken.begin(), taken.end()) == taken.end());
      for (auto f : r.first_page) CHECK(static_cast<std::uint64_t>(f) % (1u << k) == 0);
    }
}

// Twenty chunks: all of them pages (S), or, where the queue keeps its items in the pool, the
// chunks its reserve leaves: P over VA 14 of 16 B (14 + ceil(7168/2048) + 2 = 20), 17 of 1 KiB and
// of 8 KiB (17 + 1 + 2); P over VL, with a trail of 10 more, 6 of 16 B (6 + 2 + 2 + 10), 7 of
// 1 KiB and 8 KiB. C (queue_on_demand) keeps what a ring of 64 entries needs: 3 (VA), 13 (VL).
TEST_CASE("Ouroboros out of memory: exactly the pages of the pool's chunks, then null",
          "[gpu][ouro]") {
  require_device();
  for (const Algorithm a : ouroboros())
    for (unsigned units : {1u, 64u, 512u}) {
      INFO(name(a) << " units " << units);
      const std::uint32_t p = ouro::pages_per_chunk(ouro::page_class_of_units(units));
      const Capabilities& c = caps(a);
      const std::uint64_t pages =
          (c.queue_on_demand
               ? 20 - ouro::chunk_queue_reserve(ouro::chunk_ring_capacity(20), c.queue_trail)
               : ouro::page_chunks_at_oom(20, p, c.queue_in_pool, c.queue_trail)) *
          p;
      const std::uint64_t chunks = !c.queue_in_pool     ? 20
                                   : c.queue_on_demand  ? (c.queue_trail == 0 ? 17 : 7)
                                   : c.queue_trail == 0 ? (units == 1 ? 14 : 17)
                                                        : (units == 1 ? 6 : 7);
      CHECK(pages == chunks * p);
      auto s = scenario(a, 3 * pages + 5, 0, 0);
      s.T = s.A = 20 * 512;
      s.pages = units;
      const auto r = measure(a, s, quick());
      CHECK(r.taken == pages);
      CHECK(r.failed == s.N - pages);
    }
}

TEST_CASE("Ouroboros: k requests per thread, then all freed", "[gpu][ouro]") {
  require_device();
  for (const Algorithm a : ouroboros()) {
    INFO(name(a));
    auto s = scenario(a, 2048, 0, 0);
    s.T = s.A = 64 * 512;
    s.pages = 2;
    auto o = quick();
    o.per_thread = 4;
    const auto r = measure(a, s, o);
    CHECK(r.taken == 4 * 2048);
    const auto taken = units_handed_out(r, 2);
    CHECK(std::adjacent_find(taken.begin(), taken.end()) == taken.end());
  }
}
