// `alloclab explain`'s dispatch (explain.hpp): the allocator's own derivation from its entry in
// the model table, and the parallel-rounds section that RW and RW-BM share.
#include "alloclab/model/explain.hpp"

#include <fmt/format.h>

#include <cmath>

#include "alloclab/core/errors.hpp"
#include "alloclab/model/model.hpp"
#include "alloclab/model/model_table.hpp"
#include "alloclab/model/rounds.hpp"

namespace alloclab::model {
namespace {

std::string method_of(const Record& r) {
  return r.text("method").value_or("?");
}

// a/b - 1 in percent, without a "-0.00" where the two agree.
double percent_change(double a, double b) {
  const double p = 100 * (a / b - 1);
  return std::abs(p) < 5e-3 ? 0.0 : p;
}

// What the parallel-rounds schedule changes at s, against the sequential record.
ExplainSection rounds_section(const Scenario& s) {
  const Record seq = evaluate(s);
  const Record par = evaluate_rounds(s);
  const double tas_seq = seq.number("tas").value_or(NAN), was_seq = seq.number("was").value_or(NAN);
  const double tas = par.number("tas").value_or(NAN), was = par.number("was").value_or(NAN);
  ExplainSection out;
  out.title = "Parallel rounds: how a GPU serves the same requests (not in the paper)";
  out.text =
      "All unfinished threads probe at once, each round against the state at the start of the "
      "round; of k threads on one free page one wins (RW), of k threads on a word with f free "
      "bits min(k, f) win (RW-BM); losers probe again next round. Warps are consecutive thread "
      "ids, as on hardware. Method: " +
      method_of(par) + ".";
  out.lines.push_back(
      {"TAS (rounds)", "E[sum over rounds of the unfinished threads] / N", "", tas,
       fmt::format("{:+.2f}% against the sequential model's {}: in priority order each probe of a "
                   "round succeeds exactly when it would one at a time, so the total probe count "
                   "keeps its law (RW: equal; RW-BM: the clumping of free pages enters both)",
                   percent_change(tas, tas_seq), explain_number(tas_seq))});
  out.lines.push_back(
      {"WAS (rounds)", "mean over warps of E[max lane steps], P(warp done | m) = C(N-L, m)/C(N, m)",
       "", was,
       fmt::format("{:+.1f}% against the sequential model's {}: the paper's warps are groups "
                   "of the service order, whose lanes ran at nearly the same free count; a "
                   "hardware warp's lanes run together and the slowest of 32 draws decides. This "
                   "is the WAS a GPU measures (docs/models.md, \"Parallel rounds\")",
                   percent_change(was, was_seq), explain_number(was_seq))});
  out.lines.push_back({"rounds", "E[rounds until every thread is done]", "", par.number("rounds"),
                       "the kernel's length in probe rounds: the slowest thread of all N"});
  return out;
}

}  // namespace

std::string explain_number(double v) {
  if (!std::isfinite(v)) return v > 0 ? "inf" : "nan";
  if (v == std::round(v) && std::abs(v) < 1e15) return fmt::format("{:.0f}", v);
  return fmt::format("{:.6g}", v);
}

Explanation explain(const Scenario& s, bool rounds) {
  const ModelEntry* e = ModelTable::instance().find(s.algo);
  if (!e)
    throw InputError("--allocator", std::string(name(s.algo)) + " has no model (the model covers " +
                                        algorithm_names(modelled_algorithms()) + ")");
  if (!e->explain)
    throw InputError("--allocator", std::string(name(s.algo)) +
                                        "'s model has no worked derivation yet; `alloclab model "
                                        "--allocator " +
                                        std::string(name(s.algo)) + "` prints its quantities");
  if (rounds && !e->rounds)
    throw InputError("--schedule", "the rounds schedule models " +
                                       algorithm_names(rounds_algorithms()) + " only");
  if (const auto why = e->uncovered ? e->uncovered(s) : std::nullopt)
    throw InputError(why->parameter(),
                     fmt::format("the model of {} does not cover N={} A={} T={}: {}", name(s.algo),
                                 s.N, s.A, s.T, reason_of(*why)));
  Explanation x = e->explain(s);
  if (rounds) x.sections.push_back(rounds_section(s));
  return x;
}

}  // namespace alloclab::model
