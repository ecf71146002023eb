// `alloclab workload`: allocation workloads (sizes, frees, churn, out-of-memory, fragmentation)
// on one contract every allocator meets (core/workload.hpp, cpu_sim/workload_runner.hpp). This
// slice runs the simulator backend; docs/workloads.md says what is still to come.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "alloclab/cli/commands.hpp"
#include "alloclab/cli/output.hpp"
#include "alloclab/cli/resource_limits.hpp"
#include "alloclab/cli/value_list.hpp"
#include "alloclab/core/errors.hpp"
#include "alloclab/core/workload.hpp"
#include "alloclab/cpu_sim/workload_runner.hpp"
#include "alloclab/gpu/workload.hpp"
#include "workload_output_dir.hpp"

namespace alloclab::cli {
namespace {

struct WorkloadArgs {
  std::string allocators, backend = "sim", mode = "sequential", family, N, size, pool;
  std::string page_bytes = "256";
  std::uint64_t rounds = 1;
  double free_fraction = 0.5;
  double initial_free = 1.0;
  std::uint64_t batch = 1024;
  unsigned block = 256;
  bool warp_uniform = false;
  std::uint64_t trials = 1;
  unsigned repeats = 1;
  std::uint64_t seed = 1;
  std::uint64_t max_steps = 0;
  unsigned threads = 0;
  std::string counters = "on";
  unsigned warmup = 1;
  std::string heap_bytes;
  std::string out;
  Format format = Format::table;
};

std::string simulated_names() {
  return algorithm_names(algorithms_on(BackendKind::sim));
}

std::string gpu_names() {
  return algorithm_names(algorithms_on(BackendKind::gpu));
}

std::vector<Algorithm> parse_allocators(const std::string& text) {
  std::vector<Algorithm> out;
  std::size_t from = 0;
  for (;;) {
    const auto comma = text.find(',', from);
    const std::string item = text.substr(from, comma - from);
    const auto a = parse_algorithm(item);
    if (!a)
      throw InputError("--allocator", "unknown allocator '" + item + "' (simulator: " +
                                          simulated_names() + "; gpu: " + gpu_names() + ")");
    if (std::find(out.begin(), out.end(), *a) == out.end()) out.push_back(*a);
    if (comma == std::string::npos) break;
    from = comma + 1;
  }
  return out;
}

// Per-trial results of one measurement point, reduced over trials.
struct PointSummary {
  std::uint64_t round = 0, trials = 0;
  double requests = 0, allocs = 0, failed = 0, freed = 0, live_bytes = 0;
  double init_s = 0, alloc_s = 0, free_s = 0;
  double steps_mean = 0, steps_p99 = 0, steps_max = 0;
  double atomics = 0, failed_claims = 0, retries = 0, free_atomics = 0;
  bool has_atomic_counts = true, has_claim_counts = true, has_steps = true;
  std::optional<double> address_range = 0, count_at_failure = 0;
  void add(const WorkloadPoint& p) {
    ++trials;
    round = p.round;
    requests += static_cast<double>(p.requests);
    allocs += static_cast<double>(p.allocs);
    failed += static_cast<double>(p.failed);
    freed += static_cast<double>(p.freed);
    live_bytes += static_cast<double>(p.live_bytes);
    init_s += p.init_seconds;
    alloc_s += p.alloc_seconds;
    free_s += p.free_seconds;
    atomics += static_cast<double>(p.atomics_issued);
    failed_claims += static_cast<double>(p.failed_claims);
    retries += static_cast<double>(p.retries);
    free_atomics += static_cast<double>(p.free_atomics_issued);
    has_atomic_counts = has_atomic_counts && p.has_atomic_counts;
    has_claim_counts = has_claim_counts && p.has_claim_counts;
    has_steps = has_steps && !p.steps.empty();
    std::vector<std::uint32_t> steps = p.steps;
    std::sort(steps.begin(), steps.end());
    if (!steps.empty()) {
      double sum = 0;
      for (auto s : steps) sum += s;
      steps_mean += sum / static_cast<double>(steps.size());
      // nearest rank: the ceil(0.99 n)-th smallest
      const std::size_t rank = (99 * steps.size() + 99) / 100;
      steps_p99 += steps[rank - 1];
      steps_max = std::max(steps_max, static_cast<double>(steps.back()));
    }
    if (address_range && p.address_range_bytes)
      *address_range += static_cast<double>(*p.address_range_bytes);
    else
      address_range.reset();
    if (count_at_failure && p.count_at_failure)
      *count_at_failure += static_cast<double>(*p.count_at_failure);
    else
      count_at_failure.reset();
  }
};

// A pool the host cannot hold is bad input on --pool (the simulator's own estimate for a pool of
// T pages, resource_limits.hpp), checked before anything is built.
void check_workload_memory(Algorithm algo, const Workload& w, const sim::WorkloadOptions& o) {
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
    if (e.parameter() != "--T") throw;
    throw InputError("--pool", std::to_string(w.pool_bytes) + " bytes in pages of " +
                                   std::to_string(w.page_bytes) +
                                   " B: " + std::string(e.what()).substr(e.parameter().size() + 2));
  }
}

// The backend a run goes to: its input checks (before any output) and one trial of one point.
struct Backend {
  std::string name, mode;
  std::function<void(Algorithm, const Workload&)> check;
  std::function<WorkloadRun(Algorithm, const Workload&, std::uint64_t trial)> run;
};

Backend make_backend(const WorkloadArgs& a) {
  if (a.backend == "sim") {
    const auto mode = sim::parse_mode(a.mode);
    if (!mode)
      throw InputError("--mode", "unknown mode '" + a.mode + "' (sequential|lockstep|threads)");
    sim::WorkloadOptions o;
    o.mode = *mode;
    o.host_threads = a.threads;
    o.max_probes_per_request = a.max_steps;
    o.repeats = a.repeats;
    return {"sim", std::string(sim::mode_name(o.mode)),
            [o](Algorithm algo, const Workload& w) {
              sim::check_workload_input(algo, w, o);
              check_workload_memory(algo, w, o);
            },
            [o](Algorithm algo, const Workload& w, std::uint64_t t) {
              return sim::run_workload(algo, w, o, t);
            }};
  }
  if (a.backend == "gpu") {
    if (a.mode != "sequential")
      throw InputError("--mode", "is for --backend sim (the GPU runs the allocator's kernels)");
    if (a.counters != "on" && a.counters != "off")
      throw InputError("--counters", "must be on or off");
    gpu::WorkloadOptions o;
    if (a.max_steps) o.max_steps = a.max_steps;
    o.counters = a.counters == "on";
    o.warmup = a.warmup;
    o.repeats = a.repeats;
    if (!a.heap_bytes.empty()) o.heap_bytes = parse_bytes("--heap-bytes", a.heap_bytes);
    return {"gpu", "gpu",
            [o](Algorithm algo, const Workload& w) { gpu::check_workload_input(algo, w, o); },
            [o](Algorithm algo, const Workload& w, std::uint64_t t) {
              return gpu::run_workload(algo, w, o, t);
            }};
  }
  throw InputError("--backend", "must be sim or gpu");
}

// Which measurement a row is (workload_output_dir.hpp's coordinate keys, in this order).
Record coordinate_record(Algorithm algo, const Workload& w, const Backend& backend,
                         std::uint64_t trials, unsigned repeats) {
  Record rec;
  rec.set("allocator", std::string(name(algo)));
  rec.set("backend", backend.name);
  rec.set("mode", backend.mode);
  rec.set("workload", std::string(workload_family_name(w.family)));
  if (w.family == WorkloadFamily::oom)
    rec.set_quantity("N", std::nullopt, "oom: batches of --batch until a request fails");
  else
    rec.set_int("N", w.N);
  if (w.size.is_range())
    rec.set("size", w.size.text());
  else
    rec.set_int("size", w.size.lo);
  rec.set_int("pool_bytes", w.pool_bytes);
  rec.set_int("page_bytes", w.page_bytes);
  if (w.family == WorkloadFamily::oom) rec.set_int("batch", w.batch);
  if (w.family == WorkloadFamily::churn) {
    rec.set_int("rounds", w.rounds);
    rec.set("free_fraction", w.free_fraction);
  }
  rec.set_int("block", w.block);
  rec.set("warp_uniform", w.warp_uniform);
  rec.set("free", w.initial_free);
  rec.set_int("trials", trials);
  rec.set_int("repeats", repeats);
  rec.set_int("seed", w.seed);
  return rec;
}

// One row: the point's summary over its trials (docs/workloads.md lists the keys).
Record point_record(Algorithm algo, const Workload& w, const Backend& backend, unsigned repeats,
                    const PointSummary& s, std::uint64_t bound, const std::string& device,
                    const std::vector<std::string>& run_notes) {
  const double K = static_cast<double>(s.trials);
  Record rec = coordinate_record(algo, w, backend, s.trials, repeats);
  if (w.family == WorkloadFamily::churn) rec.set_int("round", s.round);
  rec.set("requests", s.requests / K);
  rec.set("allocs", s.allocs / K);
  rec.set("alloc_ms", 1e3 * s.alloc_s / K);
  rec.set("free_ms", 1e3 * s.free_s / K);
  if (s.round == 0)
    rec.set("init_ms", 1e3 * s.init_s / K);
  else
    rec.set_quantity("init_ms", std::nullopt, "the pool is built once, before round 0");
  rec.set_quantity("allocs_per_s",
                   s.alloc_s > 0 ? std::optional<double>(s.allocs / s.alloc_s) : std::nullopt,
                   "no allocation time measured");
  rec.set("failed", s.failed / K);
  rec.set("utilisation", s.live_bytes / K / static_cast<double>(w.pool_bytes));
  rec.set_quantity("address_range_bytes",
                   s.address_range ? std::optional<double>(*s.address_range / K) : std::nullopt,
                   "no object live");
  rec.set_quantity("fragmentation",
                   s.address_range && s.live_bytes > 0
                       ? std::optional<double>(*s.address_range / s.live_bytes)
                       : std::nullopt,
                   "no object live");
  if (w.family == WorkloadFamily::oom)
    rec.set_quantity(
        "count_at_failure",
        s.count_at_failure ? std::optional<double>(*s.count_at_failure / K) : std::nullopt,
        "no request failed");
  // Per allocation request (frees are not counted), summed over trials: docs/workloads.md.
  auto per_request = [&](double total, bool counted) {
    return counted && s.requests > 0 ? std::optional<double>(total / s.requests) : std::nullopt;
  };
  const std::string not_counted = backend.name == "gpu"
                                      ? "no per-request counters (--counters off, or CUDA's malloc)"
                                      : "no request";
  rec.set_quantity("atomics_per_op", per_request(s.atomics, s.has_atomic_counts),
                   s.has_atomic_counts ? "no request" : not_counted);
  rec.set_quantity("atomics_per_free",
                   s.has_atomic_counts && s.freed > 0
                       ? std::optional<double>(s.free_atomics / s.freed)
                       : std::nullopt,
                   s.has_atomic_counts ? "nothing freed" : not_counted);
  const char* no_claims = s.has_claim_counts ? "no request" : "no per-request counters";
  rec.set_quantity("failed_claims_per_op", per_request(s.failed_claims, s.has_claim_counts),
                   no_claims);
  rec.set_quantity("retries_per_op", per_request(s.retries, s.has_claim_counts), no_claims);
  const char* no_steps = "steps not observable (no per-request counters)";
  rec.set_quantity("steps_mean",
                   s.has_steps ? std::optional<double>(s.steps_mean / K) : std::nullopt, no_steps);
  rec.set_quantity("steps_p99", s.has_steps ? std::optional<double>(s.steps_p99 / K) : std::nullopt,
                   no_steps);
  rec.set_quantity("steps_max", s.has_steps ? std::optional<double>(s.steps_max) : std::nullopt,
                   no_steps);
  rec.set("verified", true);
  rec.set("device", device);
  if (backend.name == "sim")
    rec.notes.push_back(std::string(name(algo)) +
                        ": *_per_op = exact counts per allocation request (atomic RMWs on "
                        "the pool state, those that found their target taken, steps beyond "
                        "the first); a request that searches gives up after " +
                        std::to_string(bound) + " steps (--max-steps)");
  if (w.pages_free_at_start() < w.pages_total())
    rec.notes.push_back("pool prefilled: " + std::to_string(w.pages_free_at_start()) + " of " +
                        std::to_string(w.pages_total()) +
                        " pages free at the start (--free); the others, chosen by the pool's "
                        "keyed permutation, are never freed; utilisation counts the workload's "
                        "bytes only");
  for (const auto& n : run_notes) rec.notes.push_back(n);
  return rec;
}

void run(const WorkloadArgs& a) {
  Backend backend = make_backend(a);
  const auto allocators = parse_allocators(a.allocators);
  if (a.trials < 1) throw InputError("--trials", "need at least one trial");
  if (a.repeats < 1) throw InputError("--repeats", "need at least one repeat");
  Workload base;
  base.family = parse_workload_family(a.family);
  base.pool_bytes = parse_bytes("--pool", a.pool);
  base.page_bytes = parse_bytes("--page-bytes", a.page_bytes);
  base.rounds = a.rounds;
  base.free_fraction = a.free_fraction;
  base.initial_free = a.initial_free;
  base.batch = a.batch;
  base.block = a.block;
  base.warp_uniform = a.warp_uniform;
  base.seed = a.seed;
  if (base.family == WorkloadFamily::churn && a.rounds < 1)
    throw InputError("--rounds", "need at least one round");
  // scaling is alloc over an axis of N; without --N it is the survey's 2^0 .. 2^20.
  const std::string N_text = !a.N.empty()                             ? a.N
                             : base.family == WorkloadFamily::scaling ? "1..1048576*2"
                                                                      : "1024";
  const auto Ns = parse_count_list("--N", N_text);
  const auto sizes = parse_size_list("--size", a.size);

  struct Point {
    Algorithm algo;
    Workload w;
  };
  std::vector<Point> points;
  for (auto algo : allocators)
    for (const auto& size : sizes)
      for (auto N : Ns) {
        Workload w = base;
        w.N = base.family == WorkloadFamily::oom ? 1 : N;
        w.size = size;
        backend.check(algo, w);  // reject bad points before any output
        points.push_back({algo, w});
        if (base.family == WorkloadFamily::oom) break;  // oom runs until full: N plays no part
      }
  if (backend.name == "gpu" && a.heap_bytes.empty()) {
    // CUDA's malloc heap is sized once per process, before its first malloc kernel: for the
    // largest point.
    std::uint64_t heap = 0;
    for (const auto& pt : points)
      heap = std::max(heap, gpu::workload_heap_bytes(pt.algo, pt.w, gpu::WorkloadOptions{}));
    if (heap) {
      WorkloadArgs sized = a;
      sized.heap_bytes = std::to_string(heap);
      backend = make_backend(sized);
    }
  }

  std::optional<WorkloadOutputDir> out;
  if (!a.out.empty())
    out.emplace(a.out, backend.name, std::string(workload_family_name(base.family)));
  std::uint64_t written = 0, skipped = 0, index = 0;
  std::vector<Record> records;
  for (const auto& pt : points) {
    ++index;
    const std::string what =
        fmt::format("{} size {} N {}", name(pt.algo), pt.w.size.text(),
                    pt.w.family == WorkloadFamily::oom ? std::string("-") : std::to_string(pt.w.N));
    if (out && out->has(coordinate_record(pt.algo, pt.w, backend, a.trials, a.repeats))) {
      ++skipped;
      std::cerr << fmt::format("workload: [{}/{}] {}: already in {}\n", index, points.size(), what,
                               out->path());
      continue;
    }
    if (out) {
      out->require_appendable();
      std::cerr << fmt::format("workload: [{}/{}] {} ...\n", index, points.size(), what);
    }
    std::vector<PointSummary> sums;
    std::uint64_t bound = 0;
    std::string device;
    std::vector<std::string> run_notes;
    for (std::uint64_t t = 0; t < a.trials; ++t) {
      const WorkloadRun r = backend.run(pt.algo, pt.w, t);
      bound = std::max(bound, r.step_bound);
      device = r.device;
      // Every trial's notes, each once (a note of one trial only still speaks for the row).
      for (const auto& n : r.notes)
        if (std::find(run_notes.begin(), run_notes.end(), n) == run_notes.end())
          run_notes.push_back(n);
      sums.resize(r.points.size());
      for (std::size_t k = 0; k < r.points.size(); ++k) sums[k].add(r.points[k]);
    }
    std::vector<Record> rows;
    for (const auto& s : sums)
      rows.push_back(point_record(pt.algo, pt.w, backend, a.repeats, s, bound, device, run_notes));
    if (out) {
      out->append(rows);  // a whole point at a time: a killed run leaves no half point
      ++written;
    } else {
      records.insert(records.end(), rows.begin(), rows.end());
    }
  }
  if (out)
    std::cout << fmt::format("workload: {} points written to {}, {} already there\n", written,
                             out->path(), skipped);
  else
    write_records(std::cout, records, a.format);
}

}  // namespace

