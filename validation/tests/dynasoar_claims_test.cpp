// Seed 004's claims (validation/src/dynasoar_claims.cpp): the GPU ratios from hand-made rows worked
// by hand (unverified rows and other workloads refused), and the table's verdicts with and
// without GPU rows.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "alloclab/validation/dynasoar_claims.hpp"

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
  CHECK(has(find(claims, "§4.1, Def. 1").hardware, "3 GPU rows"));  // the measure rows apart
  const auto& rotation = find(claims, "§4.2, Fig. 12c");
  CHECK(has(rotation.hardware, "20.0-20.0x"));
  CHECK(rotation.verdict == "holds");
  const auto& coalescing = find(claims, "§4.2-4.3, Table 2");
  CHECK(has(coalescing.hardware, "no GPU rows"));
  CHECK(has(coalescing.verdict, "not measured on a GPU"));
  CHECK(find(claims, "§4.1").verdict == "holds");
  CHECK(find(claims, "§3.2").verdict == "holds");
  CHECK(has(find(claims, "§6.3").verdict, "holds"));
  CHECK(has(find(claims, "§4.1, Def. 1").hardware, "not all"));  // an unverified row
  CHECK(has(find(claims, "§6.4, Fig. 14B").verdict, "not measured"));
  for (const auto& c : claims) {
    CHECK(!c.verdict.empty());
    CHECK(!c.claim.empty());
  }
}

TEST_CASE("dynasoar claims: linux-scalability without rows and with a lost slot",
          "[validation][dynasoar]") {
  // One slot short at n = 1024 (taken 2^24 - 1, failed 1): a lost slot.
  const auto lost = dynasoar_claims({scalability("dynasoar", 1024, 16777215, 1)});
  const auto& c = find(lost, "§6.4, Fig. 14A");
  CHECK(has(c.hardware, "every one served; but dynasoar took 16777215 and failed 1 of 16777216."));
  CHECK(c.verdict.find("does not hold on the GPU") == 0);
  CHECK(has(find(lost, "§4.1, Def. 1").hardware, "no GPU rows"));  // no workload rows
}
