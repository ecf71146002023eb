// Plots for reports, rendered by gnuplot as SVG (inlined into the HTML report, so the page is
// self-contained).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace alloclab::render {

struct Series {
  std::string title;
  std::vector<double> x, y;
  std::vector<double> yerr;  // empty: no error bars
  bool lines = true;         // lines (model curves) or points (measurements)
  bool dashed = false;       // lines only: dashed (a prediction drawn beside measured points)
  // gnuplot colour 1..8, to tie a model curve to the points it predicts; 0: by position.
  int colour = 0;
  int point_type = 7;  // gnuplot point type (7 filled circle, 6 open circle, 5 filled square, ...)
};

struct PlotSpec {
  std::string title, xlabel, ylabel;
  bool logx = false, logy = false;
  std::vector<Series> series;
  // Named x positions (x, label), e.g. one per allocator in a per-allocator point plot; the x
  // range then spans them with half a step either side. Empty: gnuplot's own tics and range.
  std::vector<std::pair<double, std::string>> xtics;
  // The key under the plot, in columns, the figure taller by its rows: for many or long series
  // titles, which beside the plot would squeeze it. Default: outside right.
  bool key_below = false;
};

// Renders with gnuplot's svg terminal; returns the <svg>...</svg> text. Throws std::runtime_error
// with a clear message if gnuplot is missing or fails.
std::string render_svg(const PlotSpec& spec, int width = 640, int height = 400);

// Whether a gnuplot executable is on PATH.
bool gnuplot_available();

}  // namespace alloclab::render
