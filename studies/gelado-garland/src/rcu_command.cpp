// `alloclab rcu`: Figure 6 of Gelado & Garland (PPoPP'19 §5.2), the conditional RCU barrier
// (delegation) against the plain one on the paper's list benchmark: each of N threads searches
// a doubly linked list of N / ratio tagged elements for its tag under SRCU and removes it when
// found (core/gelado/rcu_list_bench.hpp). The simulator (cpu_sim/rcu_list_bench.hpp) and the GPU
// (gpu/rcu_list_bench.hpp) run the same step machine; this file parses the options, runs each
// point with both barriers and writes one row per barrier, the conditional row with its
// speed-up over the plain one and the model's barrier count (model/rcu_delegation.hpp). Every
// run is verified (exit 3 if one is not).
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "alloclab/cli/command_table.hpp"
#include "alloclab/cli/commands.hpp"
#include "alloclab/cli/output.hpp"
#include "alloclab/cli/value_list.hpp"
#include "alloclab/core/comma_list.hpp"
#include "alloclab/core/errors.hpp"
#include "alloclab/cpu_sim/rcu_list_bench.hpp"
#include "alloclab/gpu/rcu_list_bench.hpp"
#include "alloclab/model/rcu_delegation.hpp"

namespace alloclab::cli {
namespace {

struct RcuArgs {
  std::string barrier = "plain,conditional", backend = "sim", mode = "lockstep";
  std::string N, ratio = "1,4,16,64", block = "256";
  std::uint32_t resident = 0;
  std::uint64_t seed = 1, max_steps = 0;
  unsigned repeats = 5, warmup = 1;
  std::uint32_t backoff_max_ns = 256;
  Format format = Format::table;
};

std::vector<bool> parse_barriers(const std::string& text) {  // true: conditional
  std::vector<bool> out;
  for (const std::string& b : comma_items(text)) {
    if (b == "plain")
      out.push_back(false);
    else if (b == "conditional")
      out.push_back(true);
    else
      throw InputError("--barrier", "unknown barrier '" + b + "' (plain|conditional)");
  }
  if (out.empty()) throw InputError("--barrier", "no barrier given (plain|conditional)");
  return out;
}

std::uint32_t rcu_u32(const char* parameter, std::uint64_t v) {
  if (v > 0xffffffffu) throw InputError(parameter, fmt::format("{} is too large", v));
  return static_cast<std::uint32_t>(v);
}

double rcu_mean(std::uint64_t sum, std::uint64_t n) {
  return n ? static_cast<double>(sum) / static_cast<double>(n) : 0.0;
}

gelado::RcuListConfig rcu_config(std::uint32_t n, std::uint32_t ratio, bool conditional) {
  if (ratio == 0) throw InputError("--ratio", "0: threads per list element, at least 1");
  if (ratio > n)
    throw InputError("--ratio", fmt::format("{} threads per list element for {} threads: the "
                                            "list would be empty",
                                            ratio, n));
  return {n, n / ratio, conditional};
}

sim::RcuBenchOptions sim_options(const RcuArgs& a, const gelado::RcuListConfig& c) {
  sim::RcuBenchOptions o;
  o.config = c;
  o.mode = a.mode == "sequential" ? sim::RcuBenchMode::sequential : sim::RcuBenchMode::lockstep;
  o.resident = a.resident;
  o.seed = a.seed;
  o.max_steps = a.max_steps;
  return o;
}
gpu::RcuBenchGpuOptions gpu_options(const RcuArgs& a, const gelado::RcuListConfig& c,
                                    unsigned block) {
  gpu::RcuBenchGpuOptions o;
  o.config = c;
  o.block = block;
  o.seed = a.seed;
  o.max_steps = a.max_steps;
  o.repeats = a.repeats;
  o.warmup = a.warmup;
  o.backoff_max_ns = a.backoff_max_ns;
  return o;
}

// The columns both backends share.
void common_columns(Record& r, const gelado::RcuListSummary& s, std::uint32_t ratio) {
  const gelado::RcuListStats& a = s.sum;
  r.set("barrier", std::string(s.config.conditional ? "conditional" : "plain"));
  r.set_int("N", s.config.threads);
  r.set_int("ratio", ratio);
  r.set_int("writers", s.config.nodes);
  r.set_int("readers", s.readers);
  r.set_int("barriers", a.barriers);
  r.set_int("delegations", a.delegations);
  r.set("avoided_fraction", rcu_mean(a.delegations, s.config.nodes));
  r.set("barrier_spins_per_writer", rcu_mean(a.barrier_spins, s.writers));
  r.set("barrier_steps_per_writer", rcu_mean(a.barrier_steps, s.writers));
  r.set_int("barrier_steps_max", s.max_barrier_steps);
  r.set("lock_spins_per_writer", rcu_mean(a.lock_spins, s.writers));
  r.set("rcu_retries_per_thread", rcu_mean(a.rcu_retries, s.config.threads));
  r.set("nodes_per_thread", rcu_mean(a.nodes_visited, s.config.threads));
  r.set("steps_per_thread", rcu_mean(a.steps, s.config.threads));
  r.set_int("steps_max", s.max_steps);
  r.set_int("saw_freed", a.saw_freed);
  r.set_int("gave_up", s.gave_up);
}

Record sim_row(const RcuArgs& a, const gelado::RcuListConfig& c, std::uint32_t ratio,
               double& plain_rounds) {
  const sim::RcuBenchRun run = sim::run_rcu_bench(sim_options(a, c));
  Record r;
  r.set("backend", std::string("sim"));
  r.set("mode", a.mode);
  common_columns(r, run.summary, ratio);
  r.set_int("resident", a.resident);
  r.set_int("rounds", run.rounds);
  if (a.mode == "lockstep") {
    r.set_int("peak_in_barrier", run.peak_in_barrier);
    r.set("mean_hold", run.mean_hold);
    // The model's full barriers for the arrivals this run saw and its mean hold.
    std::vector<double> arrivals;
    for (const sim::RcuBarrierTrace& b : run.barriers)
      arrivals.push_back(static_cast<double>(b.arrival));
    const double hold = run.mean_hold > 0 ? run.mean_hold : 1.0;
    r.set_int("model_barriers", c.conditional ? model::conditional_barriers(arrivals, hold).barriers
                                              : arrivals.size());
  }
  const double rounds = static_cast<double>(run.rounds);
  if (!c.conditional) plain_rounds = rounds;
  // Every row has the column (a CSV streams the first row's header): null where not compared.
  r.set_quantity("speedup_vs_plain", c.conditional && plain_rounds > 0
                                         ? std::optional<double>(plain_rounds / rounds)
                                         : std::nullopt);
  r.set("verified", run.verification.empty());
  if (!run.verification.empty()) r.notes.push_back(run.verification);
  return r;
}

Record gpu_row(const RcuArgs& a, const gelado::RcuListConfig& c, std::uint32_t ratio,
               unsigned block, const gpu::DeviceInfo& device, double& plain_ms) {
  const gpu::RcuBenchGpuRun run = gpu::run_rcu_bench_gpu(gpu_options(a, c, block));
  Record r;
  r.set("backend", std::string("gpu"));
  r.set("mode", std::string("gpu"));
  common_columns(r, run.summary, ratio);
  r.set_int("block", block);
  r.set_int("backoff_max_ns", a.backoff_max_ns);
  r.set("kernel_ms", run.median_ms);
  if (!c.conditional) plain_ms = run.median_ms;
  r.set_quantity("speedup_vs_plain", c.conditional && plain_ms > 0
                                         ? std::optional<double>(plain_ms / run.median_ms)
                                         : std::nullopt);
  r.set("device", device.name + " (" + device.pci_bus_id + ")");
  r.set("verified", run.verification.empty());
  if (!run.verification.empty()) r.notes.push_back(run.verification);
  return r;
}

void run(const RcuArgs& a) {
  const auto barriers = parse_barriers(a.barrier);
  if (a.backend != "sim" && a.backend != "gpu")
    throw InputError("--backend", "unknown backend '" + a.backend + "' (sim|gpu)");
  const bool gpu = a.backend == "gpu";
  if (!gpu && a.mode != "lockstep" && a.mode != "sequential")
    throw InputError("--mode", "unknown mode '" + a.mode + "' (lockstep|sequential)");
  std::vector<std::uint32_t> ns, ratios, blocks;
  for (std::uint64_t n : parse_count_list("--N", !a.N.empty() ? a.N
                                                 : gpu        ? "1024..65536*4"
                                                              : "256..4096*4"))
    ns.push_back(rcu_u32("--N", n));
  for (std::uint64_t r : parse_count_list("--ratio", a.ratio))
    ratios.push_back(rcu_u32("--ratio", r));
  for (std::uint64_t b : parse_count_list("--block", a.block))
    blocks.push_back(rcu_u32("--block", b));
  if (!gpu) blocks = {0};
  check_grid_size({{"--barrier", barriers.size()},
                   {"--N", ns.size()},
                   {"--ratio", ratios.size()},
                   {"--block", blocks.size()}});
  // Every point's input checked before the first one runs.
  for (std::uint32_t n : ns)
    for (std::uint32_t ratio : ratios)
      for (unsigned block : blocks) {
        const gelado::RcuListConfig c = rcu_config(n, ratio, true);
        if (gpu)
          gpu::check_rcu_bench_gpu(gpu_options(a, c, block));
        else
          sim::check_rcu_bench(sim_options(a, c));
      }
  gpu::DeviceInfo device;
  if (gpu) device = gpu::device_info();
  std::vector<Record> rows;
  const std::size_t total = ns.size() * ratios.size() * blocks.size() * barriers.size();
  for (std::uint32_t n : ns)
    for (std::uint32_t ratio : ratios)
      for (unsigned block : blocks) {
        double plain = 0;  // the plain barrier's time at this point, once run
        for (bool conditional : barriers) {
          if (total > 1)
            std::cerr << fmt::format("rcu: [{}/{}] {} N {} ratio {}{} ...\n", rows.size() + 1,
                                     total, conditional ? "conditional" : "plain", n, ratio,
                                     gpu ? fmt::format(" block {}", block) : "");
          const gelado::RcuListConfig c = rcu_config(n, ratio, conditional);
          rows.push_back(gpu ? gpu_row(a, c, ratio, block, device, plain)
                             : sim_row(a, c, ratio, plain));
          stream_csv_row(std::cout, rows, a.format);
        }
      }
  if (a.format != Format::csv) write_records(std::cout, rows, a.format);
  for (const Record& r : rows)
    if (!r.notes.empty())
      throw VerificationError("rcu: a run failed verification: " + r.notes.front());
}

}  // namespace

std::vector<CLI::App*> add_rcu_command(CLI::App& app) {
  auto args = std::make_shared<RcuArgs>();
  auto* cmd = app.add_subcommand(
      "rcu",
      "Figure 6 of Gelado & Garland (PPoPP'19 §5.2): RCU delegation (the conditional SRCU "
      "barrier, §4.2.1) against classical RCU (the plain barrier) on the paper's list benchmark. "
      "A doubly linked list holds N / ratio tagged elements; each of N threads searches it for "
      "its own tag under SRCU (the input vector holds every list tag, so the list's elements are "
      "the writers and the other threads readers). A writer unlinks its element under the list "
      "mutex and runs a barrier before the element is freed. The plain barrier always waits for "
      "the barrier mutex and the readers; the conditional one returns at once when another "
      "barrier already waits to flip the epoch, which then frees its element (delegation). Rows "
      "(one per barrier, the conditional one with speedup_vs_plain): full barriers, delegations "
      "and the fraction of barriers avoided, barrier spins and steps per writer, the "
      "simulator's rounds (the time), peak threads inside a barrier and mean hold, the model's "
      "barrier count for the arrivals seen (model_barriers); the GPU's kernel time. Every run is "
      "verified: each writer found and removed its element, every element was freed once, no "
      "reader ever loaded a freed element, and the list, mutexes and reader counts end empty.\n"
      "Example: alloclab rcu --N 1024 --ratio 1,4,16,64\n"
      "Example: alloclab rcu --N 4096 --ratio 4 --resident 512 --format csv\n"
      "Example: alloclab rcu --backend gpu --N 1024..65536*4 --ratio 1,4,16,64");
  cmd->add_option("--barrier", args->barrier, "comma list: plain, conditional")
      ->capture_default_str();
  cmd->add_option("--backend", args->backend, "sim (the CPU simulator) or gpu (needs a device)")
      ->capture_default_str();
  cmd->add_option("--mode", args->mode,
                  "sim: lockstep (every resident thread one step per round, in thread order; at "
                  "most 65536 threads) or sequential (one thread after the other: nothing "
                  "overlaps, nothing is delegated)")
      ->capture_default_str();
  cmd->add_option("--N", args->N,
                  "threads, one input tag each (list: 'v', 'v1,v2', 'a..b*factor'); default "
                  "256..4096*4 (sim), 1024..65536*4 (gpu)");
  cmd->add_option("--ratio", args->ratio,
                  "threads per list element (list): the list holds N / ratio elements, the "
                  "writers; 1 = every thread a writer, 64 = one writer in 64 threads")
      ->capture_default_str();
  cmd->add_option("--resident", args->resident,
                  "sim lockstep: threads running at once, the next one starting when one ends "
                  "(a GPU's occupancy); 0 = all")
      ->capture_default_str();
  cmd->add_option("--seed", args->seed, "the input vector's shuffle")->capture_default_str();
  cmd->add_option("--block", args->block, "gpu: threads per block (list; a multiple of 32)")
      ->capture_default_str();
  cmd->add_option("--repeats", args->repeats, "gpu: timed launches; the median is reported")
      ->capture_default_str();
  cmd->add_option("--warmup", args->warmup, "gpu: untimed launches first")->capture_default_str();
  cmd->add_option("--backoff-max-ns", args->backoff_max_ns,
                  "gpu: a spinning thread sleeps 32 ns, doubling in a row, up to this many ns")
      ->check(CLI::Range(32u, 1000000u))
      ->capture_default_str();
  cmd->add_option("--max-steps", args->max_steps,
                  "steps a thread may take before it gives up where it holds nothing (counted, "
                  "and the run fails verification); 0 = the backend's bound")
      ->capture_default_str();
  add_format_option(*cmd, args->format);
  cmd->callback([args] { run(*args); });
  return {cmd};
}

}  // namespace alloclab::cli

ALLOCLAB_REGISTER_COMMAND((alloclab::cli::CommandEntry{
    .study = "gelado-garland", .order = 21, .add = &alloclab::cli::add_rcu_command}))
