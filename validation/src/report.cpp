#include "alloclab/validation/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "alloclab/validation/collisions_report.hpp"
#include "alloclab/validation/plot.hpp"
#include "alloclab/validation/rounds_report.hpp"
#include "alloclab/validation/warp_models.hpp"

namespace alloclab::validation {

std::string html_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

namespace {

// "50%", "0.7%": the free fraction A/T as the paper labels it.
std::string fraction_label(std::uint64_t A, std::uint64_t T) {
  return fmt::format("{:.3g}%", 100.0 * static_cast<double>(A) / static_cast<double>(T));
}

std::string source_of(const PointKey& p) {
  return p.mode.empty() ? p.backend : p.backend + " (" + p.mode + ")";
}

// Rows of one metric as a series over N, for one (algo, source, A, T, w).
struct SeriesKey {
  std::string algo, source;
  std::uint64_t A, T;
  unsigned w;
  bool operator<(const SeriesKey& o) const {
    return std::tie(algo, source, T, A, w) < std::tie(o.algo, o.source, o.T, o.A, o.w);
  }
};

std::map<SeriesKey, Series> collect(const std::vector<TidyRow>& rows, const std::string& metric,
                                    const std::string& backend) {
  std::map<SeriesKey, std::vector<const TidyRow*>> grouped;
  for (const auto& r : rows)
    // The parallel-rounds model has its own section (rounds_report.cpp).
    if (r.metric == metric && r.point.backend == backend && r.mean && std::isfinite(*r.mean) &&
        !(r.point.backend == "model" && r.point.mode == "rounds"))
      grouped[{r.point.algo, source_of(r.point), r.point.A, r.point.T, r.point.w}].push_back(&r);
  std::map<SeriesKey, Series> out;
  for (auto& [k, v] : grouped) {
    std::sort(v.begin(), v.end(), [](auto* a, auto* b) { return a->point.N < b->point.N; });
    Series s;
    s.lines = backend == "model";
    for (auto* r : v) {
      s.x.push_back(static_cast<double>(r->point.N));
      s.y.push_back(*r->mean);
      if (!s.lines) s.yerr.push_back(r->ci95);
    }
    out[k] = std::move(s);
  }
  return out;
}

// The paper's Figure 4 spans N <= 5000; a sweep may hold larger N for other figures.
Series keep_paper_range(const Series& s) {
  Series out = s;
  out.x.clear();
  out.y.clear();
  out.yerr.clear();
  for (std::size_t i = 0; i < s.x.size(); ++i)
    if (s.x[i] <= 5000) {
      out.x.push_back(s.x[i]);
      out.y.push_back(s.y[i]);
      if (!s.yerr.empty()) out.yerr.push_back(s.yerr[i]);
    }
  return out;
}

struct Figure {
  std::string id, caption, command, svg;
};

class Builder {
 public:
  explicit Builder(const ReportInputs& in) : in_(in) {
    for (const auto& r : in.rows) {
      Ts_.insert(r.point.T);
      if (r.point.backend == "gpu") gpu_Ts_.insert(r.point.T);
    }
    // Which sweep runs wrote which backend's rows: the first run and every resumed one.
    auto note_run = [&](const nlohmann::json& run) {
      if (!run.is_object() || !run.contains("command_line")) return;
      const std::string backends = run.value("backends", std::string());
      for (const std::string b : {"model", "sim", "gpu"})
        if (backends.find(b) != std::string::npos)
          commands_[b].push_back(run["command_line"].get<std::string>());
    };
    note_run(in.metadata);
    if (in.metadata.contains("resumed"))
      for (const auto& run : in.metadata["resumed"]) note_run(run);
  }

