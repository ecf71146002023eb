#include "alloclab/render/report.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "alloclab/render/study_report.hpp"
#include "alloclab/render/table.hpp"
#include "alloclab/render/text.hpp"

namespace alloclab::render {
namespace {

namespace fs = std::filesystem;

struct StudyPart {
  const validation::StudyEntry* entry;
  StudyReport report;
  JudgementCounts counts;
};

// The figure's provenance as prose: the sweep commands that wrote its rows (each linked to its
// run in the appendix), or the command that made its data; then the report command.
std::string made_by_text(const Figure& f, const Provenance& prov) {
  std::string out;
  if (!f.made_by.empty()) {
    out = "Made by `" + f.made_by + "`";
  } else {
    const MadeBy m = made_by(f, prov);
    std::string runs;
    for (const auto i : m.runs)
      runs += fmt::format("{}`{}` ([run {}](#{}))", runs.empty() ? "" : "; ",
                          prov.runs[i].command_line, i + 1, run_anchor(i));
    if (m.untraced_rows)
      runs += fmt::format("{}{} rows not traced to a recorded sweep ([provenance](#provenance))",
                          runs.empty() ? "" : "; ", m.untraced_rows);
    if (!runs.empty()) out = (m.runs.size() > 1 ? "Rows made by " : "Made by ") + runs;
  }
  out += (out.empty() ? "Drawn by `" : "; drawn by `") + prov.report_command + "`.";
  return out;
}

class Writer {
 public:
  Writer(const Provenance& prov, fs::path figures_dir)
      : prov_(prov), figures_dir_(std::move(figures_dir)) {}

  void section(const Section& s) {
    if (s.empty()) return;
    html_ += "<section id=\"" + html_escape(s.id) + "\">\n<h2>" + html_escape(s.title) + "</h2>\n";
    md_ += "\n## <a id=\"" + s.id + "\"></a>" + s.title + "\n\n";
    for (const auto& b : s.blocks) std::visit([this](const auto& x) { block(x); }, b);
    html_ += "</section>\n";
  }

  const std::string& html() const { return html_; }
  const std::string& markdown() const { return md_; }
  int figures() const { return figures_; }

 private:
  void block(const Heading& h) {
    const std::string id = h.id.empty() ? "" : " id=\"" + html_escape(h.id) + "\"";
    html_ += "<h3" + id + ">" + html_escape(h.text) + "</h3>\n";
    md_ += "\n### " + (h.id.empty() ? "" : "<a id=\"" + h.id + "\"></a>") + h.text + "\n\n";
  }
  void block(const Paragraph& p) {
    html_ += "<p>" + inline_html(p.text) + "</p>\n";
    md_ += p.text + "\n\n";
  }
  void block(const BulletList& l) {
    html_ += "<ul>\n";
    for (const auto& item : l.items) {
      html_ += "<li>" + inline_html(item) + "</li>\n";
      md_ += "- " + item + "\n";
    }
    html_ += "</ul>\n";
    md_ += '\n';
  }
  void block(const Table& t) {
    html_ += t.html();
    md_ += t.markdown() + '\n';
  }
  void block(const Figure& f) {
    const std::string provenance = made_by_text(f, prov_);
    html_ += "<figure id=\"" + html_escape(f.id) + "\">" + f.svg + "\n<figcaption>" +
             inline_html(f.caption) + "<br>" + inline_html(provenance) + "</figcaption></figure>\n";
    md_ += "![" + f.id + "](figures/" + f.id + ".svg)\n\n**`" + f.id + "`** " + f.caption + " " +
           provenance + "\n\n";
    std::ofstream(figures_dir_ / (f.id + ".svg")) << f.svg;
    ++figures_;
  }

