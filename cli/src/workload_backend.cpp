// `alloclab workload`'s backends (workload_backend.hpp): the simulator's, the GPU's, a typed
// heap's.
#include "workload_backend.hpp"

#include <string>
#include <utility>

#include "alloclab/cli/resource_limits.hpp"
#include "alloclab/core/errors.hpp"
#include "alloclab/cpu_sim/typed_workload.hpp"
#include "alloclab/cpu_sim/workload_runner.hpp"
#include "alloclab/gpu/dynasoar_typed_workload.hpp"
#include "alloclab/gpu/workload.hpp"

namespace alloclab::cli::workload {
namespace {

// A pool (or a call's requests: --N, oom's --batch) the host cannot hold is bad input (the
// simulator's own estimate for a pool of T pages, resource_limits.hpp), checked before anything
// is built.
void check_workload_memory(Algorithm algo, const Workload& w, const sim::WorkloadOptions& o) {
  if (!caps(algo).has(BackendKind::sim)) return;  // sim::check_workload_input names --allocator
  Scenario s;
  s.algo = algo;
  s.N = w.family == WorkloadFamily::oom ? w.batch : w.N;
  s.T = w.pages_total();
  s.A = w.pages_free_at_start();
  sim::SimOptions so;
  so.mode = o.mode;
  so.host_threads = o.host_threads;
  try {
    check_simulator_memory(s, so, 1);
  } catch (const InputError& e) {
    if (e.parameter() == "--N" && w.family == WorkloadFamily::oom)  // oom's requests: a batch
      throw InputError("--batch", std::string(e.what()).substr(e.parameter().size() + 2));
    if (e.parameter() != "--T") throw;
    throw InputError("--pool", std::to_string(w.pool_bytes) + " bytes in pages of " +
                                   std::to_string(w.page_bytes) +
                                   " B: " + std::string(e.what()).substr(e.parameter().size() + 2));
  }
}

// --types: the typed heap's backends (the options of page pools refused, each naming itself).
Backend make_typed_backend(const WorkloadArgs& a) {
  const std::pair<bool, const char*> page_pool_only[] = {
      {a.max_steps != 0, "--max-steps"},
      {a.family_options.queue_capacity != 0, "--queue-capacity"},
      {a.family_options.preboot, "--preboot"},
      {a.family_options.arenas != 0, "--arenas"},
      {a.family_options.chunk_bins != 0, "--chunk-bins"},
      {a.warm, "--warm"},
      {!a.family_options.cuda_heap.empty(), "--cuda-heap"},
      {a.block != 256, "--block"},
      {!a.out.empty(), "--out"}};
  for (const auto& [given, option] : page_pool_only)
    if (given)
      throw InputError(option,
                       std::string(std::string(option) == "--out"
                                       ? "typed rows (--types) have columns of their own; "
                                         "print them (--format csv)"
                                       : "is for page pools, not the typed heap (--types)"));
  if (a.backend == "sim") {
    const auto mode = sim::parse_mode(a.mode);
    if (!mode)
      throw InputError("--mode", "unknown mode '" + a.mode + "' (sequential|lockstep|threads)");
    sim::TypedWorkloadOptions o;
    o.mode = *mode;
    o.host_threads = a.threads;
    o.repeats = a.repeats;
    return {{"sim", sim::mode_name(o.mode)},
            [o](Algorithm algo, const Workload& w) { sim::check_typed_workload_input(algo, w, o); },
            [o](Algorithm algo, const Workload& w, std::uint64_t t) {
              return sim::run_typed_workload(algo, w, o, t);
            }};
  }
  if (a.backend == "gpu") {
    if (a.mode != "sequential")
      throw InputError("--mode", "is for --backend sim (the GPU runs the allocator's kernels)");
    gpu::TypedWorkloadGpuOptions o;
    o.repeats = a.repeats;
    o.warmup = a.warmup;
    return {
        {"gpu", "gpu"},
        [o](Algorithm algo, const Workload& w) { gpu::check_typed_workload_input_gpu(algo, w, o); },
        [o](Algorithm algo, const Workload& w, std::uint64_t t) {
          return gpu::run_typed_workload_gpu(algo, w, o, t);
        }};
  }
  throw InputError("--backend", "unknown backend '" + a.backend + "' (sim, gpu)");
}

}  // namespace

Backend make_backend(const WorkloadArgs& a) {
  if (a.types_given) return make_typed_backend(a);
  if (a.backend != "gpu" && a.warm)
    throw InputError("--warm", "is for --backend gpu (the simulator builds its allocator anew)");
  if (a.backend == "sim") {
    if (a.family_options.arenas || a.family_options.chunk_bins ||
        a.family_options.single_chunk_mutex())
      throw InputError(a.family_options.arenas       ? "--arenas"
                       : a.family_options.chunk_bins ? "--chunk-bins"
                                                     : "--chunk-mutex",
                       "is for --backend gpu here (the simulator's: alloclab simulate)");
    // The GPU's memory order and warp-aggregated waits: the simulator has neither.
    if (a.family_options.gg_order != "acq-rel")
      throw InputError("--gg-order", "is for --backend gpu");
    if (a.family_options.gg_wait != "warp") throw InputError("--gg-wait", "is for --backend gpu");
    const auto mode = sim::parse_mode(a.mode);
    if (!mode)
      throw InputError("--mode", "unknown mode '" + a.mode + "' (sequential|lockstep|threads)");
    sim::WorkloadOptions o;
    o.mode = *mode;
    o.host_threads = a.threads;
    o.max_probes_per_request = a.max_steps;
    o.queue_capacity = a.family_options.queue_capacity;
    o.preboot = a.family_options.preboot;
    o.repeats = a.repeats;
    // Pre-booted rows are another mode of the simulator: they never mix with the others.
    return {"sim", std::string(sim::mode_name(o.mode)) + (o.preboot ? "-preboot" : ""),
            [o](Algorithm algo, const Workload& w) {
              check_workload_memory(algo, w, o);  // first: the input check allocates per request
              sim::check_workload_input(algo, w, o);
            },
            [o](Algorithm algo, const Workload& w, std::uint64_t t) {
              return sim::run_workload(algo, w, o, t);
            }};
  }
  if (a.backend == "gpu") {
    if (a.warm && a.warmup == 0)
      throw InputError("--warm", "needs --warmup >= 1 (a warm pool is one a warm-up has used)");
    if (a.mode != "sequential")
      throw InputError("--mode", "is for --backend sim (the GPU runs the allocator's kernels)");
    if (a.family_options.preboot)
      throw InputError("--preboot", "is for --backend sim (the GPU backend always pre-boots)");
    if (a.counters != "on" && a.counters != "off")
      throw InputError("--counters", "must be on or off");
    gpu::WorkloadOptions o;
    if (a.max_steps) o.max_steps = a.max_steps;
    o.queue_capacity = a.family_options.queue_capacity;
    o.arenas = a.family_options.arenas;
    o.chunk_bins = a.family_options.chunk_bins;
    o.single_chunk_mutex = a.family_options.single_chunk_mutex();
    o.gg_fenced = a.family_options.gg_order == "fenced";
    o.gg_thread_waits = a.family_options.gg_wait == "thread";
    o.counters = a.counters == "on";
    o.warmup = a.warmup;
    o.repeats = a.repeats;
    o.warm = a.warm;
    o.heap_bytes = a.family_options.cuda_heap_bytes();
    if (!(a.watchdog >= 0)) throw InputError("--watchdog", "must be >= 0 seconds");
    o.watchdog_seconds = a.watchdog;
    o.block_sweep = a.block_sweep;
    if (a.block_sweep && a.block != 256)
      throw InputError("--block-sweep", "sets the blocks itself (1 .. 1024); leave --block out");
    // Warm rows are another mode of the GPU backend: they never mix with cold ones, nor do the
    // block sweep's means with one block's times.
    return {"gpu",
            a.block_sweep ? "gpu-block-sweep"
            : a.warm      ? "gpu-warm"
                          : "gpu",
            [o](Algorithm algo, const Workload& w) { gpu::check_workload_input(algo, w, o); },
            [o](Algorithm algo, const Workload& w, std::uint64_t t) {
              return gpu::run_workload(algo, w, o, t);
            }};
  }
  throw InputError("--backend", "unknown backend '" + a.backend + "' (sim, gpu)");
}

}  // namespace alloclab::cli::workload
