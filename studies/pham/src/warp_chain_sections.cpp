// The report's sections on the warp-chain models of CoRW and RW_malloc
// (model/include/alloclab/model/warp_chains.hpp): figures of the chain against simulation and a
// table of their relative differences per (w, A/T, mode, metric).
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

struct Key {  // a curve: one (T, A, w, pages)
  std::uint64_t T, A;
  unsigned w, pages;
  bool operator<(const Key& o) const {
    return std::tie(T, A, w, pages) < std::tie(o.T, o.A, o.w, o.pages);
  }
};

class ChainSection {
 public:
  ChainSection(const std::vector<TidyRow>& rows, Algorithm algo, Section& out)
      : rows_(rows), algo_(algo), out_(out) {}

  bool has_model() const {
    return std::any_of(rows_.begin(), rows_.end(), [&](const TidyRow& r) {
      return r.point.algo == algo_ && r.point.backend == "model";
    });
  }

  // The model's row per (key, N) of a metric.
  std::map<std::pair<Key, std::uint64_t>, const TidyRow*> model(const std::string& metric) const {
    std::map<std::pair<Key, std::uint64_t>, const TidyRow*> out;
    for (const auto& r : rows_)
      if (r.point.algo == algo_ && r.point.backend == "model" && r.metric == metric && r.mean &&
          std::isfinite(*r.mean))
        out[{{r.point.T, r.point.A, r.point.w, r.point.pages}, r.point.N}] = &r;
    return out;
  }

  // Model lines and simulation points of `metric` vs N, one plot per (T, w, pages).
  void model_vs_sim_plots(const std::string& metric, const std::string& label) {
    const auto mod = model(metric);
    using PlotKey = std::tuple<std::uint64_t, unsigned, unsigned>;
    std::map<std::tuple<std::uint64_t, unsigned, unsigned, std::uint64_t, std::string>, Series>
        curves;
    std::map<PlotKey, std::vector<PointKey>> drawn;
    for (const auto& [k, r] : mod) {
      auto& s = curves[{k.first.T, k.first.w, k.first.pages, k.first.A, "model"}];
      s.title = "model A/T=" + fraction_label(k.first.A, k.first.T);
      s.x.push_back(static_cast<double>(k.second));
      s.y.push_back(*r->mean);
      drawn[{k.first.T, k.first.w, k.first.pages}].push_back(r->point);
    }
    for (const auto& r : rows_)
      if (r.point.algo == algo_ && r.point.backend == "sim" && r.metric == metric && r.mean &&
          std::isfinite(*r.mean) &&
          mod.count({{r.point.T, r.point.A, r.point.w, r.point.pages}, r.point.N})) {
        auto& s = curves[{r.point.T, r.point.w, r.point.pages, r.point.A, r.point.mode}];
        s.title = "sim " + r.point.mode + " A/T=" + fraction_label(r.point.A, r.point.T);
        s.lines = false;
        s.x.push_back(static_cast<double>(r.point.N));
        s.y.push_back(*r.mean);
        s.yerr.push_back(r.ci95);
        drawn[{r.point.T, r.point.w, r.point.pages}].push_back(r.point);
      }
    // One colour per free fraction (A/T) within a plot, so that a model curve and the
    // simulation points it predicts match; sequential points filled, lockstep points open.
    std::map<PlotKey, std::set<std::uint64_t>> fractions;
    for (const auto& [k, s] : curves)
      fractions[{std::get<0>(k), std::get<1>(k), std::get<2>(k)}].insert(std::get<3>(k));
    std::map<PlotKey, PlotSpec> plots;
    for (auto& [k, s] : curves) {
      const PlotKey pk{std::get<0>(k), std::get<1>(k), std::get<2>(k)};
      const auto& fr = fractions[pk];
      s.colour = 1 + static_cast<int>(std::distance(fr.begin(), fr.find(std::get<3>(k))));
      if (std::get<4>(k) == "lockstep") s.point_type = 6;
      plots[pk].series.push_back(s);
    }
    for (auto& [k, p] : plots) {
      const auto [T, w, pages] = k;
      p.title = fmt::format(
          "{} {}: chain model vs simulation, T = {}, w = {}{}", name(algo_), label, T, w,
          caps(algo_).requests == RequestKind::pages ? fmt::format(", n = {}", pages) : "");
      p.xlabel = "N (threads)";
      p.ylabel = label;
      p.logx = true;
      out_.figure(make_figure(
          fmt::format("{}_chain_{}_{}_{}_{}", name(algo_), metric, T, w, pages), p,
          "Lines: the warp chain (sequential schedule); points: simulation, mean and 95% CI.",
          std::move(drawn[k])));
    }
  }

