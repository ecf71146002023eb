// DynaSOAr's speed verdicts under the floor rule (validation/speed_floor.hpp): made-up GPU rows
// far above their design floor are "not reproduced ... N×", rows near it "does not hold"; the
// floors worked by hand from a made-up GPU's atomic throughput.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "alloclab/studies/dynasoar_claims.hpp"
#include "alloclab/testing/floor_fixture.hpp"

using namespace alloclab;
using namespace alloclab::validation;

namespace {
// An alloc row of 2^20 requests of 16 B; `atomics` a request where counted.
Record alloc_row(const std::string& allocator, double ms, double atomics) {
  Record r;
  r.set("allocator", allocator);
  r.set("workload", std::string("alloc"));
  r.set("size", 16.0);
  r.set("requests", 1048576.0);
  r.set("alloc_ms", ms);
  r.set("atomics_per_op", atomics);
  r.set("verified", true);
  r.set("device", std::string("Test GPU"));
  return r;
}
// A heap-sweep row of linux-scalability: 16,384 threads x 64 objects = 2^20 requests.
Record heap_row(double heap_mib, double ms, double atomics) {
  Record r;
  r.set("app", std::string("linux-scalability"));
  r.set("backend", std::string("gpu"));
  r.set("allocator", std::string("dynasoar"));
  r.set("device", std::string("Test GPU"));
  r.set("threads", 16384.0);
  r.set("n_max", 64.0);
  r.set("next_n", 0.0);
  r.set("heap_bytes", heap_mib * 1048576);
  r.set("alloc_ms", ms);
  r.set("atomics_per_op", atomics);
  r.set("verified", true);
  return r;
}
const ClaimCheck& find(const std::vector<ClaimCheck>& claims, const std::string& where) {
  for (const auto& c : claims)
    if (c.where == where) return c;
  FAIL("no claim " << where);
  return claims.front();
}
}  // namespace

TEST_CASE("dynasoar floor: rotation's speed-up against DynaSOAr's floor", "[dynasoar]") {
  // 1.048576e10 atomics/s; 10 atomics a request x 2^20 requests = 1 ms by hand.
  const testing::AtomicThroughputFixture rate("test-gpu", 1.048576e10);
  // Far: DynaSOAr 20 ms, without rotation 40 (2x, not 8x): 20x its floor.
  auto claims =
      dynasoar_claims({alloc_row("dynasoar", 20, 10), alloc_row("dynasoar-norot", 40, 10)});
  const ClaimCheck& far = find(claims, "§4.2, Fig. 12c");
  CHECK(far.judgement == Judgement::not_reproduced);
  CHECK(far.verdict.rfind("not reproduced: implementation 20× above its design floor (at "
                          "dynasoar 16 B: 20 ms measured, floor 1 ms",
                          0) == 0);
  CHECK(far.hardware.find("DynaSOAr against its design floor: dynasoar 16 B 20× (floor 1 ms)") !=
        std::string::npos);
  // Near: DynaSOAr 2 ms (2x its floor, the bound), without rotation 4.
  claims = dynasoar_claims({alloc_row("dynasoar", 2, 10), alloc_row("dynasoar-norot", 4, 10)});
  const ClaimCheck& near = find(claims, "§4.2, Fig. 12c");
  CHECK(near.judgement == Judgement::does_not_hold);
  CHECK(near.verdict.rfind("does not hold: the implementation is within 2× of its design floor",
                           0) == 0);
}

TEST_CASE("dynasoar floor: Fig. 14B's slowest heap against its floor", "[dynasoar]") {
  const testing::AtomicThroughputFixture rate("test-gpu", 1.048576e10);
  // Far: 1 ms at 256 MiB, 20 ms at 4096 MiB (20x the fastest, and 20x its 1 ms floor).
  auto claims = dynasoar_claims({heap_row(256, 1, 10), heap_row(4096, 20, 10)});
  const ClaimCheck& far = find(claims, "§6.4, Fig. 14B");
  CHECK(far.judgement == Judgement::not_reproduced);
  CHECK(far.verdict.rfind("not reproduced: implementation 20× above its design floor (at 4096 "
                          "MiB",
                          0) == 0);
  // Near: 1 ms at 256 MiB, 1.8 ms at 4096 MiB (1.8x: spread past 1.25x; 1.8x its floor).
  claims = dynasoar_claims({heap_row(256, 1, 10), heap_row(4096, 1.8, 10)});
  const ClaimCheck& near = find(claims, "§6.4, Fig. 14B");
  CHECK(near.judgement == Judgement::does_not_hold);
  CHECK(near.verdict.rfind("does not hold: the implementation is within 1.8× of its design floor",
                           0) == 0);
}
