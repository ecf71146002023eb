#include "alloclab/validation/verdict.hpp"

#include <fmt/format.h>

#include <boost/math/distributions/normal.hpp>
#include <cmath>
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
  return fmt::format("{}|N={}|A={}|T={}|w={}|L={}|n={}", p.algo, p.N, p.A, p.T, p.w, p.lanes,
                     p.pages);
}

struct PointRows {
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

std::vector<Verdict> compare_backends(const std::vector<TidyRow>& rows,
                                      const ValidationOptions& options) {
  std::map<std::string, PointRows> points;
  for (const auto& r : rows) {
    auto& pr = points[shared_point(r.point)];
    pr.by_source[r.point.backend + "|" + r.point.mode][r.metric] = &r;
  }

  std::vector<Verdict> out;
  // Pass 1: gather comparisons; the family-wise threshold needs their count first.
  for (const auto& [key, pr] : points) {
    // The model's rows (any mode tag) are the reference.
    const std::string model_source = [&] {
      for (const auto& [src, m] : pr.by_source)
        if (src.rfind("model|", 0) == 0) return src;
      return std::string();
    }();
    if (model_source.empty()) continue;
    for (const auto& [src, metrics] : pr.by_source) {
      if (src == model_source) continue;
      const bool hardware = src.rfind("gpu|", 0) == 0;
      for (const std::string metric : {"tas", "was"}) {
        const TidyRow* obs = find(pr, src, metric);
        const TidyRow* ref = find(pr, model_source, metric);
        // No comparison against an infinite or undefined model value (e.g. WAS at A = N).
        if (!obs || !ref || !std::isfinite(*ref->mean) || !std::isfinite(*obs->mean)) continue;
        Verdict v;
        v.check = fmt::format("model vs {}: {}", hardware ? "gpu" : "sim", metric);
        v.point = obs->point;
        v.metric = metric;
        v.observed = *obs->mean;
        v.observed_ci95 = obs->ci95;
        v.reference = *ref->mean;
        const double se = standard_error(*obs);
        v.z = se > 0 ? (v.observed - v.reference) / se : std::numeric_limits<double>::quiet_NaN();
        v.relative_error = v.reference != 0 ? (v.observed - v.reference) / v.reference : 0;
        v.inside_ci95 = std::fabs(v.observed - v.reference) <= obs->ci95;
        const TidyRow* coll = find(pr, src, "collisions");
        v.collisions_per_thread = coll ? *coll->mean / static_cast<double>(obs->point.N)
                                       : std::numeric_limits<double>::quiet_NaN();
        out.push_back(v);
      }
      // The WAS upper bound (Eq. 3 / Eq. 5) must not be exceeded.
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
        v.z = std::numeric_limits<double>::quiet_NaN();
        v.relative_error = v.reference != 0 ? (v.observed - v.reference) / v.reference : 0;
        v.inside_ci95 = v.observed - was->ci95 <= v.reference;
        v.outcome = v.inside_ci95 ? Outcome::pass : Outcome::fail;
        v.explanation = v.inside_ci95 ? "bound respected" : "measured WAS exceeds the bound";
        out.push_back(v);
      }
    }
  }

  std::size_t statistical = 0;
  for (const auto& v : out)
    if (!std::isnan(v.z)) ++statistical;
  const double z_crit = statistical == 0
                            ? 1.96
                            : boost::math::quantile(boost::math::complement(
                                  boost::math::normal_distribution<double>(),
                                  options.family_alpha / 2 / static_cast<double>(statistical)));

  // Pass 2: outcomes and explanations.
  for (auto& v : out) {
    if (v.check.find("<= bound") != std::string::npos) continue;
    const bool hardware = v.point.backend == "gpu";
    const bool sequential_sim = v.point.backend == "sim" && v.point.mode == "sequential";
    const bool agrees =
        std::isnan(v.z)
            ? std::fabs(v.relative_error) <= (hardware ? options.hardware_tolerance : 1e-9)
            : (hardware ? std::fabs(v.relative_error) <= options.hardware_tolerance ||
                              std::fabs(v.z) <= z_crit
                        : std::fabs(v.z) <= z_crit);
    if (agrees) {
      v.outcome = Outcome::pass;
      v.explanation = std::isnan(v.z)
                          ? fmt::format("relative error {:+.2f}%", 100 * v.relative_error)
                          : fmt::format("|z| = {:.2f} <= {:.2f} (family-wise 95%, {} tests)",
                                        std::fabs(v.z), z_crit, statistical);
      continue;
    }
    if (sequential_sim && v.point.algo == "rwbm" && v.observed > v.reference) {
      // Eq. (4)/(5) assume the free pages stay scattered independently over words (each word
      // free-bit count binomial). RW-BM takes the first free bit of a uniformly random non-full
      // word, which empties sparsely filled words first and clumps the remaining free pages into
      // fewer words, so TAS and WAS can only come out higher than the model. (Checked by an
      // independent Monte Carlo; see the errata.) A deficit would remain unexplained.
      v.outcome = Outcome::expected_departure;
      v.explanation = fmt::format(
          "{:+.2f}% (|z| = {:.2f}): Eq. (4) assumes free pages stay scattered binomially over "
          "words; taking one page from a random non-full word empties sparse words first, so "
          "fewer words hold a free page than the model assumes (paper erratum)",
          100 * v.relative_error, std::fabs(v.z));
    } else if (sequential_sim) {
      v.outcome = Outcome::fail;
      v.explanation = fmt::format(
          "|z| = {:.2f} > {:.2f}: the sequential simulation implements the model's own "
          "assumption, so this disagreement is unexplained",
          std::fabs(v.z), z_crit);
    } else {
      // Lockstep/threads simulation and hardware serve requests in parallel rounds, which the
      // sequential model does not describe: a departure is expected; say how large it is.
      v.outcome = Outcome::expected_departure;
      v.explanation = fmt::format(
          "{:+.2f}% vs the sequential model: requests are served in parallel rounds ({}), not "
          "one after another as the model assumes",
          100 * v.relative_error, hardware ? "hardware" : v.point.mode + " simulation");
      // Each failed atomic claim costs its thread one more step: compare with the excess.
      if (!std::isnan(v.collisions_per_thread) && v.metric == "tas") {
        const double excess = v.observed - v.reference;
        v.explanation +=
            fmt::format("; excess {:+.3g} steps/thread, failed atomic claims {:.3g}/thread ({})",
                        excess, v.collisions_per_thread,
                        excess > 0 && v.collisions_per_thread >= 0.5 * excess
                            ? "collisions account for most of it"
                            : "collisions do not account for it");
      }
    }
  }
  return out;
}

std::vector<Record> verdict_records(const std::vector<Verdict>& verdicts) {
  std::vector<Record> records;
  for (const auto& v : verdicts) {
    Record r;
    r.set("check", v.check)
        .set("algo", v.point.algo)
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

}  // namespace alloclab::validation
