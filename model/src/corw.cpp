// CoRW's model-table entry: the warp chain (warp_chains.hpp, corw_warp) averaged over the
// sequential schedule of warps.
#include <algorithm>
#include <string>

#include "alloclab/core/errors.hpp"
#include "alloclab/model/model.hpp"
#include "alloclab/model/model_table.hpp"
#include "alloclab/model/warp_chains.hpp"

namespace alloclab::model {

Record evaluate_corw(const Scenario& s) {
  if (s.N > s.A) throw InputError("--N", "the CoRW model needs a free page for every request");
  if (s.lanes > 64) throw InputError("--lanes", "at most 64 lanes");
  Record rec = scenario_record(s);
  auto warp = [&](unsigned m, std::uint64_t a0) { return corw_warp(m, a0, s.T, s.w); };
  const SequentialWarps sw = sequential_average(s.N, s.A, s.lanes, 1, warp, 4096);
  const char* why = "a warp cannot finish (no free page can be found)";
  rec.set_quantity("tas", finite_rounds(sw.tas), why);
  rec.set_quantity("was", finite_rounds(sw.was), why);
  const WarpRounds first = warp(static_cast<unsigned>(std::min<std::uint64_t>(s.lanes, s.N)), s.A);
  rec.set_quantity("tas_first_warp", finite_rounds(first.lane_rounds), why);
  rec.set_quantity("was_first_warp", finite_rounds(first.rounds), why);
  return rec;
}

namespace {

// CoRW's derivation of `alloclab explain` (explain.hpp), from the record evaluate_corw makes.
Explanation corw_explain(const Scenario& s) {
  const Record r = evaluate_corw(s);
  Explanation x;
  x.model = "CoRW (cooperative RW, Algorithm 2), warp chain over the sequential schedule of warps";
  x.assumptions = {
      "The lanes of a warp cooperate: each round every lane that still needs a page reads one "
      "random w-bit word, the warp pools the free bits it found (its capacity C = free bits in "
      "the distinct words read) and hands min(need, C) of them to its needing lanes.",
      "Warps are served one after another (the sequential schedule of warps): warp i sees the "
      "pages the warps before it left; the words a round reads are a hypergeometric draw from "
      "the pool (model/warp_chains.hpp).",
      "The paper gives no formula for CoRW: this chain over (needing lanes, free count) is "
      "alloclab's."};
  x.hardware = {
      "On a GPU all warps run at once and their rounds interleave: a warp can find bits another "
      "warp claims in the same round (its atomicOr returns them used) and reads again."};
  ExplainSection sec;
  sec.title = "Rounds of the warp chain";
  sec.text =
      "A served lane stops counting, so the paper's 'TAS = WAS' holds for the warp's rounds (was) "
      "but not for the mean round at which a lane is served (tas).";
  const auto line = [&](const char* key, const char* label, const char* formula,
                        const char* meaning) {
    sec.lines.push_back({label, formula, "", r.number(key), meaning});
  };
  line("tas", "TAS", "mean over lanes of the round in which the lane is served",
       "the rounds a request takes on average");
  line("was", "WAS", "mean over warps of E[rounds until the warp's last lane is served]",
       "the rounds a warp takes: the slowest of its lanes");
  line("tas_first_warp", "TAS, first warp", "the chain at free count A",
       "one warp alone in the untouched pool");
  line("was_first_warp", "WAS, first warp", "E[rounds] of that warp",
       "rounds of the first warp; later warps see fewer free pages");
  x.sections.push_back(std::move(sec));
  x.errata = {"figure5", "alg2-line10"};
  return x;
}

constexpr std::string_view kCorwHelp =
    "A warp serves its needing lanes in rounds (model/include/alloclab/model/warp_chains.hpp):\n"
    "each lane reads a fresh random word per round and the capacity C = free bits in the\n"
    "distinct words read (hypergeometric over the pool); min(need, C) lanes are served. tas =\n"
    "mean over lanes of the round a lane is served, was = mean over warps of E[rounds]; the\n"
    "paper's 'TAS = WAS' holds only for was (a served lane stops counting).\n"
    "tas_first_warp/was_first_warp: one warp at free count A.";

}  // namespace

ALLOCLAB_REGISTER_ENTRY(ModelTable, Algorithm::corw,
                        (ModelEntry{.uncovered = &uncovered_without_a_page_each,
                                    .evaluate = &evaluate_corw,
                                    .probed_word_bits = [](const Scenario& s) { return s.w; },
                                    .metrics = {"tas", "was", "tas_first_warp", "was_first_warp"},
                                    .help = kCorwHelp,
                                    .explain = &corw_explain}))

}  // namespace alloclab::model
