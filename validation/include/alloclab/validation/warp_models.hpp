// Validation and report pieces for the warp-chain models of CoRW and RW_malloc
// (model/include/alloclab/model/warp_chains.hpp): how a simulation's departure from the chain is
// judged, and the report's section for each model.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "alloclab/validation/tidy.hpp"
#include "alloclab/validation/verdict.hpp"

namespace alloclab::validation {

struct WarpChainJudgement {
  Outcome outcome;
  std::string explanation;
};

// For corw and rwmalloc compared with the SEQUENTIAL simulation (the chain's own schedule):
// nullopt for other algorithms. A departure is explained only in the direction and within the
// size the chain's stated approximation allows: simulation above the model by at most
// kWarpChainTolerance relative, at a point whose requests take at least kWarpChainDepletion of
// the free pages. The chain redraws the free pages uniformly at every round, while the
// first-free-bit order leaves the remaining free pages clumped in fewer words, which lengthens
// the search once much of the pool is taken. (CoRW, T = 10^6, 20 trials: the largest such
// departure on the standard grid is +2.1% of WAS at N = 65536, A/T = 10%, where 66% of the free
// pages are taken; below a quarter taken, every point agrees within noise.) Anything else FAILs.
inline constexpr double kWarpChainTolerance = 0.05;
inline constexpr double kWarpChainDepletion = 0.25;
std::optional<WarpChainJudgement> judge_warp_chain_departure(const Verdict& v,
                                                             const std::string& threshold);

// The report's sections "CoRW: the warp chain" and "RW_malloc: runs, rounds and utilisation":
// figures (inline SVG, also written to figures_dir/<id>.svg) and a table of model vs simulation
// relative differences per (w, A/T, mode, metric). Writes nothing where the rows hold no model
// values for the algorithm.
void write_warp_model_sections(const std::vector<TidyRow>& rows, const std::string& figures_dir,
                               std::ostream& html, std::ostream& md);

}  // namespace alloclab::validation
