// Seed 003's claims (validation/src/gallatin_claims*.cpp): the bounds hold on the vEB step code,
// the coverage arithmetic is worked by hand, and the simulator's atomics equal the model's; the
// GPU rows come from hand-made CSV files in a temporary DIR/gallatin/, read back as the report
// reads them, their models, numbers and verdicts worked by hand; without the directory the
// hardware rows say "not measured".
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "alloclab/studies/gallatin_claims.hpp"

using namespace alloclab;
using namespace alloclab::validation;
namespace fs = std::filesystem;

namespace {

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

const char* const kHeader =
    "allocator,mode,workload,N,size,pool_bytes,alloc_ms,init_ms,utilisation,fragmentation,"
    "teams_per_request,atomics_per_op,verified,device,notes";

// A report directory with DIR/gallatin/<gpu>/<file> holding `rows` under kHeader.
struct ReportDir {
  fs::path root;
  explicit ReportDir(const std::string& name)
      : root(fs::temp_directory_path() / ("alloclab_gallatin_claims_" + name)) {
    fs::remove_all(root);
  }
  ~ReportDir() { fs::remove_all(root); }
  void write(const std::string& file, const std::vector<std::string>& rows) const {
    const fs::path d = root / "gallatin" / "test-gpu";
    fs::create_directories(d);
    std::ofstream f(d / file);
    f << kHeader << '\n';
    for (const auto& r : rows) f << r << '\n';
  }
};

const std::string kGpu = ",true,NVIDIA H200,\"a note, with a comma\"";
const std::string k2GiB = "2147483648", k8GiB = "8589934592";

// An out-of-memory row at 2 GiB, as claims_utilisation.csv.
std::string oom(int size, const std::string& utilisation, const std::string& init = "") {
  return "gallatin,gpu,oom,," + std::to_string(size) + "," + k2GiB + ",1.0," + init + "," +
         utilisation + ",1.1,,," + kGpu.substr(1);
}
// A 2^20-request alloc row on 8 GiB, as alloc.csv and claims_warmup.csv.
std::string alloc(const std::string& mode, int size, const std::string& ms,
                  const std::string& init = "") {
  return "gallatin," + mode + ",alloc,1048576," + std::to_string(size) + "," + k8GiB + "," + ms +
         "," + init + ",0.5,1.0,,," + kGpu.substr(1);
}
std::string frag(const std::string& allocator, const std::string& f,
                 const std::string& counters = ",") {
  return allocator + ",gpu,fragmentation,1048576,256," + k8GiB + ",0.2,,0.03125," + f + "," +
         counters + kGpu;
}

// The rows of the committed H200 run (reports/data/nvidia-h200/gallatin-eeec3b6/), rounded.
void write_h200_like(const ReportDir& d, const std::string& util256, const std::string& frag_ouro) {
  d.write("claims_utilisation.csv",
          {oom(16, "0.906", "0.5"), oom(256, util256, "0.6"), oom(4096, "0.928", "0.55")});
  d.write("claims_warmup.csv", {alloc("gpu", 2048, "0.570"), alloc("gpu-warm", 2048, "0.578")});
  d.write("claims_fragmentation.csv",
          {frag("gallatin", "1.5166", "0.03125,0.107"), frag("ouro-p-s", "1"),
           frag("ouro-c-vl", frag_ouro), frag("queue", "1"), frag("cudamalloc", "32.0")});
  d.write("alloc.csv", {alloc("gpu", 16, "0.120", "1.7"), alloc("gpu", 256, "0.178", "1.8"),
                        alloc("gpu", 4096, "0.948"), alloc("gpu-warm", 16, "0.049"),
                        alloc("gpu-warm", 256, "0.182"), alloc("gpu-warm", 4096, "0.967")});
}

}  // namespace

TEST_CASE("gallatin claims: bounds, coverage and one atomic a slice", "[validation][gallatin]") {
  const auto claims = gallatin_claims({});
  REQUIRE(claims.size() == 8);
  // U = 64^3: L = 3, so a successor reads at most 5 words.
  CHECK(claims[0].model.find("L = 3") != std::string::npos);
  CHECK(claims[0].verdict.find("holds") == 0);
  CHECK(claims[0].judgement == Judgement::holds);
  CHECK(claims[1].judgement == Judgement::holds);
  // 64 x 16 MiB = 1 GiB; 64^3 x 16 MiB = 2^18 x 2^24 B = 2^42 B = 4 TiB; the public count 4.
  CHECK(claims[1].model == "64 x 16 MiB = 1 GiB; 64^3 x 16 MiB = 4 TiB");
  CHECK(claims[1].simulation.find("= 3, the public") != std::string::npos);
  CHECK(claims[1].simulation.find("+ 1 = 4") != std::string::npos);
  // (65536 + 89) / 65536 = 1.001358 and (2048 + 89) / 65536 (the derivation in
  // model/tests/explain_test.cpp).
  CHECK(claims[2].model.find("1.00136 atomics a request for teams of one") != std::string::npos);
  CHECK(claims[2].simulation.find("sequential 1.00136") != std::string::npos);
  CHECK(claims[2].verdict.find("holds") == 0);
  CHECK(claims[2].judgement == Judgement::holds);
}

