// A kernel-time model that no paper has: per device and algorithm, measured kernel time as a
// linear function of the work the allocator did,
//
//     kernel_ms = alpha + sum_k beta_k * feature_k,
//
// fitted by least squares (Eigen, see least_squares.hpp) over committed hardware rows of a tidy
// sweep. The fit is applied to the analytic model's TAS/WAS to predict time without a GPU by
// model/kernel_time.hpp (`alloclab model ... --device <name>` adds kernel_ms_predicted), which
// reads the fit's JSON and also defines the features below.
//
// What "steps" means for time is not obvious, so several definitions are fitted and compared on
// held-out points (candidate_feature_sets()):
//   N          threads: a fixed cost per request (launch, counters, the page write) - no steps;
//   N*TAS      total steps of all threads: the memory system's throughput limit (every probe is
//              one load and, on success, one atomic);
//   warps*WAS  warp-steps: a warp holds its SM slot until its slowest lane is done, so the
//              machine is occupied for sum over warps of the warp's steps (~ warps * WAS);
//   WAS        the critical path: with few warps (N = 1024 is 32 warps on 132 SMs) the kernel
//              lasts as long as its slowest warp, each step costing one memory latency;
//   collisions failed atomic claims: each is one extra atomic round trip.
// With TimeFitSettings::bitmap_features, also the pool-geometry features of model/kernel_time.hpp
// (bitmap_feature_sets()): N*TAS*miss (probes that miss the L2: the bitmap outgrows it at small
// pages), N/words and N*N/words (threads per word: contention at large pages).
// Fits are weighted by 1/kernel_ms^2 (relative least squares): kernel times span three decades
// (7 us to several ms) and their noise is roughly proportional (sd/mean 5-13% on the H200), so
// an unweighted fit would match the slowest points and miss the fast ones by more than 100%.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "alloclab/core/result.hpp"
#include "alloclab/core/scenario.hpp"
#include "alloclab/model/kernel_time.hpp"
#include "alloclab/validation/tidy.hpp"

