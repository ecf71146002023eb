// The errata of seed 003 (McCoy & Pandey, PPoPP'24: Gallatin) and of its public code where the
// paper leans on it, in the form of paper 000's (errata.hpp): each written once, here, its
// evidence computed each time from alloclab's shared layout and vEB code and its simulator
// (core/gallatin/, cpu_sim/src/gallatin.cpp), never pasted. studies/gallatin explains each reading.
#pragma once

#include <vector>

#include "alloclab/validation/claims.hpp"

namespace alloclab::validation {

std::vector<Erratum> gallatin_errata();

}  // namespace alloclab::validation
