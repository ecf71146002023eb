// The claims of seed 003 (McCoy & Pandey, PPoPP'24: Gallatin) that alloclab checks, each with
// the evidence of the model and the simulator, computed when the report is made (the vEB tree's
// step code run on random operations, the simulator's runs of a few segments, about a second
// together), the hardware read from the GPU rows the report is given (DIR/gallatin/**.csv,
// copied by scripts/main-job.sh from the newest reports/data/<gpu>/gallatin-*/: claims_*.csv and
// alloc.csv), and a verdict (ClaimCheck, as Ouroboros'). studies/gallatin/ discusses each.
#pragma once

#include <string>
#include <vector>

#include "alloclab/core/result.hpp"
#include "alloclab/validation/claims.hpp"

namespace alloclab::validation {

// The directory under a report's DIR that holds the GPU's `alloclab workload` rows of Gallatin.
inline constexpr const char* kGallatinDir = "gallatin";

// Every record of every DIR/gallatin/**.csv (none when the directory is missing).
std::vector<Record> read_gallatin_dir(const std::string& dir);

// The checks, in the paper's order, then issue 14's speed target. `gpu_rows`: the records of
// read_gallatin_dir; without them the hardware rows say "not measured" and why.
std::vector<ClaimCheck> gallatin_claims(const std::vector<Record>& gpu_rows);

}  // namespace alloclab::validation
