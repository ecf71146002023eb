// alloclab validate DIR: verdicts of model vs simulation vs hardware for a sweep directory.
#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "alloclab/cli/commands.hpp"
#include "alloclab/cli/output.hpp"
#include "alloclab/core/errors.hpp"
#include "alloclab/validation/all_errata.hpp"
#include "alloclab/validation/study.hpp"
#include "alloclab/validation/tidy.hpp"
#include "alloclab/validation/verdict.hpp"
#include "alloclab/validation/workload_checks.hpp"
#include "alloclab/validation/workload_rows.hpp"

namespace alloclab::cli {
namespace {

struct ValidateArgs {
  std::string dir;
  Format format = Format::table;
  validation::ValidationOptions options;
};

std::vector<Record> errata_records(const std::vector<validation::PaperErrata>& papers) {
  std::vector<Record> out;
  for (const auto& paper : papers)
    for (const auto& e : paper.errata) {
      Record r;
      r.set("paper", paper.paper).set("key", e.key);
      r.set("where", e.where).set("printed", e.printed).set("corrected", e.corrected);
      r.set("evidence", e.evidence);
      out.push_back(std::move(r));
    }
  return out;
}

void run(const ValidateArgs& a) {
  namespace fs = std::filesystem;
  const auto csv = (fs::path(a.dir) / "sweep.csv").string();
  // Workload rows: DIR/workloads/**.csv as `alloclab workload --format csv` wrote them
  // (validation/workload_rows.hpp), checked where the workload alone fixes the answer.
  const auto workload_dir = (fs::path(a.dir) / validation::kWorkloadsDir).string();
  const auto workload_rows = validation::read_workload_dir(workload_dir);
  if (!fs::exists(csv) && workload_rows.empty())
    throw InputError("DIR", csv + " not found and no " + workload_dir +
                                "/*.csv (make them with `alloclab sweep --out " + a.dir +
                                "` or `alloclab workload ... --format csv`)");
  const auto rows =
      fs::exists(csv) ? validation::read_tidy(csv) : std::vector<validation::TidyRow>{};
  auto verdicts = validation::all_verdicts(rows, a.options);
  for (auto& v : validation::workload_verdicts(workload_rows)) verdicts.push_back(std::move(v));
  const auto verdict_recs = validation::verdict_records(verdicts);
  // Each study's statements checked without data (paper 000's Theorems 1 and 2).
  std::vector<std::pair<std::string, std::vector<Record>>> statements;
  std::vector<Record> theorems;
  for (const auto* study : validation::StudyTable::instance().all())
    if (study->statement_checks) {
      statements.emplace_back(std::string(study->statements_title), study->statement_checks());
      for (const auto& r : statements.back().second) theorems.push_back(r);
    }
  const auto papers = validation::all_errata();
  const auto errata = errata_records(papers);

  if (a.format == Format::json) {
    auto as_json = [](const std::vector<Record>& recs) {
      std::ostringstream s;
      write_records(s, recs, Format::json);
      return nlohmann::ordered_json::parse(s.str());
    };
    nlohmann::ordered_json out = {{"verdicts", as_json(verdict_recs)},
                                  {"theorems", as_json(theorems)},
                                  {"errata", as_json(errata)},
                                  {"acceptable", validation::all_acceptable(verdicts)}};
    std::cout << out.dump(2) << '\n';
  } else if (a.format == Format::csv) {
    write_records(std::cout, verdict_recs, Format::csv);
  } else if (a.format == Format::md) {
    std::cout << "## Verdicts\n\n";
    write_records(std::cout, verdict_recs, Format::md);
    std::cout << "\n## Theorems 1 and 2, checked numerically\n\n";
    write_records(std::cout, theorems, Format::md);
    std::cout << "\n## Errata\n\n";
    write_records(std::cout, errata, Format::md);
  } else {
    std::size_t pass = 0, dep = 0, fail = 0;
    for (const auto& v : verdicts) {
      pass += v.outcome == validation::Outcome::pass;
      dep += v.outcome == validation::Outcome::expected_departure;
      fail += v.outcome == validation::Outcome::fail;
    }
    std::cout << "Verdicts (" << rows.size() << " tidy rows from " << csv << "; "
              << workload_rows.size() << " workload rows from " << workload_dir << ")\n\n";
    write_records(std::cout, verdict_recs, Format::table);
    for (const auto& [title, records] : statements) {
      std::cout << "\n" << title << "\n\n";
      write_records(std::cout, records, Format::table);
    }
    for (const auto& paper : papers) {
      std::cout << "\nErrata of " << paper.paper << "\n\n";
      for (const auto& e : paper.errata)
        std::cout << "- " << e.where << " [" << e.key << "]\n  printed:   " << e.printed
                  << "\n  corrected: " << e.corrected << "\n  evidence:  " << e.evidence << "\n";
    }
    std::cout << fmt::format("\n{} checks: {} pass, {} expected departures, {} FAIL\n",
                             verdicts.size(), pass, dep, fail);
  }
  if (!validation::all_acceptable(verdicts)) throw ValidationFailed();
}

}  // namespace

void add_validate_command(CLI::App& app) {
  auto args = std::make_shared<ValidateArgs>();
  auto* cmd = app.add_subcommand(
      "validate",
      "Compare model, simulation and hardware point by point in a sweep directory, and check "
      "the workload rows of DIR/workloads/*.csv (verified; requests = N; no failed request on "
      "an ample pool; utilisation = allocs x size / pool; the queue's oom hands out every page).\n"
      "model vs sim: z = (mean - model) / (sd / sqrt(n)), judged against a family-wise 95% "
      "threshold (Bonferroni over all comparisons); WAS against the bound of Eq. (3)/(5); model vs "
      "gpu: relative TAS error, with departures explained from the data (parallel rounds, failed "
      "atomic claims). Also prints the Theorem 1/2 checks and the errata of every paper alloclab "
      "holds.\n"
      "Exit status: 0 when every verdict passes or is an expected, explained departure; 1 "
      "otherwise.");
  cmd->add_option("DIR", args->dir,
                  "a directory written by `alloclab sweep`, and/or holding workloads/*.csv")
      ->required();
  add_format_option(*cmd, args->format);
  cmd->add_option("--alpha", args->options.family_alpha, "family-wise significance level")
      ->capture_default_str()
      ->check(CLI::Range(1e-9, 0.5));
  cmd->add_option("--tolerance", args->options.hardware_tolerance,
                  "model vs gpu: relative TAS error accepted as agreement")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 10.0));
  cmd->callback([args] { run(*args); });
}

}  // namespace alloclab::cli
