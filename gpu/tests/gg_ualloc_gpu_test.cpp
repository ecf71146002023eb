// gg-ualloc (UAlloc, Gelado & Garland §4.2) and gg-malloc (§4) on the GPU. measure() and the
// workloads verify every run themselves: after each phase the state is copied back and checked at
// rest (ualloc_check: lists, counts = bitmaps, semaphores = lists, chunk lists, no mutex or reader
// inside; tbuddy_check with the chunks and malloc blocks held), and after an allocation every bin's
// slots in use must be exactly the results handed out. Here: Figure 7's failures against the
// model (model/ualloc_exhaustion.hpp, from §4.2's numbers, not from the code), bins retired and
// refilled, malloc's dispatch by alignment, and the input checks.
#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/gelado/ualloc_pool.hpp"
#include "alloclab/core/probe_sequence.hpp"
#include "alloclab/gpu/measure.hpp"
#include "alloclab/gpu/workload.hpp"
#include "alloclab/model/ualloc_exhaustion.hpp"
#include "alloclab/testing/workload_support.hpp"
#include "gpu_support.hpp"

using namespace alloclab;
using namespace alloclab::gpu;
using gpu::test::quick;
using gpu::test::require_device;

namespace {

constexpr std::uint64_t kMiB = 1 << 20;

// Figure 7's shape on a pool of `pool` bytes (core/gelado/ualloc_pool.hpp).
Scenario exhaust(Algorithm a, std::uint64_t pool, std::uint64_t bytes) {
  return gelado::ualloc_exhaustion_scenario(a, pool, bytes);
}

std::map<std::string, std::uint64_t> counts_of(const WorkloadPoint& p) {
  return {p.op_counts.begin(), p.op_counts.end()};
}

std::string rejected(Algorithm a, const Scenario& s, const MeasureOptions& o = {}) {
  try {
    check_input(a, s, o);
  } catch (const InputError& e) {
    return e.parameter();
  }
  return "";
}

}  // namespace

TEST_CASE("gg-ualloc GPU: Figure 7's exhaustion fails what the model says on one arena",
          "[gpu][ualloc]") {
  require_device();
  // 1 MiB = 4 chunks of 64 bins. With one arena every chunk serves it, so exactly the objects the
  // layout holds are served: 64 B 4 x 62 x 64 = 15,872 of 16,384; 512 B 4 x 62 x 7 = 1,736 of
  // 2,048. gg-malloc's 2 KB take a 4 KB page each: 256 of 512. And 64 B through gg-malloc is
  // UAlloc's.
  struct Row {
    Algorithm algo;
    std::uint64_t bytes;
  };
  for (const Row row : {Row{Algorithm::gg_ualloc, 64}, Row{Algorithm::gg_ualloc, 512},
                        Row{Algorithm::gg_malloc, 2048}, Row{Algorithm::gg_malloc, 64}}) {
    CAPTURE(name(row.algo), row.bytes);
    const Scenario s = exhaust(row.algo, kMiB, row.bytes);
    MeasureOptions o = quick();
    o.arenas = 1;
    const MeasureResult r = measure(row.algo, s, o);
    const model::ExhaustionModel m = model::gg_malloc_exhaustion(kMiB, row.bytes);
    CHECK(m.requests == s.N);
    CHECK(r.taken == m.served);
    CHECK(r.failed == s.N - m.served);
    // Every object lies past a bin's 128 B header (UAlloc) or on a page (TBuddy).
    for (const std::int64_t u : r.first_page)
      if (u >= 0) CHECK(((static_cast<std::uint64_t>(u) * 8) % 4096 == 0) == (row.bytes >= 2048));
  }
}

