// The hash join's time predicted from the model and from the replay (join_prediction.hpp).
#include "alloclab/studies/join_prediction.hpp"

#include <map>
#include <tuple>
#include <utility>

#include "alloclab/core/errors.hpp"
#include "alloclab/validation/record_csv.hpp"

namespace alloclab::validation {

std::optional<double> predicted_getpage_ms(const model::DeviceTimeFits& fits, const Scenario& s,
                                           double tas, double was) {
  const model::KernelTimeFit* fit = model::find_fit(fits, s);
  if (!fit) return std::nullopt;
  Record r;
  r.set("tas", tas);
  r.set("was", was);
  model::add_predicted_kernel_time(r, s, fits);
  const auto ms = r.number("kernel_ms_predicted");
  if (!ms) return std::nullopt;
  return *ms - fit->alpha_ms;
}

namespace {

// "NVIDIA H200 (0000:00:06.0)" -> "NVIDIA H200": the device's name without its PCI address.
std::string device_name(const Record& r) {
  std::string device = record_text(r, "device");
  if (const auto paren = device.find(" ("); paren != std::string::npos) device.resize(paren);
  return device;
}

}  // namespace

JoinPoint join_point(const Record& r) {
  return JoinPoint{device_name(r), static_cast<std::uint64_t>(r.number("tuples").value_or(0)),
                   r.number("skew").value_or(0)};
}

std::map<JoinPoint, double> direct_join_ms(const std::vector<Record>& rows) {
  std::map<JoinPoint, double> direct;
  for (const auto& r : rows)
    if (record_text(r, "allocator") == "direct" && record_flag(r, "verified"))
      if (const auto t = r.number("join_ms")) direct[join_point(r)] = *t;
  return direct;
}

std::optional<model::DeviceTimeFits> join_time_fits(const std::vector<Record>& rows,
                                                    const std::string& data_dir, std::string& why) {
  std::string device;
  for (const auto& r : rows)
    if (const auto d = device_name(r); !d.empty()) device = d;
  if (device.empty()) {
    why = "the join rows name no device";
    return std::nullopt;
  }
  try {
    return model::load_time_fit(data_dir, device);
  } catch (const InputError& e) {
    why = e.what();
    return std::nullopt;
  }
}

std::vector<JoinPrediction> predict_join(const std::vector<Record>& rows,
                                         const model::DeviceTimeFits* fits,
                                         const ReplayLimits& limits) {
  const std::map<JoinPoint, double> direct = direct_join_ms(rows);
  std::map<std::tuple<Algorithm, std::uint64_t, std::uint64_t, unsigned>, std::optional<ModelSteps>>
      model_cache;
  std::vector<JoinPrediction> out;
  for (const auto& r : rows) {
    const auto trace = join_trace(r);
    const auto measured = r.number("join_ms");
    if (!trace || !measured) continue;
    JoinPrediction p;
    p.allocator = record_text(r, "allocator");
    p.tuples = trace->tuples;
    p.skew = trace->skew;
    p.measured_ms = *measured;
    p.trace = *trace;
    if (const auto d = direct.find(join_point(r)); d != direct.end()) p.direct_ms = d->second;
    try {
      p.replay = replay_join_trace(*trace, limits);
    } catch (const InputError&) {
      continue;  // the scaled pool is not one its simulator takes: not replayed
    }
    // Skew 0 and 1 ask the same pages at one size: the model is evaluated once per point.
    const Scenario at = scaled_scenario(*trace, p.replay.scale);
    const auto key = std::make_tuple(at.algo, at.N, at.T, at.lanes);
    auto cached = model_cache.find(key);
    if (cached == model_cache.end()) cached = model_cache.emplace(key, join_model_steps(at)).first;
    p.model = cached->second;
    const Scenario s = join_scenario(*trace);
    if (!fits || model::device_slug(device_name(r)) != fits->device_id) {
      p.note = "no kernel-time fit for the row's device: steps per GETPAGE only";
    } else if (!model::find_fit(*fits, s)) {
      p.note = "no kernel-time fit for " + p.allocator + ": steps per GETPAGE only";
    } else {
      if (p.model) p.model_getpage_ms = predicted_getpage_ms(*fits, s, p.model->tas, p.model->was);
      p.replay_getpage_ms = predicted_getpage_ms(*fits, s, p.replay.tas, p.replay.was);
      if (!p.direct_ms) p.note = "no verified Direct Output row at this size: no join time";
    }
    if (p.direct_ms) {
      if (p.model_getpage_ms) p.model_join_ms = *p.direct_ms + *p.model_getpage_ms;
      if (p.replay_getpage_ms) p.replay_join_ms = *p.direct_ms + *p.replay_getpage_ms;
    }
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace alloclab::validation
