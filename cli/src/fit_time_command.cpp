// alloclab fit-time DIR: fits kernel time = alpha + beta . (work) to the GPU rows of a sweep
// directory (validation/time_fit.hpp) and writes the coefficients, R^2, held-out errors and
// provenance as JSON. The committed fit of a device lives in reports/data/<device>/time_fit.json,
// where `alloclab model --device <name>` finds it (model/kernel_time.hpp applies it).
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>

#include "alloclab/cli/commands.hpp"
#include "alloclab/core/errors.hpp"
#include "alloclab/git_commit.hpp"  // generated at build time (cmake/GitCommit.cmake)
#include "alloclab/model/kernel_time.hpp"
#include "alloclab/validation/page_size_study.hpp"
#include "alloclab/validation/time_fit.hpp"

namespace alloclab::cli {
namespace {

struct FitTimeArgs {
  std::string dir, device, out, device_metadata;
  std::vector<std::string> studies;  // page-size study JSON files (gpu_page_size_study)
  validation::TimeFitSettings settings;
};

nlohmann::json read_json(const std::filesystem::path& path, const std::string& option) {
  // A directory opens as a stream whose first read throws (basic_filebuf::underflow).
  if (!std::filesystem::is_regular_file(path))
    throw InputError(option, path.string() + ": not a file");
  std::ifstream in(path);
  if (!in) throw InputError(option, path.string() + ": cannot open");
  auto j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded()) throw InputError(option, path.string() + " is not JSON");
  return j;
}

std::string percent(const std::optional<validation::ErrorSummary>& s,
                    double validation::ErrorSummary::*field) {
  return s ? fmt::format("{:.1f}%", 100.0 * (*s).*field) : std::string("-");
}

void run(const FitTimeArgs& a) {
  namespace fs = std::filesystem;
  if (a.settings.folds < 2) throw InputError("--folds", "K-fold needs at least 2 folds");
  if (a.settings.bitmap_features && a.settings.l2_bytes == 0 && a.studies.empty())
    throw InputError("--l2-bytes",
                     "--bitmap-features needs the device's L2 size (--l2-bytes, or a --study)");
  // Page-size studies of the same device add their points; the first gives the L2 size unless
  // --l2-bytes does.
  std::vector<validation::StudyPoints> study_points;
  for (const auto& file : a.studies)
    study_points.push_back(
        validation::page_size_study_points(read_json(file, "--study"), "--study"));
  const auto csv = fs::path(a.dir) / "sweep.csv";
  if (!fs::exists(csv))
    throw InputError("DIR", csv.string() + " not found (a directory written by `alloclab sweep`)");
  nlohmann::json sweep_meta = nlohmann::json::object();
  if (fs::exists(fs::path(a.dir) / "sweep.json"))
    sweep_meta = read_json(fs::path(a.dir) / "sweep.json", "DIR");
  // GPU rows imported with `sweep --gpu-from`: the run that measured them is the source's.
  if (sweep_meta.contains("gpu_from") && sweep_meta["gpu_from"].is_object() &&
      sweep_meta["gpu_from"].value("sweep_json", nlohmann::json()).is_object())
    sweep_meta = sweep_meta["gpu_from"]["sweep_json"];

  // The device: named on the command line, else by the sweep that measured it.
  nlohmann::json device = sweep_meta.contains("device") && sweep_meta["device"].is_object()
                              ? sweep_meta["device"]
                              : nlohmann::json::object();
  std::string device_name = a.device;
  if (device_name.empty()) device_name = device.value("name", std::string());
  if (device_name.empty())
    throw InputError("--device",
                     "the sweep's metadata (DIR/sweep.json) names no device; give "
                     "--device NAME");
  device["name"] = device_name;
  // nvidia-smi's view (driver, clocks, power) where the GPU pass recorded it.
  fs::path smi = a.device_metadata;
  if (smi.empty() && fs::exists(fs::path(a.dir) / "device_metadata.json"))
    smi = fs::path(a.dir) / "device_metadata.json";
  if (!smi.empty()) {
    const auto m = read_json(smi, "--device-metadata");
    for (const char* k : {"driver_version", "clocks.max.sm", "clocks.max.mem", "clocks.sm",
                          "clocks.mem", "power.limit", "persistence_mode", "nvcc", "date_utc"})
      if (m.contains(k)) device["nvidia_smi"][k] = m[k];
  }

  const auto rows = validation::read_tidy(csv.string());
  std::size_t skipped = 0;
  auto points = validation::time_points(rows, &skipped);
  if (points.empty())
    throw InputError("DIR", csv.string() +
                                " has no GPU rows with tas, was and kernel_ms (measure "
                                "with `alloclab sweep --backend gpu`)");
  validation::TimeFitSettings settings = a.settings;
  nlohmann::json studies = nlohmann::json::array();
  for (std::size_t i = 0; i < study_points.size(); ++i) {
    const auto& sp = study_points[i];
    if (sp.device != device_name)
      throw InputError("--study", a.studies[i] + " was measured on '" + sp.device +
                                      "', the sweep on '" + device_name + "'");
    if (settings.l2_bytes == 0) settings.l2_bytes = sp.l2_bytes;
    points.insert(points.end(), sp.points.begin(), sp.points.end());
    studies.push_back({{"file", a.studies[i]}, {"points", sp.points.size()}});
  }
  const auto fits = validation::fit_time(points, settings);

  validation::TimeFitProvenance prov;
  prov.device_id = model::device_slug(device_name);
  prov.device = device;
  prov.source = {{"sweep_csv", csv.string()},
                 {"gpu_points", points.size()},
                 {"points_left_out_failed_requests", skipped},
                 {"measured_by", sweep_meta.value("command_line", std::string())},
                 {"measured_at_commit", sweep_meta.value("git_commit", std::string())}};
  if (!studies.empty()) prov.source["page_size_studies"] = studies;
  prov.command_line = command_line();
  prov.alloclab_commit = ALLOCLAB_GIT_COMMIT;
  const auto j = validation::time_fit_json(fits, settings, prov);

  if (a.out.empty()) {
    std::cout << j.dump(1) << '\n';
    return;
  }
  std::error_code ec;
  fs::create_directories(a.out, ec);
  if (ec) throw InputError("--out", "cannot create " + a.out + ": " + ec.message());
  const std::string output = (fs::path(a.out) / "time_fit.json").string();
  std::ofstream file(output);
  file << j.dump(1) << '\n';
  if (!file) throw InputError("--out", "cannot write " + output);
  std::cout << fmt::format("fit-time: {} points of {} ({} left out: failed requests)\n",
                           points.size(), device_name, skipped);
  std::cout << fmt::format("{:<10} {:>3} {:<30} {:>7} {:>9} {:>9} {:<18} {:>11}\n", "algo", "w",
                           "selected features", "R^2", "kfold med", "kfold max",
                           "model-only features", "model med");
  for (const auto& g : fits) {
    const auto& s = g.candidates[g.selected];
    const auto& m = g.candidates[g.model_only];
    std::cout << fmt::format("{:<10} {:>3} {:<30} {:>7.4f} {:>9} {:>9} {:<18} {:>11}\n",
                             name(g.algo), g.w ? std::to_string(g.w) : std::string("-"),
                             s.features.name, s.r_squared,
                             percent(s.kfold, &validation::ErrorSummary::median),
                             percent(s.kfold, &validation::ErrorSummary::max), m.features.name,
                             percent(g.model_error, &validation::ErrorSummary::median));
  }
  std::cout << "wrote " << output << '\n';
}

}  // namespace