TEST_CASE("gallatin claims: without GPU rows the hardware rows say not measured",
          "[validation][gallatin]") {
  const auto rows = read_gallatin_dir("/nonexistent/alloclab/report/dir");
  CHECK(rows.empty());
  const auto claims = gallatin_claims(rows);
  REQUIRE(claims.size() == 8);
  CHECK(has(claims[2].hardware, "not measured"));
  for (std::size_t i = 3; i < claims.size(); ++i) {
    CHECK(claims[i].verdict.find("not measured") == 0);
    CHECK(claims[i].judgement == Judgement::not_measured);
    CHECK(has(claims[i].hardware, "no GPU rows of Gallatin"));
  }
  // The models do not need rows: 2 GiB = 128 segments; the pre-boot's 132 + 66 + 33 + 16 + 8 +
  // 4 x 4 = 271 slots take 13 segments (one each for 16 B .. 1 KiB, 2 for 2 KiB, 4 for 4 KiB),
  // 12 of them not 256 B's: 116 / 128 = 90.625%; 8 slots x 4096 x 256 B = 8 MiB = 0.39% of the
  // pool strand at most, so [90.23%, 90.63%].
  CHECK(has(claims[3].model, "271 buffer slots blocks from 13 segments, 12 of them"));
  CHECK(has(claims[3].model, "at most 116 segments serve 256 B (90.6%)"));
  CHECK(has(claims[3].model, "[90.2%, 90.6%]"));
  // 2^20 x 256 B = 256 blocks of 1 MiB; the class's pre-boot segment is segment 4 (after
  // 16..128 B) and holds 16 of them; 240 more fill segments 13..27: 28 - 4 = 24 segments of
  // 16 MiB for 256 MiB of data, 1.5.
  CHECK(has(claims[6].model, "segment 4"));
  CHECK(has(claims[6].model, "240 blocks of 1 MiB in segments 13..27"));
  CHECK(has(claims[6].model, "at least 24 segments for 16 of data, 1.500"));
}

