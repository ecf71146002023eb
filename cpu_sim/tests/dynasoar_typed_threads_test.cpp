// The typed heap's threads mode (cpu_sim/typed_heap.hpp): host threads run a batch's machines
// concurrently on real atomics, so the slots vary from run to run; what may not vary is checked
// here against hand counts and a reference kept here, over several runs and thread counts:
// linux-scalability filling a heap exactly (every slot served, the next request refused, every
// block deleted by the frees), random batches of three types against byte ranges, out of memory
// counted (never a hang), and Wa-Tor's bookkeeping. tsan_test.cpp runs a small case of it under
// ThreadSanitizer.
#include <catch2/catch.hpp>

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "alloclab/core/dynasoar/types.hpp"
#include "alloclab/core/errors.hpp"
#include "alloclab/core/random_stream.hpp"
#include "alloclab/cpu_sim/typed_apps.hpp"
#include "sim_test_helpers.hpp"

using namespace alloclab;
using alloclab::sim::testing::input_error;
using namespace alloclab::sim;

namespace {

TypedHeapOptions threads_heap(const std::string& types, std::uint64_t heap_bytes,
                              unsigned host_threads, std::uint64_t seed = 1) {
  TypedHeapOptions o;
  o.types = dynasoar::parse_types("--types", types);
  o.heap_bytes = heap_bytes;
  o.mode = TypedMode::threads;
  o.host_threads = host_threads;
  o.seed = seed;
  return o;
}

}  // namespace

TEST_CASE("typed threads: linux-scalability fills a hand-counted heap exactly", "[dynasoar]") {
  // 64 B objects, 64 blocks of 64 x 64 B: 4096 slots. 256 threads x 16 = 4096 exactly; 1000
  // threads: 4 batches whole (4000), the fifth gets the 96 slots left and 904 fail.
  struct Case {
    std::uint64_t threads, n_max, failed;
  };
  for (const Case k : {Case{256, 16, 256}, Case{1000, 4, 904}})
    for (const unsigned host : {2u, 4u, 8u})
      for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        LinuxScalabilityOptions o;
        o.heap = threads_heap("64", 64 * 64 * 64 + 100, host, seed);  // 100 B short of a block
        o.threads = k.threads;
        const LinuxScalabilityRun r = run_linux_scalability(o);
        CAPTURE(k.threads, host, seed);
        CHECK(r.capacity == 4096);
        CHECK(r.n_max == k.n_max);
        CHECK(r.allocated == 4096);  // out of memory exact: no request refused with a slot free
        CHECK(r.failed == k.failed);
        CHECK(r.utilisation ==
              Approx(static_cast<double>(k.threads * k.n_max) * 64 / (64 * 64 * 64 + 100)));
        // Every block initialised once (nothing is deleted while allocating) and deleted once by
        // the frees, which leave the heap empty.
        CHECK(r.counts.blocks_initialised == 64);
        CHECK(r.counts.invalidated == 64);
        CHECK(r.blocks_left == 0);
      }
}

TEST_CASE("typed threads: a thread descheduled after its claim makes no one give up early",
          "[dynasoar]") {
  // Each host thread sleeps 0.3 ms after claiming a free block: without the wait for blocks in
  // flight (typed_heap.cpp), the others' empty rounds pass meanwhile and they give up with slots
  // free (seen in 7-16 of 20 runs).
  for (const unsigned host : {2u, 8u})
    for (std::uint64_t seed = 1; seed <= 2; ++seed) {
      LinuxScalabilityOptions o;
      o.heap = threads_heap("64", 16 * 64 * 64, host, seed);  // 16 blocks: 1024 slots
      o.heap.claim_pause_us = 300;
      o.threads = 200;  // 5 whole batches (1000), the sixth gets 24 and 176 fail
      const LinuxScalabilityRun r = run_linux_scalability(o);
      CAPTURE(host, seed);
      CHECK(r.n_max == 5);
      CHECK(r.allocated == 1024);
      CHECK(r.failed == 176);
      CHECK(r.blocks_left == 0);
    }
}

