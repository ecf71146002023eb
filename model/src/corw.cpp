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

constexpr std::string_view kCorwHelp =
    "A warp serves its needing lanes in rounds (model/include/alloclab/model/warp_chains.hpp):\n"
    "each lane reads a fresh random word per round and the capacity C = free bits in the\n"
    "distinct words read (hypergeometric over the pool); min(need, C) lanes are served. tas =\n"
    "mean over lanes of the round a lane is served, was = mean over warps of E[rounds]; the\n"
    "paper's 'TAS = WAS' holds only for was (a served lane stops counting).\n"
    "tas_first_warp/was_first_warp: one warp at free count A.";

}  // namespace

ALLOCLAB_REGISTER_ENTRY(ModelTable, Algorithm::corw,
                        (ModelEntry{.applies = [](const Scenario& s) { return s.N <= s.A; },
                                    .evaluate = &evaluate_corw,
                                    .probed_word_bits = [](const Scenario& s) { return s.w; },
                                    .metrics = {"tas", "was", "tas_first_warp", "was_first_warp"},
                                    .help = kCorwHelp}))

}  // namespace alloclab::model
