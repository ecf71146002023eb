#include "alloclab/validation/warp_models.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <tuple>

#include "alloclab/model/warp_chains.hpp"
#include "alloclab/validation/plot.hpp"

namespace alloclab::validation {

std::optional<WarpChainJudgement> judge_warp_chain_departure(const Verdict& v,
                                                             const std::string& threshold) {
  if (v.point.algo != "corw" && v.point.algo != "rwmalloc") return std::nullopt;
  const std::string size = fmt::format("{:+.2f}% vs the warp chain (|z| = {:.2f} > {})",
                                       100 * v.relative_error, std::fabs(v.z), threshold);
  // CoRW: two lanes of a warp that read the same word offer its bits twice in the Figure 5
  // plan; the second lane's in-round retry finds only what the word has left, so such a round
  // can serve fewer than min(need, F) lanes (the chain counts distinct words' bits). At most one
  // extra round per warp-round with a repeated word bounds the excess.
  if (v.point.algo == "corw" && v.observed > v.reference) {
    const double W = std::ceil(static_cast<double>(v.point.T) / v.point.w);
    double distinct = 1;  // P(the lanes' words are all different)
    for (unsigned i = 1; i < v.point.lanes; ++i) distinct *= 1 - i / W;
    if (v.relative_error <= 1 - distinct)
      return WarpChainJudgement{
          Outcome::expected_departure,
          size + fmt::format(": within the {:.2f}% of rounds in which two lanes read the same "
                             "word; the chain counts its free bits once, while the Figure 5 "
                             "plan offers them to two lanes and the in-round retry of the "
                             "second finds only what is left",
                             100 * (1 - distinct))};
  }
  // RW_malloc: the chain redraws free pages independently every round, so runs never run out;
  // in the pool they do. The pool's initial supply of n-page pieces (sum over its free runs of
  // floor(run/n), from the same DP over window-sized blocks) bounds how many requests can be
  // served before runs are depleted; past a tenth of it the chain is not expected to hold
  // (standard grid, n = 2, A/T = 10%: +9% at 22% of the supply, +110% at 90%).
  if (v.point.algo == "rwmalloc" && v.observed > v.reference) {
    const unsigned bits = v.point.lanes * v.point.w;
    const unsigned cmax = bits / v.point.pages + 1;
    const auto pmf = model::window_capacity_pmf(
        v.point.lanes, v.point.w, v.point.pages,
        static_cast<double>(v.point.A) / static_cast<double>(v.point.T), true, cmax);
    double mean = 0;
    for (unsigned c = 0; c < pmf.size(); ++c) mean += c * pmf[c];
    const double pieces = mean * static_cast<double>(v.point.T) / bits;
    const double share = static_cast<double>(v.point.N) / pieces;
    if (share >= 0.1)
      return WarpChainJudgement{
          Outcome::expected_departure,
          size + fmt::format(": run depletion: the requests ask for {:.0f}% of the about {:.0f} "
                             "pieces of {} free pages the pool holds at the start; taking them "
                             "leaves short runs, which the chain (free pages redrawn "
                             "independently every round) does not see",
                             100 * share, pieces, v.point.pages)};
  }
  const double taken_share = static_cast<double>(v.point.N) * v.point.pages /
                             static_cast<double>(std::max<std::uint64_t>(v.point.A, 1));
  if (v.observed > v.reference && v.relative_error <= kWarpChainTolerance &&
      taken_share >= kWarpChainDepletion)
    return WarpChainJudgement{
        Outcome::expected_departure,
        size +
            ": within the chain's stated approximation, in its direction: the chain redraws "
            "the free pages uniformly every round, while taking the first free bits of the "
            "words read leaves the rest clumped in fewer words (as RW-BM's Eq. 4 erratum)"};
  return WarpChainJudgement{Outcome::fail, size + ": beyond the chain's approximation"};
}

namespace {

std::string esc(const std::string& s) {
  std::string o;
  for (char c : s)
    o += c == '<'   ? std::string("&lt;")
         : c == '>' ? "&gt;"
         : c == '&' ? "&amp;"
                    : std::string(1, c);
  return o;
}

std::string pct(std::uint64_t A, std::uint64_t T) {
  return fmt::format("{:.3g}%", 100.0 * static_cast<double>(A) / static_cast<double>(T));
}

struct Key {  // a curve: one (T, A, w, pages)
  std::uint64_t T, A;
  unsigned w, pages;
  bool operator<(const Key& o) const {
    return std::tie(T, A, w, pages) < std::tie(o.T, o.A, o.w, o.pages);
  }
};

class Section {
 public:
  Section(const std::vector<TidyRow>& rows, std::string algo, std::string dir, std::ostream& html,
          std::ostream& md)
      : rows_(rows), algo_(std::move(algo)), dir_(std::move(dir)), html_(html), md_(md) {}

