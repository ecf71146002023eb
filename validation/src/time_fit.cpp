#include "alloclab/validation/time_fit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "alloclab/core/errors.hpp"
#include "alloclab/model/model.hpp"
#include "alloclab/validation/least_squares.hpp"

namespace alloclab::validation {

bool FeatureSet::uses_collisions() const {
  return std::find(features.begin(), features.end(), TimeFeature::collisions) != features.end();
}

const std::vector<FeatureSet>& candidate_feature_sets() {
  using F = TimeFeature;
  static const std::vector<FeatureSet> sets = {
      // Baseline without steps: if steps do not beat it, steps do not explain time.
      {"N", {F::threads}},
      {"N*TAS", {F::probes}},
      {"warps*WAS", {F::warp_steps}},
      {"WAS", {F::was}},
      // Throughput plus critical path: the two limits a GPU kernel runs into.
      {"N*TAS + WAS", {F::probes, F::was}},
      {"warps*WAS + WAS", {F::warp_steps, F::was}},
      {"N + N*TAS + WAS", {F::threads, F::probes, F::was}},
      {"N*TAS + WAS + collisions", {F::probes, F::was, F::collisions}},
      {"N + N*TAS + WAS + collisions", {F::threads, F::probes, F::was, F::collisions}},
  };
  return sets;
}

const std::vector<FeatureSet>& bitmap_feature_sets() {
  using F = TimeFeature;
  // Each is one of the committed fits' shapes (throughput + critical path, with or without
  // collisions; RW's warps*WAS + WAS) plus the L2 term, a contention term, or both.
  static const std::vector<FeatureSet> sets = [] {
    const std::vector<std::vector<F>> bases = {
        {F::probes, F::was}, {F::warp_steps, F::was}, {F::probes, F::was, F::collisions}};
    const std::vector<std::vector<F>> extras = {{F::l2_miss_probes},
                                                {F::threads_per_word},
                                                {F::word_pairs},
                                                {F::l2_miss_probes, F::threads_per_word},
                                                {F::l2_miss_probes, F::word_pairs}};
    std::vector<FeatureSet> out;
    for (const auto& base : bases)
      for (const auto& extra : extras) {
        FeatureSet fs;
        fs.features = base;
        fs.features.insert(fs.features.end(), extra.begin(), extra.end());
        for (auto f : fs.features)
          fs.name += (fs.name.empty() ? "" : " + ") + std::string(feature_name(f));
        out.push_back(std::move(fs));
      }
    return out;
  }();
  return sets;
}

std::vector<FeatureSet> candidates_for(const TimeFitSettings& settings) {
  std::vector<FeatureSet> out = candidate_feature_sets();
  if (settings.bitmap_features)
    out.insert(out.end(), bitmap_feature_sets().begin(), bitmap_feature_sets().end());
  return out;
}

FeatureInputs feature_inputs(const TimePoint& p, const TimeFitSettings& settings) {
  Scenario s;
  s.algo = p.algo;
  s.w = p.w;
  FeatureInputs in;
  in.N = p.N;
  in.lanes = p.lanes;
  in.tas = p.tas;
  in.was = p.was;
  in.collisions = p.collisions;
  in.T = p.T;
  in.word_bits = model::probed_word_bits(s).value_or(0);
  in.l2_bytes = settings.l2_bytes;
  return in;
}

ErrorSummary summarize_relative_errors(const std::vector<double>& measured,
                                       const std::vector<double>& predicted) {
  ErrorSummary s;
  std::vector<double> rel;
  for (std::size_t i = 0; i < measured.size() && i < predicted.size(); ++i)
    rel.push_back(std::abs(predicted[i] - measured[i]) / measured[i]);
  s.points = rel.size();
  if (rel.empty()) return s;
  double sq = 0;
  for (double r : rel) {
    sq += r * r;
    s.max = std::max(s.max, r);
  }
  s.rms = std::sqrt(sq / static_cast<double>(rel.size()));
  std::sort(rel.begin(), rel.end());
  const std::size_t m = rel.size() / 2;
  s.median = rel.size() % 2 ? rel[m] : 0.5 * (rel[m - 1] + rel[m]);
  return s;
}

std::vector<TimePoint> time_points(const std::vector<TidyRow>& rows, std::size_t* skipped) {
  struct Acc {
    TimePoint p;
    std::optional<double> tas, was, collisions, kernel_ms, failed;
  };
  std::map<std::string, Acc> by_point;
  std::vector<std::string> order;
  for (const auto& r : rows) {
    // Lowest-bit RW-BM only: other bit choices (collisions section) are another kernel.
    if (r.point.backend != "gpu" || !r.mean || r.point.bit_choice != BitChoice::lowest) continue;
    const auto key = r.point.text();
    auto [it, fresh] = by_point.try_emplace(key);
    if (fresh) {
      order.push_back(key);
      auto& p = it->second.p;
      p.algo = r.point.algo;
      p.w = r.point.w;
      p.lanes = r.point.lanes;
      p.pages = r.point.pages;
      p.N = r.point.N;
      p.A = r.point.A;
      p.T = r.point.T;
    }
    auto& a = it->second;
    if (r.metric == "tas") a.tas = r.mean;
    if (r.metric == "was") a.was = r.mean;
    if (r.metric == "collisions") a.collisions = r.mean;
    if (r.metric == "failed") a.failed = r.mean;
    if (r.metric == "kernel_ms") {
      a.kernel_ms = r.mean;
      a.p.kernel_ms_sd = r.sd;
    }
  }
  std::vector<TimePoint> out;
  std::size_t left_out = 0;
  for (const auto& k : order) {
    auto& a = by_point[k];
    if (!a.tas || !a.was || !a.kernel_ms || !(*a.kernel_ms > 0)) continue;
    if (a.failed && *a.failed > 0) {
      ++left_out;
      continue;
    }
    a.p.tas = *a.tas;
    a.p.was = *a.was;
    a.p.collisions = a.collisions.value_or(0.0);
    a.p.kernel_ms = *a.kernel_ms;
    out.push_back(a.p);
  }
  if (skipped) *skipped = left_out;
  return out;
}

namespace {

std::vector<double> design_row(const TimePoint& p, const FeatureSet& fs,
                               const TimeFitSettings& settings) {
  const FeatureInputs in = feature_inputs(p, settings);
  std::vector<double> row{1.0};
  for (auto f : fs.features) row.push_back(feature_value(f, in));
  return row;
}

std::vector<std::string> column_names(const FeatureSet& fs) {
  std::vector<std::string> names{"intercept"};
  for (auto f : fs.features) names.emplace_back(feature_name(f));
  return names;
}

LinearProblem problem_for(const std::vector<TimePoint>& points, const std::vector<std::size_t>& idx,
                          const FeatureSet& fs, const TimeFitSettings& settings) {
  LinearProblem lp;
  lp.column_names = column_names(fs);
  for (auto i : idx) {
    lp.rows.push_back(design_row(points[i], fs, settings));
    lp.y.push_back(points[i].kernel_ms);
    // Relative least squares: minimise sum ((y - yhat)/y)^2 (see the header).
    lp.weights.push_back(1.0 / (points[i].kernel_ms * points[i].kernel_ms));
  }
  return lp;
}

double predict(const std::vector<double>& coefficients, const std::vector<double>& row) {
  double v = 0;
  for (std::size_t j = 0; j < row.size(); ++j) v += coefficients[j] * row[j];
  return v;
}

std::uint64_t mix64(std::uint64_t x) {  // splitmix64's finaliser
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}

// Fold of each point: points ordered by a hash of (seed, the point's identity), then dealt round
// robin, so folds are balanced, reproducible, and do not depend on the order of CSV rows.
std::vector<std::size_t> kfold_assignment(const std::vector<TimePoint>& points, unsigned folds,
                                          std::uint64_t seed) {
  std::vector<std::pair<std::uint64_t, std::size_t>> keyed;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& p = points[i];
    const auto id =
        fmt::format("{}|{}|{}|{}|{}|{}|{}", name(p.algo), p.N, p.A, p.T, p.w, p.lanes, p.pages);
    keyed.emplace_back(mix64(fnv1a(id) ^ mix64(seed)), i);
  }
  std::sort(keyed.begin(), keyed.end());
  std::vector<std::size_t> fold(points.size());
  for (std::size_t r = 0; r < keyed.size(); ++r) fold[keyed[r].second] = r % folds;
  return fold;
}

// Held-out predictions for a partition of the points into groups (each group held out in turn).
// Returns nullopt (with why) if a training split cannot be fitted.
std::optional<std::vector<double>> held_out_predictions(const std::vector<TimePoint>& points,
                                                        const std::vector<std::size_t>& group,
                                                        const FeatureSet& fs,
                                                        const TimeFitSettings& settings,
                                                        std::string& why) {
  std::set<std::size_t> groups(group.begin(), group.end());
  if (groups.size() < 2) {
    why = "only one group";
    return std::nullopt;
  }
  std::vector<double> pred(points.size());
  for (auto g : groups) {
    std::vector<std::size_t> train, test;
    for (std::size_t i = 0; i < points.size(); ++i) (group[i] == g ? test : train).push_back(i);
    try {
      const auto fit = least_squares(problem_for(points, train, fs, settings));
      for (auto i : test) pred[i] = predict(fit.coefficients, design_row(points[i], fs, settings));
    } catch (const LeastSquaresError& e) {
      why = e.what();
      return std::nullopt;
    }
  }
  return pred;
}

template <class Key>
std::vector<std::size_t> group_by(const std::vector<TimePoint>& points, Key key) {
  std::map<decltype(key(points[0])), std::size_t> ids;
  std::vector<std::size_t> g;
  for (const auto& p : points) g.push_back(ids.try_emplace(key(p), ids.size()).first->second);
  return g;
}

}  // namespace

