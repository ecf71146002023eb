// alloclab report DIR: HTML (inline SVG plots) and Markdown report of a sweep directory.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include "alloclab/cli/commands.hpp"
#include "alloclab/cli/sweep_provenance.hpp"
#include "alloclab/core/errors.hpp"
#include "alloclab/render/report.hpp"
#include "alloclab/render/sections.hpp"
#include "alloclab/validation/tidy.hpp"
#include "alloclab/validation/verdict.hpp"
#include "alloclab/validation/workload_checks.hpp"
#include "alloclab/validation/workload_rows.hpp"

namespace alloclab::cli {
namespace {

void run(const std::string& dir, const std::string& out) {
  namespace fs = std::filesystem;
  const auto csv = (fs::path(dir) / "sweep.csv").string();
  // The workload rows: every DIR/workloads/**.csv, as `alloclab workload --format csv` wrote it
  // (validation/workload_rows.hpp says why they are files of their own, not sweep.csv rows).
  const auto workload_dir = (fs::path(dir) / validation::kWorkloadsDir).string();
  const auto workload_rows = validation::read_workload_dir(workload_dir);
  if (!fs::exists(csv) && workload_rows.empty())
    throw InputError("DIR", csv + " not found and no " + workload_dir +
                                "/*.csv (make them with `alloclab sweep --out " + dir +
                                "` or `alloclab workload ... --format csv`)");
  render::ReportInputs in;
  in.dir = out.empty() ? dir : out;  // where the report goes
  if (fs::exists(csv)) in.rows = validation::read_tidy(csv);
  const auto json_path = fs::path(dir) / "sweep.json";
  if (fs::exists(json_path)) {
    std::ifstream j(json_path);
    in.metadata = nlohmann::json::parse(j, nullptr, false);
    if (in.metadata.is_discarded()) throw InputError("DIR", json_path.string() + " is not JSON");
  }
  in.verdicts = validation::all_verdicts(in.rows);
  for (auto& v : validation::workload_verdicts(workload_rows)) in.verdicts.push_back(std::move(v));
  in.workload_rows = workload_rows;
  in.provenance.runs = render::sweep_runs(in.metadata);
  in.provenance.writer = sweep_row_writer(in.provenance.runs);
  in.provenance.report_command = "alloclab report " + dir + (out.empty() ? "" : " --out " + out);
  // The engine's sections; every study's part comes from the study table (render::write_report).
  // Allocators side by side: always there, saying so where DIR has no workload (or GPU) rows.
  in.engine_sections.push_back(render::workloads_section(workload_rows));
  // Interleavings checked: every DIR/check/*.json `alloclab check --format json` wrote (the main
  // job's), in file-name order; the section says so where there is none.
  std::vector<std::pair<std::string, nlohmann::json>> checks;
  if (const auto cd = fs::path(dir) / "check"; fs::is_directory(cd)) {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(cd))
      if (e.path().extension() == ".json") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& p : files) {
      std::ifstream f(p);
      auto j = nlohmann::json::parse(f, nullptr, false);
      if (j.is_discarded() || !j.contains("results"))
        throw InputError("DIR", p.string() + " is not `alloclab check --format json` output");
      checks.emplace_back("check/" + p.filename().string(), std::move(j));
    }
  }
  in.engine_sections.push_back(render::check_section(checks));
  // The kernel-time model's section, where `alloclab fit-time DIR --out DIR` (DIR/time_fit.json)
  // ran.
  if (const auto tf = fs::path(dir) / "time_fit.json"; fs::exists(tf)) {
    std::ifstream f(tf);
    const auto j = nlohmann::json::parse(f, nullptr, false);
    if (j.is_discarded()) throw InputError("DIR", tf.string() + " is not JSON");
    in.engine_sections.push_back(render::time_fit_section(j));
    in.provenance.other_inputs.emplace_back(
        "time_fit.json (kernel-time fit)",
        j.value("command_line", std::string("alloclab fit-time")));
  }
  std::map<std::string, std::pair<std::size_t, std::string>> per_file;  // rows, source
  for (const auto& r : workload_rows) {
    auto& [count, source] = per_file[r.file];
    ++count;
    if (source.find(r.source()) == std::string::npos)
      source += (source.empty() ? "" : ", ") + r.source();
  }
  for (const auto& [file, info] : per_file)
    in.provenance.other_inputs.emplace_back(
        fmt::format("{} ({} workload rows: {})", file, info.first, info.second),
        "alloclab workload ... --format csv");
  const auto files = render::write_report(in);
  std::cout << "report: " << files.figures << " figures\nwrote " << files.html << "\nwrote "
            << files.markdown << '\n';
}

}  // namespace

void add_report_command(CLI::App& app) {
  auto dir = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand(
      "report",
      "Write DIR/report.html (self-contained, plots as inline SVG rendered by gnuplot), "
      "DIR/report.md and DIR/figures/*.svg from a report directory. It reads by study: one "
      "summary table (a row per study: its claims counted by verdict, its errata), then each "
      "study's part (its own summary, claims, errata, figures and tables, from the model and "
      "simulator evaluated now and the rows DIR holds: sweep.csv, workloads/**.csv and each "
      "study's own subdirectories), then the allocators side by side under the workloads, the "
      "kernel-time fit where DIR/time_fit.json exists, and an appendix on provenance (every "
      "sweep command, device, commit, date). Each figure names the command that made its rows.");
  cmd->add_option("DIR", *dir,
                  "a directory written by `alloclab sweep`, and/or holding workloads/*.csv")
      ->required();
  cmd->add_option("--out", *out,
                  "OUT: write report.html, report.md and figures/*.svg there instead of DIR "
                  "(explorer.html, where the report links to it, is looked for in OUT)");
  cmd->callback([dir, out] { run(*dir, *out); });
}

}  // namespace alloclab::cli
