// alloclab report DIR: HTML (inline SVG plots) and Markdown report of a sweep directory.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include "alloclab/cli/commands.hpp"
#include "alloclab/cli/sweep_provenance.hpp"
#include "alloclab/core/errors.hpp"
#include "alloclab/model/kernel_time.hpp"
#include "alloclab/render/join_figure.hpp"
#include "alloclab/render/report.hpp"
#include "alloclab/render/sections.hpp"
#include "alloclab/validation/dynasoar_claims.hpp"
#include "alloclab/validation/dynasoar_errata.hpp"
#include "alloclab/validation/errata.hpp"
#include "alloclab/validation/gallatin_claims.hpp"
#include "alloclab/validation/gallatin_errata.hpp"
#include "alloclab/validation/gelado_claims.hpp"
#include "alloclab/validation/gelado_errata.hpp"
#include "alloclab/validation/join_claims.hpp"
#include "alloclab/validation/join_prediction.hpp"
#include "alloclab/validation/join_seed_prediction.hpp"
#include "alloclab/validation/ouroboros_claims.hpp"
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
  in.errata = validation::paper000_errata();
  in.theorem_checks = validation::theorem_checks();
  in.provenance.runs = render::sweep_runs(in.metadata);
  in.provenance.writer = sweep_row_writer(in.provenance.runs);
  in.provenance.report_command = "alloclab report " + dir + (out.empty() ? "" : " --out " + out);
  // The kernel-time model's section, where `alloclab fit-time DIR --out DIR` (DIR/time_fit.json)
  // ran.
  if (const auto tf = fs::path(dir) / "time_fit.json"; fs::exists(tf)) {
    std::ifstream f(tf);
    const auto j = nlohmann::json::parse(f, nullptr, false);
    if (j.is_discarded()) throw InputError("DIR", tf.string() + " is not JSON");
    in.extra_sections.push_back(render::time_fit_section(j));
    in.provenance.other_inputs.emplace_back(
        "time_fit.json (kernel-time fit)",
        j.value("command_line", std::string("alloclab fit-time")));
  }
  // Allocators side by side: always there, saying so where DIR has no workload (or GPU) rows.
  in.extra_sections.push_back(render::workloads_section(workload_rows));
  // Seed 002's claims: the model and simulator evidence computed now, the GPU's from DIR's rows.
  in.extra_sections.push_back(render::claims_section(
      "ouroboros-claims", "Ouroboros (seed 002): the paper's claims",
      "Each claim of Winter et al. (ICS'20) that alloclab checks: the sequential model and the "
      "simulator evaluated now (small points, named in each cell), the hardware read from the "
      "GPU rows of the six Ouroboros allocators among DIR/workloads/**.csv. docs/ouroboros.md "
      "discusses each verdict.",
      validation::ouroboros_claims(workload_rows)));
  in.extra_sections.push_back(render::errata_section(
      "ouroboros-errata", "Errata of Ouroboros (seed 002)", validation::ouroboros_errata()));
  // Seed 001's claims (the simulator's evidence computed now, the GPU's from DIR/semaphore/ and
  // DIR/rcu/) and
  // errata (their evidence replayed on the step machines now).
  const std::vector<Record> semaphore_rows = validation::read_semaphore_dir(dir);
  render::Section gelado_claims = render::claims_section(
      "gelado-claims", "Gelado & Garland (seed 001): the paper's claims",
      "Each claim of Gelado & Garland (PPoPP'19) that alloclab checks so far: Figure 5's two "
      "semaphores, TBuddy's locks, UAlloc's and malloc's failures at exhaustion (Figure 7, "
      "modelled from the bin layout) and Figure 6's RCU delegation (list benchmark), the "
      "simulator evaluated now (lockstep, a few thousand threads), the hardware read from the "
      "GPU rows of `alloclab semaphore` among DIR/semaphore/**.csv, of Figure 7 (gg-malloc and "
      "CUDA's malloc, `scripts/gpu-gelado.sh OUT ualloc`) among DIR/ualloc/**.csv and of "
      "`alloclab rcu` among DIR/rcu/**.csv. docs/gelado-garland.md discusses each verdict.",
      validation::gelado_claims(semaphore_rows, validation::read_ualloc_dir(dir),
                                validation::read_rcu_dir(dir)));
  gelado_claims.figure(render::semaphore_figure(semaphore_rows));
  in.extra_sections.push_back(std::move(gelado_claims));
  // Seed 001's errata, their evidence replayed on the step machines now.
  in.extra_sections.push_back(render::errata_section(
      "gelado-errata", "Errata of Gelado & Garland (seed 001)", validation::gelado_errata()));
  // Seed 003's claims: the vEB step code and the simulator evaluated now, the GPU's from
  // DIR/gallatin/ (the committed H200 rows).
  in.extra_sections.push_back(render::claims_section(
      "gallatin-claims", "Gallatin (seed 003): the paper's claims",
      "Each claim of McCoy & Pandey (PPoPP'24) that alloclab checks: the vEB tree's cost bounds "
      "run on its step code, the coverage arithmetic, the atomics per slice allocation from the "
      "model beside the simulator (evaluated now), and the paper's figures (utilisation, "
      "initialisation, warm-up, fragmentation) with issue 14's speed target against the public "
      "Gallatin, read from the GPU rows among DIR/gallatin/**.csv. docs/gallatin.md discusses "
      "each verdict.",
      validation::gallatin_claims(validation::read_gallatin_dir(dir))));
  // Seed 003's errata, their evidence from the shared layout, vEB code and simulator now.
  in.extra_sections.push_back(render::errata_section(
      "gallatin-errata", "Errata of Gallatin (seed 003)", validation::gallatin_errata()));
  // Paper 000's hash-join case study: the GPU join rows of DIR/join/, each row's page-request
  // trace through the model and replayed in the simulator, then through the committed kernel-time
  // fit of the rows' device (reports/data/<device>/time_fit.json).
  {
    const std::vector<Record> join_rows = validation::read_join_dir(dir);
    std::string no_fit;
    const auto fits = join_rows.empty() ? std::nullopt
                                        : validation::join_time_fits(
                                              join_rows, model::default_data_dir(), no_fit);
    const auto predictions = validation::predict_join(join_rows, fits ? &*fits : nullptr);
    // The seeds' allocators: their traces replayed in their own units, predicted from their own
    // isolated GPU runs (reports/data/<device>/join_isolated.json).
    std::string join_device;
    for (const auto& r : join_rows)
      if (const auto d = r.text("device")) join_device = *d;
    std::string no_isolated = join_rows.empty() ? "no join rows" : "";
    std::vector<validation::IsolatedPoint> isolated;
    if (!join_device.empty())  // "NVIDIA H200 (0000:00:06.0)" -> nvidia-h200
      isolated = validation::load_isolated_points(
          model::default_data_dir(),
          model::device_slug(join_device.substr(0, join_device.find(" ("))), no_isolated);
    const auto seeds = validation::predict_seed_join(join_rows, isolated);
    auto join_checks = validation::join_claims(join_rows, predictions, no_fit);
    join_checks.push_back(validation::seed_prediction_claim(seeds, join_device, no_isolated));
    render::Section join = render::claims_section(
        "join-claims", "Case study: hash join (paper 000, Figure 12)",
        "The partitioned GPU hash join whose probe threads take 256-byte output pages from each "
        "allocator (`alloclab join`), against Direct Output (one atomic counter): the claims of "
        "Pham et al. §5.2.3 and the allocators ranked, read from DIR/join/**.csv. Every run's "
        "output is checked against a host reference join. The model and simulator columns: each "
        "row's page-request trace (its GETPAGE calls on a pool all free at the start) through "
        "the model and replayed in the simulator (scaled, keeping the fill fraction), the steps "
        "per GETPAGE turned into milliseconds by the device's committed kernel-time fit and "
        "added to Direct Output's measured join. docs/hash-join.md discusses them.",
        join_checks);
    for (double skew : {0.0, 1.0})
      join.figure(render::join_figure(join_rows, predictions, skew, seeds));
    if (!predictions.empty()) {
      join.paragraph(
          "Every row's prediction: the steps per GETPAGE of the model (sequential schedule) and "
          "of the simulator's replay (lockstep waves), both at the replayed point (the trace "
          "scaled, keeping its fill fraction, waves and lanes), GETPAGE's time from the model's "
          "steps through the device's kernel-time fit (its constant left out), and the join "
          "time predicted as Direct Output's measured join plus it, with its error.");
      join.table(render::join_prediction_table(predictions));
    }
    if (!seeds.empty()) {
      join.paragraph(
          "The seeds' allocators, every row: its trace replayed in lockstep waves in the "
          "simulator's own units (scaled: the wave, the waves and the pool as the row says), the "
          "replayed counts per GETPAGE beside the GPU's cycles per GETPAGE, and the isolated-rate "
          "model: the allocator's isolated GPU run of 256 B requests (ms / requests) x the join's "
          "requests x the join replay's steps over the isolated run's replayed steps, added to "
          "Direct Output's join. Judged within 15% on the join from 1M tuples on, or where the "
          "allocator costs at least 10x Direct Output's join; never where it costs within 2% of "
          "it.");
      join.table(render::join_seed_table(seeds));
    }
    in.extra_sections.push_back(std::move(join));
  }
  // Seed 004's claims: the models and the simulator's typed heap evaluated now, the GPU's from
  // DIR/dynasoar/ (the committed H200 alloc rows).
  in.extra_sections.push_back(render::claims_section(
      "dynasoar-claims", "DynaSOAr (seed 004): the paper's claims",
      "Each claim of Springer & Masuhara (ECOOP'19) that alloclab checks: the models of "
      "model/dynasoar.hpp and the simulator (the typed heap of 60/64 B objects, alloclab's Wa-Tor "
      "and linux-scalability, lockstep runs of the four allocators) evaluated now, the hardware "
      "read from the GPU alloc rows among DIR/dynasoar/**.csv. docs/dynasoar.md discusses each "
      "verdict.",
      validation::dynasoar_claims(validation::read_dynasoar_dir(dir))));
  // Seed 004's errata, replayed on the hierarchical bitmap's step machines now.
  in.extra_sections.push_back(render::errata_section(
      "dynasoar-errata", "Errata of DynaSOAr (seed 004)", validation::dynasoar_errata()));
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
      "DIR/report.md and DIR/figures/*.svg from a sweep directory. It opens with a summary (the "
      "verdicts per allocator and claim, linked to their tables), then the paper's Figure 4 from "
      "the model, Figure 7 from hardware (model curves over measured points), model vs "
      "simulation, the models the paper lacks, comparison and verdict tables, Theorem 1/2 checks "
      "and the errata of paper 000, the allocators side by side under the workloads of "
      "DIR/workloads/*.csv (`alloclab workload --format csv` output, simulator and GPU), the "
      "claims of Ouroboros (seed 002) with their model, simulator and GPU evidence, the errata of "
      "Ouroboros and of Gelado & Garland (seed 001), paper 000's hash-join case study (Figure "
      "12 redrawn from DIR/join/**.csv, the model's and the simulator's prediction beside it), "
      "and ends "
      "with an appendix on provenance (every sweep command, device, commit, date). Each figure "
      "names the sweep command that wrote its rows.");
  cmd->add_option("DIR", *dir,
                  "a directory written by `alloclab sweep`, and/or holding workloads/*.csv")
      ->required();
  cmd->add_option("--out", *out,
                  "OUT: write report.html, report.md and figures/*.svg there instead of DIR "
                  "(explorer.html, where the report links to it, is looked for in OUT)");
  cmd->callback([dir, out] { run(*dir, *out); });
}

}  // namespace alloclab::cli