TEST_CASE("gallatin claims: the H200's rows from CSV files, worked by hand",
          "[validation][gallatin]") {
  const ReportDir d("h200");
  write_h200_like(d, "0.905", "1.0004");
  const auto rows = read_gallatin_dir(d.root.string());
  CHECK(rows.size() == 3 + 2 + 5 + 6);
  const auto claims = gallatin_claims(rows);
  REQUIRE(claims.size() == 8);
  CHECK(has(claims[2].hardware, "0.03125 teams a request, 0.107 atomics"));

  // Utilisation: 90.5% at 256 B, 1.4 points over 89.1%, inside [90.2%, 90.6%]; 4096 B: 13 - 4
  // = 9 segments are others', 119 / 128 = 92.97%, less 4 x 4096 x 4096 B = 64 MiB = 3.125%.
  const auto& u = claims[3];
  CHECK(has(u.hardware, "256 B 90.5% (model [90.2%, 90.6%])"));
  CHECK(has(u.hardware, "4096 B 92.8% (model [89.8%, 93.0%])"));
  CHECK(u.verdict.find("holds with a qualification: 90.5% at 256 B, 1.4 points above") == 0);
  CHECK(has(u.verdict, "every size inside the model's bounds; the paper's 89.1% is below"));
  CHECK(u.judgement == Judgement::holds_qualified);  // 90.5% > 89.1% + 0.5 points

  // Initialisation: 2 GiB rows 0.5, 0.6, 0.55 (median 0.55); 8 GiB rows 1.7, 1.8 (median 1.75);
  // 1.75 / 0.55 = 3.18.
  const auto& init = claims[4];
  CHECK(has(init.hardware, "0.55 ms at 2 GiB (3 runs), 1.75 ms at 8 GiB (2 runs)"));
  CHECK(has(init.hardware, "3.2x"));
  CHECK(init.verdict.find("holds with a qualification: at most 1.8 ms") == 0);
  CHECK(init.judgement == Judgement::holds_qualified);  // 1.8 ms <= 31 ms

  // Warm-up: 0.578 / 0.570 = 1.014; at 16 B 0.049 / 0.120 = 0.41.
  const auto& w = claims[5];
  CHECK(has(w.hardware, "0.570 ms fresh, 0.578 ms after a run (+1.4%)"));
  CHECK(w.verdict.find("holds with a qualification: +1.4% at 2 KiB") == 0);
  CHECK(has(w.verdict, "at 16 B the warm run takes 0.41x"));
  CHECK(w.judgement == Judgement::holds_qualified);  // 1% < 1.4% < 2%

  // Fragmentation: 1.5166 / 1.5 = 1.011; after ouro-p-s and ouro-c-vl (and the queue), before
  // CUDA's malloc (ouro-c-vl's 1.0004 prints as 1 to four digits).
  const auto& f = claims[6];
  CHECK(has(f.hardware, "ouro-p-s 1; queue 1; ouro-c-vl 1; gallatin 1.517; cudamalloc 32"));
  CHECK(f.verdict.find("holds with a qualification: Gallatin (1.517, 1.1% over the wavefront's "
                       "1.500) ranks after the 2 Ouroboros variants and before CUDA's malloc") ==
        0);
  CHECK(f.judgement == Judgement::holds_qualified);  // only the order against Ouroboros

  // Speed: 0.120 / 0.10592 = 1.133 slower; 0.0905 / 0.049 = 1.85, 0.89898 / 0.178 = 5.05,
  // 0.76438 / 0.182 = 4.20, 3.66291 / 0.948 = 3.86, 3.57558 / 0.967 = 3.70 faster.
  const auto& s = claims[7];
  CHECK(s.where == "issue 14");
  CHECK(has(s.hardware, "16 B cold against its first run: 0.12 / 0.106 ms, 1.13x slower"));
  CHECK(has(s.hardware, "16 B warm against the public median: 0.049 / 0.0905 ms, 1.85x faster"));
  CHECK(has(s.hardware, "256 B cold against its first run: 0.178 / 0.899 ms, 5.05x faster"));
  CHECK(has(s.hardware, "4096 B warm against the public median: 0.967 / 3.58 ms, 3.70x faster"));
  CHECK(s.verdict ==
        "holds with a qualification: faster in 5 of 6 cells; 16 B first run: 1.13x slower");
  CHECK(s.judgement == Judgement::holds_qualified);  // 2 x 5 >= 6
}

TEST_CASE("gallatin claims: the pre-booted simulator's rows fill the simulation column",
          "[validation][gallatin]") {
  const ReportDir d("sim");
  write_h200_like(d, "0.905", "1.0004");
  // As scripts/sim-gallatin-claims.sh writes them (a backend column; the mode says pre-booted),
  // in a folder of their own; a row without the pre-boot is not the GPU's set-up and is left out.
  const fs::path sim = d.root / "gallatin" / "cpu-simulator";
  fs::create_directories(sim);
  {
    std::ofstream f(sim / "sim_claims_utilisation.csv");
    f << "allocator,backend,mode,workload,N,size,pool_bytes,utilisation,fragmentation,verified,"
         "device\n";
    f << "gallatin,sim,sequential-preboot,oom,,4096," << k2GiB << ",0.9296875,1,true,cpu\n";
    f << "gallatin,sim,sequential-preboot,oom,,256," << k2GiB << ",0.905517578125,1.07,true,cpu\n";
    f << "gallatin,sim,sequential,oom,,16," << k2GiB << ",0.99,1,true,cpu\n";
    f << "gallatin,sim,sequential-preboot,fragmentation,1048576,256," << k8GiB
      << ",0.03125,1.53,true,cpu\n";
  }
  const auto claims = gallatin_claims(read_gallatin_dir(d.root.string()));
  REQUIRE(claims.size() == 8);
  // 256 B: 90.55% inside [90.2%, 90.6%]; 4096 B: 92.97% inside [89.8%, 93.0%]; the GPU's 90.5%
  // is 0.05 points under the simulator's. The 16 B row is not pre-booted: not shown.
  const auto& u = claims[3];
  CHECK(has(u.simulation, "256 B 90.6%, 4096 B 93.0%; every size inside the model's bounds"));
  CHECK_FALSE(has(u.simulation, "16 B"));
  CHECK(has(u.verdict, "the simulator 90.6% at 256 B (+0.05 points from the GPU)"));
  // The GPU rows still decide the hardware column (the simulator's device is not a GPU).
  CHECK(has(u.hardware, "NVIDIA H200"));
  // Fragmentation: 1.53 over the wavefront's 1.5, +2.0%.
  CHECK(has(claims[6].simulation, "1.53 (2.0% over the wavefront)"));
  // The one-atomic row's hardware cell is the GPU's fragmentation row, not the simulator's.
  CHECK(has(claims[2].hardware, "NVIDIA H200, 2^20 x 256 B: 0.03125 teams a request"));
}

