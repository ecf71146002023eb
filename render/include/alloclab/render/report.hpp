// `alloclab report DIR`: a self-contained HTML page (plots as inline SVG, rendered by gnuplot), a
// Markdown version with the same sections, and figures/<id>.svg, made from a report directory.
//
// The page reads by study: it opens with one summary table, a row per study (its claims counted
// by judgement, its errata), each row linked to the study's part, which opens with its own
// one-screen summary and then its sections (registered by the study, render/study_report.hpp).
// The engine's sections follow (allocators side by side, the kernel-time fit), then an
// appendix on provenance (every sweep command, device, commit and date).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "alloclab/core/result.hpp"
#include "alloclab/render/document.hpp"
#include "alloclab/render/provenance.hpp"
#include "alloclab/validation/tidy.hpp"
#include "alloclab/validation/verdict.hpp"
#include "alloclab/validation/workload_rows.hpp"

namespace alloclab::render {

struct ReportInputs {
  std::string dir;  // where report.html, report.md and figures/ go
  std::vector<validation::TidyRow> rows;
  nlohmann::json metadata;  // sweep.json
  std::vector<validation::Verdict> verdicts;
  std::vector<validation::WorkloadRow> workload_rows;  // DIR/workloads/**.csv
  Provenance provenance;  // runs (from metadata if empty), writer, report command
  // The engine's sections beyond the studies' (allocators side by side, the kernel-time fit),
  // placed after them.
  std::vector<Section> engine_sections;
};

struct ReportFiles {
  std::string html, markdown;
  int figures = 0;
};

ReportFiles write_report(const ReportInputs& in);

}  // namespace alloclab::render
