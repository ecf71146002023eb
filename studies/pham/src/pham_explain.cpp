// `alloclab explain` for corw-lockmap (Algorithm 2 exactly as printed, with its LockMap; simulator
// only): alloclab's model of CoRW, which does not model the LockMap, with corw-lockmap's own
// simulation beside it (validation/explain_parts.hpp).
#include "alloclab/model/explain.hpp"
#include "alloclab/validation/explain_parts.hpp"

namespace alloclab::studies::pham {
namespace {

model::Explanation lockmap_explain(const Scenario& s,
                                   const std::vector<validation::QuickSimulation>& sims) {
  Scenario corw = s;
  corw.algo = Algorithm::corw;
  model::Explanation x = model::explain(corw, false);
  x.model =
      "corw-lockmap: Algorithm 2 as printed, with its LockMap; below, alloclab's model of "
      "CoRW (" +
      x.model + ")";
  x.assumptions.insert(
      x.assumptions.begin(),
      "corw-lockmap runs Algorithm 2 exactly, LockMap included; the model is CoRW's, which has "
      "no LockMap: compare its TAS and WAS with the simulation below, whose collisions count "
      "the lanes that found their word locked or their bit taken.");
  for (auto& sec : validation::counter_sections(
           s, sims,
           {{"tas", "warp rounds of a request (the registry's step)"},
            {"was", "the warp's slowest lane"},
            {"collisions", "failed claims per request (LockMap words held, bits lost)"}},
           "corw-lockmap's own simulation (the model above is CoRW's)."))
    x.sections.push_back(std::move(sec));
  return x;
}

}  // namespace
}  // namespace alloclab::studies::pham

ALLOCLAB_REGISTER_EXPLAIN_PART((alloclab::validation::ExplainPartEntry{
    .algo = alloclab::Algorithm::corw_lockmap,
    .study = "pham",
    .explain = &alloclab::studies::pham::lockmap_explain}))
