// `alloclab report DIR`: a self-contained HTML page (plots as inline SVG, rendered by gnuplot)
// and a Markdown summary, made from a sweep directory.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "alloclab/core/result.hpp"
#include "alloclab/validation/tidy.hpp"
#include "alloclab/validation/verdict.hpp"

namespace alloclab::validation {

// An error found in a paper: what it prints, what is right, and the evidence.
struct Erratum {
  std::string where;      // "Sec. 4.1, Theorem 1"
  std::string printed;    // the claim as printed
  std::string corrected;  // what holds instead
  std::string evidence;   // numbers, with the command that shows them
};

// A section beyond the built-in ones (the models the papers lack, issue 6): its own text and
// figures, placed before the errata. Figures are inlined and written to figures/<id>.svg.
// Text for HTML element content and attribute values (<, >, &, ").
std::string html_escape(const std::string& s);

struct ReportSection {
  std::string html, markdown;  // the section's text, starting with its heading
  struct SectionFigure {
    std::string id, caption, command, svg;
  };
  std::vector<SectionFigure> figures;  // rendered after the text
};

struct ReportInputs {
  std::string dir;  // where report.html, report.md and figures/ go
  std::vector<TidyRow> rows;
  nlohmann::json metadata;  // sweep.json
  std::vector<Verdict> verdicts;
  std::vector<Erratum> errata;
  std::vector<Record> theorem_checks;  // Theorem 1/2 rows, rendered as a table
  std::string report_command;          // the command that made this report
  std::vector<ReportSection> extra_sections;
};

struct ReportFiles {
  std::string html, markdown;
  int figures = 0;
};

ReportFiles write_report(const ReportInputs& in);

}  // namespace alloclab::validation
