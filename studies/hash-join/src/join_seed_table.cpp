// The seeds' join rows, replayed and predicted, as one table (join_figure.hpp).
#include <fmt/format.h>

#include <cmath>
#include <string>

#include "alloclab/studies/join_figure.hpp"

namespace alloclab::render {

Table join_seed_table(const std::vector<validation::SeedPrediction>& seeds) {
  Table t({"allocator", "tuples", "skew", "replay", "replayed TAS / WAS / atomics per GETPAGE",
           "its own counts per GETPAGE", "GPU cycles per GETPAGE", "isolated run (ms / requests)",
           "isolated replay TAS", "predicted cost ms", "measured cost ms", "predicted join ms",
           "measured join ms", "join error", "verdict"},
          {Align::left});
  const auto num = [](std::optional<double> v, const char* spec) -> std::string {
    return v ? fmt::format(fmt::runtime(spec), *v) : std::string("-");
  };
  for (const auto& p : seeds) {
    std::string replay = "-", steps = "-", counts = "-", iso = "-", iso_tas = "-";
    if (p.replay) {
      replay = p.replay->plan.describe();
      steps =
          fmt::format("{:.4g} / {:.4g} / {:.4g}", p.replay->tas, p.replay->was, p.replay->atomics);
      counts.clear();
      for (const auto& [name, v] : p.replay->counts)
        if (v != 0) counts += fmt::format("{}{} {:.3g}", counts.empty() ? "" : ", ", name, v);
      if (counts.empty()) counts = "-";
    }
    if (p.isolated)
      iso =
          fmt::format("{:.4g} / {} ({})", p.isolated->alloc_ms, p.isolated->N, p.isolated->source);
    if (p.calibration) iso_tas = fmt::format("{:.4g}", p.calibration->tas);
    const auto err = p.join_error();
    std::string verdict;
    if (!p.join_ms)
      verdict = p.note;
    else if (p.judged())
      verdict = std::abs(*err) <= validation::kJoinTolerance ? "within 15%" : "off";
    else
      verdict = "not judged";
    t.add_row({p.allocator, fmt::format("{}", p.tuples), fmt::format("{}", p.skew), replay, steps,
               counts, fmt::format("{:.0f}", p.getpage_cycles_per_call), iso, iso_tas,
               num(p.alloc_ms, "{:.4g}"), num(p.measured_cost(), "{:.4g}"),
               num(p.join_ms, "{:.4g}"), fmt::format("{:.4g}", p.measured_ms),
               err ? fmt::format("{:+.1f}%", 100 * *err) : std::string("-"), verdict},
              verdict == "off");
  }
  return t;
}

}  // namespace alloclab::render
