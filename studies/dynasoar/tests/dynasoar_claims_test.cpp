// Seed 004's claims (validation/src/dynasoar_claims.cpp): the GPU ratios from hand-made rows worked
// by hand (unverified rows and other workloads refused), and the table's verdicts with and
// without GPU rows.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "alloclab/studies/dynasoar_claims.hpp"

using namespace alloclab;
using namespace alloclab::validation;

namespace {

Record row(const std::string& allocator, double size, double ms, bool ok = true,
           const std::string& workload = "alloc") {
  Record r;
  r.set("allocator", allocator);
  r.set("workload", workload);
  r.set("size", size);
  r.set("alloc_ms", ms);
  r.set("verified", ok);
  r.set("device", std::string("test GPU"));
  return r;
}

// An `alloclab measure` row of linux-scalability (16,384 threads, 2^24 slots, n per thread).
Record scalability(const std::string& algo, double n, double taken, double failed) {
  Record r;
  r.set("algo", algo);
  r.set("N", 16384.0);
  r.set("T", 16777216.0);
  r.set("per_thread", n);
  r.set("taken", taken);
  r.set("failed", failed);
  r.set("device", std::string("test GPU"));
  return r;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

const ClaimCheck& find(const std::vector<ClaimCheck>& claims, const std::string& where) {
  for (const auto& c : claims)
    if (c.where == where) return c;
  FAIL("no claim " << where);
  return claims.front();
}

}  // namespace

TEST_CASE("dynasoar claims: time ratios by hand from GPU rows", "[validation][dynasoar]") {
  const std::vector<Record> rows = {
      row("dynasoar", 16, 2.0),        row("dynasoar-norot", 16, 40.0),
      row("dynasoar", 64, 4.0),        row("dynasoar-norot", 64, 44.0),
      row("dynasoar", 64, 5.0, false), row("dynasoar-norot", 64, 1.0, true, "churn"),
      row("dynasoar-nocoal", 16, 6.0)};
  const TimeRatios rot = alloc_time_ratios(rows, "dynasoar-norot");
  CHECK(rot.pairs == 2);  // 16 B: 40 / 2, 64 B: 44 / 4; the unverified and churn rows left out
  CHECK(rot.lo == Approx(11));
  CHECK(rot.hi == Approx(20));
  CHECK(rot.device == "test GPU");
  const TimeRatios coal = alloc_time_ratios(rows, "dynasoar-nocoal");
  CHECK(coal.pairs == 1);
  CHECK(coal.lo == Approx(3));
  CHECK(alloc_time_ratios(rows, "bitmap-alloc").pairs == 0);
}

TEST_CASE("dynasoar claims: verdicts with and without GPU rows", "[validation][dynasoar]") {
  // Rotation's rows but no coalescing's: one table (its simulations take a second or two).
  // With linux-scalability's rows: 16,384 x 1024 = 2^24 requests fill the 2^24 slots; 16,384 x
  // 1025 = 16,793,600 ask 16,384 more than there are.
  const std::vector<Record> rows = {row("dynasoar", 16, 2.0),
                                    row("dynasoar-norot", 16, 40.0),
                                    row("dynasoar-nocoal", 16, 30.0, false),
                                    scalability("dynasoar", 1024, 16777216, 0),
                                    scalability("bitmap-alloc", 1024, 16777216, 0),
                                    scalability("dynasoar", 1025, 16777216, 16384),
                                    scalability("bitmap-alloc", 1025, 16777216, 16384)};
  const auto claims = dynasoar_claims(rows);
  const auto& linux = find(claims, "§6.4, Fig. 14A");
  CHECK(has(linux.hardware, "16384 threads, a heap of 16777216 slots"));
  CHECK(has(linux.hardware,
            "n = 1024 (dynasoar, bitmap-alloc): 16777216 requests, every one "
            "served."));
  CHECK(has(linux.hardware,
            "n = 1025 (dynasoar, bitmap-alloc): 16793600 requests, all 16777216 "
            "slots served and exactly 16384 failed."));
  CHECK(has(linux.verdict,
            "not comparable: the allocators lose no slot in the simulator nor on "
            "the GPU"));
  CHECK(linux.judgement == Judgement::not_measured);  // no slot lost: nothing to compare
  CHECK(has(find(claims, "§4.1, Def. 1").hardware, "3 GPU rows"));  // the measure rows apart
  const auto& rotation = find(claims, "§4.2, Fig. 12c");
  CHECK(has(rotation.hardware, "20.0-20.0x"));
  CHECK(rotation.verdict == "holds");
  CHECK(rotation.judgement == Judgement::holds);  // 40 / 2 = 20x >= 8x at every pair
  const auto& coalescing = find(claims, "§4.2-4.3, Table 2");
  CHECK(has(coalescing.hardware, "no GPU rows"));
  CHECK(has(coalescing.verdict, "not measured on a GPU"));
  CHECK(coalescing.judgement == Judgement::holds_qualified);  // its one GPU row unverified
  CHECK(find(claims, "§4.1").verdict == "holds");
  CHECK(find(claims, "§4.1").judgement == Judgement::holds);
  CHECK(find(claims, "§3.2").verdict == "holds");
  CHECK(find(claims, "§3.2").judgement == Judgement::holds);
  CHECK(has(find(claims, "§6.3").verdict, "holds"));
  CHECK(find(claims, "§6.3").judgement == Judgement::holds_qualified);  // "with a correction"
  CHECK(has(find(claims, "§4.1, Def. 1").hardware, "not all"));         // an unverified row
  CHECK(find(claims, "§4.1, Def. 1").judgement == Judgement::does_not_hold);
  CHECK(has(find(claims, "§6.4, Fig. 14B").verdict, "not measured on a GPU"));
  // A time claim with no GPU rows is at most qualified, whatever the simulator's counts.
  const Judgement heap = find(claims, "§6.4, Fig. 14B").judgement;
  CHECK((heap == Judgement::holds_qualified || heap == Judgement::not_reproduced));
  CHECK(find(claims, "§2.2").judgement == Judgement::not_measured);
  CHECK(find(claims, "App. A.1").judgement == Judgement::not_measured);
  for (const auto& c : claims) {
    CHECK(!c.verdict.empty());
    CHECK(!c.claim.empty());
    CHECK(c.judgement != Judgement::unset);
  }
}

TEST_CASE("dynasoar claims: linux-scalability without rows and with a lost slot",
          "[validation][dynasoar]") {
  // One slot short at n = 1024 (taken 2^24 - 1, failed 1): a lost slot.
  const auto lost = dynasoar_claims({scalability("dynasoar", 1024, 16777215, 1)});
  const auto& c = find(lost, "§6.4, Fig. 14A");
  CHECK(has(c.hardware, "every one served; but dynasoar took 16777215 and failed 1 of 16777216."));
  CHECK(c.verdict.find("does not hold on the GPU") == 0);
  CHECK(c.judgement == Judgement::does_not_hold);  // a lost slot: a capacity claim contradicted
  CHECK(has(find(lost, "§4.1, Def. 1").hardware, "no GPU rows"));  // no workload rows
  CHECK(find(lost, "§4.1, Def. 1").judgement == Judgement::holds);
}

namespace {

// An `alloclab linux-scalability --backend gpu` row: 16,384 threads, 1 GiB of 64 B slots.
Record app_scalability(const std::string& algo, double n_max, double next_failed) {
  Record r;
  r.set("app", std::string("linux-scalability"));
  r.set("backend", std::string("gpu"));
  r.set("allocator", algo);
  r.set("device", std::string("test GPU"));
  r.set("heap", std::string(algo == "bitmap-alloc" ? "pages" : "typed"));
  r.set("object_bytes", 64.0);
  r.set("threads", 16384.0);
  r.set("heap_bytes", 1073741824.0);
  r.set("capacity", 16777216.0);
  r.set("n_max", n_max);
  r.set("next_n", n_max + 1);
  r.set("next_failed", next_failed);
  r.set("utilisation", n_max * 16384 * 64 / 1073741824.0);
  r.set("alloc_ms", 20.0);
  r.set("free_ms", 5.0);
  r.set("verified", true);
  return r;
}

// A per-iteration row of `alloclab wator --backend gpu`.
Record wator_iteration(double retries, double iteration, double F) {
  Record r;
  r.set("app", std::string("wator"));
  r.set("backend", std::string("gpu"));
  r.set("allocator", std::string("dynasoar"));
  r.set("device", std::string("test GPU"));
  r.set("retries", retries);
  r.set("cells", 90000.0);
  r.set("iteration", iteration);
  r.set("fragmentation", F);
  r.set("kernel_ms", 2.0);
  r.set("verified", true);
  return r;
}

}  // namespace

// Wa-Tor, iterations 0-4: the mean over the second half is over iterations 2-4 (as the run
// computes it: from (4 + 1) / 2 on): r = 1: 40%, r = 2: 20% (halved), r = 5: 15% (below 25%).
// linux-scalability: n = 1024 fills the 2^24 slots, n = 1025 fails the 16,384 beyond them.
TEST_CASE("dynasoar claims: the applications' GPU rows", "[validation][dynasoar]") {
  std::vector<Record> rows = {app_scalability("dynasoar", 1024, 16384),
                              app_scalability("bitmap-alloc", 1024, 16384)};
  const double F1[5] = {0.9, 0.5, 0.4, 0.4, 0.4}, F2[5] = {0.9, 0.3, 0.2, 0.2, 0.2},
               F5[5] = {0.9, 0.2, 0.1, 0.15, 0.2};
  for (int i = 0; i < 5; ++i) {
    rows.push_back(wator_iteration(1, i, F1[i]));
    rows.push_back(wator_iteration(2, i, F2[i]));
    rows.push_back(wator_iteration(5, i, F5[i]));
  }
  const auto claims = dynasoar_claims(rows);
  const auto& wator = find(claims, "§6.3, Fig. 13");
  CHECK(has(wator.hardware, "90000 cells, 4 iterations, every batch and iteration verified"));
  CHECK(has(wator.hardware, "iterations 2-4 = 40.0% (r = 1, 2.00 ms"));
  CHECK(has(wator.hardware, "20.0% (r = 2"));
  CHECK(has(wator.hardware, "15.0% (r = 5"));
  CHECK(wator.verdict.find("on the GPU: holds (r = 5: 15.0%") == 0);
  CHECK(wator.judgement == Judgement::holds);  // 15% < 25%, and 20% <= 0.6 x 40%
  const auto& linux = find(claims, "§6.4, Fig. 14A");
  CHECK(has(linux.hardware, "dynasoar (typed heap): n = 1024, 100.0% of the heap"));
  CHECK(has(linux.hardware, "bitmap-alloc: n = 1024, 100.0% of the heap"));
  CHECK(has(linux.hardware, "n = 1025 failed 16384 of 16793600 (exactly those beyond the slots)"));
  CHECK(has(linux.verdict,
            "not comparable: the allocators lose no slot in the simulator nor on "
            "the GPU"));
  CHECK(linux.judgement == Judgement::not_measured);
  CHECK(has(find(claims, "§4.1, Def. 1").hardware, "17 rows of the applications"));
  CHECK(find(claims, "§4.1, Def. 1").judgement == Judgement::holds);  // every row verified
  // A slot lost: n = 1023 served, 1024 failed (n = 1024 would have fit).
  const auto lost = dynasoar_claims({app_scalability("dynasoar", 1023, 16384)});
  CHECK(find(lost, "§6.4, Fig. 14A").verdict.find("does not hold on the GPU") == 0);
  CHECK(find(lost, "§6.4, Fig. 14A").judgement == Judgement::does_not_hold);
  CHECK(has(find(lost, "§6.3, Fig. 13").hardware, "not measured on a GPU"));
  // Without the GPU's Wa-Tor the simulator's smaller sea judges it: never plainly.
  const Judgement sim_only = find(lost, "§6.3, Fig. 13").judgement;
  CHECK((sim_only == Judgement::holds_qualified || sim_only == Judgement::not_reproduced));
}

// Wa-Tor on the GPU, iterations 2-4 constant: r = 1 40%, r = 2 30% (above 0.6 x 40% = 24%: not
// halved), r = 5 first 15% (near 18%: holds in part), then 30% (above 25%: does not hold).
TEST_CASE("dynasoar claims: Wa-Tor's GPU rows in part and against", "[validation][dynasoar]") {
  const auto claim_with = [](double f5) {
    std::vector<Record> rows;
    for (int i = 0; i < 5; ++i) {
      rows.push_back(wator_iteration(1, i, 0.4));
      rows.push_back(wator_iteration(2, i, 0.3));
      rows.push_back(wator_iteration(5, i, f5));
    }
    return find(dynasoar_claims(rows), "§6.3, Fig. 13");
  };
  const ClaimCheck part = claim_with(0.15);
  CHECK(part.verdict.find("on the GPU: holds in part (r = 5: 15.0%") == 0);
  CHECK(part.judgement == Judgement::holds_qualified);
  const ClaimCheck above = claim_with(0.3);
  CHECK(above.verdict.find("on the GPU: does not hold (r = 5: 30.0%") == 0);
  CHECK(above.judgement == Judgement::does_not_hold);  // a fragmentation figure, not a speed
}

namespace {

// A row of `alloclab linux-scalability --backend gpu --max-n 64 --pool ...`: stopped by --max-n.
Record heap_sweep(double heap_mib, double alloc_ms) {
  Record r = app_scalability("dynasoar", 64, 0);
  r.set("heap_bytes", heap_mib * 1048576);
  r.set("capacity", heap_mib * 16384);
  r.set("next_n", 0.0);
  r.set("alloc_ms", alloc_ms);
  return r;
}

}  // namespace

// Medians by hand: 256 MiB {1.0, 1.2, 1.1} -> 1.1; 1024 MiB {1.3, 1.2, 1.25} -> 1.25;
// 4096 MiB {1.0, 1.05, 1.1} -> 1.05; 1.25 / 1.05 = 1.19 <= 1.25. Blocks of 4 KiB: 65,536 (L = 3:
// 64^2 < 65,536 <= 64^3), 262,144 (L = 3) and 1,048,576 (L = 4).
TEST_CASE("dynasoar claims: Fig. 14B's heap sweep", "[validation][dynasoar]") {
  std::vector<Record> rows = {app_scalability("dynasoar", 1024, 16384)};
  const double mib[3] = {256, 1024, 4096};
  const double ms[3][3] = {{1.0, 1.2, 1.1}, {1.3, 1.2, 1.25}, {1.0, 1.05, 1.1}};
  for (int h = 0; h < 3; ++h)
    for (double t : ms[h]) rows.push_back(heap_sweep(mib[h], t));
  const auto claims = dynasoar_claims(rows);
  const auto& c = find(claims, "§6.4, Fig. 14B");
  CHECK(has(c.model,
            "L = 3 at 256 MiB (65536 blocks); L = 3 at 1024 MiB (262144 blocks); L = 4 "
            "at 4096 MiB (1048576 blocks)"));
  CHECK(has(c.hardware, "1.100 ms at 256 MiB; 1.250 ms at 1024 MiB; 1.050 ms at 4096 MiB"));
  CHECK(has(c.verdict, "holds on the GPU (slowest heap 1.19x the fastest"));
  CHECK(c.judgement == Judgement::holds);
  // Fig. 14A still reads the one row that found a limit, not the sweep's.
  CHECK(has(find(claims, "§6.4, Fig. 14A").hardware, "n = 1024, 100.0% of the heap"));

  rows.push_back(heap_sweep(4096, 3.0));  // 4096 MiB {1.0, 1.05, 1.1, 3.0} -> 1.075
  rows.push_back(heap_sweep(4096, 3.0));  // {1.0, 1.05, 1.1, 3.0, 3.0} -> 1.1
  rows.push_back(heap_sweep(4096, 3.0));  // {..., 3.0 x3} -> (1.1 + 3.0) / 2 = 2.05
  const auto again = dynasoar_claims(rows);
  const auto& slow = find(again, "§6.4, Fig. 14B");
  CHECK(has(slow.hardware, "2.050 ms at 4096 MiB"));
  CHECK(has(slow.verdict, "does not hold on the GPU (slowest heap 1.86x the fastest"));  // 2.05/1.1
  CHECK(slow.judgement == Judgement::not_reproduced);  // a time claim alloclab's kernel misses
}
