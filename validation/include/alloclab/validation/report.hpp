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

struct ReportInputs {
  std::string dir;  // where report.html, report.md and figures/ go
  std::vector<TidyRow> rows;
  nlohmann::json metadata;  // sweep.json
  std::vector<Verdict> verdicts;
  std::vector<Erratum> errata;
  std::vector<Record> theorem_checks;  // Theorem 1/2 rows, rendered as a table
  std::string report_command;          // the command that made this report
};

struct ReportFiles {
  std::string html, markdown;
  int figures = 0;
};

ReportFiles write_report(const ReportInputs& in);

}  // namespace alloclab::validation
