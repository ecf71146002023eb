#include "alloclab/render/provenance.hpp"

#include "alloclab/core/comma_list.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <sstream>

namespace alloclab::render {
namespace {

bool listed(const std::string& list, const std::string& item) {
  const auto items = comma_items(list);
  return std::find(items.begin(), items.end(), item) != items.end();
}

std::string scalar_text(const nlohmann::json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

}  // namespace

std::vector<SweepRun> sweep_runs(const nlohmann::json& meta) {
  std::vector<SweepRun> out;
  auto note = [&](const nlohmann::json& run) {
    if (!run.is_object() || !run.contains("command_line") || !run["command_line"].is_string())
      return;
    SweepRun r;
    r.command_line = run["command_line"].get<std::string>();
    r.backends = run.value("backends", std::string());
    r.modes = run.value("sim_modes", std::string("sequential"));
    r.git_commit = run.value("git_commit", std::string());
    r.started_utc = run.value("started_utc", std::string());
    r.compiler = run.value("compiler", std::string());
    if (run.contains("device") && run["device"].is_object())
      r.device = run["device"].value("name", std::string());
    if (run.contains("trials") && run["trials"].is_number_unsigned())
      r.trials = run["trials"].get<std::uint64_t>();
    if (run.contains("seed") && run["seed"].is_number_unsigned())
      r.seed = run["seed"].get<std::uint64_t>();
    out.push_back(std::move(r));
  };
  note(meta);
  if (meta.is_object() && meta.contains("resumed") && meta["resumed"].is_array())
    for (const auto& run : meta["resumed"]) note(run);
  return out;
}

bool run_writes_source(const SweepRun& run, const std::string& backend, const std::string& mode) {
  if (!listed(run.backends, backend)) return false;
  if (backend == "model") return mode != "rounds" || listed(run.modes, "rounds");
  if (backend == "sim") return listed(run.modes, mode);
  return true;
}

RowWriter writer_by_source(const std::vector<SweepRun>& runs) {
  return [runs](const validation::PointKey& p) -> std::optional<std::size_t> {
    std::optional<std::size_t> only;
    for (std::size_t i = 0; i < runs.size(); ++i)
      if (run_writes_source(runs[i], p.backend, p.mode)) {
        if (only) return std::nullopt;  // two candidates: not traceable without the grids
        only = i;
      }
    return only;
  };
}

std::string run_anchor(std::size_t run) {
  return fmt::format("run-{}", run + 1);
}

MadeBy made_by(const Figure& figure, const Provenance& prov) {
  MadeBy m;
  const RowWriter writer = prov.writer ? prov.writer : writer_by_source(prov.runs);
  std::set<std::size_t> runs;
  std::set<std::string> seen;  // a figure draws several metrics of one (point, backend)
  for (const auto& p : figure.rows) {
    if (!seen.insert(p.text()).second) continue;
    if (const auto w = writer(p); w && *w < prov.runs.size())
      runs.insert(*w);
    else
      ++m.untraced_rows;
  }
  m.runs.assign(runs.begin(), runs.end());
  return m;
}

Section provenance_appendix(const Provenance& prov, const nlohmann::json& meta) {
  Section s("provenance", "Appendix: provenance");
  s.paragraph(
      "Every sweep that wrote rows of this directory's sweep.csv, in the order they ran (the "
      "first, then each resumed one; a resumed sweep skips the points already present, so each "
      "row comes from the first run whose grid holds it). Each figure's caption names the runs "
      "that wrote its rows.");
  Table runs({"run", "command", "backends", "modes", "trials", "seed", "device", "commit",
              "started (UTC)", "compiler"},
             {Align::right, Align::left, Align::left, Align::left, Align::right, Align::right,
              Align::left, Align::left, Align::left, Align::left});
  for (std::size_t i = 0; i < prov.runs.size(); ++i) {
    const auto& r = prov.runs[i];
    // Modes and trials mean something only to the runs that simulate or measure (modes: also
    // to the model's rounds schedule).
    const bool sim = listed(r.backends, "sim"), gpu = listed(r.backends, "gpu");
    const bool modes = sim || (listed(r.backends, "model") && listed(r.modes, "rounds"));
    runs.add_row({Cell::target(fmt::format("{}", i + 1), run_anchor(i)), r.command_line, r.backends,
                  modes ? r.modes : "-",
                  (sim || gpu) && r.trials ? fmt::format("{}", r.trials) : "-",
                  fmt::format("{}", r.seed), r.device.empty() ? "-" : r.device, r.git_commit,
                  r.started_utc, r.compiler});
  }
  s.table(std::move(runs));

  Table inputs({"input", "made by"}, {Align::left, Align::left});
  for (const auto& [what, command] : prov.other_inputs) inputs.add_row({what, command});
  inputs.add_row({"this report", prov.report_command});
  s.heading("Other inputs");
  s.table(std::move(inputs));

  // The first run's device, as the sweep recorded it (the GPU pass's, where there is one).
  if (meta.is_object() && meta.contains("device") && meta["device"].is_object() &&
      !meta["device"].empty()) {
    Table device({"device field", "value"}, {Align::left, Align::left});
    for (const auto& [k, v] : meta["device"].items())
      if (!v.is_object() && !v.is_array()) device.add_row({k, scalar_text(v)});
    s.heading("Device of the first run");
    s.table(std::move(device));
  }
  return s;
}

}  // namespace alloclab::render