TEST_CASE("gallatin claims: failing rows give failing verdicts", "[validation][gallatin]") {
  const ReportDir d("failing");
  // 88% at 256 B; an Ouroboros variant after Gallatin; 16 B at 95% is above its bound (90.6%).
  write_h200_like(d, "0.88", "2.0");
  d.write("more.csv", {oom(16, "0.95"), "gallatin,gpu,alloc,1048576,2048," + k8GiB +
                                            ",9.9,40,0.5,1.0,,,false,"
                                            "NVIDIA H200,"});
  const auto claims = gallatin_claims(read_gallatin_dir(d.root.string()));
  // The second row of more.csv is not verified, so its 40 ms init is left out; the first 16 B
  // row (90.6%, claims_utilisation.csv) is the one used.
  CHECK(claims[3].verdict.find("does not hold: 88.0% at 256 B") == 0);
  CHECK(claims[3].judgement == Judgement::does_not_hold);  // a capacity under the paper's
  CHECK(claims[4].verdict.find("holds with a qualification") == 0);
  CHECK(claims[4].judgement == Judgement::holds_qualified);
  CHECK(claims[6].verdict.find("does not hold: Gallatin (1.517") == 0);
  CHECK(claims[6].judgement == Judgement::does_not_hold);  // an Ouroboros variant after it

  const ReportDir e("slow");
  e.write("alloc.csv",
          {alloc("gpu", 16, "0.2", "40"), alloc("gpu-warm", 256, "1.0"), alloc("gpu", 2048, "1.0"),
           alloc("gpu-warm", 2048, "1.03"), oom(256, "0.893"), oom(16, "0.95")});
  const auto slow = gallatin_claims(read_gallatin_dir(e.root.string()));
  CHECK(slow[3].verdict.find("holds: 89.3% at 256 B") == 0);
  CHECK(slow[3].judgement == Judgement::holds);  // within 0.5 points of 89.1%
  CHECK(has(slow[3].verdict, "outside the model's bounds at 16 B"));
  // Times over the paper's: a speed claim alloclab misses, with no floor (the set-up counts no
  // atomics), is not reproduced.
  CHECK(slow[4].verdict.find("not reproduced: no design floor (the set-up serves no requests") ==
        0);
  CHECK(has(slow[4].verdict, "up to 40 ms, over the paper's 31 ms"));
  CHECK(slow[4].judgement == Judgement::not_reproduced);
  CHECK(slow[5].verdict.find("does not hold: +3.0% at 2 KiB") == 0);
  CHECK(slow[5].judgement == Judgement::not_reproduced);
  CHECK(slow[6].verdict.find("not measured") == 0);  // no fragmentation rows
  CHECK(slow[6].judgement == Judgement::not_measured);
  // 0.2 / 0.10592 = 1.89 slower, 1.0 / 0.76438 = 1.31 slower: faster in 0 of 2.
  CHECK(has(slow[7].verdict,
            "; faster in 0 of 2 cells; 16 B first run: 1.89x slower; 256 B warm: 1.31x slower"));
  // Slower than the public code, judged by the floor rule: these rows count no atomics; the cold
  // 16 B cell has the committed H200 ext-bump run of the same workload as its floor, the warm
  // 256 B cell none (gallatin_floor_test.cpp gives one from counted atomics).
  CHECK(slow[7].verdict.find("not reproduced: no design floor for 256 B warm") == 0);
  CHECK(slow[7].judgement == Judgement::not_reproduced);
}

TEST_CASE("gallatin claims: a warm-up within 1% at 2 KiB, and a large change elsewhere",
          "[validation][gallatin]") {
  // 1.005 / 1.0 = +0.5% at 2 KiB, no other size: holds as the paper says.
  const ReportDir d("warm");
  d.write("claims_warmup.csv", {alloc("gpu", 2048, "1.0"), alloc("gpu-warm", 2048, "1.005")});
  const auto flat = gallatin_claims(read_gallatin_dir(d.root.string()));
  CHECK(flat[5].verdict == "holds at 2 KiB");
  CHECK(flat[5].judgement == Judgement::holds);
  // At 16 B the warm run takes 0.2 / 0.1 = 2x the fresh one's time: held at 2 KiB only.
  d.write("alloc.csv", {alloc("gpu", 16, "0.1"), alloc("gpu-warm", 16, "0.2")});
  const auto large = gallatin_claims(read_gallatin_dir(d.root.string()));
  CHECK(large[5].verdict ==
        "holds at 2 KiB; at 16 B the warm run takes 2.00x the fresh one's time");
  CHECK(large[5].judgement == Judgement::holds_qualified);
}