  bool has_model() const {
    return std::any_of(rows_.begin(), rows_.end(), [&](const TidyRow& r) {
      return r.point.algo == algo_ && r.point.backend == "model";
    });
  }

  void heading(const std::string& title, const std::string& text) {
    html_ << "<h2>" << esc(title) << "</h2>\n<p>" << esc(text) << "</p>\n";
    md_ << "\n## " << title << "\n\n" << text << "\n\n";
  }

  void figure(const std::string& id, const PlotSpec& p, const std::string& caption) {
    if (p.series.empty()) return;
    const std::string svg = render_svg(p);
    std::filesystem::create_directories(dir_);
    std::ofstream(std::filesystem::path(dir_) / (id + ".svg")) << svg;
    html_ << "<figure id=\"" << id << "\">" << svg << "\n<figcaption>"
          << esc(p.title + ". " + caption) << "</figcaption></figure>\n";
    md_ << "- `" << id << "`: " << p.title << ". " << caption << "\n";
  }

  // model value per (key, N) of a metric
  std::map<std::pair<Key, std::uint64_t>, double> model(const std::string& metric) const {
    std::map<std::pair<Key, std::uint64_t>, double> out;
    for (const auto& r : rows_)
      if (r.point.algo == algo_ && r.point.backend == "model" && r.metric == metric && r.mean &&
          std::isfinite(*r.mean))
        out[{{r.point.T, r.point.A, r.point.w, r.point.pages}, r.point.N}] = *r.mean;
    return out;
  }

