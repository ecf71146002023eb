// The workload checks on the hand-made fixture (all hold there, counted by hand), and on rows
// broken one property at a time.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>

#include "alloclab/validation/workload_checks.hpp"

using namespace alloclab;
using namespace alloclab::validation;

namespace {

std::vector<WorkloadRow> fixture() {
  return read_workload_dir(ALLOCLAB_WORKLOAD_FIXTURE);
}

WorkloadRow row_of(const std::string& file, std::size_t line) {
  for (auto& r : fixture())
    if (r.file == file && r.line == line) return r;
  FAIL("no fixture row " << file << ":" << line);
  return {};
}

std::vector<const Verdict*> of_claim(const std::vector<Verdict>& v, const std::string& claim,
                                     const std::string& metric = {}) {
  std::vector<const Verdict*> out;
  for (const auto& x : v)
    if (x.check == claim && (metric.empty() || x.metric == metric)) out.push_back(&x);
  return out;
}

}  // namespace

TEST_CASE("workload checks: every check of the fixture holds, and each applies where it should",
          "[workload]") {
  const auto verdicts = workload_verdicts(fixture());
  for (const auto& v : verdicts) {
    INFO(v.explanation);
    CHECK(v.outcome == Outcome::pass);
  }
  std::map<std::string, std::size_t> per_claim;
  for (const auto& v : verdicts) ++per_claim[v.check];
  // By hand from the fixture's 29 rows: every row is verified; 11 alloc + 4 fragmentation rows
  // have N requests; of those, all but the 3 cudamalloc rows (bytes, no pages) are on an ample
  // pool (N <= 4096 = T/4 at T = 16384); alloc, fragmentation and oom rows (11 + 4 + 5) have one
  // size; 3 queue oom rows at most a page, two quantities each.
  CHECK(per_claim[kWorkloadVerifiedCheck] == 29);
  CHECK(per_claim[kWorkloadRequestsCheck] == 15);
  CHECK(per_claim[kWorkloadNoFailureCheck] == 12);
  CHECK(per_claim[kWorkloadUtilisationCheck] == 20);
  CHECK(per_claim[kWorkloadFillsPoolCheck] == 6);
  CHECK(verdicts.size() == 29 + 15 + 12 + 20 + 6);
}

TEST_CASE("workload checks: a hung row is one departure that names the watchdog", "[workload]") {
  auto r = row_of("workloads/fixture-gpu/alloc.csv", 2);
  r.hung = true;
  r.verified = false;
  const auto v = workload_verdicts({r});
  REQUIRE(v.size() == 1);  // nothing else is checked: nothing was measured
  CHECK(v[0].check == kWorkloadVerifiedCheck);
  CHECK(v[0].outcome == Outcome::expected_departure);
  CHECK(v[0].explanation.find("watchdog") != std::string::npos);
}

TEST_CASE("workload checks: a row that was not verified fails", "[workload]") {
  auto r = row_of("workloads/fixture-gpu/alloc.csv", 2);
  r.verified = false;
  const auto v = workload_verdicts({r});
  const auto checks = of_claim(v, kWorkloadVerifiedCheck);
  REQUIRE(checks.size() == 1);
  CHECK(checks[0]->outcome == Outcome::fail);
  CHECK(checks[0]->point.backend == "gpu");
  CHECK(checks[0]->explanation.find("workloads/fixture-gpu/alloc.csv:2") != std::string::npos);
  CHECK_FALSE(all_acceptable(v));
}

TEST_CASE("workload checks: a queue that stops at 90% of the pool under oom fails", "[workload]") {
  auto r = row_of("workloads/sim/oom.csv", 2);  // queue, 256 B = one page, 1 MiB
  REQUIRE(r.allocator == Algorithm::queue);
  r.values.set("utilisation", 0.9);
  const auto v = workload_verdicts({r});
  const auto fill = of_claim(v, kWorkloadFillsPoolCheck, "utilisation");
  REQUIRE(fill.size() == 1);
  CHECK(fill[0]->outcome == Outcome::fail);
  CHECK(fill[0]->reference == 1.0);  // 4096 pages x 256 B / 1 MiB
  CHECK(fill[0]->observed == 0.9);
  // allocs x size / pool is still 1: the row contradicts itself too.
  const auto util = of_claim(v, kWorkloadUtilisationCheck);
  REQUIRE(util.size() == 1);
  CHECK(util[0]->outcome == Outcome::fail);

  // 16 B objects: still one page each, so the full pool holds 4096 x 16 B = 1/16 of it.
  const auto small = workload_verdicts({row_of("workloads/fixture-gpu/oom.csv", 4)});
  const auto small_fill = of_claim(small, kWorkloadFillsPoolCheck, "utilisation");
  REQUIRE(small_fill.size() == 1);
  CHECK(small_fill[0]->reference == 0.0625);
  CHECK(small_fill[0]->outcome == Outcome::pass);

  // RW may give up before the pool is full (its step bound): 92% is no failure of a check.
  auto rw = row_of("workloads/sim/oom.csv", 3);
  REQUIRE(rw.allocator == Algorithm::rw);
  CHECK(of_claim(workload_verdicts({rw}), kWorkloadFillsPoolCheck).empty());
}

TEST_CASE("workload checks: failed requests on an ample pool fail, on a tight one are not judged",
          "[workload]") {
  auto r = row_of("workloads/sim/alloc.csv", 4);  // rw, N = 1024, one page each, T = 16384
  r.values.set("failed", 3.0);
  auto v = workload_verdicts({r});
  auto no_fail = of_claim(v, kWorkloadNoFailureCheck);
  REQUIRE(no_fail.size() == 1);
  CHECK(no_fail[0]->outcome == Outcome::fail);
  CHECK(no_fail[0]->observed == 3.0);

  // 8192 objects on 16384 pages: half the pool, above a quarter; the check does not apply.
  r.N = 8192;
  r.values.set("requests", std::int64_t{8192});
  v = workload_verdicts({r});
  CHECK(of_claim(v, kWorkloadNoFailureCheck).empty());
  REQUIRE(of_claim(v, kWorkloadRequestsCheck).size() == 1);
  CHECK(of_claim(v, kWorkloadRequestsCheck)[0]->outcome == Outcome::pass);
}

TEST_CASE("workload checks: requests other than N fail, and so does a null quantity",
          "[workload]") {
  auto r = row_of("workloads/fixture-gpu/fragmentation.csv", 3);  // rw, N = 1024
  r.values.set("requests", 1000.0);
  auto v = of_claim(workload_verdicts({r}), kWorkloadRequestsCheck);
  REQUIRE(v.size() == 1);
  CHECK(v[0]->outcome == Outcome::fail);
  CHECK(v[0]->reference == 1024.0);

  auto q = row_of("workloads/fixture-gpu/oom.csv", 2);  // queue oom
  q.values.set("count_at_failure", std::monostate{});
  const auto all = workload_verdicts({q});
  const auto count = of_claim(all, kWorkloadFillsPoolCheck, "count_at_failure");
  REQUIRE(count.size() == 1);
  CHECK(count[0]->outcome == Outcome::fail);
  CHECK(count[0]->explanation.find("is null") != std::string::npos);
}
