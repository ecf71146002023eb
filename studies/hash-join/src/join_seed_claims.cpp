// The report's row on the seeds' join predictions (join_seed_prediction.hpp): per allocator, its
// judged rows within kJoinTolerance on the join time.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "alloclab/studies/join_seed_prediction.hpp"

namespace alloclab::validation {
namespace {

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : "; ") + i;
  return out;
}

struct PerAllocator {
  std::size_t rows = 0, judged = 0, within = 0;
  double worst = 0;  // |join error| of the judged rows
  std::string worst_at;
  const SeedPrediction* largest = nullptr;  // its largest replayed row with uniform keys
  std::string why;                          // why nothing was predicted
};

}  // namespace

ClaimCheck seed_prediction_claim(const std::vector<SeedPrediction>& p, const std::string& device,
                                 const std::string& note) {
  ClaimCheck c{"issue 17",
               fmt::format("The isolated-rate model predicts the seeds' joins (the join time "
                           "within {:.0f}% where the allocator's cost is judged)",
                           100 * kJoinTolerance),
               "",
               "",
               "",
               ""};
  std::vector<std::string> order;
  std::map<std::string, PerAllocator> by;
  for (const auto& x : p) {
    if (!by.contains(x.allocator)) order.push_back(x.allocator);
    PerAllocator& a = by[x.allocator];
    ++a.rows;
    if (!x.join_ms && a.why.empty()) a.why = x.note;
    if (x.replay && x.skew == 0 && (!a.largest || x.tuples >= a.largest->tuples)) a.largest = &x;
    if (!x.judged()) continue;
    ++a.judged;
    const double err = *x.join_error();
    if (std::abs(err) <= kJoinTolerance) ++a.within;
    if (std::abs(err) >= a.worst) {
      a.worst = std::abs(err);
      a.worst_at = fmt::format("{:+.1f}% at {} tuples, skew {}", 100 * err, x.tuples, x.skew);
    }
  }
  if (order.empty()) {
    c.model = c.simulation = c.hardware = "no join rows of the seeds' allocators";
    c.verdict = "not checked: " + (note.empty() ? std::string("no rows") : note);
    c.judgement = Judgement::not_measured;
    return c;
  }
  std::vector<std::string> model, simulation, hardware, holds, fails, unjudged;
  for (const auto& name : order) {
    const PerAllocator& a = by[name];
    if (const SeedPrediction* x = a.largest) {
      const auto& r = *x->replay;
      simulation.push_back(
          fmt::format("{} at {} tuples: TAS {:.4g}, WAS {:.4g}, atomics {:.4g} per GETPAGE ({})",
                      name, x->tuples, r.tas, r.was, r.atomics, r.plan.describe()));
      hardware.push_back(fmt::format("{} at {} tuples: {:.0f} cycles a GETPAGE, cost {:+.3f} ms",
                                     name, x->tuples, x->getpage_cycles_per_call,
                                     x->measured_cost().value_or(NAN)));
      if (x->alloc_ms && x->isolated)
        model.push_back(fmt::format(
            "{} at {} tuples: {:.3f} ms ({:.4g} ms for {} requests in isolation x {} / {} x "
            "{:.4g} / {:.4g} steps), join {:.3f} ms ({:+.1f}%)",
            name, x->tuples, *x->alloc_ms, x->isolated->alloc_ms, x->isolated->N, x->requests,
            x->isolated->N, x->replay->tas, x->calibration->tas, x->join_ms.value_or(NAN),
            100 * x->join_error().value_or(NAN)));
    }
    if (a.judged == 0)
      unjudged.push_back(fmt::format("{} ({})", name,
                                     a.why.empty() ? "no row judged: below 1M tuples and the "
                                                     "allocator under 10x Direct Output's join, "
                                                     "or its cost within 2%"
                                                   : a.why));
    else if (a.within == a.judged)
      holds.push_back(fmt::format("{} ({} rows, worst {})", name, a.judged, a.worst_at));
    else
      fails.push_back(
          fmt::format("{} ({} of {} rows within, worst {})", name, a.within, a.judged, a.worst_at));
  }
  c.model =
      "alloc_ms = isolated ms x (N / isolated N) x (join's steps / isolated run's steps), "
      "added to Direct Output's join; at each allocator's largest replayed table: " +
      joined(model);
  c.simulation = "replayed counts per GETPAGE: " + joined(simulation);
  c.hardware = (device.empty() ? std::string("the GPU") : device) + ": " + joined(hardware);
  std::vector<std::string> parts;
  if (!holds.empty()) parts.push_back("holds for " + joined(holds));
  if (!fails.empty()) parts.push_back("does not hold for " + joined(fails));
  if (!unjudged.empty()) parts.push_back("not judged: " + joined(unjudged));
  c.verdict = joined(parts);
  // alloclab's model against alloclab's runs, over the allocators judged: all within holds, some
  // within holds for those only, none within does not hold; no allocator judged: not measured.
  c.judgement = fails.empty()   ? (holds.empty() ? Judgement::not_measured : Judgement::holds)
                : holds.empty() ? Judgement::does_not_hold
                                : Judgement::holds_qualified;
  return c;
}

}  // namespace alloclab::validation
