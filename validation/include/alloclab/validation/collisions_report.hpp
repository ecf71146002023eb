// The report's "Collisions (not in the paper)" section: the parallel-rounds collision model
// (model/collisions.hpp) against lockstep simulation and GPU counts, and RW-BM's bit choices
// (core/bit_choice.hpp) side by side, from whatever collision rows a sweep directory holds.
#pragma once

#include <string>
#include <vector>

#include "alloclab/validation/report.hpp"
#include "alloclab/validation/tidy.hpp"

namespace alloclab::validation {

// Model values are computed here for every point that has measured collisions (lowest bit for
// the comparison, every bit choice present for the second part). Figures need gnuplot.
// The section's text and tables without its heading; figures' `command` is left for the caller.
ReportSection collisions_section(const std::vector<TidyRow>& rows);

}  // namespace alloclab::validation
