// PageHeap (gpu/src/page_heap.cuh) over RW, RW-BM, the queue and RW_malloc, made by
// DevicePageHeap without the workload driver: threads with divergent control flow (odd threads
// only, a varying number of calls in one of two branches, partial warps, sizes varying per
// thread) call malloc(size) and write a pattern over the whole object; checked here against the
// plan: every valid request served (the pool is at most a fifth full), requests of 0 bytes or
// above the allocator's limit null, every pointer a page start inside the arena, the page runs
// pairwise disjoint, the pool's free pages exactly the others, the patterns intact; after every
// pointer is freed the pool is entirely free. Out of memory: the queue serves exactly `pages`
// requests, the bitmap allocators at most that many, and every search ends (max_steps).
// Label gpu: skipped where there is no device.
#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>
#include <vector>

#include "alloclab/core/random_stream.hpp"
#include "gpu_support.hpp"
#include "page_heap_cases.hpp"

using namespace alloclab;
using gpu::test::HeapAllocator;
using gpu::test::HeapPlan;
using gpu::test::HeapRun;
using gpu::test::require_device;

namespace {

#if defined(ALLOCLAB_GPU_HAVE_CUDA)

bool runs_of_pages(HeapAllocator a) {
  return a == HeapAllocator::rwmalloc32 || a == HeapAllocator::rwmalloc64;
}

// The largest request the heap must serve, from the allocators' definitions: one page, or a run
// of up to w pages inside one bitmap word for RW_malloc.
std::uint64_t largest_request(HeapAllocator a, std::uint64_t page_bytes) {
  if (a == HeapAllocator::rwmalloc32) return 32 * page_bytes;
  if (a == HeapAllocator::rwmalloc64) return 64 * page_bytes;
  return page_bytes;
}

// Odd threads only, 1..3 calls each; sizes drawn per call (one call in 16 asks for the largest
// request, exactly); every 17th call asks for one byte more than the largest request
// and every 29th for 0 bytes: both must be null.
HeapPlan divergent_plan(HeapAllocator a, std::uint64_t pages, std::uint64_t page_bytes) {
  HeapPlan p;
  p.allocator = a;
  p.pages = pages;
  p.page_bytes = page_bytes;
  p.block = 100;  // every block ends in a warp of 4 lanes
  p.threads = 5000;
  p.calls_per_thread = 3;
  p.calls.resize(p.threads);
  p.bytes.assign(p.threads * p.calls_per_thread, 0);
  const std::uint64_t largest = largest_request(a, page_bytes);
  // RW_malloc: mostly small runs (up to 6 pages), so that the pool stays lightly used.
  const std::uint64_t typical = runs_of_pages(a) ? 6 * page_bytes : page_bytes;
  const PhiloxStream sizes(11, StreamDomain::workload, 0);
  for (std::uint64_t i = 0; i < p.threads; ++i) {
    p.calls[i] = static_cast<std::uint8_t>(i % 2 ? 1 + (i / 2) % 3 : 0);
    for (unsigned r = 0; r < p.calls[i]; ++r) {
      const std::uint64_t slot = i * p.calls_per_thread + r;
      const std::uint64_t u = sizes.bits(slot);
      std::uint64_t b = 1 + u % typical;
      if (u % 16 == 0) b = largest;
      if (slot % 17 == 0) b = largest + 1;
      if (slot % 29 == 0) b = 0;
      p.bytes[slot] = b;
    }
  }
  return p;
}

std::uint64_t pages_for(std::uint64_t bytes, std::uint64_t page_bytes) {
  return (bytes + page_bytes - 1) / page_bytes;
}

struct Served {
  std::uint64_t valid = 0, served = 0, null_for_invalid = 0, invalid = 0;
  std::vector<std::uint64_t> taken;  // every page handed out, increasing (duplicates kept)
};

// The address checks of one run against its plan.
Served check_addresses(const HeapPlan& p, const HeapRun& r) {
  Served s;
  REQUIRE(r.arena_bytes == p.pages * p.page_bytes);
  CHECK(r.max_bytes == largest_request(p.allocator, p.page_bytes));
  struct Range {
    std::uint64_t begin, end;
  };
  std::vector<Range> ranges;
  for (std::uint64_t i = 0; i < p.threads; ++i)
    for (unsigned c = 0; c < p.calls_per_thread; ++c) {
      const std::uint64_t slot = i * p.calls_per_thread + c;
      const std::uint64_t x = r.address[slot];
      if (c >= p.calls[i]) {
        CHECK(x == 0);  // no call, no pointer
        continue;
      }
      const std::uint64_t b = p.bytes[slot];
      const bool valid = b >= 1 && b <= largest_request(p.allocator, p.page_bytes);
      s.valid += valid;
      if (!valid) {
        ++s.invalid;
        s.null_for_invalid += x == 0;
        continue;
      }
      if (x == 0) continue;
      ++s.served;
      INFO("slot " << slot << " bytes " << b << " address " << x << " arena " << r.arena);
      REQUIRE(x >= r.arena);
      const std::uint64_t offset = x - r.arena;
      REQUIRE(offset % p.page_bytes == 0);  // a page start
      const std::uint64_t n = pages_for(b, p.page_bytes);
      REQUIRE(offset + n * p.page_bytes <= r.arena_bytes);  // inside the arena
      ranges.push_back({offset, offset + n * p.page_bytes});
      for (std::uint64_t j = 0; j < n; ++j) s.taken.push_back(offset / p.page_bytes + j);
    }
  std::sort(ranges.begin(), ranges.end(),
            [](const Range& a, const Range& b) { return a.begin < b.begin; });
  std::uint64_t overlaps = 0;
  for (std::size_t j = 1; j < ranges.size(); ++j) overlaps += ranges[j - 1].end > ranges[j].begin;
  CHECK(overlaps == 0);
  std::sort(s.taken.begin(), s.taken.end());
  return s;
}

std::vector<std::uint64_t> all_pages(std::uint64_t pages) {
  std::vector<std::uint64_t> v(pages);
  std::iota(v.begin(), v.end(), 0);
  return v;
}

// The pool after allocation holds exactly the pages not handed out; after the frees, all pages.
void check_pool(const HeapPlan& p, const HeapRun& r, const Served& s) {
  std::vector<std::uint64_t> rest;
  const auto all = all_pages(p.pages);
  std::set_difference(all.begin(), all.end(), s.taken.begin(), s.taken.end(),
                      std::back_inserter(rest));
  CHECK(r.free_after_alloc == rest);
  CHECK(r.free_after_free == all);
}

void check_divergent(HeapAllocator a, std::uint64_t pages, std::uint64_t page_bytes) {
  const HeapPlan p = divergent_plan(a, pages, page_bytes);
  const HeapRun r = gpu::test::run_heap(p);
  const Served s = check_addresses(p, r);
  CHECK(s.invalid > 0);
  CHECK(s.null_for_invalid == s.invalid);
  // At most a fifth of the pool is asked for, max_steps = 2^20: no valid request may fail.
  std::uint64_t asked = 0;
  for (std::uint64_t i = 0; i < p.threads; ++i)
    for (unsigned c = 0; c < p.calls[i]; ++c) {
      const std::uint64_t b = p.bytes[i * p.calls_per_thread + c];
      if (b >= 1 && b <= r.max_bytes) asked += pages_for(b, page_bytes);
    }
  REQUIRE(asked * 5 <= pages);
  CHECK(s.served == s.valid);
  CHECK(r.broken_patterns == 0);
  check_pool(p, r, s);
}

// `requests` threads (all of them, full and partial warps) ask for one page each, or for runs
// of 1..4 pages (RW_malloc), from a pool of `pages` pages.
HeapPlan oom_plan(HeapAllocator a, std::uint64_t pages, std::uint64_t requests,
                  std::uint64_t page_bytes) {
  HeapPlan p;
  p.allocator = a;
  p.pages = pages;
  p.page_bytes = page_bytes;
  p.max_steps = 4096;  // full-pool searches end after 4096 steps each
  p.block = 96;
  p.threads = requests;
  p.calls_per_thread = 1;
  p.calls.assign(requests, 1);
  p.bytes.resize(requests);
  for (std::uint64_t i = 0; i < requests; ++i)
    p.bytes[i] = runs_of_pages(a) ? (1 + i % 4) * page_bytes - i % 3 : page_bytes - i % 3;
  return p;
}

#endif

}  // namespace

