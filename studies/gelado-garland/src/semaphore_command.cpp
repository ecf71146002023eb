// `alloclab semaphore`: Figure 5 of Gelado & Garland (PPoPP'19 §5.1), the bulk against the
// counting semaphore when each thread takes one unit and batches of B are grown as they run out
// (core/gelado/semaphore_bench.hpp). The simulator (cpu_sim/semaphore_bench.hpp) and the GPU
// (gpu/semaphore_bench.hpp) run the same step machine; this file parses the options, runs the
// points and writes one row per point. Every run is verified (exit 3 if one is not).
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "alloclab/cli/command_table.hpp"
#include "alloclab/cli/commands.hpp"
#include "alloclab/cli/output.hpp"
#include "alloclab/cli/value_list.hpp"
#include "alloclab/core/comma_list.hpp"
#include "alloclab/core/errors.hpp"
#include "alloclab/cpu_sim/semaphore_bench.hpp"
#include "alloclab/gpu/semaphore_bench.hpp"

namespace alloclab::cli {
namespace {

using gelado::SemaphoreKind;

struct SemaphoreArgs {
  std::string primitive = "bulk,counting", backend = "sim", mode = "lockstep";
  std::string N, batch = "512", block = "256";
  std::uint32_t grow_turns = 0;
  std::uint64_t batches = 0, max_steps = 0;
  unsigned repeats = 5, warmup = 1, threads = 0;
  std::uint32_t backoff_max_ns = 256;
  bool warp = false;
  Format format = Format::table;
};

std::vector<SemaphoreKind> parse_primitives(const std::string& text) {
  std::vector<SemaphoreKind> out;
  for (const std::string& p : comma_items(text)) {
    if (p == "bulk")
      out.push_back(SemaphoreKind::bulk);
    else if (p == "counting")
      out.push_back(SemaphoreKind::counting);
    else
      throw InputError("--primitive", "unknown primitive '" + p + "' (bulk|counting)");
  }
  if (out.empty()) throw InputError("--primitive", "no primitive given (bulk|counting)");
  return out;
}

std::uint32_t as_u32(const char* parameter, std::uint64_t v) {
  if (v > 0xffffffffu) throw InputError(parameter, fmt::format("{} is too large", v));
  return static_cast<std::uint32_t>(v);
}

double per_thread(std::uint64_t sum, std::uint64_t threads) {
  return static_cast<double>(sum) / static_cast<double>(threads);
}

// The columns both backends share: outcomes and the per-thread means of the counts.
void common_columns(Record& r, const gelado::SemBenchSummary& s) {
  r.set_int("batches_available", s.config.batches_available);
  r.set_int("units_per_request", s.config.units);
  r.set_int("batches_min", (s.threads * s.config.units + s.config.batch - 1) / s.config.batch);
  r.set_int("took", s.took);
  r.set_int("grew", s.grew);
  r.set_int("refused", s.refused);
  r.set_int("gave_up", s.gave_up);
  r.set("cas_per_thread", per_thread(s.cas_attempts, s.threads));
  r.set("cas_failures_per_thread", per_thread(s.cas_failures, s.threads));
  r.set("spins_per_thread", per_thread(s.spins, s.threads));
  r.set("reserves_per_thread", per_thread(s.reserves, s.threads));
  r.set("memory_ops_per_thread", per_thread(s.memory_ops, s.threads));
  r.set_int("steps_max", s.max_steps);
}

// One point's options for each backend, from the command line's.
sim::SemaphoreBenchOptions sim_options(const SemaphoreArgs& a, SemaphoreKind kind, std::uint64_t n,
                                       std::uint32_t batch, sim::SemBenchMode mode) {
  sim::SemaphoreBenchOptions o;
  o.config.kind = kind;
  o.config.batch = batch;
  o.config.batches_available = a.batches;
  o.config.grow_turns = a.grow_turns;
  o.threads = n;
  o.warp = a.warp;
  o.mode = mode;
  o.max_steps = a.max_steps;
  o.host_threads = a.threads;
  return o;
}
gpu::SemaphoreBenchGpuOptions gpu_options(const SemaphoreArgs& a, SemaphoreKind kind,
                                          std::uint64_t n, std::uint32_t batch, unsigned block) {
  gpu::SemaphoreBenchGpuOptions o;
  o.config.kind = kind;
  o.config.batch = batch;
  o.config.batches_available = a.batches;
  o.threads = n;
  o.warp = a.warp;
  o.block = block;
  o.max_steps = a.max_steps;
  o.repeats = a.repeats;
  o.warmup = a.warmup;
  o.backoff_max_ns = a.backoff_max_ns;
  return o;
}

Record sim_row(const SemaphoreArgs& a, SemaphoreKind kind, std::uint64_t n, std::uint32_t batch,
               sim::SemBenchMode mode) {
  const sim::SemaphoreBenchRun run = sim::run_semaphore_bench(sim_options(a, kind, n, batch, mode));
  Record r;
  r.set("primitive", std::string(gelado::semaphore_kind_name(kind)));
  r.set("backend", std::string("sim"));
  r.set("mode", std::string(mode == sim::SemBenchMode::lockstep ? "lockstep" : "threads"));
  r.set_int("N", n);
  r.set_int("batch", batch);
  r.set_int("grow_turns", a.grow_turns);
  common_columns(r, run.summary);
  if (mode == sim::SemBenchMode::lockstep) {
    r.set_int("rounds", run.rounds);
    r.set_int("peak_growers", run.peak_growers);
    r.set_int("peak_reserved", run.peak_reserved);
    r.set_int("peak_expected", run.peak_expected);
    r.set("waiters_at_delivery", run.waiters_at_delivery);
  } else {
    r.set("wall_ms", run.wall_ms);
  }
  r.set("verified", run.verification.empty());
  if (!run.verification.empty()) r.notes.push_back(run.verification);
  return r;
}

Record gpu_row(const SemaphoreArgs& a, SemaphoreKind kind, std::uint64_t n, std::uint32_t batch,
               unsigned block, const gpu::DeviceInfo& device) {
  const gpu::SemaphoreBenchGpuRun run =
      gpu::run_semaphore_bench_gpu(gpu_options(a, kind, n, batch, block));
  Record r;
  r.set("primitive", std::string(gelado::semaphore_kind_name(kind)));
  r.set("backend", std::string("gpu"));
  r.set("mode", std::string("gpu"));
  r.set_int("N", n);
  r.set_int("batch", batch);
  r.set_int("block", block);
  r.set_int("backoff_max_ns", a.backoff_max_ns);
  r.set("kernel_ms", run.median_ms);
  // Units handed out per second, over the median launch (Figure 5's y axis).
  r.set("units_per_s",
        static_cast<double>((run.summary.took + run.summary.grew) * run.summary.config.units) /
            (run.median_ms * 1e-3));
  common_columns(r, run.summary);
  r.set_int("peak_growers", run.peak_growers);
  r.set("device", device.name + " (" + device.pci_bus_id + ")");
  r.set("verified", run.verification.empty());
  if (!run.verification.empty()) r.notes.push_back(run.verification);
  return r;
}

void run(const SemaphoreArgs& a) {
  const auto kinds = parse_primitives(a.primitive);
  if (a.backend != "sim" && a.backend != "gpu")
    throw InputError("--backend", "unknown backend '" + a.backend + "' (sim|gpu)");
  const bool gpu = a.backend == "gpu";
  if (!gpu && a.mode != "lockstep" && a.mode != "threads")
    throw InputError("--mode", "unknown mode '" + a.mode + "' (lockstep|threads)");
  const auto mode = a.mode == "threads" ? sim::SemBenchMode::threads : sim::SemBenchMode::lockstep;
  const std::string n_text = !a.N.empty() ? a.N : gpu ? "1024..1048576*4" : "64..16384*4";
  const auto ns = parse_count_list("--N", n_text);
  std::vector<std::uint32_t> batches, blocks;
  for (std::uint64_t b : parse_count_list("--batch", a.batch))
    batches.push_back(as_u32("--batch", b));
  for (std::uint64_t b : parse_count_list("--block", a.block))
    blocks.push_back(as_u32("--block", b));
  if (!gpu) blocks = {0};
  check_grid_size({{"--primitive", kinds.size()},
                   {"--N", ns.size()},
                   {"--batch", batches.size()},
                   {"--block", blocks.size()}});
  // Every point's input checked before the first one runs.
  for (SemaphoreKind k : kinds)
    for (std::uint64_t n : ns)
      for (std::uint32_t b : batches)
        for (unsigned block : blocks) {
          if (gpu)
            gpu::check_semaphore_bench_gpu(gpu_options(a, k, n, b, block));
          else
            sim::check_semaphore_bench(sim_options(a, k, n, b, mode));
        }
  gpu::DeviceInfo device;
  if (gpu) device = gpu::device_info();
  std::vector<Record> rows;
  const std::size_t total = kinds.size() * ns.size() * batches.size() * blocks.size();
  for (SemaphoreKind k : kinds)
    for (std::uint64_t n : ns)
      for (std::uint32_t b : batches)
        for (unsigned block : blocks) {
          if (total > 1)
            std::cerr << fmt::format("semaphore: [{}/{}] {} N {} batch {}{} ...\n", rows.size() + 1,
                                     total, gelado::semaphore_kind_name(k), n, b,
                                     gpu ? fmt::format(" block {}", block) : "");
          rows.push_back(gpu ? gpu_row(a, k, n, b, block, device) : sim_row(a, k, n, b, mode));
          stream_csv_row(std::cout, rows, a.format);
        }
  if (a.format != Format::csv) write_records(std::cout, rows, a.format);
  for (const Record& r : rows)
    if (!r.notes.empty())
      throw VerificationError("semaphore: a run failed verification: " + r.notes.front());
}

}  // namespace

std::vector<CLI::App*> add_semaphore_command(CLI::App& app) {
  auto args = std::make_shared<SemaphoreArgs>();
  auto* cmd = app.add_subcommand(
      "semaphore",
      "Figure 5 of Gelado & Garland (PPoPP'19 §5.1): the bulk semaphore against the counting "
      "semaphore as the accounting stage of two-stage allocation. Each of N threads takes one "
      "unit; when none is left or promised a thread grows a batch of B units with one atomic "
      "and signals it. The bulk semaphore lets other threads reserve units a grower promises and "
      "start growing more batches at once; the counting one blocks everybody behind each grower "
      "(Fig. 1). Rows: outcomes (took, grew, refused when --batches runs out, gave_up at the step "
      "bound), CAS attempts, spins and memory operations per thread; the simulator's lockstep "
      "rounds (the time), peak concurrent growers, peak R and E, and the waiters a batch finds "
      "when it arrives; the GPU's kernel time and units per second. Every run is verified: each "
      "thread's unit was delivered before it was taken, the semaphore ends with E = R = 0 and "
      "its count = units delivered - taken, and exactly ceil(N / B) batches are grown.\n"
      "Example: alloclab semaphore --N 4096 --batch 512\n"
      "Example: alloclab semaphore --N 4096 --batch 64 --grow-turns 100 --format csv\n"
      "Example: alloclab semaphore --backend gpu --N 1024..1048576*4 --batch 512");
  cmd->add_option("--primitive", args->primitive, "comma list: bulk, counting")
      ->capture_default_str();
  cmd->add_option("--backend", args->backend, "sim (the CPU simulator) or gpu (needs a device)")
      ->capture_default_str();
  cmd->add_option("--mode", args->mode,
                  "sim: lockstep (every thread one step per round, in thread order; at most "
                  "65536 threads) or threads (host threads on shared atomics)")
      ->capture_default_str();
  cmd->add_option("--N", args->N,
                  "threads, each taking one unit (list: 'v', 'v1,v2', 'a..b*factor'); default "
                  "64..16384*4 (sim), 1024..1048576*4 (gpu); bulk: at most 2097151 (its 21-bit R)");
  cmd->add_option("--batch", args->batch, "units a growth brings, B (list); the paper's: 512")
      ->capture_default_str();
  cmd->add_option("--grow-turns", args->grow_turns,
                  "sim: steps a growth takes before its batch's atomic (its latency); 0 = the "
                  "paper's one atomic")
      ->capture_default_str();
  cmd->add_flag("--warp", args->warp,
                "a warp's 32 lanes ask as one: its leader waits for 32 units (warp "
                "aggregation, not in the paper); --N a multiple of 32, --batch at least 32. The "
                "per-thread counts are then per leader");
  cmd->add_option("--batches", args->batches,
                  "batches the pool holds; 0 = ceil(N / B), just enough. Fewer: the growers past "
                  "them are refused (null), and nobody is left waiting")
      ->capture_default_str();
  cmd->add_option("--block", args->block,
                  "gpu: threads per block (list; a multiple of 32, at most 1024); the paper "
                  "averaged 1 .. 1024")
      ->capture_default_str();
  cmd->add_option("--repeats", args->repeats, "gpu: timed launches; the median is reported")
      ->capture_default_str();
  cmd->add_option("--warmup", args->warmup, "gpu: untimed launches first")->capture_default_str();
  cmd->add_option("--backoff-max-ns", args->backoff_max_ns,
                  "gpu: a thread that lost a CAS or keeps waiting sleeps 32 ns, doubling in a "
                  "row, up to this many ns")
      ->check(CLI::Range(32u, 1000000u))
      ->capture_default_str();
  cmd->add_option("--max-steps", args->max_steps,
                  "steps a thread's wait may take before it gives up (counted); 0 = the "
                  "backend's bound (sim: 8 (N + batches (grow turns + 8)) + 1024; gpu: 2^24)")
      ->capture_default_str();
  cmd->add_option("--threads", args->threads, "sim threads mode: host threads; 0 = all cores")
      ->capture_default_str();
  add_format_option(*cmd, args->format);
  cmd->callback([args] { run(*args); });
  return {cmd};
}

}  // namespace alloclab::cli

ALLOCLAB_REGISTER_COMMAND((alloclab::cli::CommandEntry{
    .study = "gelado-garland", .order = 20, .add = &alloclab::cli::add_semaphore_command}))
