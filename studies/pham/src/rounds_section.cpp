// The report's section "Parallel rounds model (not in the paper)": figures of the rounds model
// beside the sequential model, the lockstep simulation and the GPU, and a table of where and by
// how much they differ.
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

// (algo, T, A, w) -> source ("model|rounds", ...) -> metric -> N -> row
using Group = std::tuple<Algorithm, std::uint64_t, std::uint64_t, unsigned>;
using BySource =
    std::map<std::string, std::map<std::string, std::map<std::uint64_t, const TidyRow*>>>;

std::map<Group, BySource> group_rows(const std::vector<TidyRow>& rows) {
  std::map<Group, BySource> g;
  for (const auto& r : rows) {
    if (r.point.pages != 1 || !r.mean || !std::isfinite(*r.mean)) continue;
    // Rows of an algorithm without bitmap words carry the sweep's first w; its model ignores w.
    const unsigned w = caps(r.point.algo).bitmap_words ? r.point.w : 0u;
    g[{r.point.algo, r.point.T, r.point.A, w}][r.point.backend + "|" + r.point.mode][r.metric]
     [r.point.N] = &r;
  }
  return g;
}

const std::map<std::uint64_t, const TidyRow*>* series_of(const BySource& s, const std::string& src,
                                                         const std::string& metric) {
  auto a = s.find(src);
  if (a == s.end()) return nullptr;
  auto b = a->second.find(metric);
  return b == a->second.end() ? nullptr : &b->second;
}

Series to_series(const std::map<std::uint64_t, const TidyRow*>& rows, std::string title, bool lines,
                 std::vector<PointKey>& drawn) {
  Series s;
  s.title = std::move(title);
  s.lines = lines;
  for (const auto& [N, r] : rows) {
    s.x.push_back(static_cast<double>(N));
    s.y.push_back(*r->mean);
    if (!lines) s.yerr.push_back(r->ci95);
    drawn.push_back(r->point);
  }
  return s;
}

// The largest relative difference over N, and where.
struct Extreme {
  double value = 0;
  std::uint64_t N = 0;
  bool set = false;
  void take(double v, std::uint64_t n) {
    if (!set || std::fabs(v) > std::fabs(value)) {
      value = v;
      N = n;
      set = true;
    }
  }
  std::string text() const {
    return set ? fmt::format("{:+.3g}% (N={})", 100 * value, N) : std::string("-");
  }
};

}  // namespace