TEST_CASE("PageHeap over RW: divergent callers, disjoint pages, free restores the pool",
          "[gpu][page_heap]") {
  require_device();
#if defined(ALLOCLAB_GPU_HAVE_CUDA)
  check_divergent(HeapAllocator::rw, 1u << 15, 48);
#endif
}

TEST_CASE("PageHeap over RW-BM (w = 32, 64): divergent callers, disjoint pages, free restores",
          "[gpu][page_heap]") {
  require_device();
#if defined(ALLOCLAB_GPU_HAVE_CUDA)
  for (HeapAllocator a : {HeapAllocator::rwbm32, HeapAllocator::rwbm64}) {
    INFO("w " << (a == HeapAllocator::rwbm32 ? 32 : 64));
    check_divergent(a, (1u << 15) + 7, 64);  // a partial last word
  }
#endif
}

TEST_CASE("PageHeap over CoRW (w = 32, 64, rotated): divergent callers share a warp's words",
          "[gpu][page_heap]") {
  require_device();
#if defined(ALLOCLAB_GPU_HAVE_CUDA)
  for (HeapAllocator a :
       {HeapAllocator::corw32, HeapAllocator::corw64, HeapAllocator::corw_rotated32}) {
    INFO("allocator " << static_cast<int>(a));
    check_divergent(a, (1u << 15) + 7, 64);  // a partial last word
  }
#endif
}

