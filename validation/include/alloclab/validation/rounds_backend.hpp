// The parallel-rounds model (model/rounds.hpp) as a sweep backend, and its verdicts.
#pragma once

#include <vector>

#include "alloclab/validation/sweep.hpp"
#include "alloclab/validation/tidy.hpp"
#include "alloclab/validation/verdict.hpp"

namespace alloclab::validation {

// backend "model", mode "rounds": metrics tas, was, rounds (the allocators whose model-table
// entry has a rounds schedule; N <= A).
Backend rounds_model_backend();

// model(rounds) vs sim(lockstep), TAS and WAS, at every point that has both: z against a
// family-wise (Bonferroni) threshold over these comparisons. A departure is explained only where
// the model's documented approximation is in play (see the explanation); otherwise FAIL.
// model(rounds) vs gpu rows are reported too, as relative errors: a pass within the hardware
// tolerance, else an expected departure when the lockstep simulation is as far from the GPU
// (hardware does not run strict rounds), else FAIL.
std::vector<Verdict> compare_rounds_model(const std::vector<TidyRow>& rows,
                                          const ValidationOptions& options = {});

}  // namespace alloclab::validation
