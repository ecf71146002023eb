// `alloclab wator` and `alloclab linux-scalability`: DynaSOAr's application workloads (ECOOP'19
// §6.3-6.4) on the simulator's typed heap (cpu_sim/typed_apps.hpp), typed objects named by byte
// size with --types. The allocators are those with a typed heap entry (cpu_sim/typed_heap.hpp's
// TypedHeapTable). Every batch is verified (exit 3 if one is not).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "alloclab/cli/command_table.hpp"
#include "alloclab/cli/commands.hpp"
#include "alloclab/cli/output.hpp"
#include "alloclab/cli/value_list.hpp"
#include "alloclab/core/comma_list.hpp"
#include "alloclab/core/dynasoar/types.hpp"
#include "alloclab/core/errors.hpp"
#include "alloclab/cpu_sim/typed_apps.hpp"
#include "alloclab/gpu/dynasoar_apps.hpp"
#include "alloclab/gpu/measure.hpp"

namespace alloclab::cli {
namespace {

struct TypedArgs {
  std::string allocator = "dynasoar", types, heap, retries = "5", mode = "lockstep";
  std::string backend = "sim";
  unsigned host_threads = 0;
  std::uint64_t seed = 1;
  Format format = Format::table;
};
struct WatorArgs : TypedArgs {
  unsigned width = 64, height = 64, iterations = 500;
  double fish = 0.25, sharks = 0.25;
  unsigned fish_breed = 4, shark_breed = 4;
  int shark_energy = 2, fish_energy = 4;
  bool per_iteration = false;
};
struct ScalabilityArgs : TypedArgs {
  std::uint64_t threads = 16384, max_n = 0;
};

// The allocators named, each with its typed heap entry.
std::vector<std::pair<Algorithm, sim::TypedHeapEntry>> typed_allocators(const std::string& text) {
  const auto& table = sim::TypedHeapTable::instance();
  std::vector<std::pair<Algorithm, sim::TypedHeapEntry>> out;
  for (const std::string& item : comma_items(text)) {
    const auto a = parse_algorithm(item);
    const sim::TypedHeapEntry* e = a ? table.find(*a) : nullptr;
    if (!e)
      throw InputError("--allocator", "'" + item + "' has no typed heap in the simulator (" +
                                          algorithm_names(table.registered()) + ")");
    out.emplace_back(*a, *e);
  }
  if (out.empty()) throw InputError("--allocator", "no allocator given");
  return out;
}

bool on_gpu(const TypedArgs& a) {
  if (a.backend != "sim" && a.backend != "gpu")
    throw InputError("--backend", "unknown backend '" + a.backend + "' (sim|gpu)");
  if (a.backend == "gpu" && a.mode != "lockstep")
    throw InputError("--mode", "the simulator's modes; the GPU runs its kernels (--backend gpu)");
  return a.backend == "gpu";
}

// The allocators named that have a typed heap on the GPU; with `any_gpu`, also any other GPU
// allocator (linux-scalability runs those through measure(), one object a page).
std::vector<Algorithm> gpu_allocators(const std::string& text, bool any_gpu) {
  const std::vector<Algorithm> typed = gpu::typed_heap_algorithms();
  const std::vector<Algorithm> all = gpu::algorithms_with_gpu_entry();
  std::vector<Algorithm> out;
  for (const std::string& item : comma_items(text)) {
    const auto a = parse_algorithm(item);
    const bool ok = a && (std::find(typed.begin(), typed.end(), *a) != typed.end() ||
                          (any_gpu && std::find(all.begin(), all.end(), *a) != all.end()));
    if (!ok)
      throw InputError("--allocator", "'" + item + "' has no typed heap on the GPU (" +
                                          algorithm_names(typed) + ")" +
                                          (any_gpu ? " nor a GPU entry" : ""));
    out.push_back(*a);
  }
  if (out.empty()) throw InputError("--allocator", "no allocator given");
  return out;
}

sim::TypedHeapOptions heap_options(const TypedArgs& a, const std::string& types_default,
                                   const std::string& heap_default, sim::TypedHeapEntry variant,
                                   unsigned retries) {
  sim::TypedHeapOptions h;
  h.types = dynasoar::parse_types("--types", a.types.empty() ? types_default : a.types);
  h.heap_bytes = parse_bytes("--pool", a.heap.empty() ? heap_default : a.heap);
  h.retries = retries;
  h.variant = variant;
  if (a.mode == "lockstep")
    h.mode = sim::TypedMode::lockstep;
  else if (a.mode == "sequential")
    h.mode = sim::TypedMode::sequential;
  else if (a.mode == "threads")
    h.mode = sim::TypedMode::threads;
  else
    throw InputError("--mode", "unknown mode '" + a.mode + "' (lockstep|sequential|threads)");
  if (a.host_threads != 0 && h.mode != sim::TypedMode::threads)
    throw InputError("--threads", "host threads, for --mode threads only");
  h.host_threads = a.host_threads;
  h.seed = a.seed;
  return h;
}

// linux-scalability's --pool: a comma list of byte sizes ("" is the default heap, once).
std::vector<std::string> split_heap_list(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = text.find(',', start);
    out.push_back(text.substr(start, comma == std::string::npos ? comma : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  for (const std::string& h : out)
    if (h.empty() && out.size() > 1) throw InputError("--pool", "an empty item in '" + text + "'");
  return out;
}

std::vector<unsigned> retry_list(const TypedArgs& a) {
  std::vector<unsigned> out;
  for (std::uint64_t r : parse_count_list("--retries", a.retries)) {
    if (r < 1 || r > 64)
      throw InputError("--retries", "1 to 64 active lookups, got " + std::to_string(r));
    out.push_back(static_cast<unsigned>(r));
  }
  return out;
}

void counts_columns(Record& row, const dynasoar::DsCounts& c, std::uint64_t allocations) {
  const double n = static_cast<double>(std::max<std::uint64_t>(1, allocations));
  row.set("slow_path_rate", c.blocks_initialised / n);
  row.set("lookups_per_alloc", c.lookups / n);
  row.set("lookup_fails_per_alloc", c.lookup_fails / n);
  row.set("reserves_per_alloc", c.reserves / n);
  row.set_int("rollbacks", c.rollbacks);
  row.set_int("invalidated", c.invalidated);
  row.set_int("inval_rollbacks", c.inval_rollbacks);
}

void emit(const std::vector<Record>& rows, Format f) {
  write_records(std::cout, rows, f);
}

sim::WatorOptions wator_options(const WatorArgs& a, sim::TypedHeapEntry v, unsigned r) {
  sim::WatorOptions o;
  o.heap = heap_options(a, "60,64", "4MiB", v, r);
  o.width = a.width;
  o.height = a.height;
  o.iterations = a.iterations;
  o.fish_fraction = a.fish;
  o.shark_fraction = a.sharks;
  o.fish_breed = a.fish_breed;
  o.shark_breed = a.shark_breed;
  o.shark_energy = a.shark_energy;
  o.fish_energy = a.fish_energy;
  return o;
}

gpu::TypedHeapGpuOptions gpu_heap(const sim::TypedHeapOptions& h) {
  gpu::TypedHeapGpuOptions g;
  g.types = h.types;
  g.heap_bytes = h.heap_bytes;
  g.retries = h.retries;
  g.seed = h.seed;
  return g;
}

// The columns the simulator's and the GPU's Wa-Tor share: one iteration's populations and the
// allocator's work in it (sim::WatorIteration, gpu::WatorGpuIteration), and a run's summary.
template <class Iteration>
void iteration_columns(Record& row, const Iteration& it) {
  row.set_int("iteration", it.iteration);
  row.set_int("fish", it.fish);
  row.set_int("sharks", it.sharks);
  row.set_int("fish_births", it.fish_births);
  row.set_int("shark_births", it.shark_births);
  row.set_int("fish_eaten", it.fish_eaten);
  row.set_int("shark_deaths", it.shark_deaths);
  row.set_int("failed", it.failed);
  row.set_int("blocks", it.blocks);
  row.set("fragmentation", it.fragmentation);
  row.set_int("blocks_initialised", it.blocks_initialised);
  row.set_int("lookups", it.lookups);
}
template <class Run>
void summary_columns(Record& row, const Run& run, unsigned iterations) {
  row.set_int("iterations", iterations);
  row.set("steady_fragmentation", run.steady_fragmentation);
  row.set("final_fragmentation", run.iterations.back().fragmentation);
  row.set_int("fish", run.iterations.back().fish);
  row.set_int("sharks", run.iterations.back().sharks);
  row.set_int("blocks", run.iterations.back().blocks);
  row.set_int("allocations", run.allocations);
  row.set_int("frees", run.frees);
  row.set_int("failed", run.failed);
}

// `wator --backend gpu`: the same checks and rules (sim::check_wator), the GPU's kernels
// (gpu/src/dynasoar_wator.cu), rows with the kernel times.
void run_wator_gpu_command(const WatorArgs& a) {
  const auto retries = retry_list(a);
  for (unsigned r : retries) sim::check_wator(wator_options(a, {}, r));
  if (!gpu::built_with_cuda()) (void)gpu::device_info();  // NoDevice: built without CUDA
  const auto allocators = gpu_allocators(a.allocator, false);
  std::vector<Record> rows;
  for (const Algorithm algo : allocators)
    for (unsigned r : retries) {
      const sim::WatorOptions s = wator_options(a, {}, r);
      gpu::WatorGpuOptions o;
      o.heap = gpu_heap(s.heap);
      o.width = s.width;
      o.height = s.height;
      o.iterations = s.iterations;
      o.fish_fraction = s.fish_fraction;
      o.shark_fraction = s.shark_fraction;
      o.fish_breed = s.fish_breed;
      o.shark_breed = s.shark_breed;
      o.shark_energy = s.shark_energy;
      o.fish_energy = s.fish_energy;
      const gpu::WatorGpuRun run = gpu::run_wator_gpu(algo, o);
      auto head = [&](Record& row) {
        row.set("app", std::string("wator"));
        row.set("allocator", std::string(name(algo)));
        row.set_int("retries", r);
        row.set("backend", std::string("gpu"));
        row.set("device", run.device);
        row.set("types", fmt::format("{}", fmt::join(o.heap.types.bytes, ",")));
        row.set_int("cells", static_cast<std::uint64_t>(o.width) * o.height);
        row.set_int("heap_bytes", o.heap.heap_bytes);
        row.set_int("seed", a.seed);
      };
      if (a.per_iteration) {
        for (const gpu::WatorGpuIteration& it : run.iterations) {
          Record row;
          head(row);
          iteration_columns(row, it);
          row.set("alloc_ms", it.alloc_ms);
          row.set("app_ms", it.app_ms);
          row.set("kernel_ms", it.alloc_ms + it.app_ms);
          row.set("wall_ms", it.wall_ms);
          row.set("verified", true);
          rows.push_back(row);
        }
        continue;
      }
      Record row;
      head(row);
      summary_columns(row, run, o.iterations);
      counts_columns(row, gpu::ds_counts_of(run.counts), run.allocations);
      row.set("kernel_ms", run.kernel_ms);
      row.set("ms_per_iteration", run.kernel_ms / o.iterations);
      row.set("wall_s", run.wall_s);
      row.set("verified", true);
      rows.push_back(row);
    }
  emit(rows, a.format);
}

void run_wator_command(const WatorArgs& a) {
  if (on_gpu(a)) return run_wator_gpu_command(a);
  const auto allocators = typed_allocators(a.allocator);
  const auto retries = retry_list(a);
  auto options = [&](sim::TypedHeapEntry v, unsigned r) { return wator_options(a, v, r); };
  for (const auto& [algo, v] : allocators)
    for (unsigned r : retries) sim::check_wator(options(v, r));
  std::vector<Record> rows;
  for (const auto& [algo, v] : allocators)
    for (unsigned r : retries) {
      const sim::WatorOptions o = options(v, r);
      const sim::WatorRun run = sim::run_wator(o);
      auto head = [&](Record& row) {
        row.set("allocator", std::string(name(algo)));
        row.set_int("retries", r);
        row.set("mode", a.mode);
        if (o.heap.mode == sim::TypedMode::threads)
          row.set_int("host_threads", sim::typed_host_threads(o.heap));
        row.set("types", fmt::format("{}", fmt::join(o.heap.types.bytes, ",")));
        row.set_int("cells", static_cast<std::uint64_t>(o.width) * o.height);
        row.set_int("heap_bytes", o.heap.heap_bytes);
        row.set_int("seed", a.seed);
      };
      if (a.per_iteration) {
        for (const sim::WatorIteration& it : run.iterations) {
          Record row;
          head(row);
          iteration_columns(row, it);
          row.set_int("lookup_fails", it.lookup_fails);
          row.set_int("steps", it.steps);
          row.set("verified", true);
          rows.push_back(row);
        }
        continue;
      }
      Record row;
      head(row);
      summary_columns(row, run, o.iterations);
      counts_columns(row, run.counts, run.allocations);
      row.set("wall_s", run.wall_s);
      row.set("verified", true);
      rows.push_back(row);
    }
  emit(rows, a.format);
}

// `linux-scalability --backend gpu` (gpu/src/dynasoar_linux_scalability.cu): per allocator (and
// r, on the typed heap), the largest n at which one kernel serves every thread's n objects.
std::vector<Record> scalability_gpu_rows(const ScalabilityArgs& a) {
  const auto retries = retry_list(a);
  const sim::TypedHeapOptions h = heap_options(a, "64", "1GiB", {}, retries.front());
  if (h.types.bytes.size() != 1)
    throw InputError("--types", "linux-scalability allocates one type (the paper's 64 B); got " +
                                    std::to_string(h.types.bytes.size()));
  if (a.threads == 0) throw InputError("--N", "at least one thread");
  h.types.blocks_of("--pool", h.heap_bytes);
  if (!gpu::built_with_cuda()) (void)gpu::device_info();  // NoDevice: built without CUDA
  const auto allocators = gpu_allocators(a.allocator, true);
  const std::vector<Algorithm> typed = gpu::typed_heap_algorithms();
  std::vector<Record> rows;
  for (const Algorithm algo : allocators) {
    const bool on_typed_heap = std::find(typed.begin(), typed.end(), algo) != typed.end();
    // r matters to the typed heap's allocators only; the others run once.
    for (unsigned r : on_typed_heap ? retries : std::vector<unsigned>{0}) {
      gpu::LinuxScalabilityGpuOptions o;
      o.object_bytes = h.types.bytes[0];
      o.heap_bytes = h.heap_bytes;
      o.threads = a.threads;
      o.retries = r == 0 ? 5 : r;
      o.seed = a.seed;
      o.max_n = a.max_n;
      const auto t0 = std::chrono::steady_clock::now();
      const gpu::LinuxScalabilityGpuRun run = gpu::run_linux_scalability_gpu(algo, o);
      const double wall =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const std::uint64_t served = o.threads * run.n_max;
      Record row;
      row.set("app", std::string("linux-scalability"));
      row.set("allocator", std::string(name(algo)));
      row.set_int("retries", r);
      row.set("backend", std::string("gpu"));
      row.set("device", run.device);
      row.set("heap", std::string(run.typed_heap ? "typed" : "pages"));
      row.set_int("object_bytes", o.object_bytes);
      row.set_int("threads", o.threads);
      row.set_int("heap_bytes", o.heap_bytes);
      row.set_int("capacity", run.capacity);
      row.set_int("n_max", run.n_max);
      row.set_int("objects",
                  served);  // at n_max (the simulator's allocated counts the failing batch too)
      row.set_int("next_n", run.next_n);
      row.set_int("next_failed", run.next_failed);
      row.set("utilisation", run.utilisation);
      row.set("slot_utilisation",
              static_cast<double>(served) /
                  static_cast<double>(std::max<std::uint64_t>(1, run.capacity)));
      if (run.typed_heap) counts_columns(row, gpu::ds_counts_of(run.counts), served);
      row.set("alloc_ms", run.alloc_ms);
      row.set("free_ms", run.free_ms);
      row.set_int("kernels", run.kernels);
      row.set("wall_s", wall);
      row.set("verified", true);
      rows.push_back(row);
    }
  }
  return rows;
}

std::vector<Record> scalability_sim_rows(const ScalabilityArgs& a) {
  const auto allocators = typed_allocators(a.allocator);
  const auto retries = retry_list(a);
  auto options = [&](sim::TypedHeapEntry v, unsigned r) {
    sim::LinuxScalabilityOptions o;
    o.heap = heap_options(a, "64", "1GiB", v, r);
    o.threads = a.threads;
    o.max_n = a.max_n;
    return o;
  };
  for (const auto& [algo, v] : allocators)
    for (unsigned r : retries) sim::check_linux_scalability(options(v, r));
  std::vector<Record> rows;
  for (const auto& [algo, v] : allocators)
    for (unsigned r : retries) {
      const sim::LinuxScalabilityOptions o = options(v, r);
      const sim::LinuxScalabilityRun run = sim::run_linux_scalability(o);
      Record row;
      row.set("allocator", std::string(name(algo)));
      row.set_int("retries", r);
      row.set("mode", a.mode);
      if (o.heap.mode == sim::TypedMode::threads)
        row.set_int("host_threads", sim::typed_host_threads(o.heap));
      row.set_int("object_bytes", o.heap.types.bytes[0]);
      row.set_int("threads", o.threads);
      row.set_int("heap_bytes", o.heap.heap_bytes);
      row.set_int("capacity", run.capacity);
      row.set_int("n_max", run.n_max);
      row.set_int("allocated", run.allocated);
      row.set_int("failed", run.failed);
      row.set("utilisation", run.utilisation);
      row.set("slot_utilisation", run.slot_utilisation);
      row.set_int("blocks_left", run.blocks_left);
      counts_columns(row, run.counts, run.allocated);
      row.set("wall_s", run.wall_s);
      row.set("verified", run.blocks_left == 0);
      if (run.blocks_left != 0)
        row.notes.push_back(
            fmt::format("{} blocks not free after every object was freed", run.blocks_left));
      rows.push_back(row);
    }
  return rows;
}

// One run per heap of the --pool list (Fig. 14B: a fixed problem, --max-n, on growing heaps);
// every heap is checked before the first run.
void run_scalability_command(const ScalabilityArgs& a) {
  // --threads was the allocating threads' option before issue 35: say where they went.
  if (a.host_threads != 0 && a.mode != "threads")
    throw InputError("--threads",
                     "host threads, for --mode threads only (the threads that allocate are --N)");
  std::vector<ScalabilityArgs> runs;
  for (const std::string& heap : split_heap_list(a.heap)) {
    ScalabilityArgs one = a;
    one.heap = heap;
    const sim::TypedHeapOptions h = heap_options(one, "64", "1GiB", {}, 1);
    h.types.blocks_of("--pool", h.heap_bytes);
    runs.push_back(one);
  }
  std::vector<Record> rows;
  for (const ScalabilityArgs& one : runs)
    for (Record& r : on_gpu(one) ? scalability_gpu_rows(one) : scalability_sim_rows(one))
      rows.push_back(std::move(r));
  emit(rows, a.format);
  for (const Record& r : rows)
    if (!r.notes.empty()) throw VerificationError("linux-scalability: " + r.notes.front());
}

void add_typed_options(CLI::App* cmd, TypedArgs& a, const char* types_default,
                       const char* heap_default) {
  cmd->add_option("--allocator", a.allocator,
                  "comma list of allocators with a typed heap: dynasoar, dynasoar-nocoal, "
                  "dynasoar-norot (linux-scalability --backend gpu: also bitmap-alloc)")
      ->capture_default_str();
  cmd->add_option("--types", a.types,
                  fmt::format("object types by size in bytes, comma list (default {}); the "
                              "smallest fixes the block (64 of its slots), N_T = floor(64 "
                              "smallest / size); a type more than 64x the smallest is an error",
                              types_default));
  cmd->add_option(
      "--pool", a.heap,
      fmt::format("the typed heap's bytes (default {}), whole blocks of 64 x the smallest type",
                  heap_default));
  cmd->add_option("--retries", a.retries,
                  "r, active-block lookups before the slow path (list, e.g. 1,2,5; the paper's 5)")
      ->capture_default_str();
  cmd->add_option("--mode", a.mode,
                  "lockstep (a batch's machines one step each per round, warps coalesced), "
                  "sequential (one request at a time) or threads (host threads run a batch's "
                  "machines concurrently on real atomics, warps coalesced, one machine a host "
                  "thread at a time; NOT deterministic: the slots, F and Wa-Tor's populations vary "
                  "from run to run; lockstep and sequential are the same on every run)")
      ->capture_default_str();
  cmd->add_option("--threads", a.host_threads,
                  fmt::format("host threads of --mode threads (0 = all cores, at most {}); an "
                              "error in the other modes",
                              sim::kMaxTypedHostThreads))
      ->capture_default_str();
  cmd->add_option("--seed", a.seed, "seed of every draw (Philox)")->capture_default_str();
  cmd->add_option("--backend", a.backend,
                  "sim (the simulator's typed heap) or gpu (the device's: kernels over the same "
                  "step machines, the heap checked on the host after every batch)")
      ->capture_default_str();
  add_format_option(*cmd, a.format);
}

}  // namespace

std::vector<CLI::App*> add_dynasoar_app_commands(CLI::App& app) {
  auto w = std::make_shared<WatorArgs>();
  auto* cmd = app.add_subcommand(
      "wator",
      "A Wa-Tor-like churn on DynaSOAr's typed heap, in the simulator or on the GPU (--backend "
      "gpu: parallel_do kernels, the cells arbitrating the moves; Springer & Masuhara, "
      "ECOOP'19 §6.3, Fig. 12-13): fish and sharks on a torus; each iteration the fish move and "
      "breed (an allocation batch), the sharks eat, move, breed and starve (a free batch, an "
      "allocation batch), the agents met in parallel_do's order. Rows: the fragmentation F of "
      "§6.3 (sum over allocated blocks of free slots over slots), its mean over the second half "
      "(steady state), populations, the allocator's counts, the run time. Every batch is "
      "verified (no slot twice, nothing lost, Def. 1 in every block bitmap, each block against "
      "its objects).\n"
      "Example: alloclab wator --retries 1,2,5\n"
      "Example: alloclab wator --width 32 --height 32 --iterations 100 --per-iteration "
      "--format csv\n"
      "Example: alloclab wator --backend gpu --width 300 --height 300 --pool 64MiB --retries "
      "1,2,5");
  add_typed_options(cmd, *w, "60,64 (fish, shark)", "4MiB");
  cmd->add_option("--width", w->width, "cells across")->capture_default_str();
  cmd->add_option("--height", w->height, "cells down")->capture_default_str();
  cmd->add_option("--iterations", w->iterations, "iterations")->capture_default_str();
  cmd->add_option("--fish", w->fish, "fraction of cells with a fish at the start")
      ->capture_default_str();
  cmd->add_option("--sharks", w->sharks, "fraction of cells with a shark at the start")
      ->capture_default_str();
  cmd->add_option("--fish-breed", w->fish_breed,
                  "a fish older than this (iterations) leaves an offspring when it moves")
      ->capture_default_str();
  cmd->add_option("--shark-breed", w->shark_breed,
                  "a shark older than this leaves an offspring when it moves")
      ->capture_default_str();
  cmd->add_option("--shark-energy", w->shark_energy,
                  "a new shark's energy (-1 an iteration; it dies at 0)")
      ->capture_default_str();
  cmd->add_option("--fish-energy", w->fish_energy, "energy a shark gains by eating a fish")
      ->capture_default_str();
  cmd->add_flag("--per-iteration", w->per_iteration, "one row per iteration instead of a summary");
  cmd->callback([w] { run_wator_command(*w); });

  auto s = std::make_shared<ScalabilityArgs>();
  auto* ls = app.add_subcommand(
      "linux-scalability",
      "DynaSOAr's linux-scalability test in the simulator or on the GPU (ECOOP'19 §6.4, Fig. "
      "14A): --N "
      "threads each allocate objects of one type, one batch per object, until a batch is not "
      "served whole; n_max, the objects a thread got with every thread served, gives the "
      "utilisation threads x n_max x size / heap (the paper: DynaSOAr 96.9%, BitmapAlloc 98.4% "
      "at 64 B, 1 GiB). Then every object is freed in one batch, which must leave every block "
      "free. Every batch is verified.\n"
      "Example: alloclab linux-scalability --pool 16MiB --N 1024\n"
      "Example: alloclab linux-scalability   # 16384 threads, 64 B, 1 GiB (minutes)\n"
      "On the GPU (--backend gpu) each n is ONE kernel in which every thread allocates n "
      "objects, then one free kernel, on a fresh heap; the largest n is found by doubling and "
      "bisection. Allocators without a typed heap (bitmap-alloc) run through measure, one object "
      "a page.\n"
      "Example: alloclab linux-scalability --backend gpu --allocator dynasoar,bitmap-alloc\n"
      "Fig. 14B (a fixed problem on growing heaps): --pool takes a comma list and --max-n fixes "
      "the objects a thread, one row per heap.\n"
      "Example: alloclab linux-scalability --backend gpu --max-n 64 --pool 256MiB,1GiB,4GiB");
  add_typed_options(ls, *s, "64", "1GiB");
  ls->get_option("--pool")->description(
      "the typed heap's bytes (default 1GiB), whole blocks of 64 x the object size; a comma list "
      "runs each "
      "heap in turn (Fig. 14B)");
  ls->add_option("--N", s->threads,
                 "threads (of the device, or simulated), one object each a batch; host threads "
                 "are --threads")
      ->capture_default_str();
  ls->add_option("--max-n", s->max_n, "stop after this many objects a thread (0: until one fails)")
      ->capture_default_str();
  ls->callback([s] { run_scalability_command(*s); });
  return {cmd, ls};
}

}  // namespace alloclab::cli

ALLOCLAB_REGISTER_COMMAND((alloclab::cli::CommandEntry{
    .study = "dynasoar", .order = 50, .add = &alloclab::cli::add_dynasoar_app_commands}))
