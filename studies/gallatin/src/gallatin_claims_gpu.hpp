// The rows of seed 003's claims that the GPU's rows decide
// (validation/src/gallatin_claims_gpu.cpp): utilisation at out of memory, initialisation, warm-up,
// the fragmentation rank, and issue 14's speed against the public Gallatin. Internal to the
// validation module (gallatin_claims.cpp).
#pragma once

#include <vector>

#include "alloclab/core/result.hpp"
#include "alloclab/validation/claims.hpp"

namespace alloclab::validation::gallatin_gpu {

ClaimCheck utilisation(const std::vector<Record>& rows);
ClaimCheck initialisation(const std::vector<Record>& rows);
ClaimCheck warm_up(const std::vector<Record>& rows);
ClaimCheck fragmentation_rank(const std::vector<Record>& rows);
ClaimCheck speed_against_public(const std::vector<Record>& rows);

}  // namespace alloclab::validation::gallatin_gpu
