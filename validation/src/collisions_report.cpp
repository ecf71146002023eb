#include "alloclab/validation/collisions_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>

#include "alloclab/model/collisions.hpp"
#include "alloclab/validation/plot.hpp"

namespace alloclab::validation {
namespace {

struct Point {
  std::string algo;
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
};

// point -> bit choice -> source -> measured collisions
using Table = std::map<Point, std::map<std::string, std::map<std::string, Measured>>>;

Table collect(const std::vector<TidyRow>& rows) {
  Table t;
  for (const auto& r : rows) {
    if (r.metric != "collisions" || !r.mean) continue;
    if (r.point.algo != "rw" && r.point.algo != "rwbm") continue;
    if (r.point.backend == "model") continue;
    if (r.point.backend == "sim" && r.point.mode == "sequential") continue;  // 0 by construction
    const auto& p = r.point;
    t[{p.algo, p.T, p.algo == "rw" ? 1 : p.w, p.A, p.N}][p.bit_choice][source_name(p)] = {*r.mean,
                                                                                          r.ci95};
  }
  return t;
}

struct ModelValues {
  double lockstep = NAN, synchronous = NAN;
};

ModelValues model_at(const Point& p, BitChoice c) {
  ModelValues v;
  try {
    if (p.algo == "rw") {
      v.lockstep = v.synchronous = model::rw_collisions_rounds(p.N, p.A, p.T).collisions;
    } else {
      Scenario s;
      s.algo = Algorithm::rwbm;
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

std::string fraction(std::uint64_t A, std::uint64_t T) {
  return fmt::format("{:.3g}%", 100.0 * static_cast<double>(A) / static_cast<double>(T));
}

// A table as HTML and Markdown.
void table(const std::vector<std::string>& head, const std::vector<std::vector<std::string>>& body,
           std::ostringstream& html, std::ostringstream& md) {
  html << "<table><tr>";
  md << "\n|";
  for (const auto& h : head) {
    html << "<th>" << h << "</th>";
    md << ' ' << h << " |";
  }
  html << "</tr>\n";
  md << "\n|";
  for (std::size_t i = 0; i < head.size(); ++i) md << "---|";
  md << '\n';
  for (const auto& row : body) {
    html << "<tr>";
    md << '|';
    for (const auto& c : row) {
      html << "<td>" << c << "</td>";
      md << ' ' << c << " |";
    }
    html << "</tr>\n";
    md << '\n';
  }
  html << "</table>\n";
}

void add_figure(ReportSection& out, const std::string& id, PlotSpec p, const std::string& caption) {
  p.series.erase(
      std::remove_if(p.series.begin(), p.series.end(), [](const Series& s) { return s.x.empty(); }),
      p.series.end());
  if (p.series.empty()) return;
  out.figures.push_back({id, p.title + ". " + caption, "", render_svg(p)});
}

void push(Series& s, double x, double y, std::optional<double> err = std::nullopt) {
  if (!(y > 0) || !std::isfinite(y)) return;  // log scale
  s.x.push_back(x);
  s.y.push_back(y);
  if (err) s.yerr.push_back(*err);
}

}  // namespace

ReportSection collisions_section(const std::vector<TidyRow>& rows) {
  ReportSection out;
  const Table t = collect(rows);
  std::ostringstream html, md;
  const std::string intro =
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
      "that retry together lose again).";
  html << "<p>" << intro << "</p>\n";
  md << intro << "\n";

  // ---- Part 1: lowest bit, model vs lockstep vs GPU ----------------------------------------
  std::vector<std::vector<std::string>> body;
  struct Err {
    std::vector<double> vs_lockstep, gpu_over_model, gpu_over_sync;
  };
  std::map<std::string, Err> errs;  // "rw", "rwbm w=32", ...
  std::map<std::tuple<std::string, std::uint64_t, std::uint64_t>, PlotSpec> plots;
  std::map<std::tuple<std::string, std::uint64_t, std::uint64_t>, std::set<std::uint64_t>> As;
  for (const auto& [p, by_choice] : t) {
    auto it = by_choice.find("lowest");
    if (it == by_choice.end()) continue;
    As[{p.algo, p.T, p.w}].insert(p.A);
  }
  std::map<Point, ModelValues> lowest_model;
  for (const auto& [p, by_choice] : t) {
    auto it = by_choice.find("lowest");
    if (it == by_choice.end()) continue;
    const auto& src = it->second;
    const ModelValues m = lowest_model[p] = model_at(p, BitChoice::lowest);
    auto get = [&](const std::string& s) -> std::optional<Measured> {
      auto f = src.find(s);
      return f == src.end() ? std::nullopt : std::optional<Measured>(f->second);
    };
    const auto lock = get("sim lockstep"), gpu = get("gpu");
    const std::string family = p.algo == "rw" ? "rw" : fmt::format("rwbm w={}", p.w);
    if (lock && m.lockstep >= 10) errs[family].vs_lockstep.push_back(m.lockstep / lock->mean - 1);
    if (gpu && m.lockstep >= 10) {
      errs[family].gpu_over_model.push_back(gpu->mean / m.lockstep);
      if (p.algo == "rwbm") errs[family].gpu_over_sync.push_back(gpu->mean / m.synchronous);
    }
    body.push_back({p.algo, std::to_string(p.T), p.algo == "rw" ? "-" : std::to_string(p.w),
                    fraction(p.A, p.T), std::to_string(p.N), num(birthday_bound(p)),
                    num(m.lockstep), p.algo == "rwbm" ? num(m.synchronous) : "-",
                    lock ? num(lock->mean) : "-", gpu ? num(gpu->mean) : "-",
                    lock && lock->mean > 0
                        ? fmt::format("{:+.1f}%", 100 * (m.lockstep / lock->mean - 1))
                        : "-",
                    gpu && m.lockstep > 0 ? fmt::format("{:.2f}", gpu->mean / m.lockstep) : "-"});
    // figures: the largest and the smallest free fraction of each (algo, T, w)
    const auto& a = As[{p.algo, p.T, p.w}];
    if (p.A != *a.begin() && p.A != *a.rbegin()) continue;
    auto& plot = plots[{p.algo, p.T, p.w}];
    const double x = static_cast<double>(p.N);
    const std::string fr = fraction(p.A, p.T);
    auto series = [&](const std::string& title, bool lines) -> Series& {
      for (auto& s : plot.series)
        if (s.title == title) return s;
      plot.series.push_back({});
      plot.series.back().title = title;
      plot.series.back().lines = lines;
      return plot.series.back();
    };
    push(series("model (lockstep rule) " + fr, true), x, m.lockstep);
    if (p.algo == "rwbm") push(series("model (synchronous rule) " + fr, true), x, m.synchronous);
    if (p.A == *a.rbegin()) push(series("paper: birthday x A/T " + fr, true), x, birthday_bound(p));
    if (lock) push(series("sim lockstep " + fr, false), x, lock->mean, lock->ci95);
    if (gpu) push(series("GPU " + fr, false), x, gpu->mean, gpu->ci95);
  }
  if (!body.empty()) {
    html << "<h3>Model vs lockstep simulation vs GPU (lowest free bit)</h3>\n";
    md << "\n### Model vs lockstep simulation vs GPU (lowest free bit)\n\n";
    std::string summary;
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
      summary += fmt::format("<li>{}: model vs lockstep simulation: {}; GPU / model: {}{}</li>",
                             family, med_max(e.vs_lockstep, true), med_max(e.gpu_over_model, false),
                             e.gpu_over_sync.empty()
                                 ? std::string()
                                 : "; GPU / synchronous model: " + med_max(e.gpu_over_sync, false));
    }
    const std::string note =
        "Points with a model value of at least 10 collisions; errors are (model - measured) / "
        "measured.";
    html << "<ul>" << summary << "</ul><p>" << note << "</p>\n";
    std::string md_summary = summary;
    for (const std::string tag : {"<li>"}) {
      std::size_t pos;
      while ((pos = md_summary.find(tag)) != std::string::npos) md_summary.replace(pos, 4, "\n- ");
    }
    std::size_t pos;
    while ((pos = md_summary.find("</li>")) != std::string::npos) md_summary.erase(pos, 5);
    md << md_summary << "\n\n" << note << "\n";
    table({"algo", "T", "w", "A/T", "N", "paper bound", "model (lockstep)", "model (synchronous)",
           "sim lockstep", "GPU", "model vs lockstep", "GPU / model"},
          body, html, md);
  }
  for (auto& [key, plot] : plots) {
    const auto& [algo, T, w] = key;
    plot.title = algo == "rw" ? fmt::format("Collisions of RW, T = {}", T)
                              : fmt::format("Collisions of RW-BM, w = {}, T = {}", w, T);
    plot.xlabel = "N (threads)";
    plot.ylabel = "failed atomic claims per run";
    plot.logx = plot.logy = true;
    add_figure(out, fmt::format("collisions_{}_{}_{}", algo, T, w), plot,
               "Points: lockstep simulation and GPU (mean, 95% CI); lines: the parallel-rounds "
               "model and the paper's birthday bound, at the largest and smallest free fraction "
               "measured.");
  }

  // ---- Part 2: bit choice ------------------------------------------------------------------
  std::vector<std::vector<std::string>> choice_body;
  std::map<std::tuple<std::uint64_t, std::uint64_t, std::uint64_t>, PlotSpec> choice_plots;
  for (const auto& [p, by_choice] : t) {
    if (p.algo != "rwbm" || by_choice.size() < 2) continue;
    std::set<std::string> sources;
    for (const auto& [c, src] : by_choice)
      for (const auto& [s, m] : src) sources.insert(s);
    std::map<std::string, double> model_by_choice;
    for (const auto& [c, src] : by_choice)
      model_by_choice[c] = model_at(p, *parse_bit_choice(c)).lockstep;
    auto& plot = choice_plots[{p.T, p.w, p.A}];
    for (const auto& s : sources) {
      std::vector<std::string> row{std::to_string(p.T), std::to_string(p.w), fraction(p.A, p.T),
                                   std::to_string(p.N), s};
      double lowest = NAN;
      for (const std::string c : {"lowest", "random", "rotated"}) {
        auto f = by_choice.find(c);
        const Measured* m = nullptr;
        if (f != by_choice.end()) {
          auto g = f->second.find(s);
          if (g != f->second.end()) m = &g->second;
        }
        if (c == "lowest" && m) lowest = m->mean;
        row.push_back(m ? num(m->mean) : "-");
        if (c != "lowest")
          row.push_back(m && lowest > 0 ? fmt::format("{:.3f}", m->mean / lowest) : "-");
        // threads mode (a few host threads) barely races: in the table, not in the plot
        if (m && s != "sim threads") {
          auto& ser = [&]() -> Series& {
            const std::string title = s + " " + c;
            for (auto& x : plot.series)
              if (x.title == title) return x;
            plot.series.push_back({});
            plot.series.back().title = title;
            plot.series.back().lines = false;
            return plot.series.back();
          }();
          push(ser, static_cast<double>(p.N), m->mean, m->ci95);
        }
      }
      for (const std::string c : {"lowest", "random", "rotated"}) {
        auto f = model_by_choice.find(c);
        row.push_back(f == model_by_choice.end() ? "-" : num(f->second));
      }
      choice_body.push_back(std::move(row));
    }
    for (const auto& [c, v] : model_by_choice) {
      const std::string title = "model (lockstep rule) " + c;
      Series* ser = nullptr;
      for (auto& x : plot.series)
        if (x.title == title) ser = &x;
      if (!ser) {
        plot.series.push_back({});
        ser = &plot.series.back();
        ser->title = title;
      }
      push(*ser, static_cast<double>(p.N), v);
    }
  }
  html << "<h3>Which free bit: lowest, random, rotated by lane (RW-BM)</h3>\n";
  md << "\n### Which free bit: lowest, random, rotated by lane (RW-BM)\n\n";
  const std::string choice_intro =
      "The paper's RW-BM (and its authors' kernels) claims the lowest free bit, so threads that "
      "read one word at once all target the same bit. `--bit-choice random` takes the free bit "
      "ranked by the low 32 bits of the thread's probe number; `rotated` the first free bit at "
      "or after lane*w/L, cyclically. The probed words, and in sequential and lockstep mode "
      "every thread's steps, are the same for all three (a word with f free bits serves min(K, f) "
      "of its K readers whichever bits they target); only lost claims, and on the GPU the time "
      "they cost, change. Model: pair probability 1 (lowest), 1/f (random), and the exact "
      "probability that two lane offsets reach the same free bit (rotated). The simulator's "
      "threads "
      "mode runs a few host threads, which rarely read one word at the same moment: its "
      "collision counts (about 0) are listed, not plotted.";
  html << "<p>" << choice_intro << "</p>\n";
  md << choice_intro << "\n";
  if (choice_body.empty()) {
    html << "<p>No bit-choice rows in this sweep (run scripts/main-job.sh, or "
            "scripts/gpu-bit-choice.sh on a GPU).</p>\n";
    md << "\nNo bit-choice rows in this sweep.\n";
  } else {
    table({"T", "w", "A/T", "N", "source", "lowest", "random", "random / lowest", "rotated",
           "rotated / lowest", "model lowest", "model random", "model rotated"},
          choice_body, html, md);
  }
  // GPU kernel time per bit choice: what the saved collisions are worth on hardware.
  std::map<Point, std::map<std::string, Measured>> ms;
  for (const auto& r : rows)
    if (r.metric == "kernel_ms" && r.mean && r.point.algo == "rwbm" && r.point.backend == "gpu")
      ms[{r.point.algo, r.point.T, r.point.w, r.point.A, r.point.N}][r.point.bit_choice] = {*r.mean,
                                                                                            r.ci95};
  std::vector<std::vector<std::string>> ms_body;
  for (const auto& [p, by_choice] : ms) {
    if (by_choice.size() < 2) continue;
    std::vector<std::string> row{std::to_string(p.T), std::to_string(p.w), fraction(p.A, p.T),
                                 std::to_string(p.N)};
    for (const std::string c : {"lowest", "random", "rotated"}) {
      auto f = by_choice.find(c);
      row.push_back(f == by_choice.end()
                        ? "-"
                        : fmt::format("{:.4g} ± {:.2g}", f->second.mean, f->second.ci95));
    }
    ms_body.push_back(std::move(row));
  }
  if (!ms_body.empty()) {
    html << "<p>GPU kernel time (ms, median of the timed launches, mean and 95% CI over "
            "trials) by bit choice:</p>\n";
    md << "\nGPU kernel time (ms) by bit choice:\n";
    table({"T", "w", "A/T", "N", "lowest", "random", "rotated"}, ms_body, html, md);
  }
  for (auto& [key, plot] : choice_plots) {
    const auto& [T, w, A] = key;
    plot.title =
        fmt::format("RW-BM bit choice: collisions, w = {}, A/T = {}, T = {}", w, fraction(A, T), T);
    plot.xlabel = "N (threads)";
    plot.ylabel = "failed atomic claims per run";
    plot.logx = plot.logy = true;
    add_figure(out, fmt::format("bit_choice_{}_{}_{}", T, w, A), plot,
               "Points: measured (mean, 95% CI) per source and bit choice; lines: the model "
               "(lockstep rule).");
  }
  out.html = html.str();
  out.markdown = md.str();
  return out;
}

}  // namespace alloclab::validation
