// The report's section on the parallel-rounds model (issue 6, item 1), written from the tidy
// rows: figures (rounds model, sequential model, lockstep simulation, GPU; TAS and WAS vs N) and
// a table of the largest differences per (algo, T, A/T, w). Writes nothing when the sweep has no
// model(rounds) rows.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "alloclab/validation/tidy.hpp"

namespace alloclab::validation {

void write_rounds_section(const std::vector<TidyRow>& rows, const std::string& dir,
                          const std::string& report_command, std::ostream& html, std::ostream& md);

}  // namespace alloclab::validation
