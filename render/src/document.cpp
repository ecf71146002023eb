#include "alloclab/render/document.hpp"

#include <algorithm>

namespace alloclab::render {

std::size_t Section::figure_count() const {
  return static_cast<std::size_t>(std::count_if(blocks.begin(), blocks.end(), [](const Block& b) {
    return std::holds_alternative<Figure>(b);
  }));
}

std::optional<Figure> make_figure(const std::string& id, PlotSpec plot, const std::string& caption,
                                  std::vector<validation::PointKey> rows) {
  std::erase_if(plot.series, [](const Series& s) { return s.x.empty(); });
  if (plot.series.empty()) return std::nullopt;
  Figure f;
  f.id = id;
  f.caption = plot.title + ". " + caption;
  f.svg = render_svg(plot);
  f.rows = std::move(rows);
  return f;
}

}  // namespace alloclab::render
