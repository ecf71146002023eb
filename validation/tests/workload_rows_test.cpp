// Workload rows read back from the hand-made fixture (tests/fixtures/workloads/README.md).
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "alloclab/validation/workload_rows.hpp"

using namespace alloclab;
using namespace alloclab::validation;
namespace fs = std::filesystem;

namespace {
const WorkloadRow& find_row(const std::vector<WorkloadRow>& rows, const std::string& file,
                            std::size_t line) {
  const auto it = std::find_if(rows.begin(), rows.end(), [&](const WorkloadRow& r) {
    return r.file == file && r.line == line;
  });
  REQUIRE(it != rows.end());
  return *it;
}
}  // namespace

TEST_CASE("read_workload_dir: every fixture file, in path order, named from the folder",
          "[workload]") {
  const auto rows = read_workload_dir(ALLOCLAB_WORKLOAD_FIXTURE);
  // Data lines per file, counted by hand: fixture-gpu 6 + 6 + 2 + 3, sim 5 + 3 + 2 + 2.
  CHECK(rows.size() == 29);
  CHECK(rows.front().file == "workloads/fixture-gpu/alloc.csv");
  CHECK(rows.back().file == "workloads/sim/oom.csv");
  CHECK(read_workload_dir(std::string(ALLOCLAB_WORKLOAD_FIXTURE) + "/missing").empty());
}

TEST_CASE("read_workload_dir: the columns of a GPU row, nulls and a quoted note", "[workload]") {
  const auto rows = read_workload_dir(ALLOCLAB_WORKLOAD_FIXTURE);
  // fixture-gpu/alloc.csv line 4: cudamalloc, N = 1024, 256 B.
  const auto& r = find_row(rows, "workloads/fixture-gpu/alloc.csv", 4);
  CHECK(r.allocator == Algorithm::cudamalloc);
  CHECK(r.backend == "gpu");
  CHECK(r.source() == "Fixture GPU (hand-made)");
  CHECK(r.N == std::optional<std::uint64_t>(1024));
  CHECK(r.size_bytes == std::optional<std::uint64_t>(256));
  CHECK(r.pages_total() == 16384);  // 4 MiB / 256 B
  CHECK(r.verified);
  CHECK(r.number("alloc_ms") == std::optional<double>(0.05));
  CHECK_FALSE(r.number("atomics_per_op"));  // null on the GPU
  REQUIRE(r.values.notes.size() == 1);
  CHECK(r.values.notes[0].find("failed_claims_per_op: CUDA's malloc has no counters") !=
        std::string::npos);
  CHECK(r.where() == "workloads/fixture-gpu/alloc.csv:4");
}

TEST_CASE("read_workload_dir: oom rows have no N, churn rows a round", "[workload]") {
  const auto rows = read_workload_dir(ALLOCLAB_WORKLOAD_FIXTURE);
  const auto& oom = find_row(rows, "workloads/sim/oom.csv", 3);  // rw
  CHECK(oom.allocator == Algorithm::rw);
  CHECK_FALSE(oom.N);
  CHECK(oom.batch == std::optional<std::uint64_t>(1024));
  CHECK(oom.number("count_at_failure") == std::optional<double>(3775));
  CHECK(oom.source() == "sim");
  const auto& churn = find_row(rows, "workloads/sim/churn.csv", 4);
  CHECK(churn.round == std::optional<std::uint64_t>(2));
  CHECK_FALSE(churn.number("init_ms"));  // null after round 0
  CHECK_FALSE(churn.batch);
}

TEST_CASE("read_workload_csv: what is not a workload row is refused with its place", "[workload]") {
  const fs::path dir = fs::path(ALLOCLAB_TEST_WORK) / "workload_rows";
  fs::create_directories(dir);
  const auto path = (dir / "bad.csv").string();
  const std::string head =
      "allocator,backend,mode,workload,N,size,pool_bytes,page_bytes,trials,requests,allocs,"
      "alloc_ms,failed,utilisation,verified,device,notes\n";
  std::ofstream(path) << head
                      << "rw,sim,sequential,alloc,8,256,4096,256,1,8,8,0.1,0,0.5,true,"
                         "cpu simulator,\nbogus,sim,sequential,alloc,8,256,4096,256,1,8,8,"
                         "0.1,0,0.5,true,cpu simulator,\n";
  CHECK_THROWS_WITH(read_workload_csv(path, "bad.csv"),
                    Catch::Contains("bad.csv:3") && Catch::Contains("unknown allocator 'bogus'"));
  std::ofstream(path) << head
                      << "rw,sim,sequential,alloc,8,256,4096,256,1,8,8,0.1,0,0.5,yes,"
                         "cpu simulator,\n";
  CHECK_THROWS_WITH(read_workload_csv(path, "bad.csv"),
                    Catch::Contains("bad.csv:2") && Catch::Contains("verified"));
  std::ofstream(path) << head
                      << "rw,sim,sequential,alloc,8,big,4096,256,1,8,8,0.1,0,0.5,true,"
                         "cpu simulator,\n";
  CHECK_THROWS_WITH(read_workload_csv(path, "bad.csv"), Catch::Contains("size 'big'"));
  // A tidy sweep CSV is not a workload CSV: it lacks the workload columns.
  std::ofstream(path) << "algo,backend,mode,N,A,T,w,lanes,pages,bit_choice,metric,mean,sd,ci95,n\n"
                         "rw,sim,sequential,8,8,8,32,32,1,lowest,tas,1,0,0,1\n";
  CHECK_THROWS_WITH(read_workload_csv(path, "bad.csv"), Catch::Contains("no column 'allocator'"));
}
