// The whole report: figures, tables, summary, provenance; rendered in headless Chromium.
#include <catch2/catch.hpp>

#include <alloclab/testing/test_support.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "alloclab/render/plot.hpp"
#include "alloclab/render/report.hpp"
#include "alloclab/studies/paper000_errata.hpp"
#include "alloclab/studies/pham_sections.hpp"

using namespace alloclab;
using namespace alloclab::render;
using validation::compare_backends;
using validation::Outcome;
using validation::TidyRow;
using validation::Verdict;
namespace fs = std::filesystem;

namespace {
// A small synthetic sweep: model (RW and queue, two free fractions), sequential simulation and
// GPU rows for one fraction.
std::vector<TidyRow> synthetic_rows() {
  std::vector<TidyRow> rows;
  auto add = [&](Algorithm algo, std::string backend, std::string mode, std::uint64_t N,
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
      add(Algorithm::rw, "model", "sequential", N, A, "tas", tas, 0, 1);
      add(Algorithm::rw, "model", "sequential", N, A, "was_bound", 3 * tas, 0, 1);
      add(Algorithm::rw, "model", "sequential", N, A, "was", 2.5 * tas, 0, 1);
      add(Algorithm::queue, "model", "", N, A, "tas", (double(N) + 1) / 2, 0, 1);
    }
    const double tas = 1e6 / static_cast<double>(N) * std::log(10000.0 / double(10000 - N));
    add(Algorithm::rw, "sim", "sequential", N, 10000, "tas", tas * 1.001, 0.02 * tas, 20);
    add(Algorithm::rw, "sim", "sequential", N, 10000, "was", 2.5 * tas, 0.05 * tas, 20);
    add(Algorithm::rw, "gpu", "", N, 10000, "tas", tas * 1.01, 0.02 * tas, 20);
    add(Algorithm::rw, "gpu", "", N, 10000, "was", 2.4 * tas, 0.05 * tas, 20);
    add(Algorithm::rw, "gpu", "", N, 10000, "kernel_ms", 0.01 * double(N) / 1024, 0.001, 20);
  }
  return rows;
}

const std::string kGpuRun = "alloclab sweep --algos rw --backends gpu --out x";
const std::string kModelRun = "alloclab sweep --algos rw,queue --backends model,sim --out x";

ReportInputs inputs(const fs::path& dir) {
  ReportInputs in;
  in.dir = dir.string();
  in.rows = synthetic_rows();
  // A GPU sweep, resumed by a model+sim sweep into the same directory (as the main job does).
  in.metadata = {{"command_line", kGpuRun},
                 {"backends", "gpu"},
                 {"seed", 1},
                 {"git_commit", "0123abc"},
                 {"started_utc", "2026-01-02T03:04:05Z"},
                 {"device", {{"name", "GPU X"}}},
                 {"resumed", {{{"command_line", kModelRun}, {"backends", "model,sim"}}}}};
  in.verdicts = compare_backends(in.rows);
  in.provenance.report_command = "alloclab report x";
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

// The caption of figure `id` in the HTML.
std::string caption_of(const std::string& html, const std::string& id) {
  const auto fig = html.find("<figure id=\"" + id + "\"");
  if (fig == std::string::npos) return {};
  const auto start = html.find("<figcaption>", fig);
  return html.substr(start, html.find("</figcaption>", start) - start);
}

// Every <a href="#..."> inside [from, to) of the HTML, and whether an element has that id.
std::pair<int, int> links_resolving(const std::string& html, std::size_t from, std::size_t to) {
  const std::regex href("href=\"#([^\"]+)\"");
  int links = 0, found = 0;
  for (std::sregex_iterator it(html.begin() + from, html.begin() + to, href), end; it != end;
       ++it) {
    ++links;
    found += html.find("id=\"" + (*it)[1].str() + "\"") != std::string::npos;
  }
  return {links, found};
}
}  // namespace

TEST_CASE("the report holds every figure, table and erratum", "[render][report]") {
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
  // Paper 000's errata, from its study (their count against its own list).
  CHECK(html.find("Sec. 3.2.1, Eq. (1) (queue WAS)") != std::string::npos);
  CHECK(count(html, "<section id=\"errata\">") == 1);
  // No hand-written table anywhere: every table comes from Table (rows open with <tr> or
  // <tr class="fail">, cells with <td> or <td class="l">).
  CHECK(count(html, "<table>") == count(html, "</table>"));
  CHECK(count(html, "<tr>") + count(html, "<tr class=\"fail\">") == count(html, "</tr>"));
  const auto md = slurp(files.markdown);
  CHECK(md.find("## <a id=\"verdicts\"></a>Verdicts") != std::string::npos);
  CHECK(md.find("![fig4a](figures/fig4a.svg)") != std::string::npos);
  CHECK(fs::exists(dir / "figures" / "fig4a.svg"));
}

