// RW's model-table entry (paper 000 §3.2.2-3.2.3): the sequential model's record (Eq. 2-3 and
// the exact WAS, model.cpp) and the parallel-rounds schedule (rounds.cpp, collisions.cpp).
#include "alloclab/model/collisions.hpp"
#include "alloclab/model/model.hpp"
#include "alloclab/model/model_table.hpp"
#include "alloclab/model/rounds.hpp"

namespace alloclab::model {
namespace {

Record rw_record(const Scenario& s) {
  Record r = scenario_record(s);
  r.set("tas", rw_tas_exact(s.N, s.A, s.T));
  r.set_quantity("tas_approx", rw_tas_log_approx(s.N, s.A, s.T),
                 "Eq. (2) ln(A/(A-N)) is infinite at A = N");
  r.set_quantity("was_bound", was_bound(s.N, s.A, s.T, 1, s.lanes),
                 "infinite at A = N (q = (T-A+N)/T = 1)");
  r.set("was", was_sequential_model(s.N, s.A, s.T, 1, s.lanes));
  r.set("collisions_expected", collisions_expected(s.N, s.T));
  r.set("collisions_bound", collisions_bound(s.N, s.A, s.T));
  return r;
}

void rw_rounds_quantities(const Scenario& s, const RoundsOptions& o, Record& r) {
  const RoundsResult x = rw_rounds(s.N, s.A, s.T, s.lanes, o);
  r.set("tas", x.tas).set("was", x.was).set("rounds", x.rounds);
  r.set("method", x.method);
  r.set("collisions", rw_collisions_rounds(s.N, s.A, s.T).collisions);
}

constexpr std::string_view kRwHelp =
    "Thread j of the sequential order sees A-j free pages: its steps are geometric with\n"
    "p_j = (A-j)/T. tas: exact T/N (H_A - H_{A-N}) (§3.2.2); tas_approx: Eq. (2),\n"
    "T/N ln(A/(A-N)), null at A = N. was_bound: Eq. (3), sum_k [1-(1-q^k)^L], q = (T-A+N)/T,\n"
    "null at A = N (q = 1, infinite). was: the EXACT expectation under the sequential model:\n"
    "warps are consecutive groups of L threads in service order (the last may be partial), was =\n"
    "mean over warps of E[max of the warp's steps]. collisions_expected: birthday paradox\n"
    "N(N-1)/(2T) (§3.2.2); collisions_bound: times A/T.\n"
    "Rounds: of k threads on one free page one wins; method exact_chain (Markov chain over the\n"
    "unfinished count, N <= 512) or mean_field+tail.";

}  // namespace

ALLOCLAB_REGISTER_ENTRY(ModelTable, Algorithm::rw,
                        (ModelEntry{.applies = [](const Scenario& s) { return s.N <= s.A; },
                                    .evaluate = &rw_record,
                                    .rounds = &rw_rounds_quantities,
                                    .theorems = true,
                                    .probed_word_bits = [](const Scenario&) { return 32u; },
                                    .metrics = {"tas", "tas_approx", "was", "was_bound",
                                                "collisions_expected", "collisions_bound"},
                                    .help = kRwHelp}))

}  // namespace alloclab::model
