// The figures of paper 000 reproduced: Figure 4 from the model, Figure 7 from hardware with the
// model's curves, and each algorithm's simulation against the model.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "alloclab/render/sections.hpp"
#include "alloclab/render/text.hpp"

namespace alloclab::render {
namespace {

using validation::PointKey;
using validation::TidyRow;

std::string source_of(const PointKey& p) {
  return p.mode.empty() ? p.backend : p.backend + " (" + p.mode + ")";
}

// Rows of one metric as a series over N, for one (algo, source, A, T, w).
struct SeriesKey {
  Algorithm algo;
  std::string source;
  std::uint64_t A, T;
  unsigned w;
  bool operator<(const SeriesKey& o) const {
    return std::tie(algo, source, T, A, w) < std::tie(o.algo, o.source, o.T, o.A, o.w);
  }
};

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
      grouped[{r.point.algo, source_of(r.point), r.point.A, r.point.T, r.point.w}].push_back(&r);
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
  void add(DrawnSeries d, std::string title) {
    d.series.title = std::move(title);
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

void model_vs_sim(const std::vector<TidyRow>& rows, Section& s) {
  for (const auto& metric : {std::string("tas"), std::string("was")}) {
    std::map<std::pair<Algorithm, std::uint64_t>, Drawing> plots;  // (algo, T)
    for (auto& [k, ds] : collect(rows, metric, "sim"))
      plots[{k.algo, k.T}].add(std::move(ds),
                               fmt::format("{} A/T={}", k.source, fraction_label(k.A, k.T)));
    for (auto& [key, d] : plots) {
      const auto& [algo, T] = key;
      for (auto& [k, ds] : collect(rows, metric, "model"))
        if (k.algo == algo && k.T == T)
          d.add(std::move(ds), fmt::format("model A/T={}", fraction_label(k.A, k.T)));
      d.plot.title = fmt::format("{}: simulated {} vs model, T = {}", name(algo),
                                 metric == "tas" ? "TAS" : "WAS", T);
      d.plot.xlabel = "N (threads)";
      d.plot.ylabel = metric == "tas" ? "TAS (steps)" : "WAS (steps)";
      d.plot.logy = true;
      s.figure(make_figure(fmt::format("sim_{}_{}_{}", name(algo), T, metric), d.plot,
                           "Points: simulation (mean and 95% CI); lines: the exact model under "
                           "the sequential assumption.",
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
        for (auto& [k, ds] : collect(rows, metric, "gpu"))
          if (k.T == T && k.A == A)
            d.add(std::move(ds), fmt::format("{} w={} (GPU)", name(k.algo), k.w));
        if (metric != "kernel_ms")
          for (auto& [k, ds] : collect(rows, metric == "was" ? "was_bound" : metric, "model"))
            if (k.T == T && k.A == A)
              d.add(std::move(ds), fmt::format("{} w={} ({})", name(k.algo), k.w,
                                               metric == "was" ? "bound Eq. 3/5" : "model"));
        s.figure(make_figure(
            fmt::format("fig7_{}_{}_{}", T, A, metric), d.plot,
            "Points: measured on the GPU (mean and 95% CI over trials); lines: the model.",
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
