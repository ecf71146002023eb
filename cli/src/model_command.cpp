// `alloclab model`: the analytic model of paper 000 over a grid. Everything is computed before
// anything is printed, so bad input leaves stdout empty. Which allocators have a model, a rounds
// schedule or the theorem checks comes from the model table (model/model_table.hpp).
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "alloclab/cli/commands.hpp"
#include "alloclab/cli/grid.hpp"
#include "alloclab/cli/output.hpp"
#include "alloclab/cli/sweep_grid.hpp"
#include "alloclab/core/errors.hpp"
#include "alloclab/model/kernel_time.hpp"
#include "alloclab/model/model.hpp"
#include "alloclab/model/model_table.hpp"
#include "alloclab/model/rounds.hpp"

namespace alloclab::cli {
namespace {

// The help footer: what is common, then each modelled allocator's paragraph from its entry in the
// model table (model/model_table.hpp), then the schedules and options that apply to several.
std::string model_help() {
  std::string out =
      "Analytic models over a grid: N threads each take one page (unless an allocator says\n"
      "otherwise), A of T pages free, warps of L=--lanes lanes, bitmap words of --w bits.\n"
      "tas = per-thread average steps, was = per-warp average steps (mean over warps of E[max\n"
      "of the warp's lanes' steps]). Default schedule (sequential, the paper's §3.2.2): requests\n"
      "are served one after another in a random order.\n";
  for (auto a : model::modelled_algorithms()) {
    out += "\n--allocator " + std::string(name(a)) + ":\n";
    out += model::ModelTable::instance().find(a)->help;
    out += '\n';
  }
  out +=
      "\n--schedule rounds (" + algorithm_names(model::rounds_algorithms()) +
      "; not in the paper): all unfinished threads probe at once each\n"
      "round, reads see the state at the start of the round, and the free count falls as\n"
      "they succeed (the simulator's lockstep mode, the GPU when all threads run together).\n"
      "Quantities: tas = E[sum of unfinished threads over rounds]/N; was = mean over warps\n"
      "(consecutive thread ids, as on hardware) of E[max lane steps], exact from\n"
      "P(warp done | m unfinished) = C(N-L,m)/C(N,m); rounds = E[rounds until all are done];\n"
      "method = exact_chain / exact_profiles (exact Markov chains, small cases) or\n"
      "mean_field+tail (large N: expected state advanced round by round with a variance\n"
      "correction, then a chain over the last 256 threads). collisions: expected failed\n"
      "atomic claims of the same process (model/collisions.hpp, mean field; a loser retries\n"
      "on a word holding every earlier claim, as in lockstep).\n"
      "Example: alloclab model --allocator rwbm --schedule rounds --N 1024..1048576*2 --free 0.01 "
      "--T 2^25\n"
      "\n--theorems (" +
      algorithm_names(model::theorem_algorithms()) +
      ") prints Theorem 1 (lim_{A->N} U' = U/w) and Theorem 2\n"
      "(lim_{A->N} V' = V/w + (w-1)/(2w)) at each grid point: lhs, rhs as printed, residual\n"
      "lhs - rhs (computed without cancellation), its limit as A -> N, and a verdict.\n"
      "\nkernel_ms_predicted  with --device NAME: kernel time on that GPU predicted from the\n"
      "model alone: the device's committed fit kernel_ms = alpha + beta . (N, N*TAS,\n"
      "warps*WAS, WAS) (`alloclab fit-time`, reports/data/<device>/time_fit.json;\n"
      "--data-dir or $ALLOCLAB_DATA_DIR point elsewhere) applied to tas and was.\n"
      "\nExample (Figure 4): alloclab model --allocator rw --N 1000:5000:1000 "
      "--free 0.5,0.1,0.01,0.007,0.005 --T 1e6\n"
      "Example: alloclab model --allocator rwmalloc --pages 4 --N 1024 --free 0.5 --T 1e6\n"
      "Example: alloclab model --allocator rw,rwbm --N 1024 --free 0.01 --T 1e6 --format md";
  return out;
}

// The modelled allocators that take requests of several pages (--pages).
std::vector<Algorithm> multi_page_models() {
  return algorithms_where(model::modelled_algorithms(),
                          [](const Capabilities& c) { return c.requests == RequestKind::pages; });
}

struct ModelOptions {
  std::vector<std::string> allocators;
  GridOptions grid;
  Format format = Format::table;
  bool theorems = false;
  std::string schedule = "sequential";
  std::string device, data_dir;  // kernel-time prediction (model/kernel_time.hpp)
};

void run_model(const ModelOptions& o) {
  const bool rounds = o.schedule == "rounds";
  if (!rounds && o.schedule != "sequential")
    throw InputError("--schedule", "unknown schedule '" + o.schedule + "' (sequential|rounds)");
  if (rounds && o.theorems)
    throw InputError("--theorems", "the theorems are about the sequential schedule");
  // `all`: every allocator with a model; the points of each allocator in turn.
  std::vector<GridPoint> points;
  for (const Algorithm algo : parse_algorithm_list(
           o.allocators, static_cast<unsigned>(BackendKind::model), "--allocator")) {
    const model::ModelEntry* entry = model::ModelTable::instance().find(algo);
    if (!entry)
      throw InputError("--allocator", std::string(name(algo)) + " has no model (the model covers " +
                                          algorithm_names(model::modelled_algorithms()) + ")");
    if (rounds && !entry->rounds)
      throw InputError("--schedule", "the rounds schedule models " +
                                         algorithm_names(model::rounds_algorithms()) + " only");
    if (o.grid.pages != 1 && caps(algo).requests != RequestKind::pages)
      throw InputError("--pages", "requests of more than one page are served by " +
                                      algorithm_names(multi_page_models()) + " only");
    if (o.theorems && !entry->theorems)
      throw InputError("--theorems", "Theorems 1 and 2 are about " +
                                         algorithm_names(model::theorem_algorithms()));
    for (auto& p : expand_grid_points(o.grid, algo, GridUse::model)) points.push_back(std::move(p));
  }
  std::optional<model::DeviceTimeFits> time_fit;
  if (!o.device.empty()) {
    if (o.theorems) throw InputError("--device", "predicts kernel time; not with --theorems");
    time_fit =
        model::load_time_fit(o.data_dir.empty() ? model::default_data_dir() : o.data_dir, o.device);
  }
  const auto evaluate = [&](const Scenario& s) -> std::vector<Record> {
    if (o.theorems) return model::theorem_records(s);
    // rounds: hardware warps run in parallel rounds, so its WAS is the better time predictor.
    Record r = rounds ? model::evaluate_rounds(s) : model::evaluate(s);
    if (time_fit) model::add_predicted_kernel_time(r, s, *time_fit);
    return {std::move(r)};
  };
  write_records(std::cout, evaluate_points(points, evaluate, std::cerr), o.format);
}

}  // namespace

void add_model_command(CLI::App& app) {
  auto opts = std::make_shared<ModelOptions>();
  auto* cmd = app.add_subcommand("model", "analytic TAS/WAS model (Eq. 1-5, Theorems 1-2)");
  cmd->footer(model_help());
  cmd->add_option("--allocator", opts->allocators,
                  "allocators, a comma list: " + algorithm_names(model::modelled_algorithms()) +
                      "; or `all` alone: every one of them")
      ->required()
      ->delimiter(',');
  add_grid_options(*cmd, opts->grid);
  cmd->add_option("--pages", opts->grid.pages,
                  "consecutive pages per request (" + algorithm_names(multi_page_models()) +
                      "; N*pages must not exceed A)")
      ->default_val(1);
  add_format_option(*cmd, opts->format);
  cmd->add_flag("--theorems", opts->theorems,
                "check Theorems 1 and 2 at each grid point instead of printing the quantities");
  cmd->add_option("--schedule", opts->schedule,
                  "sequential (the paper's model) or rounds (parallel rounds, " +
                      algorithm_names(model::rounds_algorithms()) + ")")
      ->capture_default_str();
  cmd->add_option("--device", opts->device,
                  "add kernel_ms_predicted from this GPU's kernel-time fit, e.g. nvidia-h200");
  cmd->add_option("--data-dir", opts->data_dir,
                  "where device fits live (<dir>/<device>/time_fit.json; default "
                  "$ALLOCLAB_DATA_DIR, else the source tree's reports/data)");
  cmd->callback([opts] { run_model(*opts); });
}

}  // namespace alloclab::cli