TEST_CASE("typed threads: random batches of three types against byte ranges", "[dynasoar]") {
  const std::uint64_t size[] = {0, 60, 64, 100};
  const unsigned cap[] = {0, 64, 60, 38};  // floor(3840 / size)
  for (const unsigned host : {2u, 4u})
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      TypedHeapOptions o = threads_heap("60,64,100", 40 * 3840, host, seed);
      o.retries = seed == 1 ? 1 : 5;
      TypedHeap h(o);
      std::map<std::uint64_t, TypedObject> live;  // byte address -> object
      const PhiloxStream rng(seed, StreamDomain::workload, 7);
      std::uint64_t k = 0, asked = 0, served = 0;
      for (int round = 0; round < 10; ++round) {
        std::vector<TypedRequest> batch(300);
        for (std::uint64_t i = 0; i < batch.size(); ++i)
          batch[i] = TypedRequest{static_cast<unsigned>(1 + rng.below(k++, 3)), i / 32};
        asked += batch.size();
        for (const auto& got : h.allocate(batch)) {
          if (!got) continue;
          ++served;
          const std::uint64_t a = h.address(*got);
          CHECK(got->slot < cap[got->type]);
          auto next = live.lower_bound(a);  // no two objects share a byte
          if (next != live.end()) CHECK(a + size[got->type] <= next->first);
          if (next != live.begin()) {
            const auto& [pa, po] = *std::prev(next);
            CHECK(pa + size[po.type] <= a);
          }
          live.emplace(a, *got);
        }
        CHECK(h.allocations() == asked);
        CHECK(h.failed() == asked - served);
        CHECK(h.live_objects() == live.size());
        for (unsigned t = 1; t <= 3; ++t) {  // parallel_do meets exactly the live objects
          std::set<std::uint64_t> want, got;
          for (const auto& [a, ob] : live)
            if (ob.type == t) want.insert(a);
          for (const auto& ob : h.enumerate(t)) got.insert(h.address(ob));
          CHECK(got == want);
        }
        std::vector<TypedObject> gone;  // free about half, concurrently
        for (auto it = live.begin(); it != live.end();) {
          if (rng.below(k++, 2) == 0) {
            gone.push_back(it->second);
            it = live.erase(it);
          } else {
            ++it;
          }
        }
        h.free(gone);
      }
      std::vector<TypedObject> rest;
      for (const auto& [a, ob] : live) rest.push_back(ob);
      h.free(rest);
      CHECK(h.blocks_in_use() == 0);
      CHECK(h.fragmentation() == 0.0);
      CHECK_THROWS_AS(h.free({TypedObject{0, 5, 1}}), VerificationError);  // not live
    }
}

TEST_CASE("typed threads: out of memory is counted, not a hang", "[dynasoar]") {
  for (const TypedHeapEntry variant : {TypedHeapEntry{}, TypedHeapEntry{.coalesce = false}})
    for (const unsigned host : {2u, 4u}) {
      TypedHeapOptions o = threads_heap("64", 2 * 64 * 64, host);  // 2 blocks: 128 slots
      o.variant = variant;
      TypedHeap h(o);
      std::vector<TypedRequest> batch(200);
      for (std::uint64_t i = 0; i < batch.size(); ++i) batch[i] = TypedRequest{1, i / 32};
      std::uint64_t got = 0;
      for (const auto& x : h.allocate(batch)) got += x.has_value();
      CHECK(got == 128);
      CHECK(h.failed() == 72);
      CHECK(h.counts().gave_up >= 1);
      // A full heap refuses a whole batch, each request counted.
      for (const auto& x : h.allocate(std::vector<TypedRequest>(50, TypedRequest{1, 3}))) CHECK(!x);
      CHECK(h.failed() == 122);
      CHECK(h.live_objects() == 128);
    }
}

TEST_CASE("typed threads: Wa-Tor keeps its books and stays within the grid", "[dynasoar]") {
  WatorOptions o;
  o.width = 32;
  o.height = 32;
  o.iterations = 40;
  // 2 MiB: no birth fails. 6 blocks hold at most 6 x 64 = 384 agents, fewer than the initial
  // half of the 1024 cells: births fail and are counted.
  constexpr std::uint64_t kSmall = 6 * 3840;
  for (const std::uint64_t heap : {std::uint64_t{2} << 20, kSmall})
    for (const unsigned retries : {1u, 5u}) {
      o.heap = threads_heap("60,64", heap, 4);
      o.heap.retries = retries;
      const WatorRun a = run_wator(o);
      REQUIRE(a.iterations.size() == 41);
      const WatorIteration& first = a.iterations[0];
      CHECK(first.fish + first.sharks + first.failed > 400);  // about half of 1024 cells
      CHECK(first.fish + first.sharks <= (heap == kSmall ? 384 : 1024));
      if (heap == kSmall) CHECK(first.failed > 0);
      std::uint64_t failed = first.failed;
      for (std::size_t i = 1; i < a.iterations.size(); ++i) {
        const WatorIteration& p = a.iterations[i - 1];
        const WatorIteration& c = a.iterations[i];
        CAPTURE(heap, retries, i);
        // Agents appear by births that were served and vanish by meals and starvation.
        CHECK(c.fish + c.sharks + c.failed + c.fish_eaten + c.shark_deaths ==
              p.fish + p.sharks + c.fish_births + c.shark_births);
        CHECK(c.fish_eaten <= p.fish + c.fish_births);
        CHECK(c.shark_deaths <= p.sharks);
        CHECK(c.fish + c.sharks <= 32 * 32);  // one agent a cell
        CHECK(c.fragmentation >= 0.0);
        CHECK(c.fragmentation < 1.0);
        if (heap != kSmall) CHECK(c.failed == 0);
        CHECK(c.blocks <= heap / 3840);
        failed += c.failed;
      }
      CHECK(a.failed == failed);
    }
}

TEST_CASE("typed threads: bad host thread counts", "[dynasoar]") {
  CHECK(input_error([] { TypedHeap h(threads_heap("64", 1 << 20, kMaxTypedHostThreads + 1)); }) ==
        "--threads");
  CHECK(typed_host_threads(threads_heap("64", 1 << 20, 3)) == 3);
  CHECK(typed_host_threads(threads_heap("64", 1 << 20, 0)) >= 1);  // all cores
  TypedHeapOptions lockstep = threads_heap("64", 1 << 20, 3);
  lockstep.mode = TypedMode::lockstep;
  CHECK(typed_host_threads(lockstep) == 1);
}