CandidateFit fit_candidate(const std::vector<TimePoint>& points, const FeatureSet& fs,
                           const TimeFitSettings& settings) {
  CandidateFit c;
  c.features = fs;
  std::vector<std::size_t> all(points.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  const auto fit = least_squares(problem_for(points, all, fs, settings));
  c.coefficients = fit.coefficients;
  c.fitted = fit.fitted;
  c.r_squared = fit.r_squared;
  std::vector<double> measured;
  for (const auto& p : points) measured.push_back(p.kernel_ms);
  c.in_sample = summarize_relative_errors(measured, c.fitted);

  if (settings.folds < 2) throw InputError("--folds", "K-fold needs at least 2 folds");
  std::string why;
  if (auto pred = held_out_predictions(
          points, kfold_assignment(points, settings.folds, settings.seed), fs, settings, why)) {
    c.kfold = summarize_relative_errors(measured, *pred);
    c.kfold_predicted = std::move(*pred);
  } else {
    c.note += "K-fold: " + why + "; ";
  }
  if (auto pred = held_out_predictions(points, group_by(points, [](auto& p) { return p.N; }), fs,
                                       settings, why))
    c.leave_one_N_out = summarize_relative_errors(measured, *pred);
  else
    c.note += "leave-one-N-out: " + why + "; ";
  const auto by_T = group_by(points, [](auto& p) { return p.T; });
  if (auto pred = held_out_predictions(points, by_T, fs, settings, why))
    c.leave_one_T_out = summarize_relative_errors(measured, *pred);
  else
    c.note += "leave-one-T-out: " + why + "; ";
  // Separate fits per T, each cross-validated with the same fold rule.
  std::vector<double> m_all, p_all;
  for (std::size_t t = 0; t <= *std::max_element(by_T.begin(), by_T.end()); ++t) {
    std::vector<TimePoint> sub;
    for (std::size_t i = 0; i < points.size(); ++i)
      if (by_T[i] == t) sub.push_back(points[i]);
    auto pred = held_out_predictions(sub, kfold_assignment(sub, settings.folds, settings.seed), fs,
                                     settings, why);
    if (!pred) {
      c.note += "K-fold per T: " + why + "; ";
      m_all.clear();
      break;
    }
    for (std::size_t i = 0; i < sub.size(); ++i) {
      m_all.push_back(sub[i].kernel_ms);
      p_all.push_back((*pred)[i]);
    }
  }
  if (!m_all.empty()) c.kfold_per_T = summarize_relative_errors(m_all, p_all);
  for (std::size_t j = 1; j < c.coefficients.size(); ++j)
    c.physical = c.physical && c.coefficients[j] >= 0;
  return c;
}

namespace {

// Selection among physical candidates (every beta >= 0): the lowest K-fold RMS relative error;
// among candidates within kSelectionTolerance of it, the one with the fewest parameters.
std::size_t select_candidate(const std::vector<CandidateFit>& cs, bool allow_collisions,
                             bool require_physical = true) {
  auto eligible = [&](const CandidateFit& c) {
    return c.kfold && (c.physical || !require_physical) &&
           (allow_collisions || !c.features.uses_collisions());
  };
  double best = INFINITY;
  for (const auto& c : cs)
    if (eligible(c)) best = std::min(best, c.kfold->rms);
  std::size_t pick = cs.size();
  for (std::size_t i = 0; i < cs.size(); ++i) {
    const auto& c = cs[i];
    if (!eligible(c)) continue;
    // 1e-6 absolute: below that, differences are rounding (exact synthetic data), not fit.
    if (c.kfold->rms > std::max(kSelectionTolerance * best, best + 1e-6)) continue;
    if (pick == cs.size() || c.features.features.size() < cs[pick].features.features.size() ||
        (c.features.features.size() == cs[pick].features.features.size() &&
         c.kfold->rms < cs[pick].kfold->rms))
      pick = i;
  }
  return pick;
}

}  // namespace

std::vector<GroupTimeFit> fit_time(const std::vector<TimePoint>& points,
                                   const TimeFitSettings& settings) {
  if (settings.bitmap_features && settings.l2_bytes == 0)
    throw InputError("--l2-bytes",
                     "the bitmap features (N*TAS*miss) need the device's L2 size in bytes");
  const std::vector<FeatureSet> candidates = candidates_for(settings);
  // Groups in the order of the algorithms' names (the order time_fit.json has always had).
  std::map<std::tuple<std::string_view, unsigned, unsigned>, std::vector<TimePoint>> groups;
  for (const auto& p : points)
    groups[{name(p.algo), caps(p.algo).bitmap_words ? p.w : 0u, p.pages}].push_back(p);
  std::vector<GroupTimeFit> out;
  for (auto& [key, pts] : groups) {
    GroupTimeFit g;
    g.algo = pts.front().algo;
    g.w = std::get<1>(key);
    g.pages = std::get<2>(key);
    g.points = std::move(pts);
    for (const auto& fs : candidates) {
      try {
        g.candidates.push_back(fit_candidate(g.points, fs, settings));
      } catch (const LeastSquaresError&) {
        // e.g. the queue has no collisions: that column is zero, the candidate does not apply.
      }
    }
    if (g.candidates.empty()) continue;
    g.selected = select_candidate(g.candidates, true);
    g.model_only = select_candidate(g.candidates, false);
    // No physical candidate (or none with held-out errors): fall back, then to the first.
    if (g.selected == g.candidates.size()) g.selected = select_candidate(g.candidates, true, false);
    if (g.model_only == g.candidates.size())
      g.model_only = select_candidate(g.candidates, false, false);
    if (g.selected == g.candidates.size()) g.selected = 0;
    if (g.model_only == g.candidates.size()) g.model_only = 0;

    // The model-only prediction: the analytic model's TAS/WAS at the measured point, through the
    // collision-free fit. Where the model does not cover the algorithm, say so.
    const auto& mfit = g.candidates[g.model_only];
    std::vector<double> measured, predicted;
    for (const auto& p : g.points) {
      std::optional<double> pred;
      {
        Scenario s;
        s.algo = p.algo;
        s.N = p.N;
        s.A = p.A;
        s.T = p.T;
        s.w = p.w;
        s.lanes = p.lanes;
        s.pages = p.pages;
        try {
          const Record r = model::evaluate(s);
          const auto tas = r.number("tas"), was = r.number("was");
          if (tas && was) {
            FeatureInputs in = feature_inputs(p, settings);
            in.tas = *tas;
            in.was = *was;
            in.collisions = 0;
            std::vector<double> row{1.0};
            for (auto f : mfit.features.features) row.push_back(feature_value(f, in));
            pred = predict(mfit.coefficients, row);
          }
        } catch (const InputError& e) {
          g.model_note = e.what();
        }
      }
      g.model_predicted.push_back(pred);
      if (pred) {
        measured.push_back(p.kernel_ms);
        predicted.push_back(*pred);
      }
    }
    if (!measured.empty())
      g.model_error = summarize_relative_errors(measured, predicted);
    else if (g.model_note.empty())
      g.model_note = "the model gives no TAS/WAS here";
    out.push_back(std::move(g));
  }
  return out;
}

namespace {

nlohmann::json summary_json(const std::optional<ErrorSummary>& s) {
  if (!s) return nullptr;
  return {{"points", s->points}, {"median", s->median}, {"max", s->max}, {"rms", s->rms}};
}

nlohmann::json candidate_json(const CandidateFit& c) {
  nlohmann::json coef = nlohmann::json::object();
  coef["alpha"] = c.coefficients[0];
  for (std::size_t j = 0; j < c.features.features.size(); ++j)
    coef[feature_name(c.features.features[j])] = c.coefficients[j + 1];
  nlohmann::json j = {{"features", c.features.name},
                      {"coefficients_ms", coef},
                      {"r_squared", c.r_squared},
                      {"in_sample_relative_error", summary_json(c.in_sample)},
                      {"kfold_relative_error", summary_json(c.kfold)},
                      {"leave_one_N_out_relative_error", summary_json(c.leave_one_N_out)},
                      {"leave_one_T_out_relative_error", summary_json(c.leave_one_T_out)},
                      {"kfold_per_T_relative_error", summary_json(c.kfold_per_T)},
                      {"physical", c.physical}};
  if (!c.note.empty()) j["note"] = c.note;
  return j;
}

}  // namespace

nlohmann::json time_fit_json(const std::vector<GroupTimeFit>& fits, const TimeFitSettings& settings,
                             const TimeFitProvenance& prov) {
  nlohmann::json j;
  j["schema"] = "alloclab-time-fit/1";
  j["device_id"] = prov.device_id;
  j["device"] = prov.device;
  j["source"] = prov.source;
  j["command_line"] = prov.command_line;
  j["alloclab_commit"] = prov.alloclab_commit;
  j["method"] = {
      {"model", "kernel_ms = alpha + sum_k beta_k * feature_k"},
      {"solver", "Eigen ColPivHouseholderQR on column-equilibrated weighted design"},
      {"weights", "1/kernel_ms^2 (relative least squares)"},
      {"r_squared", "1 - sum (y - fitted)^2 / sum (y - mean y)^2, unweighted, all points"},
      {"kfold", settings.folds},
      {"seed", settings.seed},
      {"selection",
       fmt::format("among candidates with every beta >= 0: lowest K-fold RMS relative error; "
                   "among those within {:.0f}% of it, fewest parameters",
                   100 * (kSelectionTolerance - 1))},
      {"model_only",
       "the best candidate without collisions, applied to the analytic model's TAS and WAS "
       "(sequential schedule)"},
      {"features",
       {{"N", "threads (requests)"},
        {"N*TAS", "total steps of all threads"},
        {"warps*WAS", "ceil(N/lanes) * WAS: warp-steps"},
        {"WAS", "mean steps of a warp's slowest lane: the critical path"},
        {"collisions", "failed atomic claims, all threads"}}}};
  // Only with the bitmap features, so that a fit without them is written as before.
  if (settings.bitmap_features) {
    j["l2_bytes"] = settings.l2_bytes;
    auto& f = j["method"]["features"];
    f["N*TAS*miss"] =
        "N*TAS * max(0, 1 - l2_bytes / bitmap bytes): probes that miss the L2 (bitmap bytes = "
        "ceil(T/w) * w/8; w = 32 for rw)";
    f["N/words"] = "N / ceil(T/w): threads per bitmap word (contention, critical path)";
    f["N*N/words"] = "N * N / ceil(T/w): same-word thread pairs (contention, throughput)";
  }
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& g : fits) {
    nlohmann::json gj;
    gj["algo"] = std::string(name(g.algo));
    gj["w"] = g.w;  // 0: the algorithm does not use bitmap words, any w matches
    gj["pages"] = g.pages;
    gj["points"] = g.points.size();
    gj["selected"] = candidate_json(g.candidates[g.selected]);
    gj["model_only"] = candidate_json(g.candidates[g.model_only]);
    gj["model_only_prediction_error"] = summary_json(g.model_error);
    if (!g.model_note.empty()) gj["model_note"] = g.model_note;
    nlohmann::json cands = nlohmann::json::array();
    for (const auto& c : g.candidates) cands.push_back(candidate_json(c));
    gj["candidates"] = cands;
    // Per point: what the report plots (measured vs fitted, held-out and model-only).
    nlohmann::json pts = nlohmann::json::array();
    const auto& sel = g.candidates[g.selected];
    for (std::size_t i = 0; i < g.points.size(); ++i) {
      const auto& p = g.points[i];
      nlohmann::json pj = {{"N", p.N},
                           {"A", p.A},
                           {"T", p.T},
                           {"tas", p.tas},
                           {"was", p.was},
                           {"collisions", p.collisions},
                           {"kernel_ms", p.kernel_ms},
                           {"fitted_ms", sel.fitted[i]}};
      pj["kfold_predicted_ms"] = sel.kfold_predicted.empty()
                                     ? nlohmann::json(nullptr)
                                     : nlohmann::json(sel.kfold_predicted[i]);
      pj["model_predicted_ms"] =
          g.model_predicted[i] ? nlohmann::json(*g.model_predicted[i]) : nlohmann::json(nullptr);
      pts.push_back(pj);
    }
    gj["per_point"] = pts;
    arr.push_back(gj);
  }
  j["fits"] = arr;
  return j;
}

}  // namespace alloclab::validation
