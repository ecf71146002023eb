// The floor rule of speed verdicts (validation/speed_floor.hpp) against hand-worked numbers, and
// the reading of gpu_bench's floor rows from a fixture written here.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "alloclab/validation/speed_floor.hpp"

using namespace alloclab::validation;

namespace {
// 5e10 atomics/s: 10 atomics a request x 10^6 requests = 10^7 atomics = 0.2 ms by hand.
const AtomicThroughput kRate{5e10, "fixture"};

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}
}  // namespace

TEST_CASE("atomics_floor: atomics x requests / throughput, by hand") {
  const DesignFloor f = atomics_floor(10, 1e6, kRate, "fig7-counts.csv, 8 B");
  CHECK(f.ms == Approx(0.2));  // 10 * 1e6 / 5e10 s = 2e-4 s
  CHECK(contains(f.how, "10 atomics a request (fig7-counts.csv, 8 B)"));
  CHECK(contains(f.how, "0.2 ms"));
  // Gelado & Garland's committed 8 B row: 14876.49 atomics a request, 2^20 requests, the H200's
  // 4.684e10 atomics/s (plugins-b042d4c/gpu_bench_quick.txt): 1.5599e10 / 4.684e10 s = 333.0 ms.
  const DesignFloor gg = atomics_floor(14876.49, 1048576, {4.684e10, "h200"}, "8 B");
  CHECK(gg.ms == Approx(333.03).epsilon(1e-4));
  CHECK_THROWS_AS(atomics_floor(-1, 1e6, kRate, ""), std::invalid_argument);
  CHECK_THROWS_AS(atomics_floor(1, 0, kRate, ""), std::invalid_argument);
  CHECK_THROWS_AS(atomics_floor(1, 1, {0, ""}, ""), std::invalid_argument);
}

TEST_CASE("judge_speed_miss: more than 2x above the floor is not reproduced, with N") {
  const FloorPoint p = floor_point("8 B", 1.0, 10.0, 1e6, kRate, "", "rows");  // 1 / 0.2 = 5x
  CHECK(p.factor() == Approx(5));
  const FloorVerdict v = judge_speed_miss(p);
  CHECK(v.judgement == Judgement::not_reproduced);
  CHECK(v.factor == Approx(5));
  CHECK(v.text.rfind("not reproduced: implementation 5× above its design floor", 0) == 0);
  CHECK(contains(v.text, "floor 0.2 ms"));
  // The Gelado & Garland 8 B row by hand: 7652.75 ms / 333.03 ms = 22.98x.
  const FloorVerdict gg = judge_speed_miss(
      floor_point("8 B", 7652.75, 14876.49, 1048576, AtomicThroughput{4.684e10, "h"}, "", "rows"));
  CHECK(gg.factor == Approx(22.98).epsilon(1e-3));
  CHECK(contains(gg.text, "implementation 23× above"));
}

TEST_CASE("judge_speed_miss: within 2x of the floor does not hold (2x exactly is near)") {
  const FloorVerdict near = judge_speed_miss(floor_point("a", 0.3, 10.0, 1e6, kRate, "", "r"));
  CHECK(near.judgement == Judgement::does_not_hold);
  CHECK(near.factor == Approx(1.5));
  CHECK(near.text.rfind("does not hold: the implementation is within 1.5× of its design floor",
                        0) == 0);
  CHECK(judge_speed_miss(floor_point("a", 0.4, 10.0, 1e6, kRate, "", "r")).judgement ==
        Judgement::does_not_hold);
  CHECK(judge_speed_miss(floor_point("a", 0.41, 10.0, 1e6, kRate, "", "r")).judgement ==
        Judgement::not_reproduced);
}

TEST_CASE("judge_speed_miss: the worst point decides (a point without a floor is named)") {
  std::vector<FloorPoint> ps{floor_point("8 B", 0.3, 10.0, 1e6, kRate, "", "r"),    // 1.5x
                             floor_point("64 B", 2.0, 10.0, 1e6, kRate, "", "r")};  // 10x
  FloorVerdict v = judge_speed_miss(ps);
  CHECK(v.judgement == Judgement::not_reproduced);
  CHECK(v.factor == Approx(10));
  CHECK(contains(v.text, "10× above its design floor (at 64 B"));
  CHECK(floor_cells(ps) == "8 B 1.5× (floor 0.2 ms); 64 B 10× (floor 0.2 ms)");
  // No counters at one point: near the floor elsewhere is not enough for "does not hold".
  ps = {floor_point("8 B", 0.3, 10.0, 1e6, kRate, "", "r"),
        floor_point("1 KB", 5.0, std::nullopt, 1e6, kRate, "", "fig7.csv")};
  v = judge_speed_miss(ps);
  CHECK(v.judgement == Judgement::not_reproduced);
  CHECK(contains(v.text, "no design floor for 1 KB (no atomics_per_op in fig7.csv)"));
  // Many points without a floor: the first three named, the rest counted.
  ps.clear();
  for (const char* label : {"p0", "p1", "p2", "p3", "p4"})
    ps.push_back(floor_point(label, 1, std::nullopt, 1e6, kRate, "", "r"));
  CHECK(judge_speed_miss(ps).text ==
        "not reproduced: no design floor for p0 (no atomics_per_op in r); p1 (no atomics_per_op "
        "in r); p2 (no atomics_per_op in r) and 2 more points");
  // No throughput: the reason given is the one shown.
  v = judge_speed_miss(floor_point("x", 1, 10.0, 1e6, std::nullopt, "no gpu_bench rows", "r"));
  CHECK(v.judgement == Judgement::not_reproduced);
  CHECK(contains(v.text, "no gpu_bench rows"));
  CHECK(judge_speed_miss(std::vector<FloorPoint>{}).judgement == Judgement::not_reproduced);
}

