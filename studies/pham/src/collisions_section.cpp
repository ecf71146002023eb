// The report's "Collisions (not in the paper)" section: the parallel-rounds collision model
// (model/collisions.hpp) against lockstep simulation and GPU counts, and RW-BM's bit choices
// (core/bit_choice.hpp) side by side, from whatever collision rows a sweep directory holds.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "alloclab/model/collisions.hpp"
#include "alloclab/render/text.hpp"
#include "alloclab/studies/pham_sections.hpp"

namespace alloclab::render {
namespace {

using validation::PointKey;
using validation::TidyRow;

constexpr BitChoice kChoices[] = {BitChoice::lowest, BitChoice::random, BitChoice::rotated};

// The collision model covers RW (pages) and RW-BM (words, per bit choice).
bool collisions_modelled(Algorithm a) {
  return a == Algorithm::rw || a == Algorithm::rwbm;
}

struct Point {
  Algorithm algo;
  std::uint64_t T, w, A, N;
  auto tie() const { return std::tie(algo, T, w, A, N); }
  bool operator<(const Point& o) const { return tie() < o.tie(); }
};

// "sim lockstep", "sim threads", "gpu"
std::string source_name(const PointKey& p) {
  return p.mode.empty() ? p.backend : p.backend + " " + p.mode;
}

struct Measured {
  double mean, ci95;
  PointKey point;
};

// point -> bit choice -> source -> measured collisions
using CollisionRows = std::map<Point, std::map<BitChoice, std::map<std::string, Measured>>>;

CollisionRows collect(const std::vector<TidyRow>& rows) {
  CollisionRows t;
  for (const auto& r : rows) {
    if (r.metric != "collisions" || !r.mean) continue;
    if (!collisions_modelled(r.point.algo)) continue;
    if (r.point.backend == "model") continue;
    if (r.point.backend == "sim" && r.point.mode == "sequential") continue;  // 0 by construction
    const auto& p = r.point;
    const std::uint64_t w = caps(p.algo).bitmap_words ? p.w : 1;
    t[{p.algo, p.T, w, p.A, p.N}][p.bit_choice][source_name(p)] = {*r.mean, r.ci95, p};
  }
  return t;
}

struct ModelValues {
  double lockstep = NAN, synchronous = NAN;
};

ModelValues model_at(const Point& p, BitChoice c) {
  ModelValues v;
  try {
    if (p.algo == Algorithm::rw) {
      v.lockstep = v.synchronous = model::rw_collisions_rounds(p.N, p.A, p.T).collisions;
    } else {
      Scenario s;
      s.algo = p.algo;
      s.N = p.N;
      s.A = p.A;
      s.T = p.T;
      s.w = static_cast<unsigned>(p.w);
      s.bit_choice = c;
      v.lockstep = model::rwbm_collisions_rounds(s, model::RetryRule::lockstep)->collisions;
      if (auto sync = model::rwbm_collisions_rounds(s, model::RetryRule::synchronous))
        v.synchronous = sync->collisions;
    }
  } catch (const std::exception&) {
  }
  return v;
}

double birthday_bound(const Point& p) {  // the paper's N(N-1)/(2T) * A/T (collisions_bound)
  const double N = static_cast<double>(p.N), T = static_cast<double>(p.T);
  return N * (N - 1) / (2 * T) * static_cast<double>(p.A) / T;
}

std::string num(double x) {
  if (!std::isfinite(x)) return "-";
  return fmt::format("{:.4g}", x);
}

void push_log_point(Series& s, double x, double y, std::optional<double> err = std::nullopt) {
  if (!(y > 0) || !std::isfinite(y)) return;  // log scale
  s.x.push_back(x);
  s.y.push_back(y);
  if (err) s.yerr.push_back(*err);
}

// A plot whose series are found by title, and the rows it draws.
struct CollisionDrawing {
  PlotSpec plot;
  std::vector<PointKey> rows;
  Series& series(const std::string& title, bool lines) {
    for (auto& s : plot.series)
      if (s.title == title) return s;
    plot.series.push_back({});
    plot.series.back().title = title;
    plot.series.back().lines = lines;
    return plot.series.back();
  }
};

// Part 1: lowest bit, model vs lockstep vs GPU.
void model_vs_measured(const CollisionRows& t, Section& sec) {
  Table table({"algo", "T", "w", "A/T", "N", "paper bound", "model (lockstep)",
               "model (synchronous)", "sim lockstep", "GPU", "model vs lockstep", "GPU / model"},
              {Align::left});
  struct Err {
    std::vector<double> vs_lockstep, gpu_over_model, gpu_over_sync;
  };
  std::map<std::string, Err> errs;  // "rw", "rwbm w=32", ...
  std::map<std::tuple<Algorithm, std::uint64_t, std::uint64_t>, CollisionDrawing> plots;
  std::map<std::tuple<Algorithm, std::uint64_t, std::uint64_t>, std::set<std::uint64_t>> As;
  for (const auto& [p, by_choice] : t)
    if (by_choice.count(BitChoice::lowest)) As[{p.algo, p.T, p.w}].insert(p.A);
  for (const auto& [p, by_choice] : t) {
    auto it = by_choice.find(BitChoice::lowest);
    if (it == by_choice.end()) continue;
    const auto& src = it->second;
    const ModelValues m = model_at(p, BitChoice::lowest);
    auto get = [&](const std::string& s) -> const Measured* {
      auto f = src.find(s);
      return f == src.end() ? nullptr : &f->second;
    };
    const Measured *lock = get("sim lockstep"), *gpu = get("gpu");
    const bool words = caps(p.algo).bitmap_words;
    const std::string family =
        words ? fmt::format("{} w={}", name(p.algo), p.w) : std::string(name(p.algo));
    if (lock && m.lockstep >= 10) errs[family].vs_lockstep.push_back(m.lockstep / lock->mean - 1);
    if (gpu && m.lockstep >= 10) {
      errs[family].gpu_over_model.push_back(gpu->mean / m.lockstep);
      if (words) errs[family].gpu_over_sync.push_back(gpu->mean / m.synchronous);
    }
    table.add_row(
        {std::string(name(p.algo)), std::to_string(p.T), words ? std::to_string(p.w) : "-",
         fraction_label(p.A, p.T), std::to_string(p.N), num(birthday_bound(p)), num(m.lockstep),
         words ? num(m.synchronous) : "-", lock ? num(lock->mean) : "-", gpu ? num(gpu->mean) : "-",
         lock && lock->mean > 0 ? fmt::format("{:+.1f}%", 100 * (m.lockstep / lock->mean - 1))
                                : "-",
         gpu && m.lockstep > 0 ? fmt::format("{:.2f}", gpu->mean / m.lockstep) : "-"});
    // figures: the largest and the smallest free fraction of each (algo, T, w)
    const auto& a = As[{p.algo, p.T, p.w}];
    if (p.A != *a.begin() && p.A != *a.rbegin()) continue;
    auto& d = plots[{p.algo, p.T, p.w}];
    const double x = static_cast<double>(p.N);
    const std::string fr = fraction_label(p.A, p.T);
    push_log_point(d.series("model (lockstep rule) " + fr, true), x, m.lockstep);
    if (words) push_log_point(d.series("model (synchronous rule) " + fr, true), x, m.synchronous);
    if (p.A == *a.rbegin())
      push_log_point(d.series("paper: birthday x A/T " + fr, true), x, birthday_bound(p));
    if (lock) {
      push_log_point(d.series("sim lockstep " + fr, false), x, lock->mean, lock->ci95);
      d.rows.push_back(lock->point);
    }
    if (gpu) {
      push_log_point(d.series("GPU " + fr, false), x, gpu->mean, gpu->ci95);
      d.rows.push_back(gpu->point);
    }
  }
  if (!table.empty()) {
    sec.heading("Model vs lockstep simulation vs GPU (lowest free bit)");
    std::vector<std::string> summary;
    for (auto& [family, e] : errs) {
      auto med_max = [](std::vector<double> v, bool absolute) {
        if (v.empty()) return std::string("no data");
        for (auto& x : v)
          if (absolute) x = std::fabs(x);
        std::sort(v.begin(), v.end());
        return absolute ? fmt::format("median |error| {:.1f}%, max {:.1f}% ({} points)",
                                      100 * v[v.size() / 2], 100 * v.back(), v.size())
                        : fmt::format("{:.2f} to {:.2f} (median {:.2f}, {} points)", v.front(),
                                      v.back(), v[v.size() / 2], v.size());
      };
      summary.push_back(
          fmt::format("{}: model vs lockstep simulation: {}; GPU / model: {}{}", family,
                      med_max(e.vs_lockstep, true), med_max(e.gpu_over_model, false),
                      e.gpu_over_sync.empty()
                          ? std::string()
                          : "; GPU / synchronous model: " + med_max(e.gpu_over_sync, false)));
    }
    sec.list(std::move(summary));
    sec.paragraph(
        "Points with a model value of at least 10 collisions; errors are (model - measured) / "
        "measured.");
    sec.table(std::move(table));
  }
  for (auto& [key, d] : plots) {
    const auto& [algo, T, w] = key;
    d.plot.title = caps(algo).bitmap_words
                       ? fmt::format("Collisions of {}, w = {}, T = {}", name(algo), w, T)
                       : fmt::format("Collisions of {}, T = {}", name(algo), T);
    d.plot.xlabel = "N (threads)";
    d.plot.ylabel = "failed atomic claims per run";
    d.plot.logx = d.plot.logy = true;
    sec.figure(make_figure(fmt::format("collisions_{}_{}_{}", name(algo), T, w), d.plot,
                           "Points: lockstep simulation and GPU (mean, 95% CI); lines: the "
                           "parallel-rounds model and the paper's birthday bound, at the largest "
                           "and smallest free fraction measured.",
                           std::move(d.rows)));
  }
}

// Part 2: which free bit (RW-BM), collisions and GPU kernel time per bit choice.
void bit_choices(const std::vector<TidyRow>& rows, const CollisionRows& t, Section& sec) {
  Table table({"T", "w", "A/T", "N", "source", "lowest", "random", "random / lowest", "rotated",
               "rotated / lowest", "model lowest", "model random", "model rotated"},
              {Align::right, Align::right, Align::right, Align::right, Align::left});
  std::map<std::tuple<std::uint64_t, std::uint64_t, std::uint64_t>, CollisionDrawing> plots;
  for (const auto& [p, by_choice] : t) {
    if (!caps(p.algo).bitmap_words || by_choice.size() < 2) continue;
    std::set<std::string> sources;
    for (const auto& [c, src] : by_choice)
      for (const auto& [s, m] : src) sources.insert(s);
    std::map<BitChoice, double> model_by_choice;
    for (const auto& [c, src] : by_choice) model_by_choice[c] = model_at(p, c).lockstep;
    auto& d = plots[{p.T, p.w, p.A}];
    for (const auto& s : sources) {
      std::vector<Cell> row{std::to_string(p.T), std::to_string(p.w), fraction_label(p.A, p.T),
                            std::to_string(p.N), s};
      double lowest = NAN;
      for (const BitChoice c : kChoices) {
        const Measured* m = nullptr;
        if (auto f = by_choice.find(c); f != by_choice.end())
          if (auto g = f->second.find(s); g != f->second.end()) m = &g->second;
        if (c == BitChoice::lowest && m) lowest = m->mean;
        row.emplace_back(m ? num(m->mean) : "-");
        if (c != BitChoice::lowest)
          row.emplace_back(m && lowest > 0 ? fmt::format("{:.3f}", m->mean / lowest) : "-");
        // threads mode (a few host threads) barely races: in the table, not in the plot
        if (m && s != "sim threads") {
          push_log_point(d.series(s + " " + std::string(name(c)), false), static_cast<double>(p.N),
                         m->mean, m->ci95);
          d.rows.push_back(m->point);
        }
      }
      for (const BitChoice c : kChoices) {
        auto f = model_by_choice.find(c);
        row.emplace_back(f == model_by_choice.end() ? "-" : num(f->second));
      }
      table.add_row(std::move(row));
    }
    for (const auto& [c, v] : model_by_choice)
      push_log_point(d.series("model (lockstep rule) " + std::string(name(c)), true),
                     static_cast<double>(p.N), v);
  }
  sec.heading("Which free bit: lowest, random, rotated by lane (RW-BM)");
  sec.paragraph(
      "The paper's RW-BM (and its authors' kernels) claims the lowest free bit, so threads that "
      "read one word at once all target the same bit. `--bit-choice random` takes the free bit "
      "ranked by the low 32 bits of the thread's probe number; `rotated` the first free bit at "
      "or after lane*w/L, cyclically. The probed words, and in sequential and lockstep mode "
      "every thread's steps, are the same for all three (a word with f free bits serves min(K, f) "
      "of its K readers whichever bits they target); only lost claims, and on the GPU the time "
      "they cost, change. Model: pair probability 1 (lowest), 1/f (random), and the exact "
      "probability that two lane offsets reach the same free bit (rotated). The simulator's "
      "threads mode runs a few host threads, which rarely read one word at the same moment: its "
      "collision counts (about 0) are listed, not plotted.");
  if (table.empty())
    sec.paragraph(
        "No bit-choice rows in this sweep (run scripts/main-job.sh, or scripts/gpu.sh engine "
        "bit-choice on a GPU).");
  else
    sec.table(std::move(table));

  // GPU kernel time per bit choice: what the saved collisions are worth on hardware.
  std::map<Point, std::map<BitChoice, Measured>> ms;
  for (const auto& r : rows)
    if (r.metric == "kernel_ms" && r.mean && collisions_modelled(r.point.algo) &&
        caps(r.point.algo).bitmap_words && r.point.backend == "gpu")
      ms[{r.point.algo, r.point.T, r.point.w, r.point.A, r.point.N}][r.point.bit_choice] = {
          *r.mean, r.ci95, r.point};
  Table times({"T", "w", "A/T", "N", "lowest", "random", "rotated"});
  for (const auto& [p, by_choice] : ms) {
    if (by_choice.size() < 2) continue;
    std::vector<Cell> row{std::to_string(p.T), std::to_string(p.w), fraction_label(p.A, p.T),
                          std::to_string(p.N)};
    for (const BitChoice c : kChoices) {
      auto f = by_choice.find(c);
      row.emplace_back(f == by_choice.end()
                           ? "-"
                           : fmt::format("{:.4g} ± {:.2g}", f->second.mean, f->second.ci95));
    }
    times.add_row(std::move(row));
  }
  if (!times.empty()) {
    sec.paragraph(
        "GPU kernel time (ms, median of the timed launches, mean and 95% CI over trials) by bit "
        "choice:");
    sec.table(std::move(times));
  }
  for (auto& [key, d] : plots) {
    const auto& [T, w, A] = key;
    d.plot.title = fmt::format("RW-BM bit choice: collisions, w = {}, A/T = {}, T = {}", w,
                               fraction_label(A, T), T);
    d.plot.xlabel = "N (threads)";
    d.plot.ylabel = "failed atomic claims per run";
    d.plot.logx = d.plot.logy = true;
    sec.figure(make_figure(fmt::format("bit_choice_{}_{}_{}", T, w, A), d.plot,
                           "Points: measured (mean, 95% CI) per source and bit choice; lines: "
                           "the model (lockstep rule).",
                           std::move(d.rows)));
  }
}

}  // namespace

Section collisions_section(const std::vector<TidyRow>& rows) {
  Section sec("collisions", "Collisions (not in the paper)");
  const CollisionRows t = collect(rows);
  sec.paragraph(
      "Paper 000 bounds collisions only by the birthday count N(N-1)/(2T), times A/T "
      "(collisions_bound): pairs of threads that probe the same page, as if every thread probed "
      "once. alloclab's model (model/src/collisions.cpp) counts failed atomic claims under "
      "parallel rounds, the lockstep simulator's schedule: each round the m unfinished threads "
      "probe random targets; RW loses K-1 claims on a free page read by K threads; RW-BM tracks "
      "how many words hold f free bits and, per word read by K threads, loses K-1 claims with "
      "the lowest-bit choice under the lockstep retry rule (a loser retries on a word that "
      "already holds every earlier claim) or sum_{i<=min(K,f)} (K-i) under the synchronous rule "
      "(all losers retry together, the GPU's worst case). The unfinished count follows a "
      "mean-field recursion. GPU threads are not all in flight at once (a kernel of 2^20 "
      "threads runs in waves), so the lockstep schedule is not a bound of the hardware either "
      "way: RW on the GPU loses fewer claims than lockstep at large N, RW-BM loses more (threads "
      "that retry together lose again).");
  model_vs_measured(t, sec);
  bit_choices(rows, t, sec);
  return sec;
}

}  // namespace alloclab::render
