// The report's "Interleavings checked" section, made from the JSON files `alloclab check
// --format json` wrote (check/src/run_check.cpp; the main job writes them to DIR/check/).
#include <fmt/format.h>

#include "alloclab/render/sections.hpp"

namespace alloclab::render {
namespace {

std::string count_text(const nlohmann::json& r, const char* field) {
  return std::to_string(r.value(field, std::uint64_t{0}));
}

// ok, a violation found where it was looked for (a printed rule, an injected bug), or one that
// breaks alloclab's own rules (highlighted).
std::pair<std::string, bool> verdict_of(const nlohmann::json& run, const nlohmann::json& r) {
  if (!r.contains("violation"))
    return {r.value("complete", true) ? "ok" : "ok (stopped before the end)", false};
  const std::string found = fmt::format("{} ({} accesses)", r.at("violation").get<std::string>(),
                                        r.value("schedule_length", std::uint64_t{0}));
  if (run.value("torn_rmw", false)) return {"found, injected bug: " + found, false};
  if (run.value("rule", std::string("alloclab")) == "printed")
    return {"found under the printed rule: " + found, false};
  return {"VIOLATION: " + found, true};
}

}  // namespace

Table check_table(const std::vector<std::pair<std::string, nlohmann::json>>& runs) {
  Table t(
      {"family", "threads", "ops", "pool", "bound", "rule", "nulls", "executions",
       "pruned (sleep set / step bound / preemption bound / spin)", "time (s)", "verdict", "file"},
      {Align::left, Align::right, Align::left, Align::right, Align::left, Align::left, Align::left,
       Align::right, Align::right, Align::right, Align::left, Align::left});
  for (const auto& [file, run] : runs) {
    for (const auto& r : run.at("results")) {
      const auto [verdict, bad] = verdict_of(run, r);
      t.add_row(
          {r.at("allocator").get<std::string>(),
           std::to_string(run.at("threads").get<std::uint64_t>()), run.at("ops").get<std::string>(),
           std::to_string(run.at("pool").get<std::uint64_t>()), run.at("bound").get<std::string>(),
           run.value("rule", std::string("alloclab")) +
               (run.value("torn_rmw", false) ? " + torn RMW" : ""),
           run.value("null_check", true) ? "checked" : "not checked", count_text(r, "executions"),
           fmt::format("{} / {} / {} / {}", count_text(r, "sleep_set_cut"),
                       count_text(r, "pruned_step_bound"), count_text(r, "pruned_preemption_bound"),
                       count_text(r, "spin_waits_not_explored")),
           fmt::format("{:.2f}", r.value("seconds", 0.0)), verdict, file},
          bad);
    }
  }
  return t;
}

Section check_section(const std::vector<std::pair<std::string, nlohmann::json>>& runs) {
  Section sec("check", "Interleavings checked");
  if (runs.empty()) {
    sec.paragraph(
        "No `alloclab check` results in this report directory (the main job writes them to "
        "check/*.json).");
    return sec;
  }
  sec.paragraph(
      "`alloclab check` runs each allocator family's own step machines (core/) under every "
      "interleaving of their shared-memory accesses, for the small cases below, up to the "
      "stated bound (docs/checking.md says exactly what is proved and what is not: sequential "
      "consistency only, these threads, scripts and pools). After every access it checks that no "
      "two live blocks overlap and the family's invariants; at rest and at the end its "
      "structural checker and conservation; with nulls checked, that every null is one a "
      "sequential allocator of the same capacity could give; and that no execution deadlocks. "
      "Executions: complete interleavings explored. Pruned: schedules not explored, cut by the "
      "sleep sets (equivalent to one explored), by the per-operation or per-execution step "
      "bound, by the preemption bound, or as an unfair spin (a re-read of unchanged state). A "
      "violation found under a printed rule or with an injected bug is the expected result (the "
      "checker finds the known bug by itself); a violation under alloclab's rules is a failure.");
  sec.table(check_table(runs));
  return sec;
}

}  // namespace alloclab::render
