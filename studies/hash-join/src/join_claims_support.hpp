// The hash join's claims, the model's and the simulator's columns (join_prediction_claims.cpp):
// what the predictions of join_prediction.hpp say beside each measured claim, and the row of its
// own, "the model predicts the join's allocator cost".
#pragma once

#include <string>
#include <vector>

#include "alloclab/studies/join_prediction.hpp"
#include "alloclab/validation/claims.hpp"

namespace alloclab::validation::join_detail {

// Which prediction a column shows: the model's steps or the replay's, through the same fit.
enum class Source { model, replay };

// The allocator cost is judged where it stands out of the join's run-to-run noise: from 1M
// tuples on (below, one allocator's join_ms differs by about 2.4 ms between neighbouring sizes,
// e.g. RW 0.106 ms at 16K and 2.58 ms at 64K on the H200, far above any predicted GETPAGE cost).
inline constexpr double kCostFromTuples = 1e6;
// The prediction holds when the predicted allocator cost (join_ms_predicted - join_ms(Direct
// Output)) is within this relative error of the measured one (join_ms - join_ms(Direct Output))
// at every such size, uniform and skewed keys.
inline constexpr double kCostTolerance = 0.5;

// "CoRW / Direct Output predicted: 10000000 tuples, skew 0: 1.039; ..." (uniform keys), with the
// steps per GETPAGE at the largest size; a line saying why where nothing is predicted.
std::string corw_column(const std::vector<JoinPrediction>& p, Source source);
// The allocators ranked by predicted join time at the largest tables (steps per GETPAGE for those
// without a fit).
std::string ranking_column(const std::vector<JoinPrediction>& p, Source source);
// The row "the model predicts the join's allocator cost". `note`: why there is no fit, if so.
ClaimCheck cost_claim(const std::vector<JoinPrediction>& p, const std::string& device,
                      const std::string& note);

}  // namespace alloclab::validation::join_detail
