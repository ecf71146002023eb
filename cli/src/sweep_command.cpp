// alloclab sweep: the grid on every backend, written as tidy data that validate/report read.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <optional>
#include <sstream>

#include "alloclab/cli/commands.hpp"
#include "alloclab/cli/grid.hpp"
#include "alloclab/cli/resource_limits.hpp"
#include "alloclab/cli/sweep_grid.hpp"
#include "alloclab/cli/value_list.hpp"
#include "alloclab/core/errors.hpp"
#include "alloclab/git_commit.hpp"  // generated at build time (cmake/GitCommit.cmake)
#include "alloclab/model/model_table.hpp"
#include "alloclab/validation/backends.hpp"
#include "alloclab/validation/sweep.hpp"
#include "gpu_import.hpp"
#include "sweep_mpi.hpp"

namespace alloclab::cli {
namespace {

struct SweepArgs {
  GridOptions grid;
  std::string allocators, backends = "model,sim", modes = "sequential", out, gpu_from;
  std::uint64_t trials = 20;
  unsigned host_threads = 0, repeats = 5;
};

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

// A sweep stopped by a signal (Ctrl-C; mpirun ending every rank because one died) says, on its
// way out, where the pairs it had in flight are listed and how to run them; the next run with the
// same arguments runs them and names them. Rank 0 and a one-process sweep only: they write.
char lost_pairs_message[1024];
std::size_t lost_pairs_message_length = 0;

void say_lost_pairs_and_stop(int signal_number) {
  // write() and raise() are async-signal-safe; the message was formatted beforehand.
  [[maybe_unused]] const auto n = ::write(2, lost_pairs_message, lost_pairs_message_length);
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
}

void say_lost_pairs_on_signal(const std::string& out_dir) {
  const std::string text = fmt::format(
      "\nsweep: stopped by a signal; the (point, backend) pairs it had started and not finished "
      "are lost and listed in {}/sweep.journal (lines \"+\" without a \"-\"); every finished "
      "pair's rows are in {}/sweep.csv. The same command again runs the lost pairs and the rest.\n",
      out_dir, out_dir);
  lost_pairs_message_length = text.copy(lost_pairs_message, sizeof lost_pairs_message);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) std::signal(sig, say_lost_pairs_and_stop);
}

// `mpi`: the MPI job this process is a rank of (started by run), or empty for one process.
void run_sweep_command(const SweepArgs& a, std::optional<MpiSweep>& mpi) {
  if (a.trials < 2)
    throw InputError("--trials", "need at least 2 trials for a confidence interval");

  validation::BackendSettings settings;
  settings.model = settings.sim = settings.gpu = false;
  for (const auto& b : comma_items(a.backends)) {
    if (b == "model")
      settings.model = true;
    else if (b == "sim")
      settings.sim = true;
    else if (b == "gpu")
      settings.gpu = true;
    else
      throw InputError("--backend", "unknown backend '" + b + "' (model, sim, gpu)");
  }
  unsigned chosen = 0;  // BackendKind bits, for --allocator all
  if (settings.model) chosen |= static_cast<unsigned>(BackendKind::model);
  if (settings.sim) chosen |= static_cast<unsigned>(BackendKind::sim);
  if (settings.gpu) chosen |= static_cast<unsigned>(BackendKind::gpu);
  const auto algos = parse_algorithm_list(comma_items(a.allocators), chosen, "--allocator");
  settings.sim_modes = comma_items(a.modes);
  settings.trials = a.trials;
  settings.host_threads = a.host_threads;
  settings.gpu_repeats = a.repeats;

  // An allocator none of the chosen backends runs is a mistake, not a row of "not applicable".
  for (auto algo : algos) {
    const bool runs = (settings.model && caps(algo).has(BackendKind::model)) ||
                      (settings.sim && caps(algo).has(BackendKind::sim)) ||
                      (settings.gpu && caps(algo).has(BackendKind::gpu));
    if (!runs)
      throw InputError("--allocator", std::string(name(algo)) + " runs on none of the backends " +
                                          a.backends + " (it runs on: " + backends_of(algo) + ")");
  }

  std::vector<Scenario> points;
  for (auto algo : algos) {
    const auto pts = sweep_points(a.grid, algo);
    points.insert(points.end(), pts.begin(), pts.end());
  }
  // CUDA fixes the device malloc heap before the first kernel that calls malloc: size it once,
  // for the largest point of the whole sweep.
  if (settings.gpu) settings.gpu_heap_bytes = validation::gpu_sweep_heap_bytes(points);
  // The simulator's memory, before any point runs (at the points it runs: allocators it has,
  // N * pages <= A).
  for (const auto& mode_name : settings.sim ? settings.sim_modes : std::vector<std::string>{})
    if (const auto mode = sim::parse_mode(mode_name)) {
      sim::SimOptions o;
      o.mode = *mode;
      o.host_threads = a.host_threads;
      for (const auto& s : points)
        if (caps(s.algo).has(BackendKind::sim) && s.N * s.pages <= s.A)
          check_simulator_memory(s, o, a.trials);
    }
  // --gpu-from: the gpu backend's rows come from an earlier sweep instead of a device.
  std::optional<GpuImport> imported;
  if (!a.gpu_from.empty()) {
    if (!settings.gpu) throw InputError("--gpu-from", "imports gpu rows: add gpu to --backend");
    imported = import_gpu_rows(a.gpu_from, "--gpu-from");
    settings.gpu = false;
  }
  // A gpu backend over MPI ranks needs to know which ranks have a GPU before the backends are
  // built (every rank builds the same list; only GPU ranks check it).
  if (mpi) {
    if (settings.gpu) {
      settings.gpu_device = mpi->place_gpus();
      settings.gpu_here = settings.gpu_device >= 0;
      if (mpi->ranks_with_gpu() == 0) {
        std::string why = "no device";
        validation::gpu_available(why);
        throw InputError("--backend", fmt::format("gpu requested but none of the {} MPI ranks "
                                                  "has a GPU (rank {}: {})",
                                                  mpi->size(), mpi->rank(), why));
      }
    }
  }
  auto backends = validation::make_backends(settings);  // fails early if gpu is missing
  if (imported) backends.push_back(imported->backend);

  nlohmann::json meta = {{"alloclab_version", "0.1.0"},
                         {"git_commit", ALLOCLAB_GIT_COMMIT},
                         {"compiler", __VERSION__},
                         {"started_utc", utc_now()},
                         {"command_line", command_line()},
                         {"seed", a.grid.seed},
                         {"trials", a.trials},
                         {"sim_modes", a.modes},
                         {"backends", a.backends},
                         {"device", validation::gpu_metadata()}};
  if (imported) {  // the device and the run that measured the imported rows
    meta["device"] = imported->source.value("device", nlohmann::json::object());
    meta["gpu_from"] = {{"dir", a.gpu_from}, {"sweep_json", imported->source}};
  }

  validation::SweepExecutor executor;
  if (mpi) {
    meta["mpi"] = mpi->metadata();
    if (mpi->rank() != 0) {  // a worker: evaluate what rank 0 deals, write nothing
      mpi->serve(points, backends);
      return;
    }
    executor = mpi->executor(points, backends);
  }

  const bool tty = ::isatty(2);
  std::size_t last_line_pct = 0;
  auto progress = [&](const validation::SweepProgress& p) {
    if (!p.lost_earlier.empty())
      std::fprintf(stderr, "%s\n",
                   fmt::format("sweep: the last run stopped with {} (point, backend) pair{} "
                               "started and not finished; they run again: {}",
                               p.lost_earlier.size(), p.lost_earlier.size() == 1 ? "" : "s",
                               fmt::join(p.lost_earlier, "; "))
                       .c_str());
    if (p.total == 0) return;
    const std::size_t pct = p.done * 100 / p.total;
    const std::string text =
        fmt::format("sweep: {}/{} ({}%) elapsed {} ETA {} {}", p.done, p.total, pct,
                    validation::format_duration(p.elapsed_s),
                    p.done ? validation::format_duration(p.eta_s) : std::string("?"), p.current);
    if (tty) {
      std::fprintf(stderr, "\r\033[K%s", text.c_str());
      if (p.done == p.total) std::fprintf(stderr, "\n");
    } else if (pct >= last_line_pct + 10 || p.done == p.total) {
      last_line_pct = pct;
      std::fprintf(stderr, "%s\n", text.c_str());
    }
  };
  say_lost_pairs_on_signal(a.out);
  const auto s = validation::run_sweep(points, backends, a.out, meta, progress, executor);
  if (imported) {
    const auto found = std::count_if(points.begin(), points.end(), imported->backend.applies);
    std::cout << fmt::format("sweep: gpu rows of {} of the {} grid points taken from {}\n", found,
                             points.size(), imported->csv_path);
  }
  std::cout << fmt::format(
      "sweep: {} (point, backend) pairs run, {} resumed from an earlier run, {} not applicable\n"
      "wrote {} and {}\nnext: alloclab validate {} && alloclab report {}\n",
      s.evaluated, s.resumed, s.not_applicable, s.csv_path, s.json_path, a.out, a.out);
  if (mpi) std::cout << fmt::format("sweep: {} MPI ranks (rank 0 wrote every row)\n", mpi->size());
}

void run(const SweepArgs& a) {
  const MpiPlace place = mpi_place_from_environment();
  std::optional<MpiSweep> mpi;
  if (!place.distributed()) return run_sweep_command(a, mpi);
  if (!built_with_mpi()) {
    if (place.rank != 0) std::exit(2);  // rank 0 says why
    throw InputError("mpirun",
                     "this alloclab was built without MPI (install libopenmpi-dev and build "
                     "again); run `alloclab sweep` without mpirun");
  }
  mpi.emplace();  // first, so that every input error below meets a running MPI job
  try {
    run_sweep_command(a, mpi);
  } catch (const InputError& e) {
    // Every rank meets the same input error (each parses the same arguments; the ranks' GPUs are
    // known to all). Rank 0 says it once, before MPI ends: MPI_Finalize waits for every rank, so
    // no rank exits (which makes mpirun end the whole job at once) before rank 0's line is out.
    if (mpi->rank() == 0) {
      std::fprintf(stderr, "alloclab: error: %s\n", e.what());
      std::fflush(stderr);
    }
    mpi.reset();
    std::exit(2);
  } catch (const std::exception& e) {
    // Anything else stops the whole job at once: rank 0 failing outside the dealing (its output
    // files) would otherwise leave the workers waiting for it, a worker failing before it serves
    // would leave rank 0 waiting for that worker. A failed job (a point that threw) is reported
    // by rank 0 after every worker stopped and arrives here too.
    const bool verification = dynamic_cast<const VerificationError*>(&e) != nullptr;
    std::fprintf(stderr, "alloclab: %s (rank %d): %s\n",
                 verification ? "verification failed" : "error", mpi->rank(), e.what());
    std::fflush(stderr);
    mpi->abort(verification ? 3 : 1);
  }
}

}  // namespace

