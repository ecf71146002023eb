// Gelado & Garland's Figure 5 redrawn from the GPU's semaphore rows (semaphore_figure.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "semaphore_figure.hpp"

namespace alloclab::render {

std::optional<Figure> semaphore_figure(const std::vector<Record>& rows) {
  // (primitive, units per request) -> N -> units/s; the first row of a point wins.
  std::map<std::pair<std::string, int>, std::map<double, double>> points;
  std::string device;
  for (const Record& r : rows) {
    if (r.text("backend").value_or("") != "gpu" || r.number("batch") != 512.0 ||
        r.number("block") != 256.0 || r.number("backoff_max_ns").value_or(256) != 256.0)
      continue;
    const auto n = r.number("N"), rate = r.number("units_per_s");
    if (!n || !rate || *rate <= 0) continue;
    const int units = static_cast<int>(r.number("units_per_request").value_or(1));
    points[{r.text("primitive").value_or(""), units}].emplace(*n, *rate);
    if (device.empty()) device = r.text("device").value_or("");
  }
  if (points.empty()) return std::nullopt;
  PlotSpec p;
  p.title = "Figure 5 of Gelado and Garland: one unit per thread, batch 512";
  p.key_below = true;
  p.xlabel = "threads N";
  p.ylabel = "units per second";
  p.logx = p.logy = true;
  for (const auto& [key, curve] : points) {
    Series s;
    const auto& [primitive, units] = key;
    s.title = primitive + (units == 1 ? ", each thread" : ", warp leaders (32 units)");
    s.colour = primitive == "bulk" ? 1 : 2;
    s.point_type = units == 1 ? 7 : 5;
    s.lines = false;  // measurements
    for (const auto& [n, rate] : curve) {
      s.x.push_back(n);
      s.y.push_back(rate);
    }
    p.series.push_back(std::move(s));
  }
  Figure f;
  f.id = "gelado_figure5";
  f.caption = fmt::format(
      "Figure 5 of Gelado & Garland redrawn on {}: units handed out per second (the median of "
      "the timed launches) against the threads, 256 threads a block, batch 512; circles: each "
      "thread waits for its own unit (the paper's benchmark), squares: lane 0 of each warp waits "
      "for the warp's 32 (warp aggregation, not in the paper). Every launch verified.",
      device.empty() ? std::string("a GPU") : device);
  f.svg = render_svg(p);
  f.made_by =
      "alloclab semaphore --backend gpu --format csv (scripts/gpu.sh gelado-garland measure)";
  return f;
}

}  // namespace alloclab::render
