#include "alloclab/render/plot.hpp"

#include <fmt/format.h>

#include <unistd.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace alloclab::render {
namespace {

std::string gnuplot_quote(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return "\"" + out + "\"";
}

}  // namespace

bool gnuplot_available() {
  return std::system("command -v gnuplot >/dev/null 2>&1") == 0;
}

std::string render_svg(const PlotSpec& spec, int width, int height) {
  namespace fs = std::filesystem;
  if (!gnuplot_available())
    throw std::runtime_error("gnuplot not found: install the gnuplot-nox package to render plots");
  const fs::path dir =
      fs::temp_directory_path() / fmt::format("alloclab_plot_{}_{}", ::getpid(), std::rand());
  fs::create_directories(dir);
  const fs::path script = dir / "plot.gp", svg = dir / "plot.svg";

  std::ofstream gp(script);
  if (spec.key_below) {
    // gnuplot sets the key in as many columns as the widest title allows (about 7 px a
    // character at this font, plus the sample); the figure grows by a line per row of it.
    std::size_t widest = 0, drawn = 0;
    for (const auto& s : spec.series)
      if (!s.x.empty()) {
        widest = std::max(widest, s.title.size());
        ++drawn;
      }
    const std::size_t columns =
        std::max<std::size_t>(1, static_cast<std::size_t>(width) / (7 * widest + 80));
    height += static_cast<int>(18 * ((drawn + columns - 1) / columns));
  }
  gp << fmt::format("set terminal svg size {},{} dynamic enhanced font 'sans,11'\n", width, height);
  gp << "set output " << gnuplot_quote(svg.string()) << "\n";
  gp << "set title " << gnuplot_quote(spec.title) << "\n";
  gp << "set xlabel " << gnuplot_quote(spec.xlabel) << "\n";
  gp << "set ylabel " << gnuplot_quote(spec.ylabel) << "\n";
  gp << (spec.key_below ? "set key below\n" : "set key outside right top\n") << "set grid\n";
  if (spec.logx) gp << "set logscale x\n";
  if (spec.logy) gp << "set logscale y\n";
  if (!spec.xtics.empty()) {
    double lo = spec.xtics.front().first, hi = lo;
    std::string tics;
    for (const auto& [x, label] : spec.xtics) {
      tics += fmt::format("{}{} {}", tics.empty() ? "" : ", ", gnuplot_quote(label), x);
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
    gp << "set xtics (" << tics << ")\n";
    gp << fmt::format("set xrange [{}:{}]\n", lo - 0.5, hi + 0.5);
    // Points on the top or bottom border (a utilisation of 1) stay visible.
    gp << "set offsets 0, 0, graph 0.05, graph 0.05\n";
  }
  std::string plot_cmd;
  int index = 0;
  for (const auto& s : spec.series) {
    if (s.x.empty()) continue;
    const fs::path data = dir / fmt::format("s{}.dat", index);
    std::ofstream d(data);
    for (std::size_t i = 0; i < s.x.size(); ++i) {
      d << fmt::format("{} {}", s.x[i], s.y[i]);
      if (!s.yerr.empty()) d << ' ' << s.yerr[i];
      d << '\n';
    }
    const int colour = s.colour > 0 ? (s.colour - 1) % 8 + 1 : index % 8 + 1;
    std::string style;
    if (s.lines)
      style = fmt::format("with lines lw 2 lc {}{}", colour, s.dashed ? " dt 2" : "");
    else if (!s.yerr.empty())
      style = fmt::format("using 1:2:3 with yerrorbars pt {} ps 0.6 lc {}", s.point_type, colour);
    else
      style = fmt::format("with points pt {} ps 0.6 lc {}", s.point_type, colour);
    plot_cmd += fmt::format("{}{} {} title {}", plot_cmd.empty() ? "plot " : ", \\\n     ",
                            gnuplot_quote(data.string()), style, gnuplot_quote(s.title));
    ++index;
  }
  if (plot_cmd.empty()) {
    fs::remove_all(dir);
    throw std::runtime_error("plot '" + spec.title + "' has no data");
  }
  gp << plot_cmd << "\n";
  gp.close();

  const std::string cmd = fmt::format("gnuplot {} 2>{}", script.string(), (dir / "err").string());
  if (std::system(cmd.c_str()) != 0) {
    std::ifstream err(dir / "err");
    std::string msg((std::istreambuf_iterator<char>(err)), std::istreambuf_iterator<char>());
    fs::remove_all(dir);
    throw std::runtime_error("gnuplot failed on '" + spec.title + "': " + msg);
  }
  std::ifstream in(svg);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  fs::remove_all(dir);
  const auto start = text.find("<svg");
  if (start == std::string::npos) throw std::runtime_error("gnuplot wrote no SVG");
  return text.substr(start);
}

}  // namespace alloclab::render
