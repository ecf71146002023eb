// `alloclab validate DIR`: compares backends point by point.
//
// Statistics. A simulated or measured mean m with standard deviation sd over n trials is compared
// with an exact model value mu by z = (m - mu) / (sd / sqrt(n)). With K comparisons in one
// validation, some |z| > 1.96 happen by chance alone (5% of them), so the verdict uses a
// family-wise threshold: Bonferroni, z_crit = Phi^-1(1 - 0.025 / K). Each row also says whether
// mu lies inside the 95% confidence interval, the per-point check a reader expects.
#pragma once

#include <string>
#include <vector>

#include "alloclab/core/result.hpp"
#include "alloclab/validation/tidy.hpp"

namespace alloclab::validation {

enum class Outcome {
  pass,                // agrees (within the family-wise threshold, or bound respected)
  expected_departure,  // disagrees for a reason the data explain (the explanation says which)
  fail                 // disagrees, unexplained
};

std::string_view outcome_name(Outcome o);

struct Verdict {
  std::string check;  // e.g. "model vs sim: tas"
  PointKey point;     // the point of the observed side
  std::string metric;
  double observed = 0, observed_ci95 = 0;
  double reference = 0;
  double z = 0;  // NaN where not a statistical comparison
  double relative_error = 0;
  bool inside_ci95 = false;
  double collisions_per_thread = 0;  // failed atomic claims / N on the observed side (NaN: none)
  Outcome outcome = Outcome::fail;
  std::string explanation;
};

struct ValidationOptions {
  double family_alpha = 0.05;
  // model vs hardware: relative TAS error accepted without explanation.
  double hardware_tolerance = 0.05;
};

// A sample with no spread (every trial gave the same value) cannot resolve an excess below the
// rule of three: no event in n trials of `units` each (threads for TAS, warps for WAS) bounds the
// event rate by 3/(n * units) at 95% (-ln 0.05 = 3.0).
inline constexpr double kRuleOfThree = 3.0;

// A GPU TAS above the model is explained by failed atomic claims when they account for most of
// the excess: at least this share of the excess steps per thread (each failed claim costs one
// step at most).
inline constexpr double kCollisionShareOfExcess = 0.5;

std::vector<Verdict> compare_backends(const std::vector<TidyRow>& rows,
                                      const ValidationOptions& options = {});

// Every verdict of a sweep directory's rows, as `validate` and `report` give them: the backend
// comparisons above and the parallel-rounds model's (rounds_backend.hpp), over the lowest-bit
// rows only (other RW-BM bit choices belong to the report's collisions section).
std::vector<Verdict> all_verdicts(const std::vector<TidyRow>& rows,
                                  const ValidationOptions& options = {});

// One record per verdict, for write_records (table / csv / json).
std::vector<Record> verdict_records(const std::vector<Verdict>& verdicts);

// True when every verdict is a pass or an expected, explained departure.
bool all_acceptable(const std::vector<Verdict>& verdicts);

}  // namespace alloclab::validation
