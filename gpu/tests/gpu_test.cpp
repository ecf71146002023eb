// GPU kernels against the shared contract, for every allocator the registry declares on the gpu
// backend: requests served, conservation (the pool's free pages after allocation are the initial
// free pages minus those handed out, recomputed here from core/pool.hpp), no overlap, out of
// memory counted, the free kernel restores the pool; then allocator-specific cases. measure()
// also verifies every run itself and throws on a violation. Label gpu: skipped with a reason
// where no device is present.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <vector>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/pool.hpp"
#include "alloclab/core/probe_sequence.hpp"
#include "gpu_support.hpp"

using namespace alloclab;
using namespace alloclab::gpu;
using gpu::test::quick;
using gpu::test::require_device;
using gpu::test::scenario;

namespace {

bool steps_observable(Algorithm a) {
  return !info(a).step_definition.empty();
}

// The contract below is about pools whose free kernel gives back the pristine pool and which
// serve any free page of a partly used one. Ouroboros does neither by design (its chunks keep
// their size class, its freed pages wait in its queues, and it hands out only whole free
// chunks): its GPU cases are in ouro_gpu_test.cpp, and the simulator's contract covers it.
bool pristine_after_free(Algorithm a) {
  return !caps(a).size_classes;
}

// The allocators of the contract (above) that hand out pages of the pool (A and T apply), not
// bytes of a heap.
std::vector<Algorithm> page_allocators() {
  std::vector<Algorithm> out;
  for (Algorithm a : algorithms_on(BackendKind::gpu))
    if (caps(a).requests != RequestKind::bytes && pristine_after_free(a)) out.push_back(a);
  return out;
}

// Every allocator of the contract.
std::vector<Algorithm> contract_allocators() {
  std::vector<Algorithm> out;
  for (Algorithm a : algorithms_on(BackendKind::gpu))
    if (pristine_after_free(a)) out.push_back(a);
  return out;
}

// The free pages of trial 0's pool, page by page from the permutation.
std::vector<std::uint64_t> initial_free_pages(const Scenario& s) {
  const PagePermutation pi(s.T, trial_seed(s.seed, 0));
  std::vector<std::uint64_t> out;
  for (std::uint64_t p = 0; p < s.T; ++p)
    if (initially_free(pi, p, s.A)) out.push_back(p);
  return out;
}

// Every page of every range handed out, in increasing order (duplicates kept).
std::vector<std::uint64_t> pages_handed_out(const MeasureResult& r, unsigned pages) {
  std::vector<std::uint64_t> out;
  for (auto first : r.first_page)
    if (first >= 0)
      for (unsigned j = 0; j < pages; ++j) out.push_back(static_cast<std::uint64_t>(first) + j);
  std::sort(out.begin(), out.end());
  return out;
}

// The contract's pool checks: what was handed out came from the free pages, once each; the pool
// kept exactly the rest; the free kernel gave it all back.
void check_pool_contract(const Scenario& s, const MeasureResult& r) {
  const auto initial = initial_free_pages(s);
  REQUIRE(initial.size() == s.A);
  const auto taken = pages_handed_out(r, s.pages);
  CHECK(taken.size() == r.taken * s.pages);
  CHECK(std::adjacent_find(taken.begin(), taken.end()) == taken.end());  // no overlap
  CHECK(std::includes(initial.begin(), initial.end(), taken.begin(), taken.end()));
  std::vector<std::uint64_t> rest;
  std::set_difference(initial.begin(), initial.end(), taken.begin(), taken.end(),
                      std::back_inserter(rest));
  REQUIRE(r.free_after_alloc);
  CHECK(*r.free_after_alloc == rest);  // conservation
  REQUIRE(r.free_after_free);
  CHECK(*r.free_after_free == initial);  // free restores the pool
}

}  // namespace

TEST_CASE("every GPU allocator serves N requests from a half-free pool", "[gpu]") {
  require_device();
  for (Algorithm a : contract_allocators()) {
    INFO(name(a));
    const auto s = scenario(a, 5000, 50000, 100000);
    const auto r = measure(a, s, quick());
    CHECK(r.taken == 5000);
    CHECK(r.failed == 0);
    CHECK(r.kernel_ms > 0);
    std::set<std::int64_t> pages(r.first_page.begin(), r.first_page.end());
    CHECK(pages.size() == 5000);
    CHECK(pages.count(-1) == 0);
    CHECK(r.has_steps == steps_observable(a));
    if (r.has_steps) {
      CHECK(r.tas >= 1.0);
      CHECK(r.was >= r.tas);
      CHECK(r.steps_max >= r.steps_p99);
      CHECK(r.steps_p99 >= r.steps_p50);
    }
  }
}

