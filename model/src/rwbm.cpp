// RW-BM's model-table entry (paper 000 §4.1): the sequential model's record (Eq. 4-5 and the
// exact WAS, model.cpp) and the parallel-rounds schedule (rounds.cpp, collisions.cpp).
#include <fmt/format.h>

#include <cmath>

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

// The RW-BM derivation of `alloclab explain` (explain.hpp), from the functions rwbm_record uses.
Explanation rwbm_explain(const Scenario& s) {
  const double N = static_cast<double>(s.N), A = static_cast<double>(s.A),
               T = static_cast<double>(s.T), w = s.w;
  Explanation x;
  x.model = "RW-BM (Random Walk over a bitmap, §4.1), sequential schedule (paper 000, §4.1.1)";
  x.assumptions = {
      "As RW, but a probe reads one w-bit word of the bitmap, drawn uniformly, and succeeds if "
      "the word has a free bit (the thread takes one of them).",
      "Thread j of the service order sees A - j free pages, and each bit is used with "
      "probability x_j = (T - A + j)/T independently of the others, so a probe fails with "
      "probability x_j^w.",
      "A warp is L consecutive threads of the service order."};
  x.hardware = {
      "The free pages do not stay independent: a thread takes a free bit from a non-full word, "
      "which empties sparsely filled words first and clumps the remaining free pages into fewer "
      "words; later threads find a non-full word less often than Eq. (4) assumes (the erratum "
      "below). The simulator's sequential mode shows it beside the model.",
      "On a GPU, k threads that read one word with f free bits: min(k, f) win with atomicOr, the "
      "rest read again (--schedule rounds)."};
  const double x0 = (T - A) / T, xl = (T - A + N - 1) / T;
  const double p0 = 1 - std::pow(x0, w), pl = 1 - std::pow(xl, w);
  ExplainSection trial;
  trial.title = "One probe reads w bits at once";
  trial.lines = {
      {"x_0", "(T - A)/T", fmt::format("({} - {})/{}", s.T, s.A, s.T), x0,
       "the share of used pages the first thread sees"},
      {"p_0", "1 - x_0^w", fmt::format("1 - {}^{}", explain_number(x0), s.w), p0,
       "its chance that the word it reads has a free bit"},
      {"E[steps_0]", "1/p_0", "", 1 / p0, "the first thread's expected word reads"},
      {"p_(N-1)", "1 - ((T - A + N - 1)/T)^w", fmt::format("1 - {}^{}", explain_number(xl), s.w),
       pl, "the last thread's chance per read"},
      {"E[steps_(N-1)]", "1/p_(N-1)", "", 1 / pl,
       "the last thread's expected reads: a word holds w chances where RW's page holds one"}};
  x.sections.push_back(std::move(trial));
  const double tas = rwbm_tas(s.N, s.A, s.T, s.w);
  const double rw = rw_tas_exact(s.N, s.A, s.T);
  ExplainSection tas_section;
  tas_section.title = "TAS: Eq. (4), and Theorem 1's comparison with RW";
  tas_section.lines = {
      {"TAS", "1/N sum_{j<N} 1/(1 - ((T - A + j)/T)^w)", fmt::format("N = {}, w = {}", s.N, s.w),
       tas, "Eq. (4): the expected word reads of a request, averaged over the N threads"},
      {"U/w", "RW's TAS / w = T/(N w) (H_A - H_(A-N))",
       fmt::format("{} / {}", explain_number(rw), s.w), rw / w,
       "what Theorem 1 says TAS tends to as A -> N"},
      {"TAS - U/w", "1/N sum_j s(x_j), s(x) = 1/(1-x^w) - 1/(w(1-x))", "",
       rwbm_tas_excess_over_rw(s.N, s.A, s.T, s.w),
       fmt::format("the residual, computed directly; it tends to (w-1)/(2w) = {} as A -> N "
                   "(and N/T -> 0), not to 0 as Theorem 1 prints",
                   explain_number((w - 1) / (2 * w)))}};
  x.sections.push_back(std::move(tas_section));
  const auto bound = was_bound(s.N, s.A, s.T, s.w, s.lanes);
  const double was = was_sequential_model(s.N, s.A, s.T, s.w, s.lanes);
  ExplainSection was_section;
  was_section.title = "WAS: the slowest of a warp's lanes";
  was_section.lines = {
      {"q^w", "((T - A + N)/T)^w", "", std::pow((T - A + N) / T, w),
       "a read's failure probability at the fullest point"},
      {"Eq. (5)", "sum_{k>=0} [1 - (1 - q^(w k))^L]", fmt::format("w = {}, L = {}", s.w, s.lanes),
       bound,
       bound ? "an upper bound: L lanes that all fail with the worst probability"
             : "infinite at A = N"},
      {"WAS", "mean over warps of E[max of its lanes' geometric steps]",
       fmt::format("{} warps", warp_count(s)), was,
       fmt::format("exact under the sequential model; {:.2f} times TAS", was / tas)}};
  x.sections.push_back(std::move(was_section));
  x.errata = {"eq4-clumping"};
  if (s.A <= s.N + s.N / 10) {
    x.errata.push_back("theorem1");
    x.errata.push_back("theorem2");
  }
  x.errata.push_back("eq4-special-case");
  return x;
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
                        (ModelEntry{.uncovered = &uncovered_without_a_page_each,
                                    .evaluate = &rwbm_record,
                                    .rounds = &rwbm_rounds_quantities,
                                    .theorems = true,
                                    .probed_word_bits = [](const Scenario& s) { return s.w; },
                                    .metrics = {"tas", "was", "was_bound", "collisions_expected",
                                                "collisions_bound"},
                                    .help = kRwbmHelp,
                                    .explain = &rwbm_explain}))

}  // namespace alloclab::model
