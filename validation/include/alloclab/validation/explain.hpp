// `alloclab explain` beyond the model: the model's worked derivation at one point
// (model/explain.hpp) beside a quick simulation at the same point (a few trials, in the
// sequential mode the model assumes and the lockstep mode a GPU resembles) and the errata of the
// paper that the point touches (validation/study.hpp), gathered before anything is printed.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "alloclab/core/result.hpp"
#include "alloclab/core/scenario.hpp"
#include "alloclab/cpu_sim/simulator.hpp"
#include "alloclab/model/explain.hpp"
#include "alloclab/validation/claims.hpp"

namespace alloclab::validation {

struct ExplainOptions {
  bool rounds = false;        // add the parallel-rounds schedule (--schedule rounds)
  std::uint64_t trials = 5;   // of each quick simulation; 0: none
  unsigned host_threads = 0;  // simulator threads (0 = all cores)
};

struct QuickSimulation {
  sim::Mode mode = sim::Mode::sequential;
  sim::TrialsResult result;
  double seconds = 0;          // wall time of the trials
  std::uint64_t requests = 0;  // N: what a run's totals are divided by for a per-request mean
};

struct ExplainResult {
  model::Explanation model;
  Record record;                             // `alloclab model`'s record at the point
  std::optional<Record> rounds;              // `alloclab model --schedule rounds`'s, if asked
  std::vector<QuickSimulation> simulations;  // sequential, then lockstep (where simulated)
  std::vector<Erratum> errata;               // the errata the point touches
  std::string errata_paper;                  // the label of the study they come from
  // Set where alloclab has nothing to derive (an allocator with neither a model nor a simulator:
  // a plug-in, CUDA's malloc): the one line `explain` prints instead, exiting 0.
  std::string no_model;
};

// Whether explain_point runs quick simulations at s (with trials > 0): the allocator runs in the
// simulator and its model (or its study's explain part) covers the point. The command line
// checks their input and memory first.
bool explain_simulates(const Scenario& s);

// Everything `alloclab explain` prints at s: the model's derivation (model/explain.hpp) where the
// model has one, else the explain part a study registered for the allocator (explain_parts.hpp),
// else, for an allocator with neither model nor simulator, the one line `no_model`. InputError
// where the model or the simulator refuse the point (naming the parameter).
ExplainResult explain_point(const Scenario& s, const ExplainOptions& options);

}  // namespace alloclab::validation