TEST_CASE("the report links the explorer page only where one lies beside it", "[render][report]") {
  if (!gnuplot_available()) alloclab::testing::skip("gnuplot is not installed");
  const auto dir = fs::temp_directory_path() / "alloclab_report_explorer_test";
  fs::remove_all(dir);
  auto files = write_report(inputs(dir));
  CHECK(slurp(files.html).find("href=\"explorer.html\"") == std::string::npos);
  std::ofstream(dir / "explorer.html") << "<html></html>";
  files = write_report(inputs(dir));
  CHECK(count(slurp(files.html), "href=\"explorer.html\"") == 1);
  CHECK(slurp(files.markdown).find("[the explorer page](explorer.html)") != std::string::npos);
}

TEST_CASE("each figure names the one sweep that wrote its rows, and the appendix has them all",
          "[render][report]") {
  if (!gnuplot_available()) alloclab::testing::skip("gnuplot is not installed");
  const auto dir = fs::temp_directory_path() / "alloclab_report_provenance";
  fs::remove_all(dir);
  const auto html = slurp(write_report(inputs(dir)).html);
  // Figure 4: model rows only, written by the resumed model+sim sweep (run 2).
  const auto fig4 = caption_of(html, "fig4a");
  CHECK(fig4.find("Made by <code>" + kModelRun + "</code> (<a href=\"#run-2\">run 2</a>)") !=
        std::string::npos);
  CHECK(fig4.find("--backends gpu") == std::string::npos);
  CHECK(fig4.find("drawn by <code>alloclab report x</code>") != std::string::npos);
  // Figure 7: GPU points (run 1) and model lines (run 2), each command once.
  const auto fig7 = caption_of(html, "fig7_1000000_10000_tas");
  CHECK(fig7.find("Rows made by <code>" + kGpuRun +
                  "</code> (<a href=\"#run-1\">run 1</a>); <code>" + kModelRun +
                  "</code> (<a href=\"#run-2\">run 2</a>)") != std::string::npos);
  CHECK(count(fig7, "alloclab sweep") == 2);
  // The time figure shows GPU rows only.
  const auto time = caption_of(html, "fig7_1000000_10000_kernel_ms");
  CHECK(count(time, "alloclab sweep") == 1);
  CHECK(time.find(kGpuRun) != std::string::npos);

  // The appendix, last: every run with its anchor, device, commit and date; the report command.
  const auto appendix = html.find("<section id=\"provenance\">");
  REQUIRE(appendix != std::string::npos);
  CHECK(html.find("<section", appendix + 1) == std::string::npos);
  const auto tail = html.substr(appendix);
  CHECK(tail.find("<td id=\"run-1\">1</td><td class=\"l\">" + kGpuRun + "</td>") !=
        std::string::npos);
  CHECK(tail.find("<td id=\"run-2\">2</td><td class=\"l\">" + kModelRun + "</td>") !=
        std::string::npos);
  CHECK(tail.find("0123abc") != std::string::npos);
  CHECK(tail.find("2026-01-02T03:04:05Z") != std::string::npos);
  CHECK(tail.find("GPU X") != std::string::npos);
  CHECK(tail.find("alloclab report x") != std::string::npos);
}

