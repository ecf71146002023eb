#include "alloclab/validation/verdict.hpp"

#include "alloclab/validation/rounds_backend.hpp"
#include "alloclab/validation/warp_chain_verdict.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <iterator>
#include <limits>
#include <map>

namespace alloclab::validation {

std::string_view outcome_name(Outcome o) {
  switch (o) {
    case Outcome::pass:
      return "pass";
    case Outcome::expected_departure:
      return "expected departure";
    case Outcome::fail:
      return "FAIL";
  }
  return "?";
}

namespace {

// The grid point without backend and mode: what model, sim and gpu rows have in common.
std::string shared_point(const PointKey& p) {
  return fmt::format("{}|N={}|A={}|T={}|w={}|L={}|n={}", name(p.algo), p.N, p.A, p.T, p.w, p.lanes,
                     p.pages);
}

struct PointRows {
  Algorithm algo = Algorithm::rw;
  // backend|mode -> metric -> row
  std::map<std::string, std::map<std::string, const TidyRow*>> by_source;
};

const TidyRow* find(const PointRows& pr, const std::string& source, const std::string& metric) {
  auto s = pr.by_source.find(source);
  if (s == pr.by_source.end()) return nullptr;
  auto m = s->second.find(metric);
  return (m == s->second.end() || !m->second->mean) ? nullptr : m->second;
}

double standard_error(const TidyRow& r) {
  return r.n > 1 ? r.sd / std::sqrt(static_cast<double>(r.n)) : 0.0;
}

}  // namespace

namespace {

enum class Kind { model_comparison, bound };

struct Pending {
  Verdict v;
  Kind kind;
  const PointRows* rows;
  const TidyRow* observed_row;
};

// Two sample means agree if their difference is within the family-wise threshold, or within a
// relative tolerance (for exact, zero-variance values).
bool means_agree(const TidyRow& a, const TidyRow& b, double z_crit, double tolerance) {
  const double diff = std::fabs(*a.mean - *b.mean);
  const double se = std::hypot(standard_error(a), standard_error(b));
  return diff <= z_crit * se || diff <= tolerance * std::fabs(*b.mean);
}

// The queue on a GPU: a warp's aggregated atomicAdd hands its lanes consecutive tickets, so a
// warp's maximum is its last ticket and WAS = mean over warps of min((k+1)L, N).
double queue_consecutive_tickets_was(std::uint64_t N, unsigned lanes) {
  const std::uint64_t warps = (N + lanes - 1) / lanes;
  double sum = 0;
  for (std::uint64_t k = 0; k < warps; ++k)
    sum += static_cast<double>(std::min<std::uint64_t>((k + 1) * lanes, N));
  return sum / static_cast<double>(warps);
}

}  // namespace

std::vector<Verdict> compare_backends(const std::vector<TidyRow>& rows,
                                      const ValidationOptions& options) {
  std::map<std::string, PointRows> points;
  for (const auto& r : rows) {
    // The models are those of the paper's lowest-bit RW-BM; other bit choices are compared in
    // the report's collisions section (render/src/collisions_section.cpp), not here.
    if (r.point.bit_choice != BitChoice::lowest) continue;
    auto& pr = points[shared_point(r.point)];
    pr.algo = r.point.algo;
    pr.by_source[r.point.backend + "|" + r.point.mode][r.metric] = &r;
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();

  // Pass 1: gather comparisons; the family-wise threshold needs their count first.
  std::vector<Pending> pending;
  for (const auto& [key, pr] : points) {
    // The paper's (sequential) model; the parallel-rounds model (mode "rounds") has its own
    // verdicts (rounds_verdict.cpp) and is neither reference nor observation here.
    const std::string model_source = [&] {
      for (const auto& [src, m] : pr.by_source)
        if (src.rfind("model|", 0) == 0 && src != "model|rounds") return src;
      return std::string();
    }();
    if (model_source.empty()) continue;
    for (const auto& [src, metrics] : pr.by_source) {
      if (src.rfind("model|", 0) == 0) continue;
      const bool hardware = src.rfind("gpu|", 0) == 0;
      const bool sequential = src == "sim|sequential";
      for (const std::string metric : {"tas", "was"}) {
        // The model's RW/RW-BM warps are consecutive in service order; a sequential simulation
        // reports that quantity as was_service_order (its `was` uses thread-id warps, like
        // hardware). The model's queue WAS is over a warp's random positions (Eq. 1's setting),
        // which is the simulation's thread-id `was`.
        const std::string observed_metric =
            (sequential && metric == "was" && pr.algo != Algorithm::queue) ? "was_service_order"
                                                                           : metric;
        const TidyRow* obs = find(pr, src, observed_metric);
        const TidyRow* ref = find(pr, model_source, metric);
        // No comparison against an infinite or undefined model value (e.g. WAS at A = N).
        if (!obs || !ref || !std::isfinite(*ref->mean) || !std::isfinite(*obs->mean)) continue;
        Verdict v;
        v.check = fmt::format("model vs {}: {}", hardware ? "gpu" : "sim", observed_metric);
        v.point = obs->point;
        v.metric = metric;
        v.observed = *obs->mean;
        v.observed_ci95 = obs->ci95;
        v.reference = *ref->mean;
        const double se = standard_error(*obs);
        v.z = se > 0 ? (v.observed - v.reference) / se : nan;
        v.relative_error = v.reference != 0 ? (v.observed - v.reference) / v.reference : 0;
        v.inside_ci95 = std::fabs(v.observed - v.reference) <= obs->ci95;
        const TidyRow* coll = find(pr, src, "collisions");
        v.collisions_per_thread = coll ? *coll->mean / static_cast<double>(obs->point.N) : nan;
        pending.push_back({v, Kind::model_comparison, &pr, obs});
      }
      // The WAS upper bound (Eq. 3 / Eq. 5), one-sided.
      const TidyRow* was = find(pr, src, "was");
      const TidyRow* bound = find(pr, model_source, "was_bound");
      if (was && bound && std::isfinite(*bound->mean)) {
        Verdict v;
        v.check = fmt::format("{} WAS <= bound", hardware ? "gpu" : "sim");
        v.point = was->point;
        v.metric = "was";
        v.observed = *was->mean;
        v.observed_ci95 = was->ci95;
        v.reference = *bound->mean;
        const double se = standard_error(*was);
        v.z = se > 0 ? (v.observed - v.reference) / se : nan;
        v.relative_error = v.reference != 0 ? (v.observed - v.reference) / v.reference : 0;
        v.inside_ci95 = v.observed - was->ci95 <= v.reference;
        v.collisions_per_thread = nan;
        pending.push_back({v, Kind::bound, &pr, was});
      }
    }
  }

  std::size_t statistical = 0;
  for (const auto& p : pending)
    if (!std::isnan(p.v.z)) ++statistical;
  const double z_crit = statistical == 0
                            ? 1.96
                            : boost::math::quantile(boost::math::complement(
                                  boost::math::normal_distribution<double>(),
                                  options.family_alpha / 2 / static_cast<double>(statistical)));
  // The critical value of one comparison: a z computed with a sample sd from n trials follows
  // Student's t with n - 1 degrees of freedom (3 trials: heavy tails), so the family-wise
  // threshold is t's quantile, not the normal's (which stays the rule where n is unknown).
  const double tail =
      options.family_alpha / 2 / static_cast<double>(std::max<std::size_t>(statistical, 1));
  auto critical = [&](std::uint64_t n) {
    return n > 1 ? boost::math::quantile(boost::math::complement(
                       boost::math::students_t_distribution<double>(static_cast<double>(n - 1)),
                       tail))
                 : z_crit;
  };
  auto threshold_for = [&](std::uint64_t n) {
    return n > 1 ? fmt::format("{:.2f} (family-wise 95%, Student t with {} dof, {} tests)",
                               critical(n), n - 1, statistical)
                 : fmt::format("{:.2f} (family-wise 95%, {} tests)", z_crit, statistical);
  };

  // Pass 2: outcomes, with explanations drawn from the other backends at the same point.
  std::vector<Verdict> out;
  for (auto& p : pending) {
    Verdict& v = p.v;
    const PointRows& pr = *p.rows;
    const std::uint64_t trials = p.observed_row ? p.observed_row->n : 1;
    const double crit = critical(trials);
    const std::string threshold = threshold_for(trials);
    const bool hardware = v.point.backend == "gpu";
    const TidyRow* seq = find(pr, "sim|sequential", v.metric);
    const TidyRow* lock = find(pr, "sim|lockstep", v.metric);
    const bool rwbm_above = v.point.algo == Algorithm::rwbm && v.observed > v.reference;
    const std::string clumping =
        "Eq. (4)/(5) assume free pages stay scattered binomially over words; RW-BM empties "
        "sparse words first, so fewer words hold a free page (paper erratum)";

    if (p.kind == Kind::bound) {
      if (v.observed <= v.reference || (!std::isnan(v.z) && v.z <= crit)) {
        v.outcome = Outcome::pass;
        v.explanation = v.observed <= v.reference
                            ? "bound respected"
                            : fmt::format(
                                  "above the bound by {:.3g} but within noise: z = {:.2f} "
                                  "<= {}",
                                  v.observed - v.reference, v.z, threshold);
      } else if (v.point.algo == Algorithm::rwbm &&
                 (!seq || *seq->mean > v.reference || v.point.mode == "sequential")) {
        v.outcome = Outcome::expected_departure;
        v.explanation =
            fmt::format("{:+.2f}% above Eq. (5): {}{}", 100 * v.relative_error, clumping,
                        seq && v.point.mode != "sequential"
                            ? fmt::format("; the sequential simulation here is {:.4g}, "
                                          "also above",
                                          *seq->mean)
                            : std::string());
      } else if (v.point.mode == "lockstep" || v.point.mode == "threads" ||
                 (hardware && lock && *lock->mean > v.reference)) {
        v.outcome = Outcome::expected_departure;
        v.explanation = fmt::format(
            "{:+.2f}% above Eq. (3): the bound assumes one request at a time; in parallel rounds "
            "a lost claim costs a step{}",
            100 * v.relative_error,
            hardware ? fmt::format(" (lockstep simulation here: {:.4g})", *lock->mean)
                     : std::string());
      } else {
        v.outcome = Outcome::fail;
        v.explanation = "WAS exceeds the bound, unexplained";
      }
      out.push_back(v);
      continue;
    }

    // A sample with no spread (every trial gave the same value, e.g. one step for everybody)
    // cannot resolve an excess below the rule of three: no event in n trials of `units` each
    // bounds the event rate by 3/(n * units) at 95%.
    double zero_spread_tolerance = 1e-9 * std::fabs(v.reference);
    if (std::isnan(v.z) && p.observed_row->n > 1) {
      const double units = v.metric == "tas"
                               ? static_cast<double>(v.point.N)
                               : std::ceil(static_cast<double>(v.point.N) / v.point.lanes);
      zero_spread_tolerance = std::max(
          zero_spread_tolerance, kRuleOfThree / (static_cast<double>(p.observed_row->n) * units));
    }
    const bool agrees =
        std::isnan(v.z) ? (std::fabs(v.observed - v.reference) <= zero_spread_tolerance ||
                           (hardware && std::fabs(v.relative_error) <= options.hardware_tolerance))
                        : (std::fabs(v.z) <= crit ||
                           (hardware && std::fabs(v.relative_error) <= options.hardware_tolerance));
    if (agrees) {
      v.outcome = Outcome::pass;
      v.explanation = std::isnan(v.z)
                          ? fmt::format("relative error {:+.2f}%", 100 * v.relative_error)
                      : std::fabs(v.z) <= crit
                          ? fmt::format("|z| = {:.2f} <= {}", std::fabs(v.z), threshold)
                          : fmt::format(
                                "relative error {:+.2f}% within the hardware tolerance {:.0f}% "
                                "(|z| = {:.2f} over {} trials: a resolved difference too small to "
                                "matter)",
                                100 * v.relative_error, 100 * options.hardware_tolerance,
                                std::fabs(v.z), trials);
      out.push_back(v);
      continue;
    }
    const std::string size = fmt::format("{:+.2f}% vs the model", 100 * v.relative_error);
    if (v.point.backend == "sim" && v.point.mode == "sequential" &&
        judge_warp_chain_departure(v, threshold)) {
      const auto j = *judge_warp_chain_departure(v, threshold);  // CoRW / RW_malloc chains
      v.outcome = j.outcome;
      v.explanation = j.explanation;
    } else if (v.point.backend == "sim" && v.point.mode == "sequential") {
      // The sequential simulation is the model's own assumption: only the documented erratum
      // (and only in its direction) explains a difference.
      v.outcome = rwbm_above ? Outcome::expected_departure : Outcome::fail;
      v.explanation =
          rwbm_above
              ? fmt::format("{} (|z| = {:.2f}): {}", size, std::fabs(v.z), clumping)
              : fmt::format("{} (|z| = {:.2f} > {}): unexplained", size, std::fabs(v.z), threshold);
    } else if (v.point.backend == "sim") {
      // Lockstep/threads: parallel rounds are not the model's assumption. Say whether the
      // sequential simulation at the same point agrees with the model, which isolates the effect.
      const TidyRow* model_row = find(pr, "model|sequential", v.metric);
      const TidyRow* seq_same =
          find(pr, "sim|sequential", v.metric == "was" ? "was_service_order" : v.metric);
      std::string isolation;
      if (seq_same && model_row) {
        const double se = standard_error(*seq_same);
        const bool seq_ok = se > 0 ? std::fabs(*seq_same->mean - *model_row->mean) <= z_crit * se
                                   : std::fabs(*seq_same->mean - *model_row->mean) <=
                                         1e-9 * std::fabs(*model_row->mean);
        isolation = seq_ok ? "; the sequential simulation here agrees with the model, so the "
                             "difference is the parallel rounds'"
                           : "";
      }
      v.outcome = Outcome::expected_departure;
      v.explanation = fmt::format(
          "{}: the {} simulation serves requests in parallel rounds, the model one at a time{}{}",
          size, v.point.mode, v.metric == "was" ? ", and its warps are thread-id groups" : "",
          isolation);
    } else if (v.point.algo == Algorithm::queue && v.metric == "was" &&
               std::fabs(v.observed - queue_consecutive_tickets_was(v.point.N, v.point.lanes)) <=
                   1e-9 * v.observed) {
      v.outcome = Outcome::expected_departure;
      v.explanation = fmt::format(
          "{}: the GPU's warp-aggregated atomicAdd hands each warp consecutive tickets, so a "
          "warp's maximum is its last ticket: WAS = mean over warps of min((k+1)L, N) = {:.6g} "
          "exactly, where the model assumes a warp's 32 positions are spread over 1..N",
          size, queue_consecutive_tickets_was(v.point.N, v.point.lanes));
    } else if (lock && means_agree(*p.observed_row, *lock, z_crit, options.hardware_tolerance)) {
      v.outcome = Outcome::expected_departure;
      v.explanation = fmt::format(
          "{}; hardware agrees with the lockstep simulation ({:.4g} vs {:.4g}): requests are "
          "served in parallel rounds{}",
          size, v.observed, *lock->mean,
          v.metric == "was" ? ", and hardware warps mix early- and late-served threads" : "");
    } else if (seq && means_agree(*p.observed_row, *seq, z_crit, options.hardware_tolerance)) {
      v.outcome = Outcome::expected_departure;
      v.explanation = fmt::format(
          "{}; hardware agrees with the sequential simulation ({:.4g} vs "
          "{:.4g}){}",
          size, v.observed, *seq->mean, rwbm_above ? ": " + clumping : std::string());
    } else if (hardware && lock && [&] {
                 // The scheduling extremes the simulator emulates: ordered one-at-a-time service
                 // (the model's warps; the sequential simulation's was_service_order), random-order
                 // one-at-a-time service (the sequential simulation), all warps in the same
                 // rounds (lockstep). Hardware schedules somewhere in between.
                 const TidyRow* ordered =
                     v.metric == "was" ? find(pr, "sim|sequential", "was_service_order") : nullptr;
                 double lo = std::min(v.reference, *lock->mean);
                 double hi = std::max(v.reference, *lock->mean);
                 double se = standard_error(*lock);
                 for (const TidyRow* r : {seq, ordered})
                   if (r) {
                     lo = std::min(lo, *r->mean);
                     hi = std::max(hi, *r->mean);
                     se = std::hypot(se, standard_error(*r));
                   }
                 return v.observed >= lo - z_crit * se && v.observed <= hi + z_crit * se;
               }()) {
      v.outcome = Outcome::expected_departure;
      v.explanation = fmt::format(
          "{}; hardware ({:.4g}) lies within the range of the scheduling extremes: ordered "
          "one-at-a-time service (model {:.4g}){}, all warps in the same rounds (lockstep {:.4g}); "
          "its warps overlap in time only partly (weaker evidence than agreement)",
          size, v.observed, v.reference,
          seq ? fmt::format(", random-order one-at-a-time service (sequential {:.4g})", *seq->mean)
              : std::string(),
          *lock->mean);
    } else if (!std::isnan(v.collisions_per_thread) && v.metric == "tas" &&
               v.observed > v.reference &&
               v.collisions_per_thread >= kCollisionShareOfExcess * (v.observed - v.reference)) {
      v.outcome = Outcome::expected_departure;
      v.explanation = fmt::format(
          "{}; failed atomic claims ({:.3g} per thread) account for most of the excess {:.3g} "
          "steps per thread",
          size, v.collisions_per_thread, v.observed - v.reference);
    } else if (rwbm_above && !seq && !lock) {
      v.outcome = Outcome::expected_departure;
      v.explanation = fmt::format(
          "{}: in the direction of the Eq. (4) erratum ({}); no simulation at this point to "
          "confirm the size",
          size, clumping);
    } else {
      v.outcome = Outcome::fail;
      v.explanation = fmt::format("{}: unexplained (no simulation at this point agrees)", size);
    }
    out.push_back(v);
  }
  return out;
}

std::vector<Record> verdict_records(const std::vector<Verdict>& verdicts) {
  std::vector<Record> records;
  for (const auto& v : verdicts) {
    Record r;
    r.set("check", v.check)
        .set("algo", std::string(name(v.point.algo)))
        .set("backend", v.point.backend)
        .set("mode", v.point.mode)
        .set_int("N", v.point.N)
        .set_int("A", v.point.A)
        .set_int("T", v.point.T)
        .set_int("w", v.point.w)
        .set("observed", v.observed)
        .set("observed_ci95", v.observed_ci95)
        .set("reference", v.reference);
    r.set_quantity("z", std::isnan(v.z) ? std::nullopt : std::optional<double>(v.z));
    r.set("relative_error", v.relative_error)
        .set("inside_ci95", v.inside_ci95)
        .set("verdict", std::string(outcome_name(v.outcome)))
        .set("explanation", v.explanation);
    records.push_back(std::move(r));
  }
  return records;
}

bool all_acceptable(const std::vector<Verdict>& verdicts) {
  for (const auto& v : verdicts)
    if (v.outcome == Outcome::fail) return false;
  return true;
}

std::vector<Verdict> all_verdicts(const std::vector<TidyRow>& rows,
                                  const ValidationOptions& options) {
  std::vector<TidyRow> lowest;
  std::copy_if(rows.begin(), rows.end(), std::back_inserter(lowest),
               [](const TidyRow& r) { return r.point.bit_choice == BitChoice::lowest; });
  auto verdicts = compare_backends(lowest, options);
  for (auto& v : compare_rounds_model(lowest, options)) verdicts.push_back(std::move(v));
  return verdicts;
}

}  // namespace alloclab::validation
