// The hash join's time predicted from paper 000's model and from the simulator's replay of the
// probe kernel's page-request trace (issue 17; join_replay.hpp), beside the measured join_ms.
//
// The prediction of allocator X's join at (tuples, skew):
//
//     join_ms_predicted(X) = join_ms(Direct Output, same tuples and skew) + getpage_ms(X)
//     getpage_ms(X)        = kernel_ms(X) - alpha(X)
//
// kernel_ms(X) is the device's kernel-time fit (model/kernel_time.hpp; its model-only form)
// applied to N = getpage_calls one-page requests on a pool of `pages` pages, all free, with the
// steps per GETPAGE (TAS, WAS) of the model or of the replay; alpha(X) is the fit's constant (the
// launch and the kernel's fixed work), left out because GETPAGE runs inside the probe kernel,
// which is launched anyway. What this assumes, plainly:
//   * GETPAGE's work adds to the join as it would take in a kernel of its own: none of it hides
//     behind the probe work (a probe warp that waits for a page has nothing else to do; other
//     warps may run meanwhile, which the fit's throughput terms already reflect), and the probe
//     work does not slow it (the fit was measured on an otherwise idle GPU).
//   * Direct Output's page (one atomic add on a counter) costs nothing: it is already inside
//     join_ms(Direct Output), so the prediction adds X's whole GETPAGE where the true difference
//     is X's GETPAGE less Direct Output's. That overstates X's cost by Direct Output's counter.
//   * The fit holds beyond the points it was fitted on (N <= 2^20, T <= 2^25 on the H200): the
//     join asks up to 10^7 pages of 2^27.
// Allocators without a fit (rwmalloc on the H200) get steps per GETPAGE only.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "alloclab/core/result.hpp"
#include "alloclab/model/kernel_time.hpp"
#include "alloclab/studies/join_replay.hpp"

namespace alloclab::validation {

struct JoinPrediction {
  std::string allocator;
  std::uint64_t tuples = 0;
  double skew = 0;
  double measured_ms = 0;           // the row's join_ms
  std::optional<double> direct_ms;  // Direct Output's join_ms at the same tuples and skew
  JoinTrace trace;
  std::optional<ModelSteps> model;  // the model's steps per GETPAGE, at the scaled point
  ReplaySteps replay;               // the simulator's
  std::optional<double> model_getpage_ms, replay_getpage_ms;  // kernel_ms - alpha
  std::optional<double> model_join_ms, replay_join_ms;        // direct_ms + getpage_ms
  std::string note;  // why a prediction is missing (no fit, no Direct Output row)
};

// kernel_ms - alpha of the fit for s's allocator with the given steps; nullopt without a fit.
// A join row's point: (device without its PCI address, tuples, skew); a report may hold the rows
// of several GPUs.
using JoinPoint = std::tuple<std::string, std::uint64_t, double>;
JoinPoint join_point(const Record& r);
// Direct Output's join_ms at each point of its verified rows: the baseline of every prediction.
std::map<JoinPoint, double> direct_join_ms(const std::vector<Record>& rows);

std::optional<double> predicted_getpage_ms(const model::DeviceTimeFits& fits, const Scenario& s,
                                           double tas, double was);

// The device's fit for the rows: the slug of their `device` column (the PCI address in
// parentheses dropped: "NVIDIA H200 (0000:00:06.0)" -> nvidia-h200) in data_dir
// (model::default_data_dir(): the committed reports/data). nullopt with `why` set where the rows
// name no device or the directory has no fit for it.
std::optional<model::DeviceTimeFits> join_time_fits(const std::vector<Record>& rows,
                                                    const std::string& data_dir, std::string& why);

// One prediction per row that has a trace (join_trace), in the rows' order. fits: null = steps
// only.
std::vector<JoinPrediction> predict_join(const std::vector<Record>& rows,
                                         const model::DeviceTimeFits* fits,
                                         const ReplayLimits& limits = {});

}  // namespace alloclab::validation
