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
  const std::vector<Record> rows = {row("dynasoar", 16, 2.0), row("dynasoar-norot", 16, 40.0),
                                    row("dynasoar-nocoal", 16, 30.0, false)};
  const auto claims = dynasoar_claims(rows);
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
