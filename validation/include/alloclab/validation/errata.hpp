// Errors found in paper 000 and the numerical Theorem 1/2 checks. The evidence is computed from
// the model each time (never pasted), so it always describes the code that ships.
#pragma once

#include <string>
#include <vector>

#include "alloclab/core/result.hpp"

namespace alloclab::validation {

// An error found in a paper: what it prints, what is right, and the evidence.
struct Erratum {
  std::string where;      // "Sec. 4.1, Theorem 1"
  std::string printed;    // the claim as printed
  std::string corrected;  // what holds instead
  std::string evidence;   // numbers, with the command (or test) that shows them
  std::string key;        // short stable name ("eq1", "theorem1"): `explain` looks errata up by it
};

std::vector<Erratum> paper000_errata();

// The errata of paper 000 named by `keys` (Erratum::key), in that order; unknown keys are skipped.
std::vector<Erratum> paper000_errata(const std::vector<std::string>& keys);

// Theorem 1/2 records at the corner the theorems speak of (A -> N): T = 10^6, N = 5000,
// A in {N, N+1, 1.01 N, 2 N}, w in {32, 64}.
std::vector<Record> theorem_checks();

}  // namespace alloclab::validation
