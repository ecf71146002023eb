// `alloclab explain` for allocators whose model has no closed-form derivation: a study registers,
// from its own folder, an explain part per allocator of its paper (as it registers its report
// part, render/study_report.hpp). The part writes what alloclab can say about one request at the
// point: the structure's numbers (tree height, size class, bitmap levels, formulas with the point
// substituted) and the step-by-step cost of a request in the allocator's own terms, read from the
// quick simulations' counters (sim::TrialsResult::op_counts_per_request). explain_point
// (explain.hpp) runs the simulations and calls the part; nothing here names an allocator.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "alloclab/core/algorithm.hpp"
#include "alloclab/validation/explain.hpp"
#include "alloclab/validation/study.hpp"

namespace alloclab::validation {

struct ExplainPartEntry {
  Algorithm algo{};
  std::string_view study;  // StudyEntry::name of the paper the allocator comes from
  // The explanation at s given the quick simulations already run there (sequential, then
  // lockstep; empty with --trials 0). InputError naming the parameter where the point is outside
  // what the part explains.
  model::Explanation (*explain)(const Scenario& s,
                                const std::vector<QuickSimulation>& simulations) = nullptr;
  Algorithm key() const { return algo; }
};

// The explain parts, by allocator; a second part for one allocator aborts at start-up (two
// studies claiming it).
using ExplainPartTable = RegistrationTable<ExplainPartEntry>;

// What a count means, for a part's counter lines.
struct CountMeaning {
  std::string name;  // a key of op_counts_per_request, or tas, was, collisions
  std::string meaning;
};

// The per-request mean of `name` in one quick simulation (tas, was, collisions or an op count);
// nullopt where the simulation does not report it.
std::optional<double> simulated_per_request(const QuickSimulation& q, std::string_view name);

// One section per quick simulation: a line per count of `counts` (those the simulation reports),
// each with source "sim:<mode>:<name>". No simulation: one section saying how to get them.
std::vector<model::ExplainSection> counter_sections(const Scenario& s,
                                                    const std::vector<QuickSimulation>& sims,
                                                    const std::vector<CountMeaning>& counts,
                                                    const std::string& text);

}  // namespace alloclab::validation

#define ALLOCLAB_REGISTER_EXPLAIN_PART(entry) \
  ALLOCLAB_REGISTER_STUDY_PART(::alloclab::validation::ExplainPartTable, entry)