  void figure4() {
    if (Ts_.empty()) return;
    // The paper's Figure 4 uses T = 10^6; use it if swept, else the smallest T.
    const std::uint64_t T = Ts_.count(1000000) ? 1000000 : *Ts_.begin();
    for (const auto& [metric, label, panel] :
         {std::tuple<std::string, std::string, std::string>{"tas", "TAS (steps per thread)", "a"},
          {"was_bound", "WAS upper bound, Eq. (3) (steps)", "b"}}) {
      PlotSpec p;
      p.title = fmt::format("Figure 4({}) reproduced: RW {} vs N, T = {}", panel,
                            metric == "tas" ? "TAS" : "WAS bound", T);
      p.xlabel = "N (threads)";
      p.ylabel = label;
      p.logy = true;
      for (auto& [k, s] : collect(in_.rows, metric, "model"))
        if (k.T == T && k.algo == "rw") {
          s.title = "RW, A/T = " + fraction_label(k.A, k.T);
          p.series.push_back(keep_paper_range(s));
        }
      for (auto& [k, s] : collect(in_.rows, metric == "tas" ? "tas" : "was", "model"))
        if (k.T == T && k.algo == "queue" && p.series.size() < 7) {
          s.title = metric == "tas" ? "queue TAS (N+1)/2" : "queue WAS (exact)";
          p.series.push_back(keep_paper_range(s));
          break;
        }
      add(fmt::format("fig4{}", panel), p,
          "Model values (Sec. 3.2, Eq. 2-3), N up to 5000 as in the paper, which plots the same "
          "five free fractions.",
          {"model"});
    }
  }

  void figure7() {
    for (std::uint64_t T : gpu_Ts_) {
      std::set<std::uint64_t> As;
      for (const auto& r : in_.rows)
        if (r.point.backend == "gpu" && r.point.T == T) As.insert(r.point.A);
      for (auto it = As.rbegin(); it != As.rend(); ++it) {
        const std::uint64_t A = *it;
        for (const auto& [metric, label] :
             {std::pair<std::string, std::string>{"kernel_ms", "kernel time (ms)"},
              {"tas", "TAS (steps)"},
              {"was", "WAS (steps)"}}) {
          PlotSpec p;
          p.title = fmt::format("Figure 7 reproduced: {} at A/T = {}, T = {}", label,
                                fraction_label(A, T), T);
          p.xlabel = "N (threads)";
          p.ylabel = label;
          p.logx = true;
          p.logy = true;  // steps are >= 1 and the queue grows linearly: log scale
          for (auto& [k, s] : collect(in_.rows, metric, "gpu"))
            if (k.T == T && k.A == A) {
              s.title = fmt::format("{} w={} (GPU)", k.algo, k.w);
              p.series.push_back(s);
            }
          if (metric != "kernel_ms")
            for (auto& [k, s] : collect(in_.rows, metric == "was" ? "was_bound" : metric, "model"))
              if (k.T == T && k.A == A) {
                s.title = fmt::format("{} w={} ({})", k.algo, k.w,
                                      metric == "was" ? "bound Eq. 3/5" : "model");
                p.series.push_back(s);
              }
          if (!p.series.empty())
            add(fmt::format("fig7_{}_{}_{}", T, A, metric), p,
                "Points: measured on the GPU (mean and 95% CI over trials); lines: the model.",
                {"gpu", "model"});
        }
      }
    }
  }

  void model_vs_sim() {
    for (const auto& metric : {std::string("tas"), std::string("was")}) {
      std::map<std::pair<std::string, std::uint64_t>, PlotSpec> plots;  // (algo, T)
      for (auto& [k, s] : collect(in_.rows, metric, "sim")) {
        auto& p = plots[{k.algo, k.T}];
        s.title = fmt::format("{} A/T={}", k.source, fraction_label(k.A, k.T));
        p.series.push_back(s);
      }
      for (auto& [key, p] : plots) {
        for (auto& [k, s] : collect(in_.rows, metric, "model"))
          if (k.algo == key.first && k.T == key.second) {
            s.title = fmt::format("model A/T={}", fraction_label(k.A, k.T));
            p.series.push_back(s);
          }
        p.title = fmt::format("{}: simulated {} vs model, T = {}", key.first,
                              metric == "tas" ? "TAS" : "WAS", key.second);
        p.xlabel = "N (threads)";
        p.ylabel = metric == "tas" ? "TAS (steps)" : "WAS (steps)";
        p.logy = true;
        add(fmt::format("sim_{}_{}_{}", key.first, key.second, metric), p,
            "Points: simulation (mean and 95% CI); lines: the exact model under the sequential "
            "assumption.",
            {"sim", "model"});
      }
    }
  }

