// `alloclab measure`: the allocators the registry declares on the gpu backend, on a real GPU,
// over the grid syntax of `simulate`, with the same JSON keys plus kernel_ms, allocs_per_s and
// device. Every grid point's parameters are checked before any device work (exit 2). Without CUDA
// or without a device it fails with one line on stderr (alloclab::gpu::NoDevice, exit 1); a
// failed check of a run is a VerificationError (exit 3).
#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "alloclab/cli/commands.hpp"
#include "alloclab/cli/family_options.hpp"
#include "alloclab/cli/grid.hpp"
#include "alloclab/cli/output.hpp"
#include "alloclab/cli/sweep_grid.hpp"
#include "alloclab/core/algorithm.hpp"
#include "alloclab/core/errors.hpp"
#include "alloclab/core/ouroboros/config.hpp"
#include "alloclab/cpu_sim/simulator.hpp"
#include "alloclab/gpu/measure.hpp"

namespace alloclab::cli {
namespace {

struct MeasureArgs {
  GridOptions grid;
  std::vector<std::string> allocators;
  std::uint64_t trials = 1;
  unsigned per_thread = 1;
  unsigned repeats = 5;
  unsigned warmup = 1;
  std::uint64_t max_steps = 1u << 20;
  FamilyOptions family;
  std::uint64_t page_bytes = 256;
  bool no_counters = false;
  Format format = Format::table;
};

// Mean and 95% half-width over trials (Student t, as the simulator reports them); null
// half-width for one trial.
std::pair<double, std::optional<double>> mean_ci(const std::vector<double>& v) {
  const auto summary = sim::summarize(v);
  return {summary.mean, summary.ci95};
}

void run(const MeasureArgs& args) {
  // `all`: every allocator the registry declares on the gpu backend.
  const auto algos =
      parse_algorithm_list(args.allocators, static_cast<unsigned>(BackendKind::gpu), "--allocator");
  for (const auto a : algos)
    if (const auto why = gpu::why_no_gpu_backend(a)) throw InputError("--allocator", *why);
  if (args.trials < 1) throw InputError("--trials", "must be >= 1");

  gpu::MeasureOptions opt;
  opt.per_thread = args.per_thread;
  opt.repeats = args.repeats;
  opt.warmup = args.warmup;
  opt.counters = !args.no_counters;
  opt.max_steps = args.max_steps;
  opt.queue_capacity = args.family.queue_capacity;
  opt.arenas = args.family.arenas;
  opt.chunk_bins = args.family.chunk_bins;
  opt.single_chunk_mutex = args.family.single_chunk_mutex();
  opt.gg_fenced = args.family.gg_order == "fenced";
  opt.gg_thread_waits = args.family.gg_wait == "thread";
  opt.page_bytes = args.page_bytes;
  opt.heap_bytes = args.family.cuda_heap_bytes();

  // Expand and check every grid first so that bad input fails before any device work. The device
  // malloc heap is fixed before the first kernel that calls malloc: without --cuda-heap it is
  // sized for the largest grid point that uses it.
  std::vector<std::vector<Scenario>> work;
  std::uint64_t heap = opt.heap_bytes;
  for (auto algo : algos) {
    GridOptions g = args.grid;
    // With several allocators each runs the bit choices it implements (lowest where none).
    g.bit_choice_where_supported = algos.size() > 1;
    auto grid = expand_grid(g, algo, GridUse::runnable);
    for (const auto& s : grid) {
      gpu::check_input(algo, s, opt);
      if (args.family.cuda_heap.empty())
        heap = std::max(heap, gpu::device_heap_bytes(algo, s, opt));
    }
    work.push_back(std::move(grid));
  }
  opt.heap_bytes = heap;

  const gpu::DeviceInfo dev = gpu::device_info();  // throws NoDevice: one line, non-zero exit

  std::vector<Record> records;
  for (const auto& grid : work) {
    for (const auto& s : grid) {
      std::vector<double> tas, was, p50, p99, ms, setup, free_ms;
      std::uint64_t smax = 0, coll = 0, taken = 0, failed = 0;
      bool has_steps = true;
      std::vector<std::string> notes;
      for (std::uint64_t t = 0; t < args.trials; ++t) {
        const auto r = gpu::measure(s.algo, s, opt, t);
        has_steps = r.has_steps;
        tas.push_back(r.tas);
        was.push_back(r.was);
        p50.push_back(r.steps_p50);
        p99.push_back(r.steps_p99);
        smax = std::max<std::uint64_t>(smax, r.steps_max);
        coll += r.collisions;
        taken += r.taken;
        failed += r.failed;
        ms.push_back(r.kernel_ms);
        setup.push_back(r.setup_ms);
        free_ms.push_back(r.free_ms);
        for (const auto& n : r.notes)
          if (std::find(notes.begin(), notes.end(), n) == notes.end()) notes.push_back(n);
      }
      Record rec;
      put_scenario(rec, s);
      rec.set_int("trials", args.trials);
      rec.set_int("per_thread", args.per_thread);
      const std::string why = info(s.algo).step_definition.empty()
                                  ? std::string(name(s.algo)) + " has no observable steps"
                                  : "counters off (--no-counters)";
      const auto [tas_m, tas_ci] = mean_ci(tas);
      const auto [was_m, was_ci] = mean_ci(was);
      const std::string one_trial = "needs --trials >= 2";
      if (has_steps) {
        rec.set("tas", tas_m);
        rec.set_quantity("tas_ci95", tas_ci, one_trial);
        rec.set("was", was_m);
        rec.set_quantity("was_ci95", was_ci, one_trial);
        rec.set("steps_p50", mean_ci(p50).first);
        rec.set("steps_p99", mean_ci(p99).first);
        rec.set_int("steps_max", smax);
        rec.set_int("collisions", coll);
      } else {
        for (const char* key : {"tas", "tas_ci95", "was", "was_ci95", "steps_p50", "steps_p99",
                                "steps_max", "collisions"})
          rec.set_quantity(key, std::nullopt, key == std::string("tas") ? why : "");
      }
      rec.set_int("taken", taken);
      rec.set_int("failed", failed);
      const double kernel_ms = mean_ci(ms).first;
      rec.set("kernel_ms", kernel_ms);
      rec.set("allocs_per_s", kernel_ms > 0
                                  ? static_cast<double>(s.N * args.per_thread) / (kernel_ms * 1e-3)
                                  : 0.0);
      rec.set("setup_ms", mean_ci(setup).first);
      rec.set("free_ms", mean_ci(free_ms).first);
      rec.set_int("repeats", args.repeats);
      rec.set("device", dev.name);
      rec.notes = notes;
      records.push_back(std::move(rec));
    }
  }
  write_records(std::cout, records, args.format);
}

}  // namespace

void add_measure_command(CLI::App& app) {
  auto args = std::make_shared<MeasureArgs>();
  auto* cmd = app.add_subcommand(
      "measure",
      "Run the allocators on the GPU: kernel time (CUDA events; warm-up, then the median of "
      "--repeats, each from the same pool), TAS/WAS/percentiles from per-thread counters, and a "
      "verification of every run (exit 3 if it fails). Needs a CUDA build and a device.");
  cmd->add_option("--allocator", args->allocators,
                  "allocators, a comma list: " + algorithm_names(algorithms_on(BackendKind::gpu)) +
                      "; or `all` alone: every one of them")
      ->required()
      ->delimiter(',');
  add_grid_options(*cmd, args->grid);
  add_bit_choice_option(*cmd, args->grid);
  cmd->add_option("--pages", args->grid.pages,
                  "consecutive pages per request (" +
                      algorithm_names(algorithms_where(
                          algorithms_on(BackendKind::gpu),
                          [](const Capabilities& c) { return c.requests == RequestKind::pages; })) +
                      "). " + ouro::limits_help())
      ->capture_default_str();
  cmd->add_option("--seed", args->grid.seed, "root seed of the pool and the probe streams")
      ->capture_default_str();
  cmd->add_option("--trials", args->trials,
                  "independent trials (trial seeds); taken/failed/collisions are summed over "
                  "trials, tas/was averaged with a 95% CI")
      ->capture_default_str();
  cmd->add_option("--per-thread", args->per_thread, "requests per thread, k")
      ->capture_default_str();
  cmd->add_option("--repeats", args->repeats, "timed repeats; kernel_ms is their median")
      ->capture_default_str();
  cmd->add_option("--warmup", args->warmup, "untimed runs first")->capture_default_str();
  cmd->add_option("--max-steps", args->max_steps,
                  "step bound per request; a request reaching it fails (out of memory)")
      ->capture_default_str();
  add_family_options(*cmd, args->family, static_cast<unsigned>(BackendKind::gpu));
  cmd->add_option("--page-bytes", args->page_bytes,
                  "allocators of bytes (cudamalloc): bytes per page of a request")
      ->capture_default_str();
  cmd->add_flag("--no-counters", args->no_counters,
                "time the kernels without per-thread counters (no TAS/WAS)");
  add_format_option(*cmd, args->format);
  cmd->callback([args] { run(*args); });
}

}  // namespace alloclab::cli
