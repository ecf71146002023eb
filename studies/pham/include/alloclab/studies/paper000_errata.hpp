// Errors found in paper 000 and the numerical Theorem 1/2 checks. The evidence is computed from
// the model each time (never pasted), so it always describes the code that ships.
#pragma once

#include <string>
#include <vector>

#include "alloclab/core/result.hpp"
#include "alloclab/validation/claims.hpp"

namespace alloclab::validation {

std::vector<Erratum> paper000_errata();

// The errata of paper 000 named by `keys` (Erratum::key), in that order; unknown keys are skipped.
std::vector<Erratum> paper000_errata(const std::vector<std::string>& keys);

// Theorem 1/2 records at the corner the theorems speak of (A -> N): T = 10^6, N = 5000,
// A in {N, N+1, 1.01 N, 2 N}, w in {32, 64}.
std::vector<Record> theorem_checks();

}  // namespace alloclab::validation