  const Provenance& prov_;
  fs::path figures_dir_;
  std::string html_, md_;
  int figures_ = 0;
};

constexpr const char* kStyle =
    "body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;}\n"
    "table{border-collapse:collapse;font-size:0.85em;margin:1em 0;}\n"
    "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right;vertical-align:top;}\n"
    "td.l,th.l{text-align:left;} tr.fail td{background:#fdd;}\n"
    // Long unbroken tokens (paths, commands, numbers lists) may break anywhere, so that no table
    // is wider than the page (the Chromium test checks at 1,400 px).
    "td,th{overflow-wrap:anywhere;}\n"
    "#summary td + td{white-space:nowrap;}\n"
    "figure{margin:1.5em 0;} figcaption{font-size:0.9em;}\n"
    "code{background:#f4f4f4;padding:1px 3px;}\n";

// Self-check for headless browsers (and curious readers): counts the plots that were laid out
// with a non-empty box, the summary's links whose target exists, and the tables wider than the
// page. The Chromium test reads this element from the rendered DOM.
constexpr const char* kRenderCheck =
    "<p id=\"render-check\" hidden></p>\n<script>\nwindow.addEventListener('load', () => {\n"
    "  const plots = document.querySelectorAll('figure svg');\n  let ok = 0;\n"
    "  plots.forEach(s => { const b = s.getBoundingClientRect();\n"
    "    if (b.width > 100 && b.height > 100 && s.querySelectorAll('path').length > 0) ok++; });\n"
    "  const links = document.querySelectorAll('#summary a[href^=\"#\"]');\n  let found = 0;\n"
    "  links.forEach(a => { if (document.getElementById(a.getAttribute('href').slice(1))) "
    "found++; });\n"
    "  const page = document.documentElement.clientWidth;\n  let wide = 0;\n"
    "  document.querySelectorAll('table').forEach(t => {\n"
    "    if (t.getBoundingClientRect().right > page + 0.5) wide++; });\n"
    "  document.getElementById('render-check').textContent =\n"
    "    'rendered ' + ok + ' of ' + plots.length + ' plots; ' + found + ' of ' + links.length +\n"
    "    ' summary links resolve; ' + wide + ' tables wider than the page';\n});\n</script>\n";

// The report's opening: one row per study, its claims counted by judgement and its errata, each
// linked to the study's part; then the engine's sections.
Section summary_section(const std::vector<StudyPart>& studies,
                        const std::vector<Section>& engine_sections) {
  Section s("summary", "Summary");
  s.paragraph(
      "Each study checks one paper's claims against alloclab's model, simulator and GPU "
      "measurements. A claim holds, holds with a qualification, is not reproduced (alloclab's "
      "evidence misses it but cannot rule the paper out: for a speed claim, alloclab's "
      "implementation is far above what the design allows), does not hold, or is not measured "
      "here. Each study's part opens with its own summary.");
  std::vector<std::string> head = {"study", "claims"};
  for (const auto j : validation::kJudgements) head.emplace_back(validation::judgement_name(j));
  head.emplace_back("errata");
  std::vector<Align> align(head.size(), Align::right);
  align[0] = Align::left;
  Table t(head, align);
  for (const auto& p : studies) {
    std::vector<Cell> row = {Cell(std::string(p.entry->label), "#" + study_anchor(p.entry->name)),
                             std::to_string(p.counts.total())};
    for (const auto j : validation::kJudgements) row.emplace_back(std::to_string(p.counts.of(j)));
    row.emplace_back(std::to_string(p.report.errata.size()));
    t.add_row(std::move(row));
  }
  s.table(std::move(t));
  std::vector<std::string> items;
  for (const auto& e : engine_sections)
    items.push_back(
        fmt::format("[{}](#{}){}", e.title, e.id,
                    e.figure_count() ? fmt::format(" ({} figures)", e.figure_count()) : ""));
  items.emplace_back("[Provenance](#provenance)");
  s.heading("Beyond the studies");
  s.list(std::move(items));
  return s;
}

// A study's opening: the paper, its counts, and its sections linked.
Section study_opening(const StudyPart& p) {
  Section s(study_anchor(p.entry->name), std::string(p.entry->label));
  s.paragraph("Paper: " + validation::citation(p.entry->paper) + ".");
  std::string counts = fmt::format("{} claims checked", p.counts.total());
  for (const auto j : validation::kJudgements)
    if (p.counts.of(j))
      counts += fmt::format(", {} {}", p.counts.of(j), validation::judgement_name(j));
  s.paragraph(counts + fmt::format("; {} errata.", p.report.errata.size()));
  std::vector<std::string> items;
  for (const auto& section : p.report.sections)
    items.push_back(fmt::format(
        "[{}](#{}){}", section.title, section.id,
        section.figure_count() ? fmt::format(" ({} figures)", section.figure_count()) : ""));
  s.list(std::move(items));
  return s;
}

}  // namespace

ReportFiles write_report(const ReportInputs& in) {
  Provenance prov = in.provenance;
  if (prov.runs.empty()) prov.runs = sweep_runs(in.metadata);

  // Every registered study's part, in the table's order.
  const StudyReportInputs study_inputs{in.dir, in.rows, in.metadata, in.verdicts, in.workload_rows};
  std::vector<StudyPart> studies;
  for (const auto* entry : validation::StudyTable::instance().all()) {
    const auto* part = StudyReportTable::instance().find(entry->name);
    if (!part) continue;  // a study without a report part (none today; the studies test checks)
    StudyPart p{entry, part->build(study_inputs), {}};
    std::erase_if(p.report.sections, [](const Section& s) { return s.empty(); });
    p.counts = count_judgements(p.report.claims);
    for (auto& input : p.report.other_inputs) prov.other_inputs.push_back(input);
    studies.push_back(std::move(p));
  }
  std::vector<Section> engine = in.engine_sections;
  std::erase_if(engine, [](const Section& s) { return s.empty(); });

  std::vector<Section> body;
  for (const auto& p : studies) {
    body.push_back(study_opening(p));
    for (const auto& s : p.report.sections) body.push_back(s);
  }
  for (const auto& s : engine) body.push_back(s);
  body.push_back(provenance_appendix(prov, in.metadata));
  const Section summary = summary_section(studies, engine);

  const fs::path figures_dir = fs::path(in.dir) / "figures";
  fs::create_directories(figures_dir);
  Writer w(prov, figures_dir);
  w.section(summary);
  for (const auto& s : body) w.section(s);

  std::string html = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n";
  html += "<title>alloclab report</title>\n<style>\n";
  html += kStyle;
  html += "</style></head><body>\n<h1>alloclab report</h1>\n";
  // The explorer page (issue 16), where the main job wrote it beside the report.
  const bool explorer = fs::exists(fs::path(in.dir) / "explorer.html");
  const std::string explorer_text =
      "the model and the simulator in your browser: sliders for N, A/T, T and w, curves with the "
      "H200 measurements, a small pool allocated round by round";
  if (explorer)
    html += "<p>Interactive: <a href=\"explorer.html\">the explorer page</a> (" + explorer_text +
            ").</p>\n";
  html += w.html();
  html += "<p>Made by <code>" + html_escape(prov.report_command) + "</code>.</p>\n";
  html += kRenderCheck;
  html += "</body></html>\n";
  const std::string md =
      "# alloclab report\n" +
      (explorer ? "Interactive: [the explorer page](explorer.html) (" + explorer_text + ").\n\n"
                : std::string()) +
      w.markdown() + "Made by `" + prov.report_command + "`.\n";

  ReportFiles files;
  files.html = (fs::path(in.dir) / "report.html").string();
  files.markdown = (fs::path(in.dir) / "report.md").string();
  files.figures = w.figures();
  std::ofstream(files.html) << html;
  std::ofstream(files.markdown) << md;
  return files;
}

}  // namespace alloclab::render