  const std::vector<Figure>& figures() const { return figures_; }

 private:
  // backends: whose rows the figure shows; the caption names the sweeps that wrote them.
  void add(const std::string& id, const PlotSpec& p, const std::string& caption,
           const std::vector<std::string>& backends) {
    if (p.series.empty()) return;
    std::string made_by;
    for (const auto& b : backends) {
      auto it = commands_.find(b);
      if (it == commands_.end()) continue;
      for (const auto& c : it->second)
        if (made_by.find(c) == std::string::npos) made_by += c + " && ";
    }
    if (made_by.empty()) made_by = "alloclab sweep ... && ";
    figures_.push_back({id, p.title + ". " + caption, made_by + in_.report_command, render_svg(p)});
  }

  const ReportInputs& in_;
  std::set<std::uint64_t> Ts_, gpu_Ts_;
  std::map<std::string, std::vector<std::string>> commands_;  // backend -> sweep command lines
  std::vector<Figure> figures_;
};

std::string render_value(const FieldValue* v) {
  if (!v) return "";
  return std::visit(
      [](const auto& x) -> std::string {
        using X = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<X, std::monostate>)
          return "-";
        else if constexpr (std::is_same_v<X, double>)
          return fmt::format("{:.6g}", x);
        else if constexpr (std::is_same_v<X, bool>)
          return x ? "yes" : "no";
        else if constexpr (std::is_same_v<X, std::string>)
          return x;
        else
          return fmt::format("{}", x);
      },
      *v);
}

// A table of records, as HTML and as Markdown.
void records_table(const std::vector<Record>& recs, std::ostream& html, std::ostream& md) {
  if (recs.empty()) return;
  std::vector<std::string> keys;
  for (const auto& r : recs)
    for (const auto& [k, v] : r.fields)
      if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  html << "<table><tr>";
  md << "|";
  for (const auto& k : keys) {
    html << "<th>" << html_escape(k) << "</th>";
    md << ' ' << k << " |";
  }
  html << "</tr>\n";
  md << "\n|";
  for (std::size_t i = 0; i < keys.size(); ++i) md << "---|";
  md << '\n';
  for (const auto& r : recs) {
    const FieldValue* verdict = r.find("verdict");
    const std::string cls =
        verdict && std::holds_alternative<std::string>(*verdict)
            ? (std::get<std::string>(*verdict) == "FAIL" ? " class=\"fail\"" : "")
            : "";
    html << "<tr" << cls << ">";
    md << '|';
    for (const auto& k : keys) {
      const auto text = render_value(r.find(k));
      html << "<td>" << html_escape(text) << "</td>";
      md << ' ' << text << " |";
    }
    html << "</tr>\n";
    md << '\n';
  }
  html << "</table>\n";
}

// Model / simulation / hardware side by side, one row per grid point.
std::vector<Record> comparison_records(const std::vector<TidyRow>& rows) {
  std::map<std::string, Record> by_point;
  std::vector<std::string> order;
  for (const auto& r : rows) {
    if (r.metric != "tas" && r.metric != "was" && r.metric != "was_bound") continue;
    const auto& p = r.point;
    const std::string key = fmt::format("{}|{}|{}|{}|{}", p.algo, p.T, p.A, p.w, p.N);
    auto [it, fresh] = by_point.try_emplace(key);
    if (fresh) {
      order.push_back(key);
      it->second.set("algo", p.algo).set_int("T", p.T).set_int("A", p.A).set_int("w", p.w);
      it->second.set_int("N", p.N);
    }
    const std::string col = r.metric + " " + source_of(p);
    if (!r.mean) {
      it->second.set(col, std::monostate{});
    } else if (r.n > 1) {
      it->second.set(col, fmt::format("{:.4g} ± {:.2g}", *r.mean, r.ci95));
    } else {
      it->second.set(col, *r.mean);
    }
  }
  std::vector<Record> out;
  for (const auto& k : order) out.push_back(by_point[k]);
  return out;
}

}  // namespace

