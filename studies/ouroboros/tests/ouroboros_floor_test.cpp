// Ouroboros' speed verdicts under the floor rule (validation/speed_floor.hpp): made-up GPU rows
// far above their design floor are "not reproduced ... N×", rows near it "does not hold"; the
// floors worked by hand from a made-up GPU's atomic throughput.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "alloclab/studies/ouroboros_claims.hpp"
#include "alloclab/testing/floor_fixture.hpp"

using namespace alloclab;
using namespace alloclab::validation;

namespace {
// 10^6 requests of 256 B in 8 GiB, cold; `atomics` a request where counted.
WorkloadRow row(Algorithm algo, double ms, std::optional<double> atomics) {
  WorkloadRow r;
  r.allocator = algo;
  r.backend = "gpu";
  r.mode = "gpu";
  r.workload = "alloc";
  r.size = "256";
  r.size_bytes = 256;
  r.pool_bytes = std::uint64_t{8} << 30;
  r.page_bytes = 256;
  r.N = 1000000;
  r.device = "Test GPU";
  r.verified = true;
  r.values.set("alloc_ms", ms);
  r.values.set("requests", 1e6);
  if (atomics) r.values.set("atomics_per_op", *atomics);
  return r;
}
const ClaimCheck& find(const std::vector<ClaimCheck>& claims, const std::string& where,
                       const std::string& words) {
  for (const auto& c : claims)
    if (c.where == where && c.claim.find(words) != std::string::npos) return c;
  FAIL("no claim " << where << " " << words);
  return claims.front();
}
}  // namespace

TEST_CASE("Ouroboros floor: the virtualized variants against their counted atomics") {
  // 10^10 atomics/s; 10 atomics a request x 10^6 requests = 10^7 atomics = 1 ms by hand.
  const testing::AtomicThroughputFixture rate("test-gpu", 1e10);
  // Far: VL 20 ms against S 10 ms (2x: missed), 20x its floor.
  auto claims =
      ouroboros_claims({row(Algorithm::ouro_c_s, 10, 4.0), row(Algorithm::ouro_c_vl, 20, 10.0)});
  const ClaimCheck& far = find(claims, "§6.1.1", "little variance");
  CHECK(far.judgement == Judgement::not_reproduced);
  CHECK(far.verdict.rfind("not reproduced: implementation 20× above its design floor (at "
                          "ouro-c-vl 256 B cold in 8192 MiB: 20 ms measured, floor 1 ms",
                          0) == 0);
  CHECK(far.hardware.find("the variants against their design floor: ouro-c-vl 256 B cold in 8192 "
                          "MiB 20× (floor 1 ms)") != std::string::npos);
  // Near: VL 1.8 ms against S 1 ms (1.8x: missed), 1.8x its floor.
  claims =
      ouroboros_claims({row(Algorithm::ouro_c_s, 1, 4.0), row(Algorithm::ouro_c_vl, 1.8, 10.0)});
  const ClaimCheck& near = find(claims, "§6.1.1", "little variance");
  CHECK(near.judgement == Judgement::does_not_hold);
  CHECK(near.verdict.rfind("does not hold: the implementation is within 1.8× of its design floor",
                           0) == 0);
}

TEST_CASE("Ouroboros floor: linked queues against the arrays' floor") {
  const testing::AtomicThroughputFixture rate("test-gpu", 1e10);
  // Far: S 30 ms with 10 atomics a request (floor 1 ms, 30x), VL 60 ms: 2x, not 100x.
  auto claims = ouroboros_claims(
      {row(Algorithm::ouro_p_s, 30, 10.0), row(Algorithm::ouro_p_vl, 60, std::nullopt)});
  const ClaimCheck& far = find(claims, "§2.2", "orders of magnitude");
  CHECK(far.judgement == Judgement::not_reproduced);
  CHECK(far.verdict.rfind("not reproduced: implementation 30× above its design floor", 0) == 0);
  // Near: S 1.2 ms (1.2x its floor), VL 12 ms: the arrays are near what they allow.
  claims = ouroboros_claims(
      {row(Algorithm::ouro_p_s, 1.2, 10.0), row(Algorithm::ouro_p_vl, 12, std::nullopt)});
  const ClaimCheck& near = find(claims, "§2.2", "orders of magnitude");
  CHECK(near.judgement == Judgement::does_not_hold);
  CHECK(near.verdict.rfind("does not hold: the implementation is within 1.2× of its design floor",
                           0) == 0);
}