void add_fit_time_command(CLI::App& app) {
  auto args = std::make_shared<FitTimeArgs>();
  auto* cmd = app.add_subcommand(
      "fit-time",
      "Fit kernel time to the work done, per algorithm (and w), from the GPU rows of a sweep:\n"
      "  kernel_ms = alpha + beta . features,  features from {N, N*TAS, warps*WAS, WAS, "
      "collisions}\n"
      "by relative least squares (Eigen QR). Every candidate feature set is scored by 5-fold, "
      "leave-one-N-out and leave-one-T-out relative error; the selected one has every beta >= 0 "
      "and the lowest K-fold RMS error (fewest parameters within 5% of it). The best set without "
      "collisions is "
      "the model-only fit: `alloclab model ... --device NAME` applies it to the model's TAS/WAS "
      "and prints kernel_ms_predicted. Writes JSON (coefficients, R^2, held-out errors, "
      "per-point predictions, device, data source, commit) to --out DIR as DIR/time_fit.json "
      "(where "
      "`alloclab report DIR` and, under reports/data/<device>/, `alloclab model --device` find "
      "it), "
      "or to stdout.\n"
      "Example: alloclab fit-time reports/standard --out reports/data/nvidia-h200");
  cmd->add_option("DIR", args->dir, "a sweep directory with GPU rows (sweep.csv, sweep.json)")
      ->required();
  cmd->add_option("--device", args->device,
                  "device name (default: the one in DIR/sweep.json), e.g. 'NVIDIA H200'");
  cmd->add_option("--device-metadata", args->device_metadata,
                  "nvidia-smi metadata JSON of the GPU pass (default: DIR/device_metadata.json "
                  "if present)");
  cmd->add_option("--out", args->out, "DIR: write the fit to DIR/time_fit.json (default: stdout)");
  cmd->add_option("--folds", args->settings.folds, "K of K-fold cross-validation")
      ->capture_default_str();
  cmd->add_option("--seed", args->settings.seed, "seed of the fold assignment")
      ->capture_default_str();
  cmd->add_flag("--bitmap-features", args->settings.bitmap_features,
                "also compare candidates with the bitmap features N*TAS*miss (probes that miss "
                "the L2), N/words and N*N/words (threads per word); needs the L2 size "
                "(--l2-bytes or a --study)");
  cmd->add_option("--l2-bytes", args->settings.l2_bytes,
                  "the device's L2 size in bytes for N*TAS*miss (default: the first --study's)");
  cmd->add_option("--study", args->studies,
                  "a page-size study of the same device (gpu_page_size_study --json; "
                  "scripts/gpu.sh engine page-size): its lowest-bit allocator rows with counters "
                  "become points too (repeatable)");
  cmd->callback([args] { run(*args); });
}

}  // namespace alloclab::cli
