// Paper 000's hash-join case study (Pham et al. §5.2.3, Figure 12; issue 17): its claims checked
// against the GPU rows of `alloclab join --format csv` the report is given (DIR/join/**.csv), as
// ClaimCheck rows (validation/claims.hpp), with the ranking of the allocators at the largest
// tables. The model and simulator columns hold the predictions of join_prediction.hpp (each row's
// page-request trace through the model and replayed in the simulator, then through the device's
// kernel-time fit), and a row of their own checks the predicted allocator cost against the
// measured one. studies/hash-join/README.md discusses the verdicts.
#pragma once

#include <string>
#include <vector>

#include "alloclab/core/result.hpp"
#include "alloclab/studies/join_prediction.hpp"
#include "alloclab/validation/claims.hpp"

namespace alloclab::validation {

// The directory under a report's DIR that holds `alloclab join --format csv` files.
inline constexpr const char* kJoinDir = "join";

// Every record of every DIR/join/**.csv (none when the directory is missing).
std::vector<Record> read_join_dir(const std::string& dir);

// The checks: every run verified; CoRW close to Direct Output; Ouroboros slower by a large
// margin; the allocators ranked at the largest tables; the model predicts the allocator cost.
// predictions: predict_join(rows, ...) (none: the model and simulator columns say so, with
// `prediction_note` as the reason, e.g. why there is no fit).
std::vector<ClaimCheck> join_claims(const std::vector<Record>& rows,
                                    const std::vector<JoinPrediction>& predictions = {},
                                    const std::string& prediction_note = "");

}  // namespace alloclab::validation