TEST_CASE("gg-ualloc GPU: the 128-bin reading serves 126 bins a chunk", "[gpu][ualloc]") {
  require_device();
  // One 512 KB chunk: 126 regular bins of three 1 KB slots: 378 of 512.
  const Scenario s = exhaust(Algorithm::gg_ualloc, kMiB / 2, 1024);
  MeasureOptions o = quick();
  o.chunk_bins = 128;
  o.arenas = 1;  // the chunk's bins, not the arenas: every request meets the one chunk
  const MeasureResult r = measure(Algorithm::gg_ualloc, s, o);
  CHECK(r.taken == 126 * 3);
  CHECK(r.taken == model::gg_malloc_exhaustion(kMiB / 2, 1024, 128).served);
  // One arena per SM (the default, as the paper): the one chunk goes to one arena, and requests
  // of the other arenas fail although it has room (no stealing between arenas, speed.md).
  o.arenas = 0;
  const MeasureResult per_sm = measure(Algorithm::gg_ualloc, s, o);
  CHECK(per_sm.taken > 0);
  CHECK(per_sm.taken < 126 * 3);
  CHECK(per_sm.taken + per_sm.failed == s.N);
}

TEST_CASE("gg-ualloc GPU: alloc then free everything then alloc again from the retired bins",
          "[gpu][ualloc]") {
  require_device();
  // One 256 KB chunk: 62 bins x 3 slots of 1 KB, 186 objects, the whole pool. Each round frees
  // all 186 and allocates 186 again: every bin emptied is retired (its last free takes its units
  // back and runs a conditional RCU barrier, or delegates it) unless a concurrent taker got there
  // first; a retired bin goes back to the chunk and a grower initialises it again. There is no
  // second chunk, so every round is served only if the retired bins come back.
  auto w = testing::one_size_workload(WorkloadFamily::churn, 186, 1024, 256 << 10);
  w.rounds = 2;
  w.free_fraction = 1.0;
  WorkloadOptions o;
  o.counters = true;
  const WorkloadRun run = run_workload(Algorithm::gg_ualloc, w, o, 0);
  REQUIRE(run.points.size() == 3);
  CHECK(run.points[0].allocs == 186);
  CHECK(counts_of(run.points[0]).at("refills") == 62);
  CHECK(counts_of(run.points[0]).at("chunk_refills") == 1);
  for (std::size_t k = 1; k <= 2; ++k) {
    CAPTURE(k);
    const WorkloadPoint& p = run.points[k];
    CHECK(p.freed == 186);
    CHECK(p.allocs == 186);
    CHECK(p.failed == 0);
    const auto c = counts_of(p);
    CHECK(c.at("chunk_refills") == 0);
    CHECK(c.at("free_retires") <= 62);
    // Each retired bin went back to the chunk and was initialised again; the others stayed on
    // their list with their slots.
    CHECK(c.at("refills") == c.at("free_retires"));
    // Each retirement ran its conditional barrier: a full one, or delegated to a waiting one.
    CHECK(c.at("free_barriers") + c.at("free_delegations") == c.at("free_retires"));
  }
}

TEST_CASE("gg-ualloc GPU: the collective chunk mutex serves a warp's growers together",
          "[gpu][ualloc]") {
  require_device();
  // 1 KB on 1 MiB, one arena: 4 chunks x 62 bins x 3 slots = 744 of 1,024 served (the model),
  // 248 growers that got a bin. Every acquisition of the chunk mutex serves a group of 1 to 32
  // of a warp's growers (ualloc_chunk_group.hpp), so acquisitions <= growers, and with a grower
  // for every third request of 32 warps some group has two or more: acquisitions < growers.
  auto w = testing::one_size_workload(WorkloadFamily::alloc, 1024, 1024, kMiB);
  WorkloadOptions o;
  o.counters = true;
  o.arenas = 1;
  const WorkloadRun run = run_workload(Algorithm::gg_ualloc, w, o, 0);
  const WorkloadPoint& p = run.points.at(0);
  CHECK(p.allocs == 744);
  const auto c = counts_of(p);
  CHECK(c.at("refills") == 248);
  CHECK(c.at("chunk_refills") == 4);
  CHECK(c.at("chunk_locks") >= 1);
  CHECK(c.at("chunk_locks") < c.at("waits_grew"));
}

