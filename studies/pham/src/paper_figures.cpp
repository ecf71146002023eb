// The figures of paper 000 reproduced: Figure 4 from the model, Figure 7 from hardware with the
// model's curves, and each algorithm's simulation against the model.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "alloclab/render/text.hpp"
#include "alloclab/studies/pham_sections.hpp"

namespace alloclab::render {
namespace {

using validation::PointKey;
using validation::TidyRow;

std::string source_of(const PointKey& p) {
  return p.mode.empty() ? p.backend : p.backend + " (" + p.mode + ")";
}

// Rows of one metric as a series over N, for one (algo, source, A, T, w, pages).
struct SeriesKey {
  Algorithm algo;
  std::string source;  // "sim (lockstep)": backend and mode
  std::string mode;
  std::uint64_t A, T;
  unsigned w, pages;
  bool operator<(const SeriesKey& o) const {
    return std::tie(algo, source, T, A, w, pages) <
           std::tie(o.algo, o.source, o.T, o.A, o.w, o.pages);
  }
};

// ", n = 4" for multi-page requests, "" otherwise.
std::string pages_label(unsigned pages) {
  return pages == 1 ? std::string() : fmt::format(", n = {}", pages);
}

struct DrawnSeries {
  Series series;
  std::vector<PointKey> rows;  // the rows drawn, for the figure's provenance
};

std::map<SeriesKey, DrawnSeries> collect(const std::vector<TidyRow>& rows,
                                         const std::string& metric, const std::string& backend,
                                         std::uint64_t max_N = UINT64_MAX) {
  std::map<SeriesKey, std::vector<const TidyRow*>> grouped;
  for (const auto& r : rows)
    // The parallel-rounds model has its own section (rounds_section.cpp).
    if (r.metric == metric && r.point.backend == backend && r.mean && std::isfinite(*r.mean) &&
        r.point.N <= max_N && !(r.point.backend == "model" && r.point.mode == "rounds"))
      grouped[{r.point.algo, source_of(r.point), r.point.mode, r.point.A, r.point.T, r.point.w,
               r.point.pages}]
          .push_back(&r);
  std::map<SeriesKey, DrawnSeries> out;
  for (auto& [k, v] : grouped) {
    std::sort(v.begin(), v.end(), [](auto* a, auto* b) { return a->point.N < b->point.N; });
    DrawnSeries d;
    d.series.lines = backend == "model";
    for (auto* r : v) {
      d.series.x.push_back(static_cast<double>(r->point.N));
      d.series.y.push_back(*r->mean);
      if (!d.series.lines) d.series.yerr.push_back(r->ci95);
      d.rows.push_back(r->point);
    }
    out[k] = std::move(d);
  }
  return out;
}

// A plot and the rows it draws.
struct Drawing {
  PlotSpec plot;
  std::vector<PointKey> rows;
  // colour 0: gnuplot's by position; an empty title leaves the series out of the key.
  void add(DrawnSeries d, std::string title, int colour = 0, int point_type = 7) {
    d.series.title = std::move(title);
    d.series.colour = colour;
    d.series.point_type = point_type;
    plot.series.push_back(std::move(d.series));
    rows.insert(rows.end(), d.rows.begin(), d.rows.end());
  }
};

// The paper's Figure 4 spans N <= 5000; a sweep may hold larger N for other figures.
constexpr std::uint64_t kFigure4MaxN = 5000;

void figure4(const std::vector<TidyRow>& rows, const std::set<std::uint64_t>& Ts, Section& s) {
  if (Ts.empty()) return;
  // The paper's Figure 4 uses T = 10^6; use it if swept, else the smallest T.
  const std::uint64_t T = Ts.count(1000000) ? 1000000 : *Ts.begin();
  for (const auto& [metric, label, panel] :
       {std::tuple<std::string, std::string, std::string>{"tas", "TAS (steps per thread)", "a"},
        {"was_bound", "WAS upper bound, Eq. (3) (steps)", "b"}}) {
    Drawing d;
    d.plot.title = fmt::format("Figure 4({}) reproduced: RW {} vs N, T = {}", panel,
                               metric == "tas" ? "TAS" : "WAS bound", T);
    d.plot.xlabel = "N (threads)";
    d.plot.ylabel = label;
    d.plot.logy = true;
    for (auto& [k, ds] : collect(rows, metric, "model", kFigure4MaxN))
      if (k.T == T && k.algo == Algorithm::rw)
        d.add(std::move(ds), "RW, A/T = " + fraction_label(k.A, k.T));
    for (auto& [k, ds] : collect(rows, metric == "tas" ? "tas" : "was", "model", kFigure4MaxN))
      if (k.T == T && k.algo == Algorithm::queue && d.plot.series.size() < 7) {
        d.add(std::move(ds), metric == "tas" ? "queue TAS (N+1)/2" : "queue WAS (exact)");
        break;
      }
    s.figure(make_figure(fmt::format("fig4{}", panel), d.plot,
                         "Model values (Sec. 3.2, Eq. 2-3), N up to 5000 as in the paper, which "
                         "plots the same five free fractions.",
                         std::move(d.rows)));
  }
}

// " w=32" for algorithms whose bitmap word width matters, "" otherwise.
std::string width_label(Algorithm algo, unsigned w) {
  return caps(algo).bitmap_words ? fmt::format(" w={}", w) : std::string();
}

// Marker of a simulator mode: filled circle (sequential), open circle (lockstep), filled square.
int mode_marker(const std::string& mode) {
  return mode == "sequential" ? 7 : mode == "lockstep" ? 6 : 5;
}

void model_vs_sim(const std::vector<TidyRow>& rows, Section& s) {
  for (const auto& metric : {std::string("tas"), std::string("was")}) {
    // One plot per (algo, T, w, pages) (w where the algorithm has bitmap words; a request size
    // is another workload), one colour per free fraction shared by the model curve and the
    // points it predicts, one marker per simulator mode. Model curves only at the fractions
    // simulated there.
    using PlotKey = std::tuple<Algorithm, std::uint64_t, unsigned, unsigned>;
    std::map<PlotKey, std::vector<std::pair<SeriesKey, DrawnSeries>>> sims;
    std::map<PlotKey, std::set<std::uint64_t>> fractions;
    for (auto& [k, ds] : collect(rows, metric, "sim")) {
      const PlotKey pk{k.algo, k.T, k.w, k.pages};
      fractions[pk].insert(k.A);
      sims[pk].emplace_back(k, std::move(ds));
    }
    const auto models = collect(rows, metric, "model");
    for (auto& [pk, series] : sims) {
      const auto& [algo, T, w, pages] = pk;
      const auto& fr = fractions[pk];
      auto colour = [&](std::uint64_t A) {
        return 1 + static_cast<int>(std::distance(fr.begin(), fr.find(A)));
      };
      Drawing d;
      std::set<std::uint64_t> with_model;
      for (const auto& [k, ds] : models)
        if (k.algo == algo && k.T == T && k.w == w && k.pages == pages && fr.count(k.A)) {
          with_model.insert(k.A);
          d.add(ds, "A/T=" + fraction_label(k.A, k.T), colour(k.A));
        }
      // Points are keyed by colour and marker; a fraction without a model curve names its own.
      for (auto& [k, ds] : series)
        d.add(std::move(ds),
              with_model.count(k.A) ? std::string() : k.source + " A/T=" + fraction_label(k.A, k.T),
              colour(k.A), mode_marker(k.mode));
      const bool words = caps(algo).bitmap_words;
      d.plot.title = fmt::format(
          "{}: simulated {} vs model, T = {}{}{}", name(algo), metric == "tas" ? "TAS" : "WAS", T,
          words ? fmt::format(", w = {}", w) : std::string(), pages_label(pages));
      d.plot.xlabel = "N (threads)";
      d.plot.ylabel = metric == "tas" ? "TAS (steps)" : "WAS (steps)";
      d.plot.logx = d.plot.logy = true;  // N spans 10^3 to 10^6: small N would be squeezed
      std::string id = fmt::format("sim_{}_{}", name(algo), T);
      if (words) id += fmt::format("_w{}", w);
      if (pages != 1) id += fmt::format("_n{}", pages);
      s.figure(make_figure(id + "_" + metric, d.plot,
                           "Lines: the exact model under the sequential assumption, one colour "
                           "per free fraction; points in the same colour: simulation (mean and "
                           "95% CI), filled circles sequential, open circles lockstep, squares "
                           "threads mode.",
                           std::move(d.rows)));
    }
  }
}

void figure7(const std::vector<TidyRow>& rows, const std::set<std::uint64_t>& gpu_Ts, Section& s) {
  for (std::uint64_t T : gpu_Ts) {
    std::set<std::uint64_t> As;
    for (const auto& r : rows)
      if (r.point.backend == "gpu" && r.point.T == T) As.insert(r.point.A);
    for (auto it = As.rbegin(); it != As.rend(); ++it) {
      const std::uint64_t A = *it;
      for (const auto& [metric, label] :
           {std::pair<std::string, std::string>{"kernel_ms", "kernel time (ms)"},
            {"tas", "TAS (steps)"},
            {"was", "WAS (steps)"}}) {
        Drawing d;
        d.plot.title = fmt::format("Figure 7 reproduced: {} at A/T = {}, T = {}", label,
                                   fraction_label(A, T), T);
        d.plot.xlabel = "N (threads)";
        d.plot.ylabel = label;
        d.plot.logx = true;
        d.plot.logy = true;  // steps are >= 1 and the queue grows linearly: log scale
        // One colour per measured (algo, w, pages), shared by its model curve; model curves
        // for what is measured here only.
        std::map<std::tuple<Algorithm, unsigned, unsigned>, int> colours;
        for (auto& [k, ds] : collect(rows, metric, "gpu"))
          if (k.T == T && k.A == A) {
            const int c = static_cast<int>(colours.size()) + 1;
            colours[{k.algo, k.w, k.pages}] = c;
            d.add(
                std::move(ds),
                fmt::format("{}{}{}", name(k.algo), width_label(k.algo, k.w), pages_label(k.pages)),
                c);
          }
        if (metric != "kernel_ms")
          for (auto& [k, ds] : collect(rows, metric == "was" ? "was_bound" : metric, "model"))
            if (const auto c = colours.find({k.algo, k.w, k.pages});
                k.T == T && k.A == A && c != colours.end())
              d.add(std::move(ds), "", c->second);
        s.figure(make_figure(
            fmt::format("fig7_{}_{}_{}", T, A, metric), d.plot,
            metric == "kernel_ms"
                ? "Points: measured on the GPU (mean and 95% CI over trials)."
                : fmt::format("Points: measured on the GPU (mean and 95% CI over trials); lines "
                              "in the same colour: {}.",
                              metric == "was" ? "the WAS bound, Eq. (3)/(5)" : "the model"),
            std::move(d.rows)));
      }
    }
  }
}

}  // namespace

Section paper_figures_section(const std::vector<TidyRow>& rows) {
  Section s("figures", "Figures of paper 000, reproduced");
  std::set<std::uint64_t> Ts, gpu_Ts;
  for (const auto& r : rows) {
    Ts.insert(r.point.T);
    if (r.point.backend == "gpu") gpu_Ts.insert(r.point.T);
  }
  figure4(rows, Ts, s);
  model_vs_sim(rows, s);
  figure7(rows, gpu_Ts, s);
  return s;
}

}  // namespace alloclab::render
