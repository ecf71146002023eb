#include "alloclab/validation/explain_parts.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace alloclab::validation {

std::optional<double> simulated_per_request(const QuickSimulation& q, std::string_view name) {
  const auto& r = q.result;
  if (name == "tas") return r.tas.mean;
  if (name == "was") return r.was.mean;
  // collisions and taken are per run: per request, as the op counts are.
  if (name == "collisions") return r.collisions.mean / static_cast<double>(q.requests);
  for (const auto& [count, summary] : r.op_counts_per_request)
    if (count == name) return summary.mean;
  return std::nullopt;
}

std::vector<model::ExplainSection> counter_sections(const Scenario& s,
                                                    const std::vector<QuickSimulation>& sims,
                                                    const std::vector<CountMeaning>& counts,
                                                    const std::string& text) {
  std::vector<model::ExplainSection> out;
  if (sims.empty()) {
    out.push_back({"One request, step by step (simulated)",
                   "No quick simulation was run (--trials 0): give --trials 1 or more for the "
                   "counts of one request.",
                   {}});
    return out;
  }
  for (const auto& q : sims) {
    model::ExplainSection sec;
    const char* mode = sim::mode_name(q.mode);
    sec.title = fmt::format("One request, step by step: the simulator's counts ({}, seed {})", mode,
                            s.seed);
    sec.text = text;
    for (const auto& c : counts) {
      const auto v = simulated_per_request(q, c.name);
      if (!v) continue;
      const std::string formula =
          c.name == "tas" ? fmt::format("mean over {} trials of a request's steps", q.result.trials)
          : c.name == "was"
              ? fmt::format("mean over {} trials of a warp's slowest lane", q.result.trials)
              : fmt::format("the runs' {} / ({} trials x N)", c.name, q.result.trials);
      // The runs' total, back from the mean (an integer count), so the division can be checked.
      const double total = *v * static_cast<double>(q.result.trials) * static_cast<double>(s.N);
      const bool mean_of_steps = c.name == "tas" || c.name == "was";
      sec.lines.push_back(
          {c.name, formula,
           mean_of_steps ? std::string()
                         : fmt::format("{} / ({} x {})", model::explain_number(std::round(total)),
                                       q.result.trials, s.N),
           *v, c.meaning, fmt::format("sim:{}:{}", mode, c.name)});
    }
    out.push_back(std::move(sec));
  }
  return out;
}

}  // namespace alloclab::validation