TEST_CASE("the pool conserves pages, ranges never overlap, free restores the pool", "[gpu]") {
  require_device();
  for (Algorithm a : contract_allocators()) {
    INFO(name(a));
    auto s = scenario(a, 2048, 58982, 65536);  // 90% free: RW_malloc finds runs of 3 in a word
    if (caps(a).requests == RequestKind::pages) s.pages = 3;
    // Typed blocks (DynaSOAr) serve objects of three pages from wholly free blocks only, and a
    // pool 90% free at random has almost none (a block is free with probability 0.9^64): a free
    // pool for them (4096 objects of N_T = 21 fill 196 of its 1024 blocks).
    if (caps(a).typed_blocks) s.A = s.T;
    auto o = quick();
    o.per_thread = 2;
    o.keep_free_pages = true;
    const auto r = measure(a, s, o);
    CHECK(r.taken == 2 * 2048);
    if (caps(a).requests == RequestKind::bytes) {
      CHECK_FALSE(r.free_after_alloc);  // a heap has no pages to list
      CHECK_FALSE(r.free_after_free);
      continue;
    }
    check_pool_contract(s, r);
  }
}

TEST_CASE("out of memory is counted, and the pool still conserves and is restored", "[gpu]") {
  require_device();
  for (Algorithm a : page_allocators()) {
    INFO(name(a));
    const auto s = scenario(a, 300, 200, 4096);
    auto o = quick();
    o.max_steps = 20000;
    o.keep_free_pages = true;
    const auto r = measure(a, s, o);
    CHECK(r.taken + r.failed == 300);
    CHECK(r.taken <= 200);
    CHECK(r.failed >= 100);
    check_pool_contract(s, r);
  }
}

TEST_CASE("out of memory: the queue serves exactly A, random walks at most A", "[gpu]") {
  require_device();
  const auto q = measure(Algorithm::queue, scenario(Algorithm::queue, 300, 200, 4096), quick());
  CHECK(q.taken == 200);
  CHECK(q.failed == 100);
  for (Algorithm a : {Algorithm::rw, Algorithm::rwbm, Algorithm::corw}) {
    INFO(name(a));
    auto o = quick();
    o.max_steps = 20000;
    const auto r = measure(a, scenario(a, 300, 200, 4096), o);
    CHECK(r.taken + r.failed == 300);
    CHECK(r.taken <= 200);
    CHECK(r.taken >= 190);  // 20000 probes of 4096 pages find (nearly) every free page
    CHECK(r.steps_max == 20000);
  }
}

TEST_CASE("low free fractions, w = 32 and 64, partial warps", "[gpu]") {
  require_device();
  for (Algorithm a : page_allocators()) {
    for (unsigned w : {32u, 64u}) {
      if (!caps(a).bitmap_words && w != 32) continue;
      INFO(name(a) << " w=" << w);
      auto s = scenario(a, 4001, 5000, 1000000);
      s.w = w;
      const auto r = measure(a, s, quick());
      CHECK(r.taken == 4001);
    }
  }
}

TEST_CASE("k requests per thread", "[gpu]") {
  require_device();
  for (Algorithm a : page_allocators()) {
    INFO(name(a));
    auto o = quick();
    o.per_thread = 4;
    const auto r = measure(a, scenario(a, 2048, 20000, 40000), o);
    CHECK(r.taken == 4 * 2048);
  }
}

TEST_CASE("RW_malloc hands out disjoint runs of n pages", "[gpu]") {
  require_device();
  auto s = scenario(Algorithm::rwmalloc, 3000, 500000, 1000000);
  s.pages = 5;
  const auto r = measure(Algorithm::rwmalloc, s, quick());
  CHECK(r.taken == 3000);
  std::set<std::int64_t> starts(r.first_page.begin(), r.first_page.end());
  REQUIRE(starts.size() == 3000);
  std::int64_t prev = -100;
  for (auto p : starts) {
    CHECK(p >= prev + 5);
    prev = p;
  }
}

TEST_CASE("a 2^30-page pool is set up in well under a second", "[gpu]") {
  require_device();
  MeasureOptions o;
  o.repeats = 1;
  const auto r =
      measure(Algorithm::rwbm, scenario(Algorithm::rwbm, 1 << 20, 1ull << 29, 1ull << 30), o);
  CHECK(r.taken == (1u << 20));
  CHECK(r.setup_ms < 1000.0);
  WARN("2^30-page pool set-up: " << r.setup_ms << " ms; allocation " << r.kernel_ms << " ms");
}

TEST_CASE("a pool larger than the device's free memory is an input error on --T", "[gpu]") {
  require_device();
  // 2^40 pages: a 128 GiB bitmap and its pristine copy, more than any current GPU holds (the
  // queue's own limit, T < 2^32, names --T too).
  for (Algorithm a : page_allocators()) {
    INFO(name(a));
    const auto s = scenario(a, 1000, 1ull << 39, 1ull << 40);
    try {
      (void)measure(a, s, quick());
      FAIL("accepted a run larger than the device");
    } catch (const InputError& e) {
      CHECK(e.parameter() == "--T");
      if (caps(a).bitmap_words) {
        INFO(e.what());
        CHECK(std::string(e.what()).find("bytes of device memory, the device has") !=
              std::string::npos);
      }
    }
  }
}
