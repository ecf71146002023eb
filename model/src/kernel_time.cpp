#include "alloclab/model/kernel_time.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/slug.hpp"

#ifndef ALLOCLAB_SOURCE_DATA_DIR
#define ALLOCLAB_SOURCE_DATA_DIR "reports/data"
#endif

namespace alloclab::model {

namespace {
constexpr TimeFeature kFeatures[] = {TimeFeature::threads, TimeFeature::probes,
                                     TimeFeature::warp_steps, TimeFeature::was,
                                     TimeFeature::collisions};
}  // namespace

const char* feature_name(TimeFeature f) {
  switch (f) {
    case TimeFeature::threads:
      return "N";
    case TimeFeature::probes:
      return "N*TAS";
    case TimeFeature::warp_steps:
      return "warps*WAS";
    case TimeFeature::was:
      return "WAS";
    case TimeFeature::collisions:
      return "collisions";
  }
  return "?";
}

std::optional<TimeFeature> parse_feature(std::string_view name) {
  for (auto f : kFeatures)
    if (name == feature_name(f)) return f;
  return std::nullopt;
}

double feature_value(TimeFeature f, std::uint64_t N, unsigned lanes, double tas, double was,
                     double collisions) {
  const double n = static_cast<double>(N);
  switch (f) {
    case TimeFeature::threads:
      return n;
    case TimeFeature::probes:
      return n * tas;
    case TimeFeature::warp_steps:
      return static_cast<double>((N + lanes - 1) / lanes) * was;
    case TimeFeature::was:
      return was;
    case TimeFeature::collisions:
      return collisions;
  }
  return 0;
}

std::string device_slug(const std::string& name) {
  return slug(name);
}

std::string default_data_dir() {
  if (const char* env = std::getenv("ALLOCLAB_DATA_DIR"); env && *env) return env;
  return ALLOCLAB_SOURCE_DATA_DIR;
}

std::vector<std::string> available_time_fit_devices(const std::string& data_dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(data_dir, ec))
    if (e.is_directory() && fs::exists(e.path() / "time_fit.json"))
      out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

DeviceTimeFits load_time_fit(const std::string& data_dir, const std::string& device) {
  namespace fs = std::filesystem;
  const auto id = device_slug(device);
  const auto path = fs::path(data_dir) / id / "time_fit.json";
  if (!fs::exists(path)) {
    const auto have = available_time_fit_devices(data_dir);
    std::string list;
    for (const auto& d : have) list += (list.empty() ? "" : ", ") + d;
    throw InputError("--device",
                     fmt::format("no kernel-time fit for '{}' ({} not found); available in {}: {} "
                                 "(make one with `alloclab fit-time SWEEP_DIR -o FILE`)",
                                 device, path.string(), data_dir, list.empty() ? "none" : list));
  }
  std::ifstream in(path);
  const auto j = nlohmann::json::parse(in, nullptr, false);
  const auto not_a_fit = [&](const std::string& why) {
    return InputError("--device", path.string() + " is not an alloclab time fit (" + why + ")");
  };
  if (j.is_discarded() || !j.is_object() ||
      j.value("schema", std::string()) != "alloclab-time-fit/1")
    throw not_a_fit("schema alloclab-time-fit/1");
  DeviceTimeFits out;
  out.device_id = j.value("device_id", id);
  try {
    for (const auto& g : j.at("fits")) {
      KernelTimeFit fit;
      const auto algo_name = g.at("algo").get<std::string>();
      const auto algo = parse_algorithm(algo_name);
      if (!algo) throw not_a_fit("unknown algorithm '" + algo_name + "'");
      fit.algo = *algo;
      fit.w = g.at("w").get<unsigned>();
      fit.pages = g.at("pages").get<unsigned>();
      for (const auto& [feature, beta] : g.at("model_only").at("coefficients_ms").items()) {
        if (feature == "alpha") {
          fit.alpha_ms = beta.get<double>();
          continue;
        }
        const auto f = parse_feature(feature);
        // The model-only fit uses what the model gives; a fit on anything else cannot be applied.
        if (!f || *f == TimeFeature::collisions)
          throw not_a_fit("its model-only fit uses '" + feature +
                          "', which the model does not give");
        fit.betas_ms.emplace_back(*f, beta.get<double>());
      }
      out.fits.push_back(std::move(fit));
    }
  } catch (const nlohmann::json::exception& e) {
    throw not_a_fit(e.what());
  }
  return out;
}

const KernelTimeFit* find_fit(const DeviceTimeFits& fits, const Scenario& s) {
  const unsigned w = caps(s.algo).bitmap_words ? s.w : 0u;
  for (const auto& f : fits.fits)
    if (f.algo == s.algo && f.w == w && f.pages == s.pages) return &f;
  return nullptr;
}

void add_predicted_kernel_time(Record& record, const Scenario& s, const DeviceTimeFits& fits) {
  const KernelTimeFit* fit = find_fit(fits, s);
  if (!fit) {
    record.set_quantity(
        "kernel_ms_predicted", std::nullopt,
        fmt::format("no kernel-time fit for {} (w={}, pages={}) on {}", name(s.algo), s.w, s.pages,
                    fits.device_id.empty() ? "this device" : fits.device_id));
    return;
  }
  const auto tas = record.number("tas"), was = record.number("was");
  // The terms are summed in the order of their names in time_fit.json ("alpha" among them), the
  // order in which every earlier version summed them: predictions stay the same to the last bit.
  std::vector<std::pair<std::string, double>> terms = {{"alpha", fit->alpha_ms}};
  for (const auto& [f, beta] : fit->betas_ms) {
    if ((f == TimeFeature::probes && !tas) ||
        ((f == TimeFeature::was || f == TimeFeature::warp_steps) && !was)) {
      record.set_quantity("kernel_ms_predicted", std::nullopt,
                          "the model gives no finite tas/was here");
      return;
    }
    terms.emplace_back(feature_name(f),
                       beta * feature_value(f, s.N, s.lanes, tas.value_or(0), was.value_or(0), 0));
  }
  std::sort(terms.begin(), terms.end());
  double v = 0;
  for (const auto& [name_of_term, value] : terms) v += value;
  record.set("kernel_ms_predicted", v);
}

}  // namespace alloclab::model
