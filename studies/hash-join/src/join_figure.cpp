// Figure 12 of paper 000 redrawn from the GPU join rows (join_figure.hpp).
#include "alloclab/studies/join_figure.hpp"

#include <fmt/format.h>

#include <map>
#include <string>
#include <utility>

#include "alloclab/validation/record_csv.hpp"

namespace alloclab::render {

PlotSpec join_figure_plot(const std::vector<Record>& rows,
                          const std::vector<validation::JoinPrediction>& predictions, double skew,
                          const std::vector<validation::SeedPrediction>& seeds) {
  std::vector<std::string> order;  // allocators by first appearance
  std::map<std::string, std::map<double, double>> measured, predicted;
  for (const Record& r : rows) {
    if (!validation::record_flag(r, "verified") || r.number("skew").value_or(0) != skew) continue;
    const auto tuples = r.number("tuples"), ms = r.number("join_ms");
    if (!tuples || !ms) continue;
    const std::string name = validation::record_text(r, "allocator");
    if (!measured.contains(name)) order.push_back(name);
    measured[name].emplace(*tuples, *ms);  // the first row of a point wins
  }
  for (const auto& p : predictions)
    if (p.skew == skew && p.model_join_ms)
      predicted[p.allocator].emplace(static_cast<double>(p.tuples), *p.model_join_ms);
  for (const auto& p : seeds)
    if (p.skew == skew && p.join_ms)
      predicted[p.allocator].emplace(static_cast<double>(p.tuples), *p.join_ms);
  PlotSpec spec;
  spec.title = fmt::format("Figure 12 of paper 000: hash join, skew {}", skew);
  spec.xlabel = "tuples of R and of S";
  spec.ylabel = "join time (ms)";
  spec.logx = true;
  spec.key_below = true;
  int colour = 0;
  for (const std::string& name : order) {
    ++colour;
    Series m;
    m.title = name + " (measured)";
    m.lines = false;
    m.colour = colour;
    for (const auto& [x, y] : measured[name]) {
      m.x.push_back(x);
      m.y.push_back(y);
    }
    spec.series.push_back(std::move(m));
    if (const auto it = predicted.find(name); it != predicted.end()) {
      Series p;
      p.title = name + " (model)";
      p.dashed = true;
      p.colour = colour;
      for (const auto& [x, y] : it->second) {
        p.x.push_back(x);
        p.y.push_back(y);
      }
      spec.series.push_back(std::move(p));
    }
  }
  return spec;
}

std::optional<Figure> join_figure(const std::vector<Record>& rows,
                                  const std::vector<validation::JoinPrediction>& predictions,
                                  double skew,
                                  const std::vector<validation::SeedPrediction>& seeds) {
  const PlotSpec spec = join_figure_plot(rows, predictions, skew, seeds);
  if (spec.series.empty()) return std::nullopt;
  std::string device;
  for (const Record& r : rows)
    if (const auto d = r.text("device")) device = *d;
  Figure f;
  f.id = fmt::format("join_figure12_skew{}", skew);
  f.caption = fmt::format(
      "Figure 12 of paper 000 redrawn on {} ({} keys): the join's time (partitioning, build and "
      "probe; the median of the repeats) against the tuples of each table, 2^27 pages of 256 B "
      "in the pool; points measured, every run verified against the host reference join; dashed "
      "in the same colour, the model's prediction: Direct Output's measured join plus the "
      "allocator's GETPAGE time predicted from the model's steps through the device's "
      "kernel-time fit, its constant left out; for the seeds' allocators, Direct Output's join "
      "plus the allocator's isolated GPU cost per request scaled by the replay's steps "
      "(studies/hash-join/ says what each assumes). Allocators without either have no dashed "
      "line.",
      device.empty() ? std::string("a GPU") : device,
      skew == 0 ? std::string("uniform") : fmt::format("Zipf {}", skew));
  f.svg = render_svg(spec, 640, 480);
  f.made_by =
      "alloclab join --format csv (scripts/gpu.sh hash-join measure), predictions: alloclab report";
  return f;
}

Table join_prediction_table(const std::vector<validation::JoinPrediction>& predictions) {
  Table t({"allocator", "tuples", "skew", "measured join ms", "Direct Output ms", "model TAS",
           "model WAS", "replay TAS", "replay WAS", "replayed (requests / pages / waves)",
           "model GETPAGE ms", "model join ms", "model error", "replay join ms", "replay error"},
          {Align::left});
  const auto num = [](std::optional<double> v, const char* spec) -> std::string {
    return v ? fmt::format(fmt::runtime(spec), *v) : std::string("-");
  };
  const auto error = [](std::optional<double> predicted, double measured) -> std::string {
    if (!predicted || measured <= 0) return "-";
    return fmt::format("{:+.1f}%", 100 * (*predicted - measured) / measured);
  };
  for (const auto& p : predictions) {
    const auto& sc = p.replay.scale;
    t.add_row({p.allocator, fmt::format("{}", p.tuples), fmt::format("{}", p.skew),
               fmt::format("{:.3f}", p.measured_ms), num(p.direct_ms, "{:.3f}"),
               num(p.model ? std::optional(p.model->tas) : std::nullopt, "{:.4g}"),
               num(p.model ? std::optional(p.model->was) : std::nullopt, "{:.4g}"),
               fmt::format("{:.4g}", p.replay.tas), fmt::format("{:.4g}", p.replay.was),
               fmt::format("{} / {} / {}", sc.requests, sc.pages, sc.waves),
               num(p.model_getpage_ms, "{:.4f}"), num(p.model_join_ms, "{:.3f}"),
               error(p.model_join_ms, p.measured_ms), num(p.replay_join_ms, "{:.3f}"),
               error(p.replay_join_ms, p.measured_ms)});
  }
  return t;
}

}  // namespace alloclab::render