  // Relative differences (sim - model)/model, summarised per (T, w, pages, A, mode, metric).
  void difference_table() {
    struct Acc {
      std::size_t n = 0;
      double max_abs = 0, at_N = 0, signed_at = 0, max_z = 0;
    };
    std::map<std::tuple<std::uint64_t, unsigned, unsigned, std::uint64_t, std::string, std::string>,
             Acc>
        acc;
    for (const std::string metric : {"tas", "was"}) {
      const auto mod = model(metric);
      for (const auto& r : rows_) {
        if (r.point.algo != algo_ || r.point.backend != "sim" || r.metric != metric || !r.mean)
          continue;
        auto it = mod.find({{r.point.T, r.point.A, r.point.w, r.point.pages}, r.point.N});
        if (it == mod.end()) continue;
        const double m = *it->second->mean;
        const double rel = (*r.mean - m) / m;
        const double se = r.n > 1 ? r.sd / std::sqrt(static_cast<double>(r.n)) : 0;
        auto& a = acc[{r.point.T, r.point.w, r.point.pages, r.point.A, r.point.mode, metric}];
        ++a.n;
        if (se > 0) a.max_z = std::max(a.max_z, std::fabs(*r.mean - m) / se);
        if (std::fabs(rel) >= a.max_abs) {
          a.max_abs = std::fabs(rel);
          a.signed_at = rel;
          a.at_N = static_cast<double>(r.point.N);
        }
      }
    }
    Table t({"T", "w", "n", "A/T", "sim mode", "metric", "points", "largest (sim-model)/model",
             "at N", "largest |z|"},
            {Align::right, Align::right, Align::right, Align::right, Align::left, Align::left});
    for (const auto& [k, a] : acc) {
      const auto& [T, w, pages, A, mode, metric] = k;
      t.add_row({fmt::format("{}", T), fmt::format("{}", w), fmt::format("{}", pages),
                 fraction_label(A, T), mode, metric, fmt::format("{}", a.n),
                 fmt::format("{:+.3f}%", 100 * a.signed_at), fmt::format("{:.0f}", a.at_N),
                 fmt::format("{:.1f}", a.max_z)});
    }
    out_.table(std::move(t));
  }

  // Model quantities (no simulation counterpart) as lines over `pages` at one (T, N, w).
  void over_pages_plot(const std::vector<std::string>& metrics, const std::string& id,
                       const std::string& title, const std::string& ylabel,
                       const std::string& caption, bool logy) {
    std::map<std::tuple<std::string, unsigned, std::uint64_t>, Series> curves;  // (metric, w, A)
    std::vector<PointKey> drawn;
    std::uint64_t T0 = 0, N0 = 0;
    for (const auto& r : rows_)
      if (r.point.algo == algo_ && r.point.backend == "model" && r.mean && std::isfinite(*r.mean) &&
          std::find(metrics.begin(), metrics.end(), r.metric) != metrics.end()) {
        if (!T0) T0 = r.point.T, N0 = r.point.N;
        if (r.point.T != T0 || r.point.N != N0) continue;
        if (logy && *r.mean <= 0) continue;
        auto& s = curves[{r.metric, r.point.w, r.point.A}];
        s.title = fmt::format("{} w={} A/T={}", r.metric, r.point.w,
                              fraction_label(r.point.A, r.point.T));
        s.x.push_back(r.point.pages);
        s.y.push_back(*r.mean);
        drawn.push_back(r.point);
      }
    PlotSpec p;
    p.title = fmt::format("{} (T = {}, N = {})", title, T0, N0);
    p.xlabel = "n (pages per request)";
    p.ylabel = ylabel;
    p.logy = logy;
    for (auto& [k, s] : curves) {
      if (s.x.size() < 2) continue;
      std::vector<std::size_t> idx(s.x.size());
      for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
      std::sort(idx.begin(), idx.end(), [&](auto a, auto b) { return s.x[a] < s.x[b]; });
      Series t = s;
      for (std::size_t i = 0; i < idx.size(); ++i) t.x[i] = s.x[idx[i]], t.y[i] = s.y[idx[i]];
      p.series.push_back(t);
    }
    out_.figure(make_figure(id, p, caption, std::move(drawn)));
  }