TEST_CASE("gg-malloc GPU: mixed sizes from UAlloc and TBuddy freed by alignment", "[gpu][ualloc]") {
  require_device();
  // Sizes 64 B .. 16 KB drawn per thread; a free goes to TBuddy exactly when its address is 4 KB
  // aligned. The run's checks (after the allocation, after the free of everything) would fail
  // if a free went to the wrong allocator or an object overlapped another.
  auto w = testing::one_size_workload(WorkloadFamily::mixed, 2048, 64, 32 * kMiB);
  w.size = {64, 16384};
  std::uint64_t expected = 0;
  for (std::uint64_t i = 0; i < 2048; ++i)
    expected += request_bytes(w.size, trial_seed(w.seed, 0), i);
  const WorkloadRun run = run_workload(Algorithm::gg_malloc, w, {}, 0);
  CHECK(run.points.at(0).allocs == 2048);
  CHECK(run.points.at(0).live_bytes == expected);
}

TEST_CASE("gg-ualloc GPU: many threads on many arenas serve what fits", "[gpu][ualloc]") {
  require_device();
  // 2^18 requests of 16 B on 64 MiB (256 chunks; one arena per SM by default, as the paper's
  // §4.2, 132 on an H100/H200): 4 MiB of objects, about 2,000 a arena where a chunk holds 15,872
  // of 16 B, so every arena needs one chunk of the 256 (it would need eight times its even share
  // of requests to want a second), and nothing fails however the blocks land on the SMs. (Before
  // issue 37 the default was clamp(chunks / 8, 1, SMs) = 32 arenas here.)
  Scenario s = exhaust(Algorithm::gg_ualloc, 64 * kMiB, 16);
  s.N = 1 << 18;
  const MeasureResult r = measure(Algorithm::gg_ualloc, s, quick());
  CHECK(r.failed == 0);
  const std::set<std::int64_t> distinct(r.first_page.begin(), r.first_page.end());
  CHECK(distinct.size() == s.N);
  // The note says "A arenas (a thread uses the arena of its SM modulo the count; S SMs)": A = S.
  bool noted = false;
  for (const auto& n : r.notes) {
    const auto a = n.find(" arenas (a thread"), sms = n.find(" SMs)");
    if (a == n.npos || sms == n.npos) continue;
    const auto first = n.rfind(' ', a - 1) + 1, count = n.rfind(' ', sms - 1) + 1;
    noted = n.substr(first, a - first) == n.substr(count, sms - count);
  }
  CHECK(noted);
}

TEST_CASE("gg-ualloc and gg-malloc GPU input errors name the parameter", "[gpu][ualloc]") {
  if (!built_with_cuda()) return;  // the stub knows no pools
  for (const Algorithm a : {Algorithm::gg_ualloc, Algorithm::gg_malloc}) {
    CAPTURE(name(a));
    const Scenario s = exhaust(a, kMiB, 64);
    CHECK(rejected(a, s).empty());
    MeasureOptions o;
    o.arenas = 133;
    CHECK(rejected(a, s, o) == "--arenas");
    o = {};
    o.chunk_bins = 100;
    CHECK(rejected(a, s, o) == "--chunk-bins");
    o = {};
    o.block = 2048;  // blocks of 1024 run (Figure 7's paper setting); more than a CUDA block
    CHECK(rejected(a, s, o) == "--block");
    Scenario t = s;
    t.T = t.A = 32768 + 512;  // not whole chunks of 256 KB
    CHECK(rejected(a, t) == "--T");
    Scenario p = s;
    p.pages = 0;
    CHECK(rejected(a, p) == "--pages");
    p.pages = 129;  // 2 KB: TBuddy's through malloc, beyond UAlloc's 1 KB
    CHECK(rejected(a, p) == (a == Algorithm::gg_ualloc ? "--pages" : ""));
  }
}
