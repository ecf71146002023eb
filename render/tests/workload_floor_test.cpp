// The side-by-side tables' "× <floor>" column from hand-made rows
// (render/tests/fixtures/floor/README.md): which rows get a ratio, against which floor row, and
// what the report's table shows. The expected ratios are the fixture's times divided by hand.
#include <catch2/catch.hpp>

#include <algorithm>
#include <alloclab/testing/test_support.hpp>

#include "alloclab/render/sections.hpp"
#include "alloclab/render/workload_figures.hpp"
#include "alloclab/render/workload_floor.hpp"

using namespace alloclab;
using namespace alloclab::render;
using validation::WorkloadRow;

namespace {

std::vector<WorkloadRow> floor_fixture() {
  return validation::read_workload_dir(ALLOCLAB_FLOOR_FIXTURE);
}

const WorkloadRow& row(const std::vector<WorkloadRow>& rows, const std::string& allocator,
                       std::uint64_t N, const std::string& device = "Fixture GPU",
                       double block = 256) {
  const auto it = std::find_if(rows.begin(), rows.end(), [&](const WorkloadRow& r) {
    return std::string(name(r.allocator)) == allocator && r.N == N && r.device == device &&
           r.number("block") == block;
  });
  INFO(allocator << " N=" << N << " on " << device);
  REQUIRE(it != rows.end());
  return *it;
}

}  // namespace

TEST_CASE("floor rows are the rows of allocators that never reuse freed memory", "[workload]") {
  const auto rows = floor_fixture();
  REQUIRE(rows.size() == 12);
  CHECK(is_floor_row(row(rows, "ext-bump", 1024)));
  CHECK_FALSE(is_floor_row(row(rows, "corw", 1024)));
  // A plug-in this build was not configured with reads all the same, and a hung row says so.
  CHECK(row(rows, "ext-elsewhere", 1024).number("alloc_ms") == 0.1);
  const WorkloadRow& stalled = row(rows, "ext-stall", 4096);
  CHECK(stalled.hung);
  CHECK_FALSE(stalled.verified);
}

TEST_CASE("× floor: a row's time over the fastest floor row of its point and device",
          "[workload]") {
  const auto rows = floor_fixture();
  const std::vector<const WorkloadRow*> asked = {
      &row(rows, "corw", 1024),
      &row(rows, "corw", 4096),
      &row(rows, "ext-corw", 1024),
      &row(rows, "ext-corw", 4096),
      &row(rows, "ext-elsewhere", 1024),
      &row(rows, "ext-bump", 4096),
      &row(rows, "corw", 1024, "Fixture GPU", 512),  // another block size: no floor row
      &row(rows, "queue", 1024, "Other GPU"),        // its device's floor is at N = 4096 only
      &row(rows, "ext-stall", 4096)};                // hung: no time
  const FloorRatios f = times_floor(asked, rows);
  REQUIRE(f.ratio.size() == asked.size());
  // 0.05 / 0.01 (not 0.012: the slower floor row of the same point), 0.03 / 0.02, ...
  const std::vector<std::optional<double>> expected = {
      5.0, 1.5, 5.2, 1.65, 10.0, 1.0, std::nullopt, std::nullopt, std::nullopt};
  for (std::size_t i = 0; i < asked.size(); ++i) {
    INFO(name(asked[i]->allocator) << " N=" << *asked[i]->N);
    REQUIRE(f.ratio[i].has_value() == expected[i].has_value());
    if (expected[i]) CHECK(*f.ratio[i] == Approx(*expected[i]).epsilon(1e-12));
  }
  REQUIRE(f.floors.size() == 1);
  CHECK(f.column() == "× ext-bump");
  CHECK(f.any());
  // No floor row at all: no ratio, no column.
  const FloorRatios none = times_floor({&row(rows, "queue", 1024, "Other GPU")}, rows);
  CHECK_FALSE(none.any());
}

TEST_CASE("the report's tables of times carry the × floor column", "[workload]") {
  if (!gnuplot_available()) testing::skip("gnuplot is not installed");
  const auto rows = floor_fixture();
  const Section s = workloads_section(rows);
  // The tables of times with the column (time vs threads, time vs size), read together.
  std::string tables;
  for (const auto& block : s.blocks) {
    const auto* t = std::get_if<Table>(&block);
    if (!t) continue;
    const auto& head = t->head();
    const auto column = std::find(head.begin(), head.end(), "× ext-bump");
    if (column == head.end()) continue;
    CHECK(std::find(head.begin(), head.end(), "alloc_ms") < column);
    tables += t->markdown();
  }
  CHECK(tables.find("| 5.00 |") != std::string::npos);   // corw at N = 1024
  CHECK(tables.find("| 1.65 |") != std::string::npos);   // ext-corw at N = 4096
  CHECK(tables.find("| 10.00 |") != std::string::npos);  // ext-elsewhere
  // The hung row has no time to draw: the section names it instead.
  bool hung_listed = false;
  for (const auto& block : s.blocks)
    if (const auto* l = std::get_if<BulletList>(&block))
      for (const auto& item : l->items)
        hung_listed = hung_listed || item.find("`ext-stall` alloc N = 4096") != std::string::npos;
  CHECK(hung_listed);
  std::string prose;
  for (const auto& block : s.blocks)
    if (const auto* p = std::get_if<Paragraph>(&block)) prose += p->text;
  CHECK(prose.find("`ext-bump`") != std::string::npos);
}