TEST_CASE("the report opens with one row per study, and paper 000's part with its own summary",
          "[render][report]") {
  if (!gnuplot_available()) alloclab::testing::skip("gnuplot is not installed");
  const auto dir = fs::temp_directory_path() / "alloclab_report_summary";
  fs::remove_all(dir);
  const auto in = inputs(dir);
  const auto html = slurp(write_report(in).html);
  const auto summary = html.find("<section id=\"summary\">");
  const auto first_figure = html.find("<figure");
  REQUIRE(summary != std::string::npos);
  CHECK(summary < first_figure);
  const auto summary_end = html.find("</section>", summary);
  // Only paper 000's study is linked into this test: one row. By hand: its claims are the five
  // comparisons below (all pass: holds) and Theorems 1 and 2 (Theorem 1 is false as printed at
  // A = N; Theorem 2 holds read as a limit): 7 claims, 5 hold, 1 with qualification, 0 not
  // reproduced, 1 does not hold, 0 not measured.
  const std::string errata = std::to_string(validation::paper000_errata().size());
  CHECK(html.find("<tr><td class=\"l\"><a href=\"#study-pham\">Paper 000: Pham et al. "
                  "(ICS'22)</a></td><td>7</td><td>5</td><td>1</td><td>0</td><td>1</td><td>0</td>"
                  "<td>" +
                  errata + "</td></tr>") < summary_end);
  const auto [top_links, top_found] = links_resolving(html, summary, summary_end);
  CHECK(top_links == 1 + 1);  // the study and the provenance (no engine sections given here)
  CHECK(top_found == top_links);

  // Paper 000's own summary, inside its part.
  const auto own = html.find("<section id=\"pham-summary\">");
  REQUIRE(own != std::string::npos);
  CHECK(html.find("<section id=\"study-pham\">") < own);
  const auto own_end = html.find("</section>", own);
  // By hand: at the three points, sequential TAS (z = 0.001 / (0.02 / sqrt 20) = 0.22), the
  // sequential bound
  // (WAS 2.5 tas < 3 tas), the GPU TAS (+1%, within 5%), the GPU WAS (-4%, within 5%) and the
  // GPU bound pass: 15 checks, 15 pass.
  REQUIRE(in.verdicts.size() == 15);
  CHECK(html.find("15 checks of the models against simulation and hardware: 15 pass, 0 "
                  "departures explained by the data (each says why), 0 FAIL.") < own_end);
  // One row per claim, one column per allocator with verdicts; each cell links to its table.
  const std::string rw_tas = "<a href=\"#verdicts-model-vs-sim-sequential-tas-rw\">pass (3)</a>";
  CHECK(html.find(rw_tas) < own_end);
  CHECK(html.find("<h3 id=\"verdicts-model-vs-sim-sequential-tas-rw\">") != std::string::npos);
  CHECK(html.find("<a href=\"#verdicts-gpu-was-bound-rw\">pass (3)</a>") < own_end);
  const auto [links, found] = links_resolving(html, own, own_end);
  // 5 claims, Theorems 1 and 2, the errata, the contents (figures, comparison, verdicts,
  // theorems, collisions, errata).
  CHECK(links == 5 + 2 + 1 + 6);
  CHECK(found == links);
  CHECK(html.find("<a href=\"#errata\">errors in paper 000</a>") < own_end);
}

TEST_CASE("the summary counts outcomes per claim and allocator and flags failures",
          "[render][report]") {
  auto verdict = [](Algorithm algo, const std::string& mode, Outcome o) {
    Verdict v;
    v.check = "model vs sim: tas";
    v.point.algo = algo;
    v.point.backend = "sim";
    v.point.mode = mode;
    v.outcome = o;
    return v;
  };
  const std::vector<Verdict> vs = {
      verdict(Algorithm::rw, "sequential", Outcome::pass),
      verdict(Algorithm::rw, "sequential", Outcome::pass),
      verdict(Algorithm::rw, "sequential", Outcome::expected_departure),
      verdict(Algorithm::rwbm, "sequential", Outcome::fail),
      verdict(Algorithm::rw, "lockstep", Outcome::pass)};
  CHECK(claim_of(vs[0]) == "model vs sim (sequential): tas");
  CHECK(claim_of(vs[4]) == "model vs sim (lockstep): tas");
  Verdict bound = vs[4];
  bound.check = "sim WAS <= bound";
  CHECK(claim_of(bound) == "sim (lockstep) WAS <= bound");
  bound.check = "rounds model vs sim (lockstep): was";  // names its mode already
  CHECK(claim_of(bound) == "rounds model vs sim (lockstep): was");

  const Section s = summary_section(vs, {}, 2, {{"verdicts", "Verdicts", 0}});
  const auto* table = std::get_if<Table>(&s.blocks.at(1));
  REQUIRE(table);
  CHECK(table->head() == std::vector<std::string>{"claim", "rw", "rwbm"});
  const std::string html = table->html();
  CHECK(html.find("<tr class=\"fail\"><td class=\"l\">model vs sim (sequential): tas</td>"
                  "<td class=\"l\"><a href=\"#verdicts-model-vs-sim-sequential-tas-rw\">2 pass, 1 "
                  "explained</a></td><td class=\"l\"><a "
                  "href=\"#verdicts-model-vs-sim-sequential-tas-rwbm\">0 pass, 1 FAIL</a></td>"
                  "</tr>") != std::string::npos);
  CHECK(html.find("<tr><td class=\"l\">model vs sim (lockstep): tas</td><td class=\"l\"><a "
                  "href=\"#verdicts-model-vs-sim-lockstep-tas-rw\">pass (1)</a></td><td "
                  "class=\"l\">-</td></tr>") != std::string::npos);
  const auto* intro = std::get_if<Paragraph>(&s.blocks.at(0));
  REQUIRE(intro);
  CHECK(intro->text.find("5 checks") == 0);
  CHECK(intro->text.find("3 pass, 1 departures explained by the data (each says why), 1 FAIL") !=
        std::string::npos);
}