TEST_CASE("bump_floor: the bump allocator's time is the floor") {
  FloorPoint p{"2^20 x 256 B", 5.0, bump_floor(0.5, "ext-bump, alloc.csv"), ""};
  const FloorVerdict v = judge_speed_miss(p);
  CHECK(v.factor == Approx(10));
  CHECK(v.judgement == Judgement::not_reproduced);
  CHECK(contains(v.text, "a bump allocator on the same workload: 0.5 ms (ext-bump, alloc.csv)"));
  CHECK_THROWS_AS(bump_floor(0, ""), std::invalid_argument);
}

TEST_CASE("load_atomic_throughput: the fastest gpu_bench floor row of the device's files") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "alloclab_speed_floor_test";
  fs::remove_all(dir);
  fs::create_directories(dir / "gpu-x" / "plugins-run");
  std::ofstream(dir / "gpu-x" / "bench.json")
      << R"j({"rows": [{"kernel": "floor: atomicOr, Philox word", "allocs_per_s": 4e10},
                      {"kernel": "queue (counters)", "allocs_per_s": 9e10}]})j";
  std::ofstream(dir / "gpu-x" / "plugins-run" / "bench_2.json")
      << R"j({"rows": [{"kernel": "floor: atomicOr, hashed word", "allocs_per_s": 4.5e10}]})j";
  std::ofstream(dir / "gpu-x" / "other.json")
      << R"j({"rows": [{"kernel": "floor: not gpu_bench's", "allocs_per_s": 9e11}]})j";
  std::string why;
  const auto t = load_atomic_throughput(dir.string(), "gpu-x", why);
  REQUIRE(t);
  CHECK(t->atomics_per_s == 4.5e10);  // the allocator row (9e10) and other.json are not floors
  CHECK(t->source == "gpu-x/plugins-run/bench_2.json, row \"floor: atomicOr, hashed word\"");
  CHECK_FALSE(load_atomic_throughput(dir.string(), "gpu-y", why));
  CHECK(contains(why, "gpu-y"));
  fs::remove_all(dir);
}

TEST_CASE("device_bump_time: ext-bump's cold alloc row of the same workload") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "alloclab_speed_floor_bump_test";
  fs::remove_all(dir);
  fs::create_directories(dir / "test-gpu" / "plugins-run" / "workloads" / "gpu");
  std::ofstream(dir / "test-gpu" / "plugins-run" / "workloads" / "gpu" / "alloc.csv")
      << "allocator,mode,workload,requests,size,alloc_ms,verified,device\n"
      << "ext-bump-warp,gpu,alloc,1048576,256,0.1,true,Test GPU\n"
      << "ext-bump,gpu-warm,alloc,1048576,256,0.5,true,Test GPU\n"
      << "ext-bump,gpu,alloc,1048576,256,0.8,true,Test GPU\n";
  const char* old = std::getenv("ALLOCLAB_DATA_DIR");
  const std::string saved = old ? old : "";
  ::setenv("ALLOCLAB_DATA_DIR", dir.string().c_str(), 1);
  std::string why;
  const auto bump = device_bump_time("Test GPU (0:0)", 1048576, 256, why);
  const auto other = device_bump_time("Test GPU", 1048576, 16, why);
  FloorPoint cold{"256 B", 8.0, std::nullopt, "no counters"};
  bump_fallback(cold, "Test GPU", 1048576, 256, true);
  FloorPoint warm{"256 B warm", 8.0, std::nullopt, "no counters"};
  bump_fallback(warm, "Test GPU", 1048576, 256, false);
  if (old)
    ::setenv("ALLOCLAB_DATA_DIR", saved.c_str(), 1);
  else
    ::unsetenv("ALLOCLAB_DATA_DIR");
  fs::remove_all(dir);
  REQUIRE(bump);
  CHECK(bump->ms == 0.8);  // not ext-bump-warp's row, not the warm one
  CHECK(bump->source == "test-gpu/plugins-run/workloads/gpu/alloc.csv, ext-bump");
  CHECK_FALSE(other);  // no 16 B row
  CHECK(contains(why, "no ext-bump row of 1048576 x 16 B"));
  REQUIRE(cold.floor);
  CHECK(cold.factor() == Approx(10));  // 8 / 0.8
  CHECK_FALSE(warm.floor);             // the bump's rows are cold
}
