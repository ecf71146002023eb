// Kernel time predicted from the model: a device's committed kernel-time fit
// (reports/data/<device>/time_fit.json, written by `alloclab fit-time`) applied to the model's
// TAS and WAS. The fit itself (least squares, feature selection, held-out errors) is made in
// validation/ (validation/time_fit.hpp); this file only reads its result and evaluates
//
//     kernel_ms = alpha + sum_k beta_k * feature_k
//
// for the features the model gives (threads, probes, warp-steps, the critical path). Collisions
// are a measured feature only: the fit applied here is each group's "model_only" fit, which never
// uses them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "alloclab/core/result.hpp"
#include "alloclab/core/scenario.hpp"

namespace alloclab::model {

// The work quantities kernel time is fitted to (one per candidate term of the fit).
enum class TimeFeature {
  threads,     // N: a fixed cost per request (launch, counters, the page write)
  probes,      // N*TAS: total steps of all threads (the memory system's throughput)
  warp_steps,  // warps*WAS: a warp holds its SM slot until its slowest lane is done
  was,         // WAS: the critical path when there are few warps
  collisions,  // failed atomic claims (measured only; the model-only fit leaves it out)
};

// "N", "N*TAS", "warps*WAS", "WAS", "collisions": the names time_fit.json uses.
const char* feature_name(TimeFeature f);
std::optional<TimeFeature> parse_feature(std::string_view name);

// The feature's value from per-point quantities (measured or modelled); warps = ceil(N/lanes).
double feature_value(TimeFeature f, std::uint64_t N, unsigned lanes, double tas, double was,
                     double collisions);

// One group's applied fit: kernel_ms = alpha + sum of beta * feature.
struct KernelTimeFit {
  Algorithm algo = Algorithm::rw;
  unsigned w = 0;  // 0: the algorithm does not use bitmap words, any w matches
  unsigned pages = 1;
  double alpha_ms = 0;
  std::vector<std::pair<TimeFeature, double>> betas_ms;
};

// The fits of one device, as read from its time_fit.json.
struct DeviceTimeFits {
  std::string device_id;  // "nvidia-h200"
  std::vector<KernelTimeFit> fits;
};

// "NVIDIA H200" -> "nvidia-h200": lower case, runs of other characters become one '-'.
std::string device_slug(const std::string& name);

// The data directory: $ALLOCLAB_DATA_DIR if set, else the source tree's reports/data (compiled
// in). Each device has <dir>/<device-id>/time_fit.json.
std::string default_data_dir();
// Device ids under dir that have a time_fit.json, sorted.
std::vector<std::string> available_time_fit_devices(const std::string& data_dir);

// Reads the model-only fit of every group of <data_dir>/<slug(device)>/time_fit.json.
// InputError("--device", ...) listing the available devices if there is none; InputError if the
// file is not a time fit (schema alloclab-time-fit/1), names an unknown algorithm, or its
// model-only fit uses a feature the model does not give.
DeviceTimeFits load_time_fit(const std::string& data_dir, const std::string& device);

// The fit for the scenario's algorithm (and w where the algorithm uses bitmap words, and pages);
// nullptr if the device has none.
const KernelTimeFit* find_fit(const DeviceTimeFits& fits, const Scenario& s);

// Adds kernel_ms_predicted to a model record of scenario s: the device's fit applied to the
// record's tas and was. Null with a note where the device has no fit for the algorithm or the
// record lacks a quantity the fit needs.
void add_predicted_kernel_time(Record& record, const Scenario& s, const DeviceTimeFits& fits);

}  // namespace alloclab::model