  // Model lines and sequential-simulation points of `metric` vs N, one plot per (T, w, pages).
  void model_vs_sim_plots(const std::string& metric, const std::string& label) {
    const auto mod = model(metric);
    std::map<std::tuple<std::uint64_t, unsigned, unsigned>, PlotSpec> plots;
    std::map<std::tuple<std::uint64_t, unsigned, unsigned, std::uint64_t, std::string>, Series>
        curves;
    for (const auto& [k, v] : mod) {
      auto& s = curves[{k.first.T, k.first.w, k.first.pages, k.first.A, "model"}];
      s.title = "model A/T=" + pct(k.first.A, k.first.T);
      s.x.push_back(static_cast<double>(k.second));
      s.y.push_back(v);
    }
    for (const auto& r : rows_)
      if (r.point.algo == algo_ && r.point.backend == "sim" && r.metric == metric && r.mean &&
          std::isfinite(*r.mean) &&
          mod.count({{r.point.T, r.point.A, r.point.w, r.point.pages}, r.point.N})) {
        auto& s = curves[{r.point.T, r.point.w, r.point.pages, r.point.A, r.point.mode}];
        s.title = "sim " + r.point.mode + " A/T=" + pct(r.point.A, r.point.T);
        s.lines = false;
        s.x.push_back(static_cast<double>(r.point.N));
        s.y.push_back(*r.mean);
        s.yerr.push_back(r.ci95);
      }
    // One colour per free fraction (A/T) within a plot, so that a model curve and the
    // simulation points it predicts match; sequential points filled, lockstep points open.
    std::map<std::tuple<std::uint64_t, unsigned, unsigned>, std::set<std::uint64_t>> fractions;
    for (const auto& [k, s] : curves)
      fractions[{std::get<0>(k), std::get<1>(k), std::get<2>(k)}].insert(std::get<3>(k));
    for (auto& [k, s] : curves) {
      const auto pk = std::make_tuple(std::get<0>(k), std::get<1>(k), std::get<2>(k));
      const auto& fr = fractions[pk];
      s.colour = 1 + static_cast<int>(std::distance(fr.begin(), fr.find(std::get<3>(k))));
      if (std::get<4>(k) == "lockstep") s.point_type = 6;
      plots[pk].series.push_back(s);
    }
    for (auto& [k, p] : plots) {
      const auto [T, w, pages] = k;
      p.title = fmt::format("{} {}: chain model vs simulation, T = {}, w = {}{}", algo_, label, T,
                            w, algo_ == "rwmalloc" ? fmt::format(", n = {}", pages) : "");
      p.xlabel = "N (threads)";
      p.ylabel = label;
      p.logx = true;
      figure(fmt::format("{}_chain_{}_{}_{}_{}", algo_, metric, T, w, pages), p,
             "Lines: the warp chain (sequential schedule); points: simulation, mean and 95% CI.");
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
        const double rel = (*r.mean - it->second) / it->second;
        const double se = r.n > 1 ? r.sd / std::sqrt(static_cast<double>(r.n)) : 0;
        auto& a = acc[{r.point.T, r.point.w, r.point.pages, r.point.A, r.point.mode, metric}];
        ++a.n;
        if (se > 0) a.max_z = std::max(a.max_z, std::fabs(*r.mean - it->second) / se);
        if (std::fabs(rel) >= a.max_abs) {
          a.max_abs = std::fabs(rel);
          a.signed_at = rel;
          a.at_N = static_cast<double>(r.point.N);
        }
      }
    }
    if (acc.empty()) return;
    html_ << "<table><tr><th>T</th><th>w</th><th>n</th><th>A/T</th><th>sim mode</th><th>metric</th>"
             "<th>points</th><th>largest (sim-model)/model</th><th>at N</th><th>largest "
             "|z|</th></tr>\n";
    md_ << "| T | w | n | A/T | sim mode | metric | points | largest (sim-model)/model | at N | "
           "largest abs z |\n"
           "|---|---|---|---|---|---|---|---|---|---|\n";
    for (const auto& [k, a] : acc) {
      const auto& [T, w, pages, A, mode, metric] = k;
      const std::string row =
          fmt::format("{}|{}|{}|{}|{}|{}|{}|{:+.3f}%|{:.0f}|{:.1f}", T, w, pages, pct(A, T), mode,
                      metric, a.n, 100 * a.signed_at, a.at_N, a.max_z);
      html_ << "<tr><td>";
      for (char c : row) html_ << (c == '|' ? std::string("</td><td>") : std::string(1, c));
      html_ << "</td></tr>\n";
      md_ << "| " << row << " |\n";
    }
    html_ << "</table>\n";
    md_ << "\n";
  }

