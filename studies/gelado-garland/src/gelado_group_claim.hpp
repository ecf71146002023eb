// The §4.2.2 collective-mutex claim of seed 001 (gelado_group_claim.cpp), internal to the
// validation module (gelado_malloc_claims.cpp adds it to the claims).
#pragma once

#include "alloclab/validation/claims.hpp"
#include "gelado_fig7_gpu.hpp"

namespace alloclab::validation {

ClaimCheck collective_mutex_claim(const gelado_fig7::Figure& fig);

}  // namespace alloclab::validation
