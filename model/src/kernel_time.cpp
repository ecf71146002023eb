#include "alloclab/model/kernel_time.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/probe_sequence.hpp"
#include "alloclab/core/slug.hpp"
#include "alloclab/model/model_table.hpp"

#ifndef ALLOCLAB_SOURCE_DATA_DIR
#define ALLOCLAB_SOURCE_DATA_DIR "reports/data"
#endif

namespace alloclab::model {

namespace {
constexpr TimeFeature kFeatures[] = {TimeFeature::threads,          TimeFeature::probes,
                                     TimeFeature::warp_steps,       TimeFeature::was,
                                     TimeFeature::collisions,       TimeFeature::l2_miss_probes,
                                     TimeFeature::threads_per_word, TimeFeature::word_pairs};
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
    case TimeFeature::l2_miss_probes:
      return "N*TAS*miss";
    case TimeFeature::threads_per_word:
      return "N/words";
    case TimeFeature::word_pairs:
      return "N*N/words";
  }
  return "?";
}

bool is_bitmap_feature(TimeFeature f) {
  return f == TimeFeature::l2_miss_probes || f == TimeFeature::threads_per_word ||
         f == TimeFeature::word_pairs;
}

bool needs_l2_bytes(TimeFeature f) {
  return f == TimeFeature::l2_miss_probes;
}

std::uint64_t bitmap_bytes(std::uint64_t T, unsigned w) {
  return w == 0 ? 0 : (word_count(T, w) * w + 7) / 8;  // the model also has w < 8 (w = 1: RW)
}

double l2_miss_fraction(std::uint64_t bitmap_size, std::uint64_t l2_bytes) {
  if (bitmap_size <= l2_bytes) return 0;  // also B = 0: no bitmap, nothing to miss
  return 1.0 - static_cast<double>(l2_bytes) / static_cast<double>(bitmap_size);
}

double threads_per_word(std::uint64_t N, std::uint64_t T, unsigned w) {
  return w == 0 ? 0 : static_cast<double>(N) / static_cast<double>(word_count(T, w));
}

std::optional<unsigned> probed_word_bits(const Scenario& s) {
  const ModelEntry* e = ModelTable::instance().find(s.algo);
  if (!e || !e->probed_word_bits) return std::nullopt;
  return e->probed_word_bits(s);
}

std::optional<TimeFeature> parse_feature(std::string_view name) {
  for (auto f : kFeatures)
    if (name == feature_name(f)) return f;
  return std::nullopt;
}

double feature_value(TimeFeature f, const FeatureInputs& in) {
  const double n = static_cast<double>(in.N);
  switch (f) {
    case TimeFeature::threads:
      return n;
    case TimeFeature::probes:
      return n * in.tas;
    case TimeFeature::warp_steps:
      return static_cast<double>((in.N + in.lanes - 1) / in.lanes) * in.was;
    case TimeFeature::was:
      return in.was;
    case TimeFeature::collisions:
      return in.collisions;
    case TimeFeature::l2_miss_probes:
      if (in.word_bits == 0) return 0;
      if (in.l2_bytes == 0)
        throw std::invalid_argument(
            "N*TAS*miss needs the device's L2 size (fit-time --l2-bytes, or time_fit.json's "
            "l2_bytes)");
      return n * in.tas * l2_miss_fraction(bitmap_bytes(in.T, in.word_bits), in.l2_bytes);
    case TimeFeature::threads_per_word:
      return threads_per_word(in.N, in.T, in.word_bits);
    case TimeFeature::word_pairs:
      return n * threads_per_word(in.N, in.T, in.word_bits);
  }
  return 0;
}

double feature_value(TimeFeature f, std::uint64_t N, unsigned lanes, double tas, double was,
                     double collisions) {
  if (is_bitmap_feature(f))
    throw std::invalid_argument(std::string(feature_name(f)) +
                                " needs the pool's geometry (feature_value with FeatureInputs)");
  FeatureInputs in;
  in.N = N;
  in.lanes = lanes;
  in.tas = tas;
  in.was = was;
  in.collisions = collisions;
  return feature_value(f, in);
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
    throw InputError(
        "--device",
        fmt::format("no kernel-time fit for '{}' ({} not found); available in {}: {} "
                    "(make one with `alloclab fit-time SWEEP_DIR --out DIR`, DIR/time_fit.json)",
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
    if (j.contains("l2_bytes")) out.l2_bytes = j.at("l2_bytes").get<std::uint64_t>();
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
        if (needs_l2_bytes(*f) && out.l2_bytes == 0)
          throw not_a_fit("its model-only fit uses '" + feature + "' but it gives no l2_bytes");
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
  FeatureInputs in;
  in.N = s.N;
  in.lanes = s.lanes;
  in.tas = tas.value_or(0);
  in.was = was.value_or(0);
  in.T = s.T;
  in.word_bits = probed_word_bits(s).value_or(0);
  in.l2_bytes = fits.l2_bytes;
  // The terms are summed in the order of their names in time_fit.json ("alpha" among them), the
  // order in which every earlier version summed them: predictions stay the same to the last bit.
  std::vector<std::pair<std::string, double>> terms = {{"alpha", fit->alpha_ms}};
  for (const auto& [f, beta] : fit->betas_ms) {
    if (((f == TimeFeature::probes || f == TimeFeature::l2_miss_probes) && !tas) ||
        ((f == TimeFeature::was || f == TimeFeature::warp_steps) && !was)) {
      record.set_quantity("kernel_ms_predicted", std::nullopt,
                          "the model gives no finite tas/was here");
      return;
    }
    terms.emplace_back(feature_name(f), beta * feature_value(f, in));
  }
  std::sort(terms.begin(), terms.end());
  double v = 0;
  for (const auto& [name_of_term, value] : terms) v += value;
  record.set("kernel_ms_predicted", v);
}

}  // namespace alloclab::model
