// RW's model-table entry (paper 000 §3.2.2-3.2.3): the sequential model's record (Eq. 2-3 and
// the exact WAS, model.cpp) and the parallel-rounds schedule (rounds.cpp, collisions.cpp).
#include <fmt/format.h>

#include <cmath>

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

// The RW derivation of `alloclab explain` (explain.hpp), from the functions rw_record uses.
Explanation rw_explain(const Scenario& s) {
  const auto num = explain_number;
  const double N = static_cast<double>(s.N), A = static_cast<double>(s.A),
               T = static_cast<double>(s.T);
  Explanation x;
  x.model = "RW (Random Walk, Algorithm 1), sequential schedule (paper 000, §3.2.2-3.2.3)";
  x.assumptions = {
      "N threads request one page each; A of the T pages are free, at uniformly random places.",
      "The requests are served one after another (the sequential schedule): thread j, j = 0.."
      "N-1, sees A - j free pages.",
      "Each probe reads a page drawn uniformly from all T, independently of every other probe, "
      "so a thread's steps are geometric: it succeeds on each probe with probability p_j.",
      "A warp is L consecutive threads of the service order (the last may be partial)."};
  x.hardware = {
      "A GPU serves all N threads at once: the probes of one round see the same state, and of "
      "k threads that probe one free page one wins and the others probe again (collisions). "
      "TAS keeps its law; WAS does not (add --schedule rounds).",
      "Hardware warps are consecutive thread ids, not groups of the service order, and warps do "
      "not all start at once."};
  const double p0 = A / T, plast = (A - N + 1) / T;
  ExplainSection trial;
  trial.title = "One thread: a Bernoulli trial per probe, geometric steps";
  trial.lines = {
      {"p_0", "(A - j)/T at j = 0", fmt::format("{}/{}", s.A, s.T), p0,
       "the first thread's chance that one probe hits a free page"},
      {"E[steps_0]", "1/p_0 = T/A", fmt::format("{}/{}", s.T, s.A), 1 / p0,
       "the first thread's expected probes"},
      {"p_(N-1)", "(A - j)/T at j = N - 1", fmt::format("({} - {})/{}", s.A, s.N - 1, s.T), plast,
       "the last thread's chance per probe: N - 1 pages are gone"},
      {"E[steps_(N-1)]", "T/(A - N + 1)", fmt::format("{}/{}", s.T, s.A - s.N + 1), 1 / plast,
       fmt::format("{:.3g} times the first thread's probes: the pool fills as it is served",
                   p0 / plast)}};
  x.sections.push_back(std::move(trial));

  const double hdiff = harmonic_difference(s.A, s.A - s.N);
  const double tas = rw_tas_exact(s.N, s.A, s.T);
  const auto approx = rw_tas_log_approx(s.N, s.A, s.T);
  ExplainSection tas_section;
  tas_section.title = "TAS: the mean over the N threads";
  tas_section.lines = {
      {"sum", "sum_{j<N} T/(A - j) = T (H_A - H_(A-N))",
       fmt::format("{} x (H_{} - H_{})", s.T, s.A, s.A - s.N), T * hdiff,
       "every thread's expected probes added up (H_n = 1 + 1/2 + ... + 1/n)"},
      {"H_A - H_(A-N)", "sum_{k=A-N+1}^{A} 1/k", "", hdiff,
       "computed to full precision (model.cpp, harmonic_difference)"},
      {"TAS", "T/N (H_A - H_(A-N))", fmt::format("{}/{} x {}", s.T, s.N, num(hdiff)), tas,
       "the expected probes of a request, averaged over all N: `alloclab model`'s tas"}};
  if (approx)
    tas_section.lines.push_back(
        {"Eq. (2)", "T/N ln(A/(A-N))", fmt::format("{}/{} x ln({}/{})", s.T, s.N, s.A, s.A - s.N),
         *approx,
         fmt::format("the paper's approximation (H_n ~ ln n); error {:+.3g}% at this point{}",
                     100 * (*approx / tas - 1),
                     std::abs(*approx / tas - 1) < 0.01
                         ? ": the approximation is excellent while A - N is large"
                         : ": it drifts as A - N becomes small")});
  else
    tas_section.lines.push_back({"Eq. (2)", "T/N ln(A/(A-N))",
                                 fmt::format("{}/{} x ln({}/0)", s.T, s.N, s.A), std::nullopt,
                                 "infinite at A = N, where the exact TAS above is finite"});
  x.sections.push_back(std::move(tas_section));

  const auto bound = was_bound(s.N, s.A, s.T, 1, s.lanes);
  const double was = was_sequential_model(s.N, s.A, s.T, 1, s.lanes);
  const double q = (T - A + N) / T;
  ExplainSection was_section;
  was_section.title = "WAS: a warp waits for its slowest lane";
  was_section.lines = {
      {"q", "(T - A + N)/T", fmt::format("({} - {} + {})/{}", s.T, s.A, s.N, s.T), q,
       "a probe's failure probability once every request is served: worse than any thread sees"},
      {"Eq. (3)", "sum_{k>=0} [1 - (1 - q^k)^L]",
       fmt::format("q = {}, L = {}", explain_number(q), s.lanes), bound,
       bound ? "an upper bound: the max of L lanes that all fail with the worst q (E[max of L "
               "i.i.d. geometric steps])"
             : "infinite at A = N (q = 1)"},
      {"WAS", "mean over warps of E[max of its lanes' geometric steps]",
       fmt::format("{} warps of up to {} lanes", warp_count(s), s.lanes), was,
       fmt::format("the exact expectation under the sequential model; {:.2f} times TAS: the "
                   "price of waiting for the slowest of L",
                   was / tas)}};
  x.sections.push_back(std::move(was_section));

  ExplainSection coll;
  coll.title = "Collisions (§3.2.2)";
  coll.lines = {
      {"birthday", "N(N-1)/(2T)", fmt::format("{} x {}/(2 x {})", s.N, s.N - 1, s.T),
       collisions_expected(s.N, s.T), "pairs of threads whose first probes pick the same page"},
      {"bound", "N(N-1)/(2T) x A/T", "", collisions_bound(s.N, s.A, s.T),
       "of those, the pairs on a free page: claims that can be lost"}};
  x.sections.push_back(std::move(coll));
  if (s.A == s.N) x.errata.push_back("eq2-at-a-equals-n");
  x.errata.push_back("eq4-special-case");
  if (s.N == 5000 && s.T == 1000000) x.errata.push_back("collisions-12.5");
  return x;
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
                        (ModelEntry{.uncovered = &uncovered_without_a_page_each,
                                    .evaluate = &rw_record,
                                    .rounds = &rw_rounds_quantities,
                                    .theorems = true,
                                    .probed_word_bits = [](const Scenario&) { return 32u; },
                                    .metrics = {"tas", "tas_approx", "was", "was_bound",
                                                "collisions_expected", "collisions_bound"},
                                    .help = kRwHelp,
                                    .explain = &rw_explain}))

}  // namespace alloclab::model