Section rounds_section(const std::vector<TidyRow>& rows) {
  Section sec("rounds", "Parallel rounds model (not in the paper)");
  const auto groups = group_rows(rows);
  bool any = false;
  // Only algorithms with model(rounds) rows appear: the section follows the data.
  for (const auto& [g, s] : groups) any = any || s.count("model|rounds");
  if (!any) return sec;

  sec.paragraph(
      "Paper 000 models one request at a time. On a GPU all threads probe at once: in each round "
      "every unfinished thread reads one random page (RW) or word (RW-BM) as it was at the start "
      "of the round; of k threads on one free page one wins, of k threads on a word with f free "
      "bits min(k, f) win, and the free count falls by the round's successes. This is exactly the "
      "simulator's lockstep mode. alloclab's rounds model (`alloclab model --schedule rounds`) "
      "computes its TAS, its WAS over thread-id warps (exactly, from P(warp done | m unfinished) "
      "= C(N-L, m)/C(N, m), no independence assumption between lanes) and its number of rounds: "
      "RW by an exact Markov chain over the number m of unfinished threads for N <= 512, RW-BM on "
      "tiny pools by an exact chain over word profiles, and otherwise by a mean-field recursion of "
      "the expected state (for RW-BM the whole word profile, so the clumping that breaks Eq. (4) "
      "is modelled) with a variance correction, followed by a chain over the last 256 threads "
      "(exact for RW; binomial successes for RW-BM). The sequential model's WAS uses warps in "
      "service order (the paper's setting), the rounds model's thread-id warps (the hardware's), "
      "so the WAS columns differ by both the schedule and the warp definition. TAS does not depend "
      "on the schedule: taken in priority order, each probe of a round succeeds iff its page "
      "(word) is still free when its claim comes, as one at a time, so the total probe count has "
      "the same law. RW's rounds TAS is T/N (H_A - H_{A-N}); RW-BM's is the sequential "
      "simulation's, and its excess over Eq. (4) in the table below is the clumping erratum.");

  // Figures: per algorithm and metric, at the T with the most lockstep rows, the two smallest
  // free fractions (where the schedules differ most), word-based algorithms at their smallest w.
  std::map<std::pair<Algorithm, std::uint64_t>, std::size_t> lock_count;
  std::map<std::pair<Algorithm, std::uint64_t>, std::set<std::uint64_t>> As;
  std::map<Algorithm, unsigned> min_w;
  std::set<Algorithm> algos;
  for (const auto& [g, s] : groups) {
    const auto& [algo, T, A, w] = g;
    if (!s.count("model|rounds")) continue;
    algos.insert(algo);
    As[{algo, T}].insert(A);
    if (auto* l = series_of(s, "sim|lockstep", "tas")) lock_count[{algo, T}] += l->size();
    min_w[algo] = min_w.count(algo) ? std::min(min_w[algo], w) : w;
  }
  for (const Algorithm algo : algos) {
    std::uint64_t bestT = 0;
    std::size_t best = 0;
    for (const auto& [key, a] : As)
      if (key.first == algo && (bestT == 0 || lock_count[key] > best)) {
        bestT = key.second;
        best = lock_count[key];
      }
    if (bestT == 0) continue;
    const unsigned w = min_w[algo];
    std::vector<std::uint64_t> chosen(As[{algo, bestT}].begin(), As[{algo, bestT}].end());
    if (chosen.size() > 2) chosen.resize(2);
    for (const std::string metric : {"tas", "was"}) {
      PlotSpec p;
      p.title = fmt::format("{}{}: {} in parallel rounds vs one at a time, T = {}", name(algo),
                            w ? fmt::format(" (w = {})", w) : std::string(),
                            metric == "tas" ? "TAS" : "WAS", bestT);
      p.xlabel = "N (threads)";
      p.ylabel = metric == "tas" ? "TAS (steps per thread)" : "WAS (steps per warp)";
      p.logx = p.logy = true;
      std::vector<PointKey> drawn;
      for (std::uint64_t A : chosen) {
        const auto it = groups.find({algo, bestT, A, w});
        if (it == groups.end()) continue;
        const std::string f = fraction_label(A, bestT);
        if (auto* s = series_of(it->second, "model|rounds", metric))
          p.series.push_back(to_series(*s, "rounds model, A/T=" + f, true, drawn));
        if (auto* s = series_of(it->second, "model|sequential", metric))
          p.series.push_back(to_series(*s, "sequential model, A/T=" + f, true, drawn));
        if (auto* s = series_of(it->second, "sim|lockstep", metric))
          p.series.push_back(to_series(*s, "sim lockstep, A/T=" + f, false, drawn));
        if (auto* s = series_of(it->second, "gpu|", metric))
          p.series.push_back(to_series(*s, "GPU, A/T=" + f, false, drawn));
      }
      sec.figure(make_figure(
          fmt::format("rounds_{}_{}_{}", name(algo), bestT, metric), p,
          "Lines: the rounds model and the paper's sequential model (WAS: service-order warps); "
          "points: lockstep simulation and GPU (mean and 95% CI).",
          std::move(drawn)));
    }
  }

  // The table: per (algo, T, A, w), the largest differences over N.
  sec.paragraph(
      "Where the models differ: the largest relative difference over N at each (algo, T, A/T, "
      "w). rounds/seq: (rounds model - sequential model)/sequential model. lockstep and GPU: "
      "(observed - rounds model)/rounds model; |z| is the largest |mean - model|/(sd/sqrt n) of "
      "the lockstep simulation.");
  Table t({"algo", "T", "A/T", "w", "TAS rounds/seq", "WAS rounds/seq", "TAS lockstep",
           "WAS lockstep", "max |z|", "TAS GPU", "WAS GPU"},
          {Align::left});
  for (const auto& [g, s] : groups) {
    const auto& [algo, T, A, w] = g;
    if (!s.count("model|rounds")) continue;
    Extreme seq[2], lock[2], gpu[2];
    double max_z = -1;
    for (int k = 0; k < 2; ++k) {
      const std::string metric = k == 0 ? "tas" : "was";
      const auto* model = series_of(s, "model|rounds", metric);
      if (!model) continue;
      const auto* sq = series_of(s, "model|sequential", metric);
      const auto* lk = series_of(s, "sim|lockstep", metric);
      const auto* gp = series_of(s, "gpu|", metric);
      for (const auto& [N, r] : *model) {
        const double ref = *r->mean;
        if (sq && sq->count(N)) {
          const double sv = *sq->at(N)->mean;
          seq[k].take((ref - sv) / sv, N);
        }
        if (lk && lk->count(N)) {
          const TidyRow& o = *lk->at(N);
          lock[k].take((*o.mean - ref) / ref, N);
          if (o.n > 1 && o.sd > 0)
            max_z = std::max(
                max_z, std::fabs(*o.mean - ref) / (o.sd / std::sqrt(static_cast<double>(o.n))));
        }
        if (gp && gp->count(N)) gpu[k].take((*gp->at(N)->mean - ref) / ref, N);
      }
    }
    t.add_row({std::string(name(algo)), fmt::format("{}", T), fraction_label(A, T),
               w ? fmt::format("{}", w) : std::string("-"), seq[0].text(), seq[1].text(),
               lock[0].text(), lock[1].text(), max_z >= 0 ? fmt::format("{:.2f}", max_z) : "-",
               gpu[0].text(), gpu[1].text()});
  }
  sec.table(std::move(t));
  return sec;
}

}  // namespace alloclab::render