TEST_CASE(
    "the report renders in headless Chromium: its plots, its summary links, no table wider "
    "than the page at 1,400 px",
    "[render][report]") {
  if (!gnuplot_available()) alloclab::testing::skip("gnuplot is not installed");
  if (std::system("command -v chromium >/dev/null 2>&1") != 0)
    alloclab::testing::skip("chromium is not installed (scripts/setup.sh test installs it)");
  const auto dir = fs::temp_directory_path() / "alloclab_report_chromium";
  fs::remove_all(dir);
  const auto files = write_report(inputs(dir));
  const auto dom = dir / "dom.html";
  const std::string cmd =
      "chromium --headless --no-sandbox --disable-gpu --disable-background-networking "
      "--disable-component-update --disable-sync --no-first-run --window-size=1400,1000 "
      "--user-data-dir=" +
      (dir / "profile").string() + " --virtual-time-budget=5000 --dump-dom file://" + files.html +
      " > " + dom.string() + " 2>/dev/null";
  REQUIRE(std::system(cmd.c_str()) == 0);
  const auto text = slurp(dom);
  const auto html = slurp(files.html);
  const auto summary = html.find("<section id=\"summary\">");
  const auto [links, found] = links_resolving(html, summary, html.find("</section>", summary));
  REQUIRE(links > 0);
  const std::string expected = "rendered " + std::to_string(files.figures) + " of " +
                               std::to_string(files.figures) + " plots; " + std::to_string(links) +
                               " of " + std::to_string(links) +
                               " summary links resolve; 0 tables wider than the page";
  INFO(text.substr(0, 300));
  CHECK(text.find(expected) != std::string::npos);
}

TEST_CASE("the collisions section: model vs measured, and the bit choices", "[render][report]") {
  if (!gnuplot_available()) alloclab::testing::skip("gnuplot is not installed");
  std::vector<TidyRow> rows;
  auto add = [&](Algorithm algo, std::string backend, std::string mode, BitChoice choice,
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
    const double n = static_cast<double>(N);
    add(Algorithm::rwbm, "sim", "lockstep", BitChoice::lowest, N, n / 3);
    add(Algorithm::rwbm, "sim", "lockstep", BitChoice::random, N, n / 30);
    add(Algorithm::rwbm, "gpu", "", BitChoice::lowest, N, n / 2);
    add(Algorithm::rw, "sim", "lockstep", BitChoice::lowest, N, n / 10);
  }
  // kernel time by bit choice (random, rotated only: they must stay out of Figure 7)
  for (const BitChoice c : {BitChoice::random, BitChoice::rotated}) {
    add(Algorithm::rwbm, "gpu", "", c, 65536, 1);
    rows.back().metric = "kernel_ms";
    rows.back().mean = c == BitChoice::random ? 0.0625 : 0.03125;
    rows.back().ci95 = c == BitChoice::random ? 0.001 : 0.002;
  }
  const auto dir = fs::temp_directory_path() / "alloclab_report_collisions";
  fs::remove_all(dir);
  ReportInputs in;
  in.dir = dir.string();
  in.rows = rows;
  in.provenance.report_command = "alloclab report x";
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
  // No sweep metadata: the figures' rows are not traced, and the caption says so.
  CHECK(caption_of(html, "collisions_rw_1000000_1").find("3 rows not traced") != std::string::npos);
  // A model row and a far-off simulated TAS: judged for lowest, ignored for another choice.
  TidyRow model_tas;
  model_tas.point = {Algorithm::rwbm, "model", "sequential", 1000, 500000, 1000000, 32, 32, 1};
  model_tas.metric = "tas";
  model_tas.mean = 1.0;
  TidyRow sim_tas = model_tas;
  sim_tas.point.backend = "sim";
  sim_tas.point.mode = "lockstep";
  sim_tas.point.bit_choice = BitChoice::random;
  sim_tas.mean = 5.0;
  sim_tas.sd = 0.01;
  sim_tas.n = 20;
  CHECK(compare_backends({model_tas, sim_tas}).empty());
  sim_tas.point.bit_choice = BitChoice::lowest;
  CHECK(compare_backends({model_tas, sim_tas}).size() == 1);
  CHECK(fs::exists(dir / "figures" / "bit_choice_1000000_32_500000.svg"));
}
