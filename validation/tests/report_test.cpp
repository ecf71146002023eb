#include <catch2/catch.hpp>

#include <alloclab/testing/test_support.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "alloclab/validation/plot.hpp"
#include "alloclab/validation/report.hpp"

using namespace alloclab;
using namespace alloclab::validation;
namespace fs = std::filesystem;

namespace {
// A small synthetic sweep: model (RW and queue, two free fractions), sequential simulation and
// GPU rows for one fraction.
std::vector<TidyRow> synthetic_rows() {
  std::vector<TidyRow> rows;
  auto add = [&](std::string algo, std::string backend, std::string mode, std::uint64_t N,
                 std::uint64_t A, std::string metric, double mean, double ci, std::uint64_t n) {
    TidyRow r;
    r.point = {algo, backend, mode, N, A, 1000000, 32, 32, 1};
    r.metric = metric;
    r.mean = mean;
    r.ci95 = ci;
    r.sd = ci;
    r.n = n;
    rows.push_back(r);
  };
  for (std::uint64_t N : {1024, 2048, 4096}) {
    for (std::uint64_t A : {500000, 10000}) {
      const double tas = 1e6 / static_cast<double>(N) * std::log(double(A) / double(A - N));
      add("rw", "model", "sequential", N, A, "tas", tas, 0, 1);
      add("rw", "model", "sequential", N, A, "was_bound", 3 * tas, 0, 1);
      add("rw", "model", "sequential", N, A, "was", 2.5 * tas, 0, 1);
      add("queue", "model", "", N, A, "tas", (double(N) + 1) / 2, 0, 1);
    }
    const double tas = 1e6 / static_cast<double>(N) * std::log(10000.0 / double(10000 - N));
    add("rw", "sim", "sequential", N, 10000, "tas", tas * 1.001, 0.02 * tas, 20);
    add("rw", "sim", "sequential", N, 10000, "was", 2.5 * tas, 0.05 * tas, 20);
    add("rw", "gpu", "", N, 10000, "tas", tas * 1.01, 0.02 * tas, 20);
    add("rw", "gpu", "", N, 10000, "was", 2.4 * tas, 0.05 * tas, 20);
    add("rw", "gpu", "", N, 10000, "kernel_ms", 0.01 * double(N) / 1024, 0.001, 20);
  }
  return rows;
}

ReportInputs inputs(const fs::path& dir) {
  ReportInputs in;
  in.dir = dir.string();
  in.rows = synthetic_rows();
  // A GPU sweep, resumed by a model+sim sweep into the same directory (as the main job does).
  in.metadata = {
      {"command_line", "alloclab sweep --algos rw --backends gpu --out x"},
      {"backends", "gpu"},
      {"seed", 1},
      {"resumed",
       {{{"command_line", "alloclab sweep --algos rw,queue --backends model,sim --out x"},
         {"backends", "model,sim"}}}}};
  in.verdicts = compare_backends(in.rows);
  in.errata = {{"Sec. 4.1", "Eq. (3) is a special case of Eq. (2)",
                "Eq. (4) reduces to the "
                "harmonic form",
                "w = 1"}};
  in.report_command = "alloclab report x";
  return in;
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (auto p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
}  // namespace

TEST_CASE("the report holds every figure, table and erratum", "[validation][report]") {
  if (!gnuplot_available()) alloclab::testing::skip("gnuplot is not installed");
  const auto dir = fs::temp_directory_path() / "alloclab_report_test";
  fs::remove_all(dir);
  const auto files = write_report(inputs(dir));
  // Fig. 4(a), 4(b); model vs sim TAS and WAS; Fig. 7 at one fraction: time, TAS, WAS.
  CHECK(files.figures == 7);
  const auto html = slurp(files.html);
  CHECK(count(html, "<svg") == files.figures);
  CHECK(count(html, "<figure") == files.figures);
  CHECK(html.find("Figure 4(a) reproduced") != std::string::npos);
  CHECK(html.find("Figure 7 reproduced") != std::string::npos);
  // Each figure names the sweeps that wrote its rows: Figure 4 the model run only, Figure 7
  // the GPU run and the model run.
  const std::string model_run =
      "alloclab sweep --algos rw,queue --backends model,sim --out x &amp;&amp; ";
  const std::string gpu_run = "alloclab sweep --algos rw --backends gpu --out x &amp;&amp; ";
  const auto fig4 = html.find("<figure id=\"fig4a\"");
  const auto fig4_caption = html.substr(html.find("Made by:", fig4), 200);
  CHECK(fig4_caption.find(model_run + "alloclab report x") != std::string::npos);
  CHECK(fig4_caption.find("--backends gpu") == std::string::npos);
  const auto fig7 = html.find("<figure id=\"fig7_");
  const auto fig7_caption = html.substr(html.find("Made by:", fig7), 300);
  CHECK(fig7_caption.find(gpu_run + model_run + "alloclab report x") != std::string::npos);
  CHECK(html.find("Eq. (3) is a special case of Eq. (2)") != std::string::npos);
  const auto md = slurp(files.markdown);
  CHECK(md.find("## Verdicts") != std::string::npos);
  CHECK(fs::exists(dir / "figures" / "fig4a.svg"));
}

TEST_CASE("the report renders with all its plots in headless Chromium", "[validation][report]") {
  if (!gnuplot_available()) alloclab::testing::skip("gnuplot is not installed");
  if (std::system("command -v chromium >/dev/null 2>&1") != 0)
    alloclab::testing::skip("chromium is not installed (scripts/setup.sh test installs it)");
  const auto dir = fs::temp_directory_path() / "alloclab_report_chromium";
  fs::remove_all(dir);
  const auto files = write_report(inputs(dir));
  const auto dom = dir / "dom.html";
  const std::string cmd =
      "chromium --headless --no-sandbox --disable-gpu --disable-background-networking "
      "--disable-component-update --disable-sync --no-first-run --user-data-dir=" +
      (dir / "profile").string() + " --virtual-time-budget=5000 --dump-dom file://" + files.html +
      " > " + dom.string() + " 2>/dev/null";
  REQUIRE(std::system(cmd.c_str()) == 0);
  const auto text = slurp(dom);
  const std::string expected = "rendered " + std::to_string(files.figures) + " of " +
                               std::to_string(files.figures) + " plots";
  INFO(text.substr(0, 300));
  CHECK(text.find(expected) != std::string::npos);
}

TEST_CASE("the collisions section: model vs measured, and the bit choices",
          "[validation][report]") {
  if (!gnuplot_available()) alloclab::testing::skip("gnuplot is not installed");
  std::vector<TidyRow> rows;
  auto add = [&](std::string algo, std::string backend, std::string mode, std::string choice,
                 std::uint64_t N, double mean) {
    TidyRow r;
    r.point = {algo, backend, mode, N, 500000, 1000000, 32, 32, 1};
    r.point.bit_choice = choice;
    r.metric = "collisions";
    r.mean = mean;
    r.ci95 = 0.01 * mean;
    r.n = 20;
    rows.push_back(r);
  };
  for (std::uint64_t N : {1000, 65536, 131072}) {
    add("rwbm", "sim", "lockstep", "lowest", N, static_cast<double>(N) / 3);
    add("rwbm", "sim", "lockstep", "random", N, static_cast<double>(N) / 30);
    add("rwbm", "gpu", "", "lowest", N, static_cast<double>(N) / 2);
    add("rw", "sim", "lockstep", "lowest", N, static_cast<double>(N) / 10);
  }
  // kernel time by bit choice (random, rotated only: they must stay out of Figure 7)
  for (const std::string c : {"random", "rotated"}) {
    add("rwbm", "gpu", "", c, 65536, 1);
    rows.back().metric = "kernel_ms";
    rows.back().mean = c == "random" ? 0.0625 : 0.03125;
    rows.back().ci95 = c == "random" ? 0.001 : 0.002;
  }
  const auto dir = fs::temp_directory_path() / "alloclab_report_collisions";
  fs::remove_all(dir);
  ReportInputs in;
  in.dir = dir.string();
  in.rows = rows;
  in.report_command = "alloclab report x";
  const auto files = write_report(in);
  const auto html = slurp(files.html);
  CHECK(html.find("Collisions (not in the paper)") != std::string::npos);
  // One figure per (algo, T, w) for the comparison, one per (T, w, A) for the bit choice.
  CHECK(html.find("<figure id=\"collisions_rwbm_1000000_32\"") != std::string::npos);
  CHECK(html.find("<figure id=\"collisions_rw_1000000_1\"") != std::string::npos);
  CHECK(html.find("<figure id=\"bit_choice_1000000_32_500000\"") != std::string::npos);
  CHECK(files.figures == 3);
  CHECK(count(html, "<svg") == 3);
  // The paper's bound at N = 1000, A/T = 1/2, T = 10^6, by hand: 1000 * 999 / 2e6 / 2 = 0.24975,
  // which as a double lies just below 0.24975 and prints with 4 digits as 0.2497.
  CHECK(html.find("<td>0.2497</td>") != std::string::npos);
  CHECK(html.find("<td>-</td><td>0.0625 ± 0.001</td><td>0.03125 ± 0.002</td>") !=
        std::string::npos);
  // random / lowest = (N/30) / (N/3) = 0.1 in the bit-choice table.
  CHECK(html.find("<td>0.100</td>") != std::string::npos);
  // Rows of other bit choices stay out of the paper's figures and the verdicts.
  CHECK(html.find("Figure 7 reproduced") == std::string::npos);
  // A model row and a far-off simulated TAS: judged for lowest, ignored for another choice.
  TidyRow model_tas;
  model_tas.point = {"rwbm", "model", "sequential", 1000, 500000, 1000000, 32, 32, 1};
  model_tas.metric = "tas";
  model_tas.mean = 1.0;
  TidyRow sim_tas = model_tas;
  sim_tas.point.backend = "sim";
  sim_tas.point.mode = "lockstep";
  sim_tas.point.bit_choice = "random";
  sim_tas.mean = 5.0;
  sim_tas.sd = 0.01;
  sim_tas.n = 20;
  CHECK(compare_backends({model_tas, sim_tas}).empty());
  sim_tas.point.bit_choice = "lowest";
  CHECK(compare_backends({model_tas, sim_tas}).size() == 1);
  CHECK(fs::exists(dir / "figures" / "bit_choice_1000000_32_500000.svg"));
}
