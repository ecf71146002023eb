// The claims of seed 003 (McCoy & Pandey, PPoPP'24: Gallatin) that alloclab can check so far,
// each with the evidence of the model and the simulator, computed when the report is made (the
// vEB tree's step code run on random operations, the simulator's runs of a few segments, about
// a second together), and a verdict (ClaimCheck, as Ouroboros'). The hardware column waits for
// Gallatin's GPU backend. docs/gallatin.md discusses each.
#pragma once

#include <vector>

#include "alloclab/validation/ouroboros_claims.hpp"

namespace alloclab::validation {

std::vector<ClaimCheck> gallatin_claims();

}  // namespace alloclab::validation
