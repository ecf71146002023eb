// The claims of seed 002 (Winter et al., ICS'20: Ouroboros) that alloclab can check, each with
// its evidence from the model, the simulator and the hardware, and a verdict. Like the errata of
// paper 000 (paper000_errata.hpp), the model and simulator evidence is computed each time (small
// runs, well under a second together), never pasted; the hardware evidence is read from the GPU's
// workload rows the report is given (DIR/workloads/**.csv, `alloclab workload --backend gpu`),
// and says so where there are none. studies/ouroboros/ explains each verdict at length.
#pragma once

#include <string>
#include <vector>

#include "alloclab/validation/claims.hpp"
#include "alloclab/validation/workload_rows.hpp"

namespace alloclab::validation {

// The checks, in the paper's order. `rows`: any workload rows; only the GPU rows of the six
// Ouroboros allocators are used.
std::vector<ClaimCheck> ouroboros_claims(const std::vector<WorkloadRow>& rows);

// Where seed 002 (or its public code, where the paper relies on it) is wrong, with the evidence
// computed from alloclab's primitives and models as the claims' is (errata.hpp's form).
std::vector<Erratum> ouroboros_errata();

}  // namespace alloclab::validation
