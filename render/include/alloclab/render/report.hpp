// `alloclab report DIR`: a self-contained HTML page (plots as inline SVG, rendered by gnuplot), a
// Markdown version with the same sections, and figures/<id>.svg, made from a sweep directory.
//
// The page opens with a one-screen summary (verdict counts per claim and allocator, each linked to
// its table; the Theorem 1/2 verdicts; the errata; the contents), then the paper's figures, the
// models the paper lacks, the comparison and verdict tables, and ends with the errata and an
// appendix on provenance (every sweep command, device, commit and date). Each figure names the
// sweep command that wrote its rows.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "alloclab/core/result.hpp"
#include "alloclab/render/document.hpp"
#include "alloclab/render/provenance.hpp"
#include "alloclab/validation/errata.hpp"
#include "alloclab/validation/tidy.hpp"
#include "alloclab/validation/verdict.hpp"

namespace alloclab::render {

struct ReportInputs {
  std::string dir;  // where report.html, report.md and figures/ go
  std::vector<validation::TidyRow> rows;
  nlohmann::json metadata;  // sweep.json
  std::vector<validation::Verdict> verdicts;
  std::vector<validation::Erratum> errata;
  std::vector<Record> theorem_checks;  // Theorem 1/2 rows, rendered as a table
  Provenance provenance;               // runs (from metadata if empty), writer, report command
  // Sections beyond the built-in ones (e.g. the kernel-time fit), placed after the collisions
  // section.
  std::vector<Section> extra_sections;
};

struct ReportFiles {
  std::string html, markdown;
  int figures = 0;
};

ReportFiles write_report(const ReportInputs& in);

}  // namespace alloclab::render