void add_workload_command(CLI::App& app) {
  auto args = std::make_shared<WorkloadArgs>();
  auto* cmd = app.add_subcommand(
      "workload",
      "Run an allocation workload on a pool of bytes and verify it: objects of --size bytes "
      "allocated, freed, reallocated, until memory runs out. Families (--workload):\n"
      "  alloc          each of N threads allocates one object of --size bytes (timed), then\n"
      "                 all are freed (timed separately)\n"
      "  mixed          as alloc, each thread's size a power of two drawn from --size lo..hi\n"
      "  churn          fill N objects (round 0), then --rounds R rounds: free a random\n"
      "                 fraction --free-fraction f of the live objects, the same threads\n"
      "                 allocate again; one row per round\n"
      "  oom            allocate in batches of --batch B until a request fails: utilisation =\n"
      "                 bytes handed out / pool bytes, count_at_failure (N is not used)\n"
      "  fragmentation  N objects: address_range_bytes = highest end - lowest start handed\n"
      "                 out; fragmentation = that over the bytes requested (1 = packed)\n"
      "  scaling        alloc over an axis of N, by default 2^0 .. 2^20 (the time-vs-threads\n"
      "                 curve; rows say scaling)\n"
      "Bytes are written 4096, 100B, 64KiB, 512MiB, 8GiB (binary units). The page allocators\n"
      "take a request up to one page as one page (larger: an input error); RW_malloc takes\n"
      "ceil(size / page) consecutive pages; T = pool / --page-bytes. Every run is verified: each\n"
      "object inside the pool, no two overlapping, all pages back after the frees (exit 3).");
  cmd->add_option("--allocator", args->allocators, "comma list of allocators: " + simulated_names())
      ->required();
  cmd->add_option("--backend", args->backend,
                  "sim (the CPU simulator) or gpu (the allocator's CUDA kernels; needs a device)")
      ->capture_default_str();
  cmd->add_option("--mode", args->mode,
                  "simulator mode: sequential (one request at a time, random order), lockstep "
                  "(SIMT rounds), threads (host threads on shared atomics)")
      ->capture_default_str();
  cmd->add_option("--workload", args->family, std::string(kWorkloadFamilyNames))->required();
  cmd->add_option("--N", args->N,
                  "threads = live objects (list: 'v', 'v1,v2', 'a:b:step', 'a..b*factor'); "
                  "default 1024, for scaling 1..1048576*2");
  cmd->add_option("--size", args->size,
                  "bytes per object, or lo..hi (powers of two, mixed only); a comma list gives "
                  "one run per entry")
      ->required();
  cmd->add_option("--pool", args->pool, "pool bytes (e.g. 64MiB, 8GiB)")->required();
  cmd->add_option("--page-bytes", args->page_bytes, "bytes per page of the page allocators")
      ->capture_default_str();
  cmd->add_option("--rounds", args->rounds, "churn: rounds after the initial fill")
      ->capture_default_str();
  cmd->add_option("--free-fraction", args->free_fraction,
                  "churn: fraction of the live objects freed per round, in [0, 1]")
      ->capture_default_str();
  cmd->add_option("--batch", args->batch, "oom: objects per batch")->capture_default_str();
  cmd->add_option("--free", args->initial_free,
                  "fraction of the pool's pages free at the start, in (0, 1]; the others are "
                  "used before the workload (chosen as simulate --free chooses them) and never "
                  "freed")
      ->capture_default_str();
  cmd->add_option("--block", args->block,
                  "threads per block of the GPU launches (a multiple of 32, at most 1024); the "
                  "simulator's warps are 32 consecutive threads either way")
      ->capture_default_str();
  cmd->add_flag("--warp-uniform", args->warp_uniform,
                "mixed: all 32 lanes of a warp ask for the same size (drawn per warp) instead of "
                "one size per thread");
  cmd->add_option("--trials", args->trials,
                  "independent trials (trial t seeds trial_seed(seed, t)); rows are means, "
                  "steps_max the maximum")
      ->capture_default_str();
  cmd->add_option("--repeats", args->repeats,
                  "repeats of each trial: its whole timed run again from the same start state "
                  "(simulator: the allocator built anew; gpu: the pool reset, built once) with the "
                  "same seed, every repeat verified; alloc_ms, free_ms and init_ms are the "
                  "medians over the repeats (gpu: init_ms is the one set-up), the counts the first "
                  "repeat's. Simulator sequential/lockstep: every repeat must count the same "
                  "(exit 3 otherwise); threads mode and gpu: a note says where they differed. "
                  "Trials then average the per-trial medians")
      ->capture_default_str();
  cmd->add_option("--seed", args->seed, "root seed")->capture_default_str();
  cmd->add_option("--max-steps", args->max_steps,
                  "steps before a request gives up; 0 = the default (simulator: its bound for the "
                  "pool and the call; gpu: 2^20)")
      ->capture_default_str();
  cmd->add_option("--threads", args->threads, "host threads in threads mode; 0 = all cores")
      ->capture_default_str();
  cmd->add_option("--counters", args->counters,
                  "gpu: on = the timed kernels store per-request steps, collisions and atomics "
                  "(steps_*, failed_claims_per_op, retries_per_op, atomics_per_op); off = time "
                  "without them")
      ->capture_default_str();
  cmd->add_option("--warmup", args->warmup,
                  "gpu: untimed allocation runs (and their frees) before the timed ones, the pool "
                  "made pristine again after them; the first launch of a kernel loads it")
      ->capture_default_str();
  cmd->add_option("--heap-bytes", args->heap_bytes,
                  "gpu: CUDA's malloc heap (cudamalloc's pool), sized once per process; default "
                  "the largest --pool of the run");
  cmd->add_option("--out", args->out,
                  "append the rows to DIR/workloads/<backend>/<workload>.csv (what validate DIR "
                  "and report DIR read) instead of printing them; points already there (same "
                  "coordinates, trials, repeats and seed) are skipped, so a killed run resumes");
  add_format_option(*cmd, args->format);
  cmd->callback([args] { run(*args); });
}

}  // namespace alloclab::cli
