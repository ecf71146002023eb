// `alloclab explain`: the model's worked derivation at one point, for teaching (issue 16). What is
// computed comes from validation::explain_point (the model's explanation, a quick simulation,
// the errata); this file only parses the point and writes it as text (--format table), Markdown,
// JSON, or the derivation's lines as CSV rows.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "alloclab/cli/commands.hpp"
#include "alloclab/cli/grid.hpp"
#include "alloclab/cli/output.hpp"
#include "alloclab/cli/resource_limits.hpp"
#include "alloclab/core/errors.hpp"
#include "alloclab/cpu_sim/simulator.hpp"
#include "alloclab/model/model_table.hpp"
#include "alloclab/validation/explain.hpp"

namespace alloclab::cli {
namespace {

struct ExplainArgs {
  std::string allocator, schedule = "sequential";
  Format format = Format::table;
  GridOptions grid;
  std::uint64_t trials = 5;
  unsigned threads = 0;
};

std::string value_text(const std::optional<double>& v) {
  return v ? model::explain_number(*v) : std::string("inf / undefined");
}

std::string sim_line(const validation::QuickSimulation& q, const validation::ExplainResult& x) {
  const auto& r = q.result;
  auto pm = [](const sim::Summary& s) {
    return s.ci95 ? fmt::format("{} +- {:.3g}", model::explain_number(s.mean), *s.ci95)
                  : model::explain_number(s.mean);
  };
  auto model_value = [&](const char* key) {
    const auto v = x.record.number(key);
    return v ? fmt::format(" (model {})", model::explain_number(*v)) : std::string();
  };
  // The model's WAS beside the simulated WAS over the same warps only (Explanation): the
  // lockstep mode has no service order to group.
  const bool service_order = x.model.was_over_service_order;
  std::string line = fmt::format("{}: TAS {}{}, WAS {} (warps of consecutive thread ids){}",
                                 sim::mode_name(q.mode), pm(r.tas), model_value("tas"), pm(r.was),
                                 service_order ? "" : model_value("was"));
  if (r.was_service_order)
    line += fmt::format(", WAS over the service order {}{}", pm(*r.was_service_order),
                        service_order ? model_value("was") : "");
  line += fmt::format("; {} trials in {:.2f} s", r.trials, q.seconds);
  return line;
}

std::string point_text(const Scenario& s) {
  std::string out = fmt::format(
      "N = {}, A = {}, T = {} (free fraction {}), L = {}", s.N, s.A, s.T,
      model::explain_number(static_cast<double>(s.A) / static_cast<double>(s.T)), s.lanes);
  if (caps(s.algo).bitmap_words) out += fmt::format(", w = {}", s.w);
  if (caps(s.algo).requests == RequestKind::pages) out += fmt::format(", n = {} pages", s.pages);
  return out;
}

// `text` broken into lines of at most kWidth columns, the first starting with `first`, the others
// with `rest` (formulas and numbers are never split: only spaces break).
constexpr std::size_t kWidth = 100;
std::string wrapped(const std::string& first, const std::string& rest, const std::string& text) {
  std::string out, line = first;
  bool empty = true;  // nothing of `text` on `line` yet
  for (std::size_t at = 0; at <= text.size();) {
    const std::size_t end = std::min(text.find(' ', at), text.size());
    const std::string word = text.substr(at, end - at);
    if (!empty && line.size() + 1 + word.size() > kWidth) {
      out += line + '\n';
      line = rest;
      empty = true;
    }
    line += (empty ? "" : " ") + word;
    empty = false;
    at = end + 1;
  }
  return out + line + '\n';
}

void write_text(std::ostream& out, const Scenario& s, const validation::ExplainResult& x) {
  out << "alloclab explain: " << x.model.model << "\nat " << point_text(s) << "\n\n";
  out << x.model.assumptions_title << '\n';
  for (const auto& a : x.model.assumptions) out << wrapped("  - ", "    ", a);
  out << "\nWhere a GPU breaks it\n";
  for (const auto& h : x.model.hardware) out << wrapped("  - ", "    ", h);
  for (const auto& sec : x.model.sections) {
    out << '\n' << sec.title << '\n';
    if (!sec.text.empty()) out << wrapped("  ", "  ", sec.text);
    for (const auto& l : sec.lines) {
      out << "  " << l.label << " = " << l.formula << '\n';
      if (!l.substituted.empty()) out << "      = " << l.substituted << '\n';
      out << "      = " << value_text(l.value) << '\n';
      if (!l.meaning.empty()) out << wrapped("      ", "      ", l.meaning);
    }
  }
  if (!x.simulations.empty()) {
    out << "\nA quick simulation at the same point (alloclab simulate)\n";
    for (const auto& q : x.simulations) out << wrapped("  ", "    ", sim_line(q, x));
    out << wrapped("  ", "  ",
                   "The sequential mode is the model's own assumption (one request at a time); "
                   "lockstep is how a GPU serves them (all at once, in rounds).");
  }
  if (!x.errata.empty()) {
    out << "\nErrata of the paper this point touches (" << x.errata_paper << ")\n";
    for (const auto& e : x.errata)
      out << "  - " << e.where << '\n'
          << wrapped("    printed: ", "      ", e.printed)
          << wrapped("    holds instead: ", "      ", e.corrected)
          << wrapped("    evidence: ", "      ", e.evidence);
  }
}

// Markdown for lecture notes: a table per section.
void write_markdown(std::ostream& out, const Scenario& s, const validation::ExplainResult& x) {
  auto cell = [](const std::string& t) {  // a '|' would end the cell
    std::string escaped;
    for (char c : t) {
      if (c == '|') escaped += '\\';
      escaped += c;
    }
    return escaped;
  };
  out << "## " << x.model.model << "\n\nAt " << point_text(s) << ".\n\n";
  out << "**" << x.model.assumptions_title << "**\n\n";
  for (const auto& a : x.model.assumptions) out << "- " << a << '\n';
  out << "\n**Where a GPU breaks it**\n\n";
  for (const auto& h : x.model.hardware) out << "- " << h << '\n';
  for (const auto& sec : x.model.sections) {
    out << "\n### " << sec.title << "\n\n";
    if (!sec.text.empty()) out << sec.text << "\n\n";
    out << "| quantity | formula | with the numbers | value | meaning |\n|---|---|---|---|---|\n";
    for (const auto& l : sec.lines)
      out << "| " << cell(l.label) << " | `" << cell(l.formula) << "` | " << cell(l.substituted)
          << " | " << value_text(l.value) << " | " << cell(l.meaning) << " |\n";
  }
  if (!x.simulations.empty()) {
    out << "\n### A quick simulation at the same point\n\n";
    for (const auto& q : x.simulations) out << "- " << sim_line(q, x) << '\n';
  }
  if (!x.errata.empty()) {
    out << "\n### Errata this point touches\n\n";
    for (const auto& e : x.errata)
      out << "- **" << e.where << "**: printed " << e.printed << ". Holds instead: " << e.corrected
          << " Evidence: " << e.evidence << '\n';
  }
}

nlohmann::json summary_json(const sim::Summary& s) {
  nlohmann::json j = {{"mean", s.mean}, {"n", s.n}};
  if (s.ci95) j["ci95"] = *s.ci95;
  return j;
}

void write_json(std::ostream& out, const Scenario& s, const validation::ExplainResult& x) {
  nlohmann::json j;
  j["algo"] = name(s.algo);
  j["point"] = {{"N", s.N}, {"A", s.A},         {"T", s.T},
                {"w", s.w}, {"lanes", s.lanes}, {"pages", s.pages}};
  j["model"] = x.model.model;
  j["assumptions_title"] = x.model.assumptions_title;
  j["assumptions"] = x.model.assumptions;
  j["hardware"] = x.model.hardware;
  for (const auto& sec : x.model.sections) {
    nlohmann::json js = {{"title", sec.title}, {"text", sec.text}};
    for (const auto& l : sec.lines)
      js["lines"].push_back({{"label", l.label},
                             {"formula", l.formula},
                             {"substituted", l.substituted},
                             {"value", l.value ? nlohmann::json(*l.value) : nlohmann::json()},
                             {"meaning", l.meaning},
                             {"source", l.source}});
    j["sections"].push_back(js);
  }
  for (const auto& q : x.simulations) {
    nlohmann::json counts = nlohmann::json::object();
    for (const auto& [count, summary] : q.result.op_counts_per_request)
      counts[count] = summary_json(summary);
    j["simulations"].push_back({{"mode", sim::mode_name(q.mode)},
                                {"tas", summary_json(q.result.tas)},
                                {"was", summary_json(q.result.was)},
                                {"op_counts_per_request", counts},
                                {"trials", q.result.trials},
                                {"seconds", q.seconds}});
  }
  for (const auto& e : x.errata)
    j["errata"].push_back({{"key", e.key},
                           {"where", e.where},
                           {"printed", e.printed},
                           {"corrected", e.corrected},
                           {"evidence", e.evidence}});
  out << j.dump(2) << '\n';
}

// The derivation's lines as rows (--format csv): one per formula of each section.
void write_csv(std::ostream& out, const validation::ExplainResult& x) {
  std::vector<Record> rows;
  for (const auto& sec : x.model.sections)
    for (const auto& l : sec.lines) {
      Record r;
      r.set("section", sec.title).set("quantity", l.label).set("formula", l.formula);
      r.set("with_the_numbers", l.substituted);
      r.set_quantity("value", l.value, "");
      r.set("meaning", l.meaning);
      rows.push_back(std::move(r));
    }
  write_records(out, rows, Format::csv);
}

void run(const ExplainArgs& a) {
  if (a.allocator.find(',') != std::string::npos)
    throw InputError("--allocator", "explain works at one point: give one allocator");
  const auto algo = parse_algorithm(a.allocator);
  if (!algo)
    throw InputError("--allocator",
                     "unknown algorithm '" + a.allocator + "' (" + algorithm_names() + ")");
  if (a.schedule != "sequential" && a.schedule != "rounds")
    throw InputError("--schedule", "unknown schedule '" + a.schedule + "' (sequential|rounds)");
  if (a.grid.pages != 1 && caps(*algo).requests != RequestKind::pages)
    throw InputError("--pages", "only allocators of several pages a request take --pages");
  const auto points = expand_grid_points(a.grid, *algo, GridUse::model);
  if (points.size() != 1)
    throw InputError("--N", fmt::format("explain works at one point; the options give {} (use "
                                        "one value each for --N, --A/--free, --T and --w)",
                                        points.size()));
  if (points[0].invalid) throw *points[0].invalid;
  Scenario s = points[0].scenario;
  s.seed = a.grid.seed;
  // The quick simulations' input and memory, where the model covers the point (explain_point
  // says why it does not, before any simulation).
  if (a.trials > 0 && validation::explain_simulates(s)) {
    sim::SimOptions so;
    so.host_threads = a.threads;
    for (sim::Mode mode : {sim::Mode::sequential, sim::Mode::lockstep}) {
      so.mode = mode;
      sim::check_input(s, so);
      check_simulator_memory(s, so, a.trials);
    }
  }
  validation::ExplainOptions o;
  o.rounds = a.schedule == "rounds";
  o.trials = a.trials;
  o.host_threads = a.threads;
  const auto x = validation::explain_point(s, o);  // everything before anything is printed
  if (!x.no_model.empty()) {  // nothing to derive: one line, in JSON an object holding it
    if (a.format == Format::json)
      std::cout << nlohmann::json{{"algo", name(s.algo)}, {"no_model", x.no_model}}.dump(2) << '\n';
    else
      std::cout << x.no_model << '\n';
    return;
  }
  if (a.format == Format::md)
    write_markdown(std::cout, s, x);
  else if (a.format == Format::json)
    write_json(std::cout, s, x);
  else if (a.format == Format::csv)
    write_csv(std::cout, x);
  else
    write_text(std::cout, s, x);
}

}  // namespace

void add_explain_command(CLI::App& app) {
  auto args = std::make_shared<ExplainArgs>();
  auto* cmd = app.add_subcommand(
      "explain",
      "A worked derivation of an allocator's model at one point, for teaching: what the model "
      "assumes and where a GPU breaks it, each formula with your numbers substituted step by "
      "step and what each number means, a quick simulation at the same point beside it, and the "
      "errata of the paper the point touches. The numbers come from the same functions as "
      "`alloclab model`. Allocators without a closed-form model get the step-by-step cost of one "
      "request in their own terms instead: the "
      "structure's numbers at the point and the quick simulations' counters (semaphore waits, "
      "splits, bitmap levels), each line naming its source. An allocator with neither a model "
      "nor a simulator (a plug-in ext-*, a GPU-only baseline) gets one line saying so, exit 0.\n"
      "Example: alloclab explain --allocator rw --N 5000 --free 0.01 --T 1e6\n"
      "Example: alloclab explain --allocator rwbm --N 4096 --A 10000 --T 1e6 --schedule rounds "
      "--format md > rwbm.md");
  cmd->add_option("--allocator", args->allocator, "the allocator (one): " + algorithm_names())
      ->required();
  add_grid_options(*cmd, args->grid);
  cmd->add_option("--pages", args->grid.pages, "pages per request (rwmalloc)")->default_val(1);
  cmd->add_option("--schedule", args->schedule,
                  "sequential (the paper's model), or rounds: also the parallel-rounds schedule "
                  "(" +
                      algorithm_names(model::rounds_algorithms()) + ")")
      ->capture_default_str();
  cmd->add_option("--trials", args->trials,
                  "trials of each quick simulation (sequential and lockstep); 0: none")
      ->capture_default_str();
  cmd->add_option("--seed", args->grid.seed, "root seed of the simulation")->capture_default_str();
  cmd->add_option("--threads", args->threads, "simulator host threads (0 = all cores)")
      ->capture_default_str();
  add_format_option(*cmd, args->format);
  cmd->get_option("--format")
      ->description(
          "table: the derivation as text (default); md: Markdown tables, for lecture notes; json; "
          "csv: the formulas as rows (section, quantity, formula, with_the_numbers, value, "
          "meaning)");
  cmd->callback([args] { run(*args); });
}

}  // namespace alloclab::cli
