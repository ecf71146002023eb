// Figures 5 and 7's speed verdicts under the floor rule (validation/speed_floor.hpp): made-up rows
// far above their design floor are "not reproduced ... N×", rows near it "does not hold"; the
// floors worked by hand from a made-up GPU's atomic throughput.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "alloclab/studies/gelado_claims.hpp"
#include "alloclab/testing/floor_fixture.hpp"

using namespace alloclab;
using namespace alloclab::validation;

namespace {
Record sem_row(const std::string& primitive, double ms, double cas) {
  Record r;
  r.set("primitive", primitive);
  r.set("backend", std::string("gpu"));
  r.set_int("N", 1024);
  r.set_int("batch", 512);
  r.set_int("block", 256);
  r.set_int("backoff_max_ns", 256);
  r.set_int("units_per_request", 1);
  r.set("kernel_ms", ms);
  r.set("cas_per_thread", cas);
  r.set("device", std::string("Test GPU (0000:00:01.0)"));
  return r;
}
Record fig7_row(const std::string& allocator, std::uint64_t size, double ms) {
  Record r;
  r.set("allocator", allocator);
  r.set("backend", std::string("gpu"));
  r.set("workload", std::string("alloc"));
  r.set_int("size", size);
  r.set_int("requests", 1 << 20);
  r.set("alloc_ms", ms);
  r.set_int("failed", 0);
  r.set("verified", true);
  r.set("device", std::string("Test GPU"));
  return r;
}
Record fig7_counted(std::uint64_t size, double atomics) {
  Record r = fig7_row("gg-malloc", size, 5000);  // counting slows it: its time is not used
  r.set("sem_spins_per_request", 1.0);
  r.set("atomics_per_op", atomics);
  return r;
}
const ClaimCheck& find(const std::vector<ClaimCheck>& claims, const std::string& where,
                       const std::string& word) {
  for (const auto& c : claims)
    if (c.where == where && c.claim.find(word) != std::string::npos) return c;
  FAIL("no claim " << where << " " << word);
  return claims.front();
}
}  // namespace

TEST_CASE("gelado floor: Figure 5's bulk semaphore against its CAS attempts") {
  // 1.024e9 atomics/s; 10 CAS a thread x 1024 threads = 10240 atomics = 0.01 ms by hand.
  const testing::AtomicThroughputFixture rate("test-gpu", 1.024e9);
  // Far: bulk 4 ms (counting 2, so the claim is missed) = 400x its floor.
  auto claims = gelado_claims({sem_row("bulk", 4, 10), sem_row("counting", 2, 10)});
  const ClaimCheck& far = find(claims, "§5.1, Fig. 5", "outperform");
  CHECK(far.judgement == Judgement::not_reproduced);
  CHECK(far.verdict.find("not reproduced: implementation 400× above its design floor") == 0);
  CHECK(far.verdict.find("floor 0.01 ms") != std::string::npos);
  CHECK(far.hardware.find("N 1024, batch 512, block 256 400× (floor 0.01 ms)") !=
        std::string::npos);
  // Near: bulk 0.015 ms (counting 0.01) = 1.5x its floor: the miss is the design's.
  claims = gelado_claims({sem_row("bulk", 0.015, 10), sem_row("counting", 0.01, 10)});
  const ClaimCheck& near = find(claims, "§5.1, Fig. 5", "outperform");
  CHECK(near.judgement == Judgement::does_not_hold);
  CHECK(near.verdict.find("does not hold: the implementation is within 1.5× of its design floor") ==
        0);
}

TEST_CASE("gelado floor: Figure 7's gg-malloc against its counted atomics") {
  // 1.048576e10 atomics/s; 10 atomics a request x 2^20 requests = 1 ms by hand.
  const testing::AtomicThroughputFixture rate("test-gpu", 1.048576e10);
  // Far: gg-malloc 783 ms at 128 B (CUDA 1122 ms, mean 1.43x: missed) = 783x its floor.
  auto claims = gelado_claims({}, {fig7_row("gg-malloc", 128, 783),
                                   fig7_row("cudamalloc", 128, 1122), fig7_counted(128, 10)});
  const ClaimCheck& far = find(claims, "§5.3, Fig. 7", "346x");
  CHECK(far.judgement == Judgement::not_reproduced);
  CHECK(far.verdict.find("not reproduced: implementation 783× above its design floor (at 128 B: "
                         "783 ms measured, floor 1 ms") == 0);
  CHECK(far.hardware.find("gg-malloc against its design floor: 128 B 783× (floor 1 ms)") !=
        std::string::npos);
  // Near: 1.5 ms against CUDA's 1 ms (missed) = 1.5x its floor.
  claims = gelado_claims(
      {}, {fig7_row("gg-malloc", 128, 1.5), fig7_row("cudamalloc", 128, 1), fig7_counted(128, 10)});
  const ClaimCheck& near = find(claims, "§5.3, Fig. 7", "346x");
  CHECK(near.judgement == Judgement::does_not_hold);
  CHECK(near.verdict.find("does not hold: the implementation is within 1.5× of its design floor") ==
        0);
  // A second size without a counted row: near the floor at 128 B is not enough.
  claims = gelado_claims(
      {}, {fig7_row("gg-malloc", 128, 1.5), fig7_row("cudamalloc", 128, 1), fig7_counted(128, 10),
           fig7_row("gg-malloc", 4096, 2), fig7_row("cudamalloc", 4096, 1)});
  const ClaimCheck& partial = find(claims, "§5.3, Fig. 7", "346x");
  CHECK(partial.judgement == Judgement::not_reproduced);
  CHECK(partial.verdict.find("not reproduced: no design floor for 4 KB (no atomics_per_op in the "
                             "counted gg-malloc row at 4 KB)") == 0);
}

namespace {
// A conditional-barrier row of Figure 6 (`alloclab rcu --backend gpu`): 1024 threads, 1:1.
Record rcu_row(double ms, double atomics) {
  Record r;
  r.set("backend", std::string("gpu"));
  r.set("barrier", std::string("conditional"));
  r.set("N", 1024.0);
  r.set("ratio", 1.0);
  r.set("kernel_ms", ms);
  r.set("speedup_vs_plain", 2.0);  // short of the paper's 14x: missed
  r.set("atomics_per_thread", atomics);
  r.set("device", std::string("Test GPU (0:0)"));
  r.set("verified", true);
  return r;
}
}  // namespace

TEST_CASE("gelado floor: Figure 6's conditional barrier against its atomics") {
  // 1.024e9 atomics/s; 10 atomics a thread x 1024 threads = 0.01 ms by hand.
  const testing::AtomicThroughputFixture rate("test-gpu", 1.024e9);
  auto claims = gelado_claims({}, {}, {rcu_row(10, 10)});  // 1000x its floor
  const ClaimCheck& far = find(claims, "§5.2, Fig. 6", "");
  CHECK(far.judgement == Judgement::not_reproduced);
  CHECK(far.verdict.find("not reproduced: implementation 1000× above its design floor (at 1:1, "
                         "N 1024: 10 ms measured, floor 0.01 ms") == 0);
  claims = gelado_claims({}, {}, {rcu_row(0.015, 10)});  // 1.5x its floor
  const ClaimCheck& near = find(claims, "§5.2, Fig. 6", "");
  CHECK(near.judgement == Judgement::does_not_hold);
  CHECK(near.verdict.find("does not hold: the implementation is within 1.5× of its design floor") ==
        0);
}
