// How a simulation's departure from the warp-chain models of CoRW and RW_malloc
// (model/include/alloclab/model/warp_chains.hpp) is judged. The report's sections on these models
// are in render/src/warp_chain_sections.cpp.
#pragma once

#include <optional>
#include <string>

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
// RW_malloc: run depletion explains an excess once the requests ask for at least this share of
// the n-page pieces the pool holds at the start (standard grid, n = 2, A/T = 10%: +9% at 22% of
// the pieces, +110% at 90%).
inline constexpr double kRunDepletionShare = 0.1;
std::optional<WarpChainJudgement> judge_warp_chain_departure(const Verdict& v,
                                                             const std::string& threshold);

}  // namespace alloclab::validation