 private:
  const std::vector<TidyRow>& rows_;
  Algorithm algo_;
  Section& out_;
};

}  // namespace

std::vector<Section> warp_chain_sections(const std::vector<TidyRow>& rows) {
  std::vector<Section> out;
  {
    Section s("corw-chain", "CoRW: the warp chain (a model the paper lacks)");
    ChainSection corw(rows, Algorithm::corw, s);
    if (corw.has_model()) {
      s.paragraph(
          "Paper 000 gives CoRW no model beyond 'TAS = WAS'. Here a warp's lanes still in need "
          "form an absorbing Markov chain: each round every lane reads a fresh random word, the "
          "free bits F in the distinct words read (hypergeometric over the pool, the number of "
          "distinct words from the occupancy law) serve min(need, F) lanes, and the free count "
          "falls by one per lane served; the chain is solved exactly with Eigen "
          "(model/src/warp_chains.cpp). Warps are served one at a time in a random order (the "
          "simulator's sequential mode): a warp served after j others sees A - 32j free pages, "
          "averaged exactly over positions (the partial last warp included). was = mean over "
          "warps of E[rounds]; tas = mean over lanes of the round in which the lane is served, "
          "which is below was: the paper's 'TAS = WAS' holds for the warp, not for its lanes. "
          "Approximations: the free pages are redrawn uniformly every round (the first-free-bit "
          "order actually leaves them clumped), and no other warp takes a bit in between (exact "
          "for the sequential schedule once lanes retry lost bits within the round). The "
          "lockstep simulation, where all warps read at the start of the same round, is shown "
          "for contrast.");
      corw.model_vs_sim_plots("was", "WAS (rounds per warp)");
      corw.model_vs_sim_plots("tas", "TAS (mean round a lane is served)");
      corw.difference_table();
      out.push_back(std::move(s));
    }
  }
  {
    Section s("rwmalloc-chain",
              "RW_malloc: runs, rounds and utilisation (a model the paper lacks)");
    ChainSection rwm(rows, Algorithm::rwmalloc, s);
    if (rwm.has_model()) {
      s.paragraph(
          "A request wants n consecutive free pages. p_word = P(a word of the pool holds a run "
          "of >= n free bits), exact by a DP over bit positions (hypergeometric number of free "
          "bits per word); p_window = P(the warp's window of L consecutive words holds one), with "
          "runs joined across words (the simulator, as §4.3's text says) or kept inside a word "
          "(suffix _in_word: the GPU kernel, Algorithm 3 as written, n <= w). A round's capacity "
          "is the sum over the window's free runs of floor(run/n) (a DP over the window's bits, "
          "pages free independently with the warp's starting free fraction), and the warp chain "
          "gives the expected rounds as for CoRW. utilisation_in_word is Figure 11's setting (an "
          "empty pool, n-page requests until one fails): every word is packed from bit 0 and "
          "keeps w mod n pages it cannot hand out, so the utilisation is n floor(w/n)/w; joined "
          "runs do better (measured by simulation, not modelled). Approximation: taking runs "
          "depletes long runs first, which the chain (free pages redrawn independently every "
          "round) ignores, so it underestimates the rounds when a sizeable part of the free "
          "pages is taken.");
      rwm.over_pages_plot({"p_word", "p_window", "p_window_in_word"}, "rwmalloc_run_probability",
                          "RW_malloc: P(a run of n free pages) in a word and in a warp's window",
                          "probability", "Model (exact DP over bit positions).", true);
      rwm.over_pages_plot(
          {"utilisation_in_word"}, "rwmalloc_utilisation",
          "RW_malloc: utilisation at exhaustion, runs inside a word (Figure 11's setting)",
          "pages in use / T", "n floor(w/n)/w: the pool is empty at the start.", false);
      rwm.model_vs_sim_plots("was", "WAS (rounds per warp)");
      rwm.difference_table();
      out.push_back(std::move(s));
    }
  }
  return out;
}

}  // namespace alloclab::render