  // Model quantities (no simulation counterpart) as lines over `pages` at one (T, N, w).
  void over_pages_plot(const std::vector<std::string>& metrics, const std::string& id,
                       const std::string& title, const std::string& ylabel,
                       const std::string& caption, bool logy) {
    std::map<std::tuple<std::string, unsigned, std::uint64_t>, Series> curves;  // (metric, w, A)
    std::uint64_t T0 = 0, N0 = 0;
    for (const auto& r : rows_)
      if (r.point.algo == algo_ && r.point.backend == "model" && r.mean && std::isfinite(*r.mean) &&
          std::find(metrics.begin(), metrics.end(), r.metric) != metrics.end()) {
        if (!T0) T0 = r.point.T, N0 = r.point.N;
        if (r.point.T != T0 || r.point.N != N0) continue;
        if (logy && *r.mean <= 0) continue;
        auto& s = curves[{r.metric, r.point.w, r.point.A}];
        s.title = fmt::format("{} w={} A/T={}", r.metric, r.point.w, pct(r.point.A, r.point.T));
        s.x.push_back(r.point.pages);
        s.y.push_back(*r.mean);
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
    figure(id, p, caption);
  }

 private:
  const std::vector<TidyRow>& rows_;
  std::string algo_, dir_;
  std::ostream& html_;
  std::ostream& md_;
};

}  // namespace

void write_warp_model_sections(const std::vector<TidyRow>& rows, const std::string& figures_dir,
                               std::ostream& html, std::ostream& md) {
  Section corw(rows, "corw", figures_dir, html, md);
  if (corw.has_model()) {
    corw.heading(
        "CoRW: the warp chain (a model the paper lacks)",
        "Paper 000 gives CoRW no model beyond 'TAS = WAS'. Here a warp's lanes still in need form "
        "an absorbing Markov chain: each round every lane reads a fresh random word, the free "
        "bits F in the distinct words read (hypergeometric over the pool, the number of distinct "
        "words from the occupancy law) serve min(need, F) lanes, and the free count falls by one "
        "per lane served; the chain is solved exactly with Eigen (model/src/warp_chains.cpp). "
        "Warps are served one at a time in a random order (the simulator's sequential mode): a "
        "warp served after j others sees A - 32j free pages, averaged exactly over positions "
        "(the partial last warp included). was = mean over warps of E[rounds]; tas = mean over "
        "lanes of the round in which the lane is served, which is below was: the paper's 'TAS = "
        "WAS' holds for the warp, not for its lanes. Approximations: the free pages are redrawn "
        "uniformly every round (the first-free-bit order actually leaves them clumped), and no "
        "other warp takes a bit in between (exact for the sequential schedule once lanes retry "
        "lost bits within the round). The lockstep simulation, where all warps read at the start "
        "of the same round, is shown for contrast.");
    corw.model_vs_sim_plots("was", "WAS (rounds per warp)");
    corw.model_vs_sim_plots("tas", "TAS (mean round a lane is served)");
    corw.difference_table();
  }
  Section rwm(rows, "rwmalloc", figures_dir, html, md);
  if (rwm.has_model()) {
    rwm.heading(
        "RW_malloc: runs, rounds and utilisation (a model the paper lacks)",
        "A request wants n consecutive free pages. p_word = P(a word of the pool holds a run of >= "
        "n free bits), exact by a DP over bit positions (hypergeometric number of free bits per "
        "word); p_window = P(the warp's window of L consecutive words holds one), with runs "
        "joined across words (the simulator, as §4.3's text says) or kept inside a word (suffix "
        "_in_word: the GPU kernel, Algorithm 3 as written, n <= w). A round's capacity is the sum "
        "over the window's free runs of floor(run/n) (a DP over the window's bits, pages free "
        "independently with the warp's starting free fraction), and the warp chain gives the "
        "expected rounds as for CoRW. utilisation_in_word is Figure 11's setting (an empty pool, "
        "n-page requests until one fails): every word is packed from bit 0 and keeps w mod n "
        "pages it cannot hand out, so the utilisation is n floor(w/n)/w; joined runs do better "
        "(measured by simulation, not modelled). Approximation: taking runs depletes long runs "
        "first, which the chain (free pages redrawn independently every round) ignores, so it "
        "underestimates the rounds when a sizeable part of the free pages is taken.");
    rwm.over_pages_plot({"p_word", "p_window", "p_window_in_word"}, "rwmalloc_run_probability",
                        "RW_malloc: P(a run of n free pages) in a word and in a warp's window",
                        "probability", "Model (exact DP over bit positions).", true);
    rwm.over_pages_plot(
        {"utilisation_in_word"}, "rwmalloc_utilisation",
        "RW_malloc: utilisation at exhaustion, runs inside a word (Figure 11's setting)",
        "pages in use / T", "n floor(w/n)/w: the pool is empty at the start.", false);
    rwm.model_vs_sim_plots("was", "WAS (rounds per warp)");
    rwm.difference_table();
  }
}

}  // namespace alloclab::validation
