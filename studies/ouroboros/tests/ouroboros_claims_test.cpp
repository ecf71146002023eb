// Seed 002's claims table (validation/ouroboros_claims.hpp): what each verdict says with no GPU
// rows, and with hand-made GPU rows whose ratios and utilisations are worked out by hand here.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "alloclab/studies/ouroboros_claims.hpp"

using namespace alloclab;
using namespace alloclab::validation;

namespace {

WorkloadRow gpu_row(Algorithm algo, const std::string& workload, std::uint64_t size,
                    std::uint64_t pool, const std::string& mode = "gpu") {
  WorkloadRow r;
  r.allocator = algo;
  r.backend = "gpu";
  r.mode = mode;
  r.workload = workload;
  r.size = std::to_string(size);
  r.size_bytes = size;
  r.pool_bytes = pool;
  r.page_bytes = size;
  r.device = "test GPU";
  r.verified = true;
  return r;
}

const ClaimCheck& find(const std::vector<ClaimCheck>& claims, const std::string& where,
                       const std::string& words) {
  for (const auto& c : claims)
    if (c.where == where && c.claim.find(words) != std::string::npos) return c;
  FAIL("no claim " << where << " " << words);
  return claims.front();
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("Ouroboros claims: computed verdicts, and no GPU rows said as such", "[claims]") {
  const auto claims = ouroboros_claims({});
  REQUIRE(claims.size() == 15);
  // Alg. 1's printed check admits a fifth enqueue into four slots: 4 > 4 is false.
  CHECK(has(find(claims, "§3.3, Alg. 1", "old > size").verdict, "does not hold as printed"));
  CHECK(find(claims, "§3.3, Alg. 1", "old > size").judgement == Judgement::does_not_hold);
  // 2,000,000 > 2^21 - 2^19 - 1 = 1,572,863.
  const auto& range = find(claims, "§3.4, §6", "21 bits");
  CHECK(has(range.model, "1572863"));
  CHECK(has(range.verdict, "holds with a correction"));
  CHECK(range.judgement == Judgement::holds_qualified);
  // A grow's cost does not depend on the pool's size (the model's formula has no T in it).
  CHECK(has(find(claims, "§3.1", "chunk").verdict, "holds"));
  CHECK(find(claims, "§3.1", "chunk").judgement == Judgement::holds);
  CHECK(find(claims, "§3.1", "172k").judgement == Judgement::holds);  // 84 x 2048 = 172,032
  CHECK(find(claims, "§3.2", "10 queues").judgement == Judgement::holds);
  // O(1) without contention only (reservers and front's tickets wait under a burst of grows).
  CHECK(find(claims, "§4.1", "O(1)").judgement == Judgement::holds_qualified);
  CHECK(find(claims, "§4.2", "worst case").judgement == Judgement::holds);
  // The churn test: 1 MiB of 16 B pages = 65536; 2P/B = 2 x 65536 / 4096 = 32 batches, which
  // ouro-p-s (every page of the pool, one class) reaches.
  const auto& churn = find(claims, "§6.1.3", "churn test");
  CHECK(has(churn.model, "32 batches"));
  CHECK(has(churn.simulation, "ouro-p-s 32,"));
  CHECK(churn.judgement == Judgement::not_measured);  // ScatterAlloc and Halloc not built
  // VA at capacity 2^20: ceil(2^20 / 2048) + 2 = 514 references of 4 B = 2056 B.
  CHECK(has(find(claims, "§5.1, §5.2", "static").model, "2056 B"));
  CHECK(find(claims, "§5.1, §5.2", "static").judgement == Judgement::holds_qualified);  // 1/2040
  for (const auto& c : claims) {
    CAPTURE(c.claim);
    if (c.hardware != "-") CHECK(has(c.hardware, "no GPU rows"));
    // A claim the GPU alone decides is not measured without its rows.
    if (c.verdict == "not measured on a GPU here") CHECK(c.judgement == Judgement::not_measured);
  }
  for (const auto& [where, words] :
       std::vector<std::pair<std::string, std::string>>{{"§2.2", "orders of magnitude"},
                                                        {"§4.2, §6.1", "C is slower"},
                                                        {"§6.1.1", "little variance"},
                                                        {"§6.1.1", "CUDA's malloc"},
                                                        {"§6.1.3", "98.35%"},
                                                        {"§6.1.3", "address range"}})
    CHECK(find(claims, where, words).judgement == Judgement::not_measured);
}

TEST_CASE("Ouroboros claims: GPU rows give the ratios and utilisations worked by hand",
          "[claims]") {
  std::vector<WorkloadRow> rows;
  const std::uint64_t big = std::uint64_t{8} << 30;
  auto alloc = [&](Algorithm a, std::uint64_t size, double ms) {
    rows.push_back(gpu_row(a, "alloc", size, big));
    rows.back().values.set("alloc_ms", ms);
  };
  alloc(Algorithm::ouro_p_s, 256, 5.0);
  alloc(Algorithm::ouro_c_s, 256, 10.0);   // C / P = 2.00x
  alloc(Algorithm::ouro_c_va, 256, 12.0);  // VA / S = 1.20x
  alloc(Algorithm::ouro_c_vl, 256, 20.0);  // VL / S = 2.00x: beyond 1.5x
  auto oom = [&](Algorithm a, std::uint64_t pool, double utilisation) {
    rows.push_back(gpu_row(a, "oom", 16, pool));
    rows.back().values.set("utilisation", utilisation);
  };
  oom(Algorithm::ouro_c_s, 16 << 20, 1.0);
  oom(Algorithm::ouro_c_va, 16 << 20, 0.9971);
  oom(Algorithm::ouro_c_s, 64 << 20, 0.25);
  alloc(Algorithm::ouro_p_vl, 256, 150.0);  // P over VL / S = 30x: not orders of magnitude
  // Section 6.1.1: warm rows at 10,000 and 100,000 requests of 256 B. CUDA / P: 10 / 0.1 = 100x
  // and 20 / 0.1 = 200x; CUDA / C: 10 / 1 = 10x and 20 / 0.5 = 40x.
  auto warm = [&](Algorithm a, std::uint64_t n, double ms) {
    rows.push_back(gpu_row(a, "alloc", 256, std::uint64_t{2} << 30, "gpu-warm"));
    rows.back().N = n;
    rows.back().values.set("alloc_ms", ms);
  };
  warm(Algorithm::cudamalloc, 10000, 10.0);
  warm(Algorithm::ouro_p_s, 10000, 0.1);
  warm(Algorithm::ouro_c_s, 10000, 1.0);
  warm(Algorithm::cudamalloc, 100000, 20.0);
  warm(Algorithm::ouro_p_s, 100000, 0.1);
  warm(Algorithm::ouro_c_s, 100000, 0.5);
  const auto claims = ouroboros_claims(rows);

  const auto& linked = find(claims, "§2.2", "orders of magnitude");
  CHECK(has(linked.hardware, "ouro-p-vl / ouro-p-s: 256 B cold: 150 / 5 ms = 30.00x"));
  CHECK(has(linked.verdict, "does not hold for Ouroboros' linked queues: at most 30.0x"));
  CHECK(linked.judgement == Judgement::not_reproduced);  // a speed claim alloclab misses

  const auto& cuda = find(claims, "§6.1.1", "CUDA's malloc");
  CHECK(has(cuda.hardware, "ouro-p-s at 10000: mean 100x"));
  CHECK(has(cuda.hardware, "ouro-p-s at 100000: mean 200x"));
  CHECK(has(cuda.hardware, "ouro-c-s at 10000: mean 10x"));
  CHECK(has(cuda.hardware, "ouro-c-s at 100000: mean 40x"));
  CHECK(has(cuda.verdict, "holds in its order"));
  CHECK(has(cuda.verdict, "C wins at 256 B only"));
  CHECK(cuda.judgement == Judgement::holds_qualified);  // the order, not the paper's factors

  const auto& slower = find(claims, "§4.2, §6.1", "C is slower");
  CHECK(has(slower.hardware, "256 B cold: 10 / 5 ms = 2.00x"));
  CHECK(has(slower.verdict, "holds: C is slower at every size measured"));
  CHECK(slower.judgement == Judgement::holds);

  const auto& variance = find(claims, "§6.1.1", "little variance");
  CHECK(has(variance.hardware, "ouro-c-va / ouro-c-s: 256 B cold: 12 / 10 ms = 1.20x"));
  CHECK(has(variance.verdict, "the claim misses for "));
  // "test GPU" has no measured atomic throughput: no floor, so not reproduced, saying why.
  CHECK(variance.verdict.rfind("not reproduced: no design floor for ouro-p-vl 256 B cold", 0) == 0);
  CHECK(has(variance.verdict, "ouro-c-vl up to 2.00x"));
  CHECK_FALSE(has(variance.verdict, "ouro-c-va up to"));
  CHECK(variance.judgement == Judgement::not_reproduced);  // a speed claim alloclab misses

  const auto& util = find(claims, "§6.1.3", "98.35%");
  CHECK(has(util.hardware, "ouro-c-s 100.00% in 16 MiB"));
  CHECK(has(util.hardware, "ouro-c-va 99.71% in 16 MiB"));
  CHECK(has(util.verdict, "does not hold for ouro-c-s in 64 MiB"));
  CHECK_FALSE(has(util.verdict, "in 16 MiB"));
  CHECK(util.judgement == Judgement::does_not_hold);  // 25% < 98.35%: a capacity claim
  CHECK(find(claims, "§6.1.3", "address range").judgement == Judgement::not_measured);
}

TEST_CASE("Ouroboros claims: claims that hold in part, and in full", "[claims]") {
  std::vector<WorkloadRow> rows;
  const std::uint64_t big = std::uint64_t{8} << 30;
  auto alloc = [&](Algorithm a, std::uint64_t size, double ms) {
    rows.push_back(gpu_row(a, "alloc", size, big));
    rows.back().values.set("alloc_ms", ms);
  };
  alloc(Algorithm::ouro_p_s, 256, 5.0);
  alloc(Algorithm::ouro_c_s, 256, 10.0);  // C / P = 2.00x
  alloc(Algorithm::ouro_p_s, 16, 5.0);
  alloc(Algorithm::ouro_c_s, 16, 4.0);  // C / P = 0.80x: C faster here
  // 16 B pages in 16 MiB: 99.00% and 98.35% reach the paper's 98.35%.
  auto oom = [&](Algorithm a, double utilisation) {
    rows.push_back(gpu_row(a, "oom", 16, 16 << 20));
    rows.back().values.set("utilisation", utilisation);
  };
  oom(Algorithm::ouro_p_s, 0.99);
  oom(Algorithm::ouro_c_s, 0.9835);
  // 100,000 x 16 B = 1,600,000 B: a range of 1,640,000 B is 1.025x, of 2,000,000 B 1.25x.
  auto frag = [&](Algorithm a, double range) {
    rows.push_back(gpu_row(a, "fragmentation", 16, big));
    rows.back().N = 100000;
    rows.back().values.set("address_range_bytes", range);
  };
  frag(Algorithm::ouro_p_s, 1640000);
  const auto close = ouroboros_claims(rows);
  CHECK(find(close, "§6.1.3", "address range").verdict ==
        "holds: every variant within 5% of the objects' size");
  CHECK(find(close, "§6.1.3", "address range").judgement == Judgement::holds);
  frag(Algorithm::ouro_p_va, 2000000);
  const auto claims = ouroboros_claims(rows);
  const auto& slower = find(claims, "§4.2, §6.1", "C is slower");
  CHECK(has(slower.verdict, "holds in part: C / P from 0.80x to 2.00x"));
  CHECK(slower.judgement == Judgement::holds_qualified);
  const auto& util = find(claims, "§6.1.3", "98.35%");
  CHECK(util.verdict == "holds in every pool measured");
  CHECK(util.judgement == Judgement::holds);
  const auto& range = find(claims, "§6.1.3", "address range");
  CHECK(has(range.verdict, "holds in part: 1.025x to 1.250x"));
  CHECK(range.judgement == Judgement::holds_qualified);
}

TEST_CASE("Ouroboros errata: the evidence computed from the primitives", "[claims]") {
  const auto errata = ouroboros_errata();
  REQUIRE(errata.size() == 4);
  // Alg. 1: 4 > 4 is false, so the printed check lets a fifth enqueue into four slots.
  CHECK(has(errata[0].evidence, "the printed check admits a fifth enqueue"));
  // 21 bits biased by 2^19: 2^21 - 2^19 - 1 = 2097152 - 524288 - 1 = 1,572,863. The public
  // code's 25 bits biased by 2^24 (GPUPeople/Ouroboros, BulkSemaphore.cuh at 5b600030, l. 51 and
  // 83): 2^24 - 1 = 16,777,215.
  CHECK(has(errata[1].corrected, "1572863"));
  CHECK(has(errata[1].corrected, "16777215"));
  CHECK(has(errata[1].corrected, "25-bit count"));
  CHECK(has(errata[1].evidence, "2000000 does not fit"));
  CHECK(has(errata[1].evidence, "BulkSemaphore.cuh"));
  // Withdrawn: the public code does not overflow at 2^20 pages (its count holds 16,777,215), so
  // neither its limit of an early 21-bit version (2^20 - 1 = 1,048,575) nor the overflow by one
  // page is claimed any more.
  CHECK_FALSE(has(errata[1].corrected, "1048575"));
  CHECK_FALSE(has(errata[1].corrected, "public code's 2^20"));
  CHECK_FALSE(has(errata[1].evidence, "one more than"));
  CHECK_FALSE(has(errata[1].evidence, "public bias"));
  // VL: front, back, old and the trail count, 4 B each.
  CHECK(has(errata[3].evidence, "16 (4 words"));
}
