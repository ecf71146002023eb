// `alloclab simulate`: the CPU simulator over a grid of scenarios (see cpu_sim/).
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "alloclab/cli/commands.hpp"
#include "alloclab/cli/family_options.hpp"
#include "alloclab/cli/grid.hpp"
#include "alloclab/cli/output.hpp"
#include "alloclab/cli/resource_limits.hpp"
#include "alloclab/cli/sweep_grid.hpp"
#include "alloclab/core/errors.hpp"
#include "alloclab/core/ouroboros/config.hpp"
#include "alloclab/cpu_sim/simulator.hpp"

namespace alloclab::cli {
namespace {

struct SimulateArgs {
  GridOptions grid;
  std::vector<std::string> allocators;
  std::string mode = "sequential", occupancy = "random";
  std::uint64_t trials = 1;
  unsigned threads = 0;
  std::uint64_t max_steps = 0;
  FamilyOptions family;
  Format format = Format::table;
};

void put_summary(Record& rec, const std::string& key, const sim::Summary& s) {
  rec.set(key, s.mean);
  rec.set_quantity(key + "_sd", s.sd, s.n < 2 ? "needs --trials >= 2" : "");
  rec.set_quantity(key + "_ci95", s.ci95, "");
}

// The allocators that run in the simulator (the registry's BackendKind::sim).
std::string simulated_names() {
  return algorithm_names(algorithms_on(BackendKind::sim));
}

// Those of them that take requests of several pages (--pages).
std::string multi_page_names() {
  return algorithm_names(
      algorithms_where(algorithms_on(BackendKind::sim),
                       [](const Capabilities& c) { return c.requests == RequestKind::pages; }));
}

void run(const SimulateArgs& a) {
  // `all`: every allocator the simulator runs.
  const auto algos =
      parse_algorithm_list(a.allocators, static_cast<unsigned>(BackendKind::sim), "--allocator");
  for (const Algorithm algo : algos) {
    if (!caps(algo).has(BackendKind::sim))
      throw InputError("--allocator",
                       std::string(name(algo)) + " does not run in the simulator (it runs on: " +
                           backends_of(algo) + "; the simulator runs " + simulated_names() + ")");
    if (a.grid.pages != 1 && caps(algo).requests != RequestKind::pages)
      throw InputError("--pages", "requests of more than one page are served by " +
                                      multi_page_names() + " only");
  }
  const auto mode = sim::parse_mode(a.mode);
  if (!mode)
    throw InputError("--mode", "unknown mode '" + a.mode + "' (sequential|lockstep|threads)");
  if (a.trials < 1) throw InputError("--trials", "need at least one trial");
  if (a.occupancy != "random" && a.occupancy != "contiguous")
    throw InputError("--occupancy", "must be random or contiguous");
  // The GPU's memory order and warp-aggregated waits: the simulator's atomics are sequentially
  // consistent and its threads wait each for itself (lockstep's warps aside).
  if (a.family.gg_order != "acq-rel") throw InputError("--gg-order", "is for the GPU (measure)");
  if (a.family.gg_wait != "warp") throw InputError("--gg-wait", "is for the GPU (measure)");
  sim::SimOptions o;
  o.mode = *mode;
  o.host_threads = a.threads;
  o.max_probes_per_request = a.max_steps;
  o.queue_capacity = a.family.queue_capacity;
  o.arenas = a.family.arenas;
  o.chunk_bins = a.family.chunk_bins;
  o.single_chunk_mutex = a.family.single_chunk_mutex();
  o.preboot = a.family.preboot;
  o.occupancy = a.occupancy == "random" ? sim::Occupancy::random : sim::Occupancy::contiguous;
  // Points the simulator cannot run are found before any is run.
  std::vector<GridPoint> points;
  for (const Algorithm algo : algos) {
    GridOptions g = a.grid;
    // With several allocators each runs the bit choices it implements (lowest where none).
    g.bit_choice_where_supported = algos.size() > 1;
    for (auto& p : expand_grid_points(g, algo, GridUse::runnable, [&](const Scenario& s) {
           sim::check_input(s, o);
           check_simulator_memory(s, o, a.trials);
         }))
      points.push_back(std::move(p));
  }

  const bool tty = isatty(fileno(stderr));
  std::size_t k = 0;
  const auto evaluate = [&](const Scenario& s) -> std::vector<Record> {
    ++k;
    auto progress = [&](std::uint64_t done, std::uint64_t total) {
      if (tty)
        std::fprintf(stderr, "\rsimulate: point %zu/%zu, trial %llu/%llu   ", k, points.size(),
                     static_cast<unsigned long long>(done), static_cast<unsigned long long>(total));
    };
    const sim::TrialsResult t = sim::run_trials(s, o, a.trials, progress);
    Record rec;
    put_scenario(rec, s);
    rec.set("mode", std::string(sim::mode_name(o.mode)));
    rec.set_int("trials", a.trials);
    put_summary(rec, "tas", t.tas);
    put_summary(rec, "was", t.was);
    if (t.was_service_order) {
      put_summary(rec, "was_service_order", *t.was_service_order);
    } else {
      rec.set_quantity("was_service_order", std::nullopt,
                       "defined in sequential mode only (warps = consecutive service positions)");
      rec.set_quantity("was_service_order_sd", std::nullopt);
      rec.set_quantity("was_service_order_ci95", std::nullopt);
    }
    rec.set("steps_p50", t.steps_p50);
    rec.set("steps_p99", t.steps_p99);
    rec.set("steps_max", t.steps_max);
    rec.set("collisions", t.collisions.mean);
    rec.set("taken", t.taken.mean);
    rec.set("failed", t.failed.mean);
    rec.set("probes_per_s", t.probes_per_s.mean);
    // Ouroboros: what its requests did beyond steps (studies/ouroboros/README.md), per request.
    for (const auto& [count, per_request] : t.op_counts_per_request)
      rec.set(count + "_per_request", per_request.mean);
    if (t.failed.mean > 0)
      rec.notes.push_back("N=" + std::to_string(s.N) + " A=" + std::to_string(s.A) +
                          ": out of memory, failed requests count with the step bound " +
                          std::to_string(sim::default_step_bound(s, o)) + " in tas/was");
    return {std::move(rec)};
  };
  std::ostringstream warnings;  // after the progress line is cleared
  const auto records = evaluate_points(points, evaluate, warnings);
  if (tty) std::fprintf(stderr, "\r%60s\r", "");
  std::cerr << warnings.str();
  write_records(std::cout, records, a.format);
}

}  // namespace

void add_simulate_command(CLI::App& app) {
  auto args = std::make_shared<SimulateArgs>();
  auto* cmd = app.add_subcommand(
      "simulate",
      "Replay an allocator in the CPU simulator: TAS, WAS, collisions, with --trials K their "
      "mean, sd and 95% CI. Every run is verified (no page twice, pages conserved).");
  cmd->add_option(
         "--allocator", args->allocators,
         "allocators, a comma list: " + simulated_names() + "; or `all` alone: every one of them")
      ->required()
      ->delimiter(',');
  cmd->add_option("--mode", args->mode,
                  "sequential (one request at a time, random order: the model), lockstep "
                  "(SIMT rounds), threads (host threads on one atomic bitmap)")
      ->capture_default_str();
  add_grid_options(*cmd, args->grid);
  add_bit_choice_option(*cmd, args->grid);
  cmd->add_option(
         "--pages", args->grid.pages,
         "consecutive pages per request (" + multi_page_names() + "). " + ouro::limits_help())
      ->capture_default_str();
  cmd->add_option("--seed", args->grid.seed, "root seed (trial t uses trial_seed(seed, t))")
      ->capture_default_str();
  cmd->add_option("--trials", args->trials, "independent trials per grid point")
      ->capture_default_str();
  cmd->add_option("--threads", args->threads,
                  "host threads (threads mode: simulated-thread workers; otherwise trials in "
                  "parallel); 0 = all cores")
      ->capture_default_str();
  cmd->add_option("--max-steps", args->max_steps,
                  "steps (rounds) before a request gives up; 0 = the documented default")
      ->capture_default_str();
  add_family_options(*cmd, args->family, static_cast<unsigned>(BackendKind::sim));
  cmd->add_option("--occupancy", args->occupancy,
                  "initial free pages: random (uniform, from the seed) or contiguous (one block)")
      ->capture_default_str();
  add_format_option(*cmd, args->format);
  cmd->callback([args] { run(*args); });
}

}  // namespace alloclab::cli