ReportFiles write_report(const ReportInputs& all) {
  namespace fs = std::filesystem;
  // The paper's figures and tables show the lowest-bit RW-BM; other bit choices appear only in
  // the collisions section.
  ReportInputs in = all;
  std::erase_if(in.rows, [](const TidyRow& r) { return r.point.bit_choice != "lowest"; });
  Builder b(in);
  b.figure4();
  b.model_vs_sim();
  b.figure7();

  int extra_figures = 0;
  std::size_t pass = 0, departures = 0, fails = 0;
  for (const auto& v : in.verdicts) {
    pass += v.outcome == Outcome::pass;
    departures += v.outcome == Outcome::expected_departure;
    fails += v.outcome == Outcome::fail;
  }

  std::ostringstream html, md;
  html << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
       << "<title>alloclab report</title>\n<style>\n"
       << "body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;}\n"
       << "table{border-collapse:collapse;font-size:0.85em;margin:1em 0;}\n"
       << "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right;}\n"
       << "tr.fail td{background:#fdd;} figure{margin:1.5em 0;} figcaption{font-size:0.9em;}\n"
       << "code{background:#f4f4f4;padding:1px 3px;}\n</style></head><body>\n";
  html << "<h1>alloclab report</h1>\n";
  md << "# alloclab report\n\n";

  html << "<h2>Run</h2>\n<table>";
  md << "## Run\n\n";
  for (const auto& [k, v] : in.metadata.items()) {
    if (v.is_object() || v.is_array()) continue;
    const std::string text = v.is_string() ? v.get<std::string>() : v.dump();
    html << "<tr><th>" << html_escape(k) << "</th><td style=\"text-align:left\">"
         << html_escape(text) << "</td></tr>";
    md << "- **" << k << "**: " << text << '\n';
  }
  html << "</table>\n";

  const std::string summary =
      fmt::format("{} checks: {} pass, {} expected departures (explained), {} fail.",
                  in.verdicts.size(), pass, departures, fails);
  html << "<h2>Verdict summary</h2><p>" << summary << "</p>\n";
  md << "\n## Verdict summary\n\n" << summary << "\n";

  html << "<h2>Figures</h2>\n";
  md << "\n## Figures\n\nEach figure is in report.html and as figures/&lt;id&gt;.svg.\n\n";
  fs::create_directories(fs::path(in.dir) / "figures");
  for (const auto& f : b.figures()) {
    html << "<figure id=\"" << f.id << "\">" << f.svg << "\n<figcaption>" << html_escape(f.caption)
         << "<br>Made by: <code>" << html_escape(f.command) << "</code></figcaption></figure>\n";
    md << "- `" << f.id << "`: " << f.caption << " Made by: `" << f.command << "`\n";
    std::ofstream(fs::path(in.dir) / "figures" / (f.id + ".svg")) << f.svg;
  }

  write_rounds_section(in.rows, in.dir, in.report_command, html, md);
  // CoRW and RW_malloc warp-chain models (warp_models.cpp), each in its own section.
  write_warp_model_sections(in.rows, (fs::path(in.dir) / "figures").string(), html, md);

  html << "<h2>Model vs simulation vs hardware</h2>\n";
  md << "\n## Model vs simulation vs hardware\n\n";
  records_table(comparison_records(in.rows), html, md);

  html << "<h2>Verdicts</h2>\n";
  md << "\n## Verdicts\n\n";
  records_table(verdict_records(in.verdicts), html, md);

  if (!in.theorem_checks.empty()) {
    html << "<h2>Theorems 1 and 2, checked numerically</h2>\n";
    md << "\n## Theorems 1 and 2, checked numerically\n\n";
    records_table(in.theorem_checks, html, md);
  }

  // The models the papers lack: the collisions section (collisions_report.cpp, computed from the
  // rows here), then the sections the caller brings (e.g. the kernel-time fit).
  std::vector<ReportSection> sections;
  {
    ReportSection coll = collisions_section(all.rows);
    coll.html = "<h2 id=\"collisions\">Collisions (not in the paper)</h2>\n" + coll.html;
    coll.markdown = "## Collisions (not in the paper)\n\n" + coll.markdown;
    for (auto& f : coll.figures)
      f.command =
          "scripts/main-job.sh (simulator), scripts/gpu-bit-choice.sh (GPU); " + in.report_command;
    sections.push_back(std::move(coll));
  }
  sections.insert(sections.end(), in.extra_sections.begin(), in.extra_sections.end());
  for (const auto& section : sections) {
    html << section.html;
    md << '\n' << section.markdown;
    for (const auto& f : section.figures) {
      html << "<figure id=\"" << f.id << "\">" << f.svg << "\n<figcaption>"
           << html_escape(f.caption) << "<br>Made by: <code>" << html_escape(f.command)
           << "</code></figcaption></figure>\n";
      md << "- `" << f.id << "`: " << f.caption << " Made by: `" << f.command << "`\n";
      std::ofstream(fs::path(in.dir) / "figures" / (f.id + ".svg")) << f.svg;
      ++extra_figures;
    }
  }

  html << "<h2>Errata of paper 000</h2>\n";
  md << "\n## Errata of paper 000\n\n";
  if (in.errata.empty()) {
    html << "<p>None recorded.</p>\n";
    md << "None recorded.\n";
  } else {
    html << "<table><tr><th>where</th><th>printed</th><th>corrected</th><th>evidence</th></tr>\n";
    md << "| where | printed | corrected | evidence |\n|---|---|---|---|\n";
    for (const auto& e : in.errata) {
      html << "<tr><td style=\"text-align:left\">" << html_escape(e.where)
           << "</td><td style=\"text-align:left\">" << html_escape(e.printed)
           << "</td><td style=\"text-align:left\">" << html_escape(e.corrected)
           << "</td><td style=\"text-align:left\">" << html_escape(e.evidence) << "</td></tr>\n";
      md << "| " << e.where << " | " << e.printed << " | " << e.corrected << " | " << e.evidence
         << " |\n";
    }
    html << "</table>\n";
  }
  html << "<p>Made by <code>" << html_escape(in.report_command) << "</code>.</p>\n";
  // Self-check for headless browsers (and curious readers): counts the plots that were laid out
  // with a non-empty box. The Chromium test reads this element from the rendered DOM.
  html << "<p id=\"render-check\" hidden></p>\n<script>\nwindow.addEventListener('load', () => {\n"
       << "  const plots = document.querySelectorAll('figure svg');\n  let ok = 0;\n"
       << "  plots.forEach(s => { const b = s.getBoundingClientRect();\n"
       << "    if (b.width > 100 && b.height > 100 && s.querySelectorAll('path').length > 0) ok++; "
          "});\n"
       << "  document.getElementById('render-check').textContent =\n"
       << "    'rendered ' + ok + ' of ' + plots.length + ' plots';\n});\n</script>\n";
  html << "</body></html>\n";

  ReportFiles files;
  files.html = (fs::path(in.dir) / "report.html").string();
  files.markdown = (fs::path(in.dir) / "report.md").string();
  files.figures = static_cast<int>(b.figures().size()) + extra_figures;
  std::ofstream(files.html) << html.str();
  std::ofstream(files.markdown) << md.str();
  return files;
}

}  // namespace alloclab::validation