void add_sweep_command(CLI::App& app) {
  auto args = std::make_shared<SweepArgs>();
  auto* cmd = app.add_subcommand(
      "sweep",
      "Run a grid on several backends and write tidy data for `validate` and `report`.\n"
      "Writes DIR/sweep.csv (one row per point, algorithm, backend and metric: mean, sd, ci95, "
      "n; gpu rows also the device that measured them) and DIR/sweep.json (versions, seed, device, "
      "command line). An interrupted sweep "
      "resumes: points already in DIR/sweep.csv are skipped.\n"
      "Workload rows (sizes, churn, out of memory) are not grid points: `alloclab workload ... "
      "--format csv > DIR/workloads/NAME.csv` puts them where validate and report read them "
      "(any *.csv under DIR/workloads/, simulator or GPU).\n"
      "Started by `mpirun -n K` (a build with MPI), the (point, backend) jobs are dealt to the K "
      "ranks as they finish: rank 0 writes the one DIR/sweep.csv, the same rows as one process "
      "writes. With gpu in --backend each rank takes the GPU of its local rank (a rank beyond "
      "its host's GPUs takes model and simulator jobs only) and each gpu row names its GPU. A "
      "run that is stopped (a rank died, Ctrl-C) lists the jobs it lost in DIR/sweep.journal; "
      "the same command again runs them (docs/sweep-mpi.md).\n"
      "Example: alloclab sweep --allocator rw,rwbm --backend model,sim --N 1024..8192*2 "
      "--free 0.5,0.01 --T 1e6 --trials 20 --out runs/demo");
  cmd->add_option("--allocator", args->allocators,
                  "allocators, a comma list: " + algorithm_names() +
                      " (each on those of --backend it runs on); or `all` alone: every "
                      "allocator that runs on at least one of --backend")
      ->required();
  cmd->add_option("--backend", args->backends,
                  "backends, a comma list: model, sim and/or gpu (gpu needs a CUDA build and a "
                  "device)")
      ->capture_default_str();
  add_grid_options(*cmd, args->grid);
  cmd->add_option("--modes", args->modes,
                  "simulator modes: sequential, lockstep, threads; and `rounds`: the model's "
                  "parallel-rounds schedule (" +
                      algorithm_names(model::rounds_algorithms()) +
                      "; needs the model backend) beside its sequential one")
      ->capture_default_str();
  cmd->add_option("--pages", args->grid.pages,
                  "consecutive pages per request for " +
                      algorithm_names(algorithms_where(
                          algorithms_on(),
                          [](const Capabilities& c) { return c.requests == RequestKind::pages; })) +
                      " (other algorithms take 1)")
      ->capture_default_str();
  add_bit_choice_option(*cmd, args->grid);
  cmd->add_option("--trials", args->trials, "trials per point (simulator and GPU)")
      ->capture_default_str();
  cmd->add_option("--seed", args->grid.seed, "root seed of every random stream")
      ->capture_default_str();
  cmd->add_option("--threads", args->host_threads, "simulator host threads (0 = all cores)")
      ->capture_default_str();
  cmd->add_option("--repeats", args->repeats, "GPU: timed kernel runs per trial (median)")
      ->capture_default_str();
  cmd->add_option("--gpu-from", args->gpu_from,
                  "DIR: take the gpu backend's results from an earlier sweep in DIR (e.g. the "
                  "committed reports/standard) instead of running them on a device; the grid "
                  "selects the rows (algorithm, N, A, T, w, bit choice), points DIR lacks are "
                  "counted and left out");
  cmd->add_option("--out", args->out,
                  "DIR: writes DIR/sweep.csv, DIR/sweep.json and DIR/sweep.journal (the pairs in "
                  "flight)")
      ->required();
  cmd->callback([args] { run(*args); });
}

}  // namespace alloclab::cli