TEST_CASE("PageHeap over the queue: divergent callers, disjoint pages, free restores the pool",
          "[gpu][page_heap]") {
  require_device();
#if defined(ALLOCLAB_GPU_HAVE_CUDA)
  check_divergent(HeapAllocator::queue, 1u << 15, 40);
#endif
}

TEST_CASE("PageHeap over RW_malloc (w = 32, 64): divergent callers with per-thread sizes",
          "[gpu][page_heap]") {
  require_device();
#if defined(ALLOCLAB_GPU_HAVE_CUDA)
  // The pool holds ~5 times the pages asked for (about 4 pages a call, 5000 calls).
  for (HeapAllocator a : {HeapAllocator::rwmalloc32, HeapAllocator::rwmalloc64}) {
    INFO("w " << (a == HeapAllocator::rwmalloc32 ? 32 : 64));
    check_divergent(a, (1u << 18) + 5, 24);
  }
#endif
}

TEST_CASE("PageHeap out of memory: the queue serves exactly its pages, searches end",
          "[gpu][page_heap]") {
  require_device();
#if defined(ALLOCLAB_GPU_HAVE_CUDA)
  const std::uint64_t pages = 1000, requests = 3000, page_bytes = 32;
  for (HeapAllocator a :
       {HeapAllocator::queue, HeapAllocator::rw, HeapAllocator::rwbm32, HeapAllocator::rwbm64,
        HeapAllocator::rwmalloc32, HeapAllocator::rwmalloc64, HeapAllocator::corw32,
        HeapAllocator::corw64, HeapAllocator::corw_rotated32}) {
    INFO("allocator " << static_cast<int>(a));
    const HeapPlan p = oom_plan(a, pages, requests, page_bytes);
    const HeapRun r = gpu::test::run_heap(p);  // returns: every search ended
    const Served s = check_addresses(p, r);
    REQUIRE(s.valid == requests);
    CHECK(s.taken.size() <= pages);
    if (a == HeapAllocator::queue) {
      CHECK(s.served == pages);  // exact: the first `pages` tickets are served, the rest null
    } else {
      // 2000+ searches of 4096 steps over 1000 pages: at least half of the pool is found (runs
      // of <= 4 pages waste < 4 pages of each word).
      CHECK(s.taken.size() * 2 >= pages);
    }
    CHECK(r.broken_patterns == 0);
    check_pool(p, r, s);
  }
#endif
}

TEST_CASE("DevicePageHeap rejects bad parameters, naming them", "[gpu][page_heap]") {
#if defined(ALLOCLAB_GPU_HAVE_CUDA)
  using gpu::test::heap_input_error;
  CHECK(heap_input_error(HeapAllocator::rw, 0, 64, 10) == "pages");
  CHECK(heap_input_error(HeapAllocator::rwmalloc32, 100, 0, 10) == "page_bytes");
  CHECK(heap_input_error(HeapAllocator::rwbm64, 100, 64, 0) == "max_steps");
  CHECK(heap_input_error(HeapAllocator::rwmalloc64, 100, 64, 1ull << 32) == "max_steps");
  CHECK(heap_input_error(HeapAllocator::queue, 1ull << 32, 1, 10) == "pages");
  CHECK(heap_input_error(HeapAllocator::rw, 1ull << 40, 1ull << 30, 10) == "page_bytes");
#else
  alloclab::testing::skip("built without CUDA: DevicePageHeap is CUDA code");
#endif
}
