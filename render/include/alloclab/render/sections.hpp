// The engine's report sections, each built from rows of its own (the time fit, the workload
// rows) as a Section (document.hpp). A study's sections live in its folder (studies/<name>/);
// a study's claims and errata are drawn by study_report.hpp's claims_section and errata_section.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "alloclab/render/document.hpp"
#include "alloclab/validation/workload_rows.hpp"

namespace alloclab::render {

// The kernel-time model of a time_fit.json written by `alloclab fit-time` (time_fit_section.cpp).
Section time_fit_section(const nlohmann::json& time_fit);

// ---- interleavings checked (check_section.cpp) -------------------------------------------------
// "Interleavings checked": one row per family of each `alloclab check --format json` output
// (file name, parsed JSON), in the order given: the case, executions, pruned schedules, time
// and verdict; a violation under alloclab's rules is highlighted, one under a printed rule or an
// injected bug is listed as found.
Table check_table(const std::vector<std::pair<std::string, nlohmann::json>>& runs);
Section check_section(const std::vector<std::pair<std::string, nlohmann::json>>& runs);

// ---- workloads (workload_section.cpp) ---------------------------------------------------------
// "Allocators side by side": the survey's plots of the workload rows (simulator and GPU) of a
// report directory's workloads/, each followed by the rows it draws; says so where there are no
// rows, or no GPU rows.
Section workloads_section(const std::vector<validation::WorkloadRow>& rows);

}  // namespace alloclab::render
