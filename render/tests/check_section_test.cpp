// The "Interleavings checked" section's table, from hand-made `alloclab check --format json`
// files (tests/fixtures/check): every number copied from the files, ok rows plain, a violation
// under a printed rule listed as found, one under alloclab's rules highlighted.
#include <catch2/catch.hpp>

#include <fstream>

#include "alloclab/render/sections.hpp"

using namespace alloclab::render;

namespace {
nlohmann::json read_fixture(const std::string& name) {
  std::ifstream f(std::string(ALLOCLAB_CHECK_FIXTURE) + "/" + name);
  return nlohmann::json::parse(f);
}
}  // namespace

TEST_CASE("the check section lists every family checked, with its numbers", "[render][check]") {
  const std::vector<std::pair<std::string, nlohmann::json>> runs{
      {"check/ci.json", read_fixture("ci.json")},
      {"check/printed.json", read_fixture("printed.json")}};
  const Table t = check_table(runs);
  REQUIRE(t.size() == 3);
  CHECK(t.markdown() ==
        "| family | threads | ops | pool | bound | rule | nulls | executions | pruned (sleep set / "
        "step bound / preemption bound / spin) | time (s) | verdict | file |\n"
        "|:---|---:|:---|---:|:---|:---|:---|---:|---:|---:|:---|:---|\n"
        "| gg-tbuddy | 3 | alloc:1,free | 2 | at most 3 preemptions | alloclab | checked | 1200 | "
        "30 / 0 / 4000 / 7 | 0.51 | ok | check/ci.json |\n"
        "| **ouro-index-queue** | **3** | **alloc:1,free** | **2** | **at most 3 preemptions** | "
        "**alloclab** | **checked** | **99** | **1 / 2 / 3 / 4** | **0.00** | **VIOLATION: "
        "deadlock: every unfinished thread waits (22 accesses)** | **check/ci.json** |\n"
        "| gg-tbuddy | 3 | alloc:1,free | 2 | at most 3 preemptions | printed | checked | 17 | "
        "0 / 0 / 5 / 0 | 0.01 | found under the printed rule: spurious null: thread 1 (40 "
        "accesses) | check/printed.json |\n");
  const Section s = check_section(runs);
  CHECK(s.id == "check");
  CHECK(s.title == "Interleavings checked");
  CHECK(check_section({}).blocks.size() == 1);  // says there are no results
}
