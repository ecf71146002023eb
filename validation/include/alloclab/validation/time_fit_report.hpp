// The report's "Kernel time model (not in the paper)" section, made from a time_fit.json written
// by `alloclab fit-time` (see time_fit.hpp).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "alloclab/validation/report.hpp"

namespace alloclab::validation {

// Text (HTML and Markdown) and figures (predicted vs measured kernel time, log-log, one per
// algorithm) of the section. Figures need gnuplot, as every report figure does.
ReportSection time_fit_section(const nlohmann::json& time_fit);

}  // namespace alloclab::validation