namespace alloclab::validation {

// The features and their names are the model's: what is fitted here is what model/ applies.
using model::feature_name;
using model::feature_value;
using model::FeatureInputs;
using model::TimeFeature;

// One measured grid point of one algorithm: the quantities the fit uses.
struct TimePoint {
  Algorithm algo = Algorithm::rw;
  unsigned w = 32, lanes = 32, pages = 1;
  std::uint64_t N = 0, A = 0, T = 0;
  double tas = 0, was = 0, collisions = 0;
  double kernel_ms = 0, kernel_ms_sd = 0;
};

struct FeatureSet {
  std::string name;                   // "N*TAS + WAS"
  std::vector<TimeFeature> features;  // the intercept alpha is always present, not listed
  bool uses_collisions() const;
};

// The candidates compared by held-out error, simplest first (those of the committed fits).
const std::vector<FeatureSet>& candidate_feature_sets();
// The candidates that add the bitmap features (model/kernel_time.hpp) to the throughput plus
// critical-path sets that the committed fits select: compared too with bitmap_features on.
const std::vector<FeatureSet>& bitmap_feature_sets();

// Relative prediction errors |predicted - measured| / measured over some points.
struct ErrorSummary {
  std::size_t points = 0;
  double median = 0, max = 0, rms = 0;
};
ErrorSummary summarize_relative_errors(const std::vector<double>& measured,
                                       const std::vector<double>& predicted);

struct TimeFitSettings {
  unsigned folds = 5;      // K of K-fold cross-validation
  std::uint64_t seed = 1;  // fold assignment: a hash of (seed, grid point), not of row order
  // Also compare bitmap_feature_sets() (off: the candidates, and so the fits, of the committed
  // time_fit.json files, which predate them).
  bool bitmap_features = false;
  // The device's L2 in bytes, for N*TAS*miss (needed with bitmap_features; 0 = unknown).
  std::uint64_t l2_bytes = 0;
};

// The candidates fit_time compares under these settings: candidate_feature_sets(), then
// bitmap_feature_sets() with bitmap_features.
std::vector<FeatureSet> candidates_for(const TimeFitSettings& settings);

// The features of one point (its probed bitmap from the model's table, the settings' L2).
FeatureInputs feature_inputs(const TimePoint& p, const TimeFitSettings& settings);

// One feature set fitted to one group's points.
struct CandidateFit {
  FeatureSet features;
  std::vector<double> coefficients;  // alpha, then one beta per feature
  double r_squared = 0;              // standard (unweighted) R^2 on all points
  ErrorSummary in_sample;
  std::optional<ErrorSummary> kfold;            // K-fold, deterministic folds
  std::optional<ErrorSummary> leave_one_N_out;  // each N value held out in turn
  std::optional<ErrorSummary> leave_one_T_out;  // each pool size held out in turn (extrapolation)
  // K-fold error when the same features are fitted separately for each pool size T (a cache
  // footprint effect would show here); reported for comparison, the pooled fit is the one used,
  // because it also predicts pool sizes that were not measured.
  std::optional<ErrorSummary> kfold_per_T;
  // Every beta >= 0: more work never makes the kernel faster. Candidates with a negative beta are
  // reported but not selected (their held-out error may be lower, but they extrapolate badly:
  // e.g. leave-one-T-out errors of several hundred percent on the H200 data).
  bool physical = true;
  std::string note;                     // why a held-out scheme is missing
  std::vector<double> fitted;           // per point, coefficients from all points
  std::vector<double> kfold_predicted;  // per point, from the fold that held it out
};

// Fit of one (algorithm, w, pages) group of one device.
struct GroupTimeFit {
  Algorithm algo = Algorithm::rw;
  unsigned w = 32, pages = 1;
  std::vector<TimePoint> points;
  std::vector<CandidateFit> candidates;  // in candidate_feature_sets() order (failed ones skipped)
  std::size_t selected = 0;    // index into candidates: the best fit on measured quantities
  std::size_t model_only = 0;  // the best fit without collisions: applied to the model's TAS/WAS
  // The model-only prediction at each measured point: the analytic model's TAS/WAS (sequential
  // schedule) through candidates[model_only]; nullopt where the model does not cover the algorithm.
  std::vector<std::optional<double>> model_predicted;
  std::optional<ErrorSummary> model_error;
  std::string model_note;  // why there is no model prediction
};

// The GPU rows of a tidy sweep as time points: every (algo, N, A, T, w, pages) with tas, was,
// collisions and kernel_ms. Points with failed requests are left out (their time includes the
// give-up bound, not allocation work); `skipped` counts them.
std::vector<TimePoint> time_points(const std::vector<TidyRow>& rows,
                                   std::size_t* skipped = nullptr);

// Fits one feature set to points; held-out schemes that cannot be computed (too few points in a
// training split, or a singular one) are left empty with the reason in note. Throws
// LeastSquaresError if the fit on all points itself is impossible.
CandidateFit fit_candidate(const std::vector<TimePoint>& points, const FeatureSet& features,
                           const TimeFitSettings& settings);

// Model selection: among physical candidates, those whose K-fold RMS relative error is within this
// factor of the lowest compete, and the one with the fewest parameters wins (ties: the lower
// error). A parameter must earn its place on held-out points; 5% is about the trial-to-trial noise
// of a mean kernel time. The committed fits depend on it (at 3.0, 5 of the 6 H200 groups select
// other features), so a test pins it (time_fit_test.cpp, "the selection tolerance").
inline constexpr double kSelectionTolerance = 1.05;

// Groups points by (algo, w, pages) (w only where the algorithm uses bitmap words), fits every
// candidate, selects (see kSelectionTolerance) and evaluates the model-only prediction. Throws
// InputError("--l2-bytes") for bitmap features without an L2 size.
std::vector<GroupTimeFit> fit_time(const std::vector<TimePoint>& points,
                                   const TimeFitSettings& settings);

// What goes into time_fit.json besides the fits.
struct TimeFitProvenance {
  std::string device_id;        // "nvidia-h200"
  nlohmann::json device;        // name, driver, clocks, ...
  nlohmann::json source;        // sweep directory, its metadata, row counts
  std::string command_line;     // the fit-time command
  std::string alloclab_commit;  // the build that fitted
};

nlohmann::json time_fit_json(const std::vector<GroupTimeFit>& fits, const TimeFitSettings& settings,
                             const TimeFitProvenance& provenance);

}  // namespace alloclab::validation
