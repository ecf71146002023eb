// The GPU's workload rows: the registers columns, and the row of a point whose kernel hung
// (hung_record), which must have the very columns of a measured row of that point (so that it
// appends to the same --out file) with every quantity null.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "workload_rows.hpp"

using namespace alloclab;
using namespace alloclab::cli;

namespace {

Workload workload(WorkloadFamily family) {
  Workload w;
  w.family = family;
  w.N = family == WorkloadFamily::oom ? 1 : 1024;
  w.size = {256, 256};
  w.pool_bytes = 1 << 20;
  w.page_bytes = 256;
  w.batch = 512;
  return w;
}

std::vector<std::string> keys(const Record& r) {
  std::vector<std::string> out;
  for (const auto& [key, value] : r.fields) out.push_back(key);
  return out;
}

const RowSource kGpu{"gpu", "gpu"};

}  // namespace

TEST_CASE("GPU rows carry the kernels' registers, null where the entry reports none", "[cli]") {
  WorkloadPoint p;
  p.requests = p.allocs = 1024;
  p.alloc_seconds = 1e-4;
  PointSummary s;
  s.add(p);
  s.alloc_registers = 40;
  s.free_registers = 16;
  const Record r =
      point_record(Algorithm::corw, workload(WorkloadFamily::alloc), kGpu, 1, s, 0, "GPU", {});
  CHECK(r.number("alloc_registers") == 40);
  CHECK(r.number("free_registers") == 16);
  CHECK(std::get<bool>(*r.find("hung")) == false);
  CHECK(std::get<bool>(*r.find("reuses_freed")) == true);
  PointSummary none;
  none.add(p);
  const Record n =
      point_record(Algorithm::corw, workload(WorkloadFamily::alloc), kGpu, 1, none, 0, "GPU", {});
  CHECK(std::holds_alternative<std::monostate>(*n.find("alloc_registers")));
  // The simulator's rows have neither column.
  const Record sim = point_record(Algorithm::corw, workload(WorkloadFamily::alloc),
                                  RowSource{"sim", "sequential"}, 1, none, 0, "cpu", {});
  CHECK_FALSE(sim.find("alloc_registers"));
  CHECK_FALSE(sim.find("hung"));
}

TEST_CASE("a hung point's row: the measured row's columns, every quantity null", "[cli]") {
  for (const auto family : {WorkloadFamily::alloc, WorkloadFamily::oom, WorkloadFamily::churn}) {
    const Workload w = workload(family);
    WorkloadPoint p;
    p.requests = p.allocs = 1024;
    p.alloc_seconds = 1e-4;
    p.address_range_bytes = 4096;
    p.count_at_failure = 4096;
    p.batches_at_failure = 8;
    PointSummary s;
    s.add(p);
    s.alloc_registers = 28;
    s.free_registers = 4;
    const Record measured = point_record(Algorithm::corw, w, kGpu, 1, s, 0, "GPU", {});
    const Record hung =
        hung_record(Algorithm::corw, w, kGpu, 1, 1, "GPU", "corw: the allocation kernel ran past");
    CHECK(keys(hung) == keys(measured));
    for (const char* quantity : {"requests", "allocs", "alloc_ms", "free_ms", "init_ms",
                                 "alloc_registers", "utilisation", "address_range_bytes"})
      CHECK(std::holds_alternative<std::monostate>(*hung.find(quantity)));
    if (family == WorkloadFamily::oom)
      CHECK(std::holds_alternative<std::monostate>(*hung.find("count_at_failure")));
    // The coordinates stay, so that a resumed run skips the point.
    CHECK(hung.text("allocator") == "corw");
    CHECK(hung.number("pool_bytes") == 1 << 20);
    CHECK(hung.number("trials") == 1);
    CHECK(std::get<bool>(*hung.find("verified")) == false);
    CHECK(std::get<bool>(*hung.find("hung")) == true);
    REQUIRE(hung.notes.size() == 1);
    CHECK(hung.notes[0].starts_with("hung: corw: the allocation kernel ran past"));
  }
}
