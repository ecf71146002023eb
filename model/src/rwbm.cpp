// RW-BM's model-table entry (paper 000 §4.1): the sequential model's record (Eq. 4-5 and the
// exact WAS, model.cpp) and the parallel-rounds schedule (rounds.cpp, collisions.cpp).
#include "alloclab/model/collisions.hpp"
#include "alloclab/model/model.hpp"
#include "alloclab/model/model_table.hpp"
#include "alloclab/model/rounds.hpp"

namespace alloclab::model {
namespace {

Record rwbm_record(const Scenario& s) {
  Record r = scenario_record(s);
  r.set("tas", s.w == 1 ? rw_tas_exact(s.N, s.A, s.T) : rwbm_tas(s.N, s.A, s.T, s.w));
  r.set_quantity("was_bound", was_bound(s.N, s.A, s.T, s.w, s.lanes),
                 "infinite at A = N (q = (T-A+N)/T = 1)");
  r.set("was", was_sequential_model(s.N, s.A, s.T, s.w, s.lanes));
  r.set("collisions_expected", collisions_expected(s.N, s.T));
  r.set("collisions_bound", collisions_bound(s.N, s.A, s.T));
  return r;
}

void rwbm_rounds_quantities(const Scenario& s, const RoundsOptions& o, Record& r) {
  const RoundsResult x = rwbm_rounds(s.N, s.A, s.T, s.w, s.lanes, o);
  r.set("tas", x.tas).set("was", x.was).set("rounds", x.rounds);
  r.set("method", x.method);
  // `collisions` under the lockstep retry rule (a loser retries on a word holding every earlier
  // claim) and `collisions_synchronous`, losers retrying together (an upper model of the GPU).
  if (const auto c = rwbm_collisions_rounds(s, RetryRule::lockstep))
    r.set("collisions", c->collisions);
  if (const auto c = rwbm_collisions_rounds(s, RetryRule::synchronous))
    r.set("collisions_synchronous", c->collisions);
}

constexpr std::string_view kRwbmHelp =
    "As rw with w-bit words (§4.1): p_j = 1-((T-A+j)/T)^w. tas: Eq. (4),\n"
    "1/N sum_j 1/(1-((T-A+j)/T)^w). was_bound: Eq. (5), q = ((T-A+N)/T)^w. was (exact, sequential\n"
    "model), collisions_expected and collisions_bound as for rw.\n"
    "Rounds: of k threads on a word with f free bits min(k,f) win; method exact_profiles (tiny\n"
    "pools: chain over word profiles) or mean_field+tail; also collisions_synchronous: losers\n"
    "retry together (an upper model of a GPU).";

}  // namespace

ALLOCLAB_REGISTER_ENTRY(ModelTable, Algorithm::rwbm,
                        (ModelEntry{.applies = [](const Scenario& s) { return s.N <= s.A; },
                                    .evaluate = &rwbm_record,
                                    .rounds = &rwbm_rounds_quantities,
                                    .theorems = true,
                                    .probed_word_bits = [](const Scenario& s) { return s.w; },
                                    .metrics = {"tas", "was", "was_bound", "collisions_expected",
                                                "collisions_bound"},
                                    .help = kRwbmHelp}))

}  // namespace alloclab::model
