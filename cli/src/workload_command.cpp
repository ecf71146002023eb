// `alloclab workload`: allocation workloads (sizes, frees, churn, out-of-memory, fragmentation)
// on one contract every allocator meets (core/workload.hpp): the simulator's backend
// (cpu_sim/workload_runner.hpp) or the GPU's (gpu/workload.hpp); rows: workload_rows.hpp. With
// --types, objects of fixed types on a typed heap (core/dynasoar/typed_workload.hpp; the
// simulator's cpu_sim/typed_workload.hpp, the GPU's gpu/dynasoar_typed_workload.hpp).
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
#include "alloclab/cli/family_options.hpp"
#include "alloclab/cli/grid.hpp"
#include "alloclab/cli/output.hpp"
#include "alloclab/cli/resource_limits.hpp"
#include "alloclab/cli/value_list.hpp"
#include "alloclab/core/comma_list.hpp"
#include "alloclab/core/dynasoar/types.hpp"
#include "alloclab/core/errors.hpp"
#include "alloclab/core/ouroboros/config.hpp"
#include "alloclab/core/workload.hpp"
#include "alloclab/cpu_sim/typed_heap.hpp"
#include "alloclab/cpu_sim/typed_workload.hpp"
#include "alloclab/cpu_sim/workload_runner.hpp"
#include "alloclab/gpu/dynasoar_typed_workload.hpp"
#include "alloclab/gpu/workload.hpp"
#include "workload_backend.hpp"
#include "workload_output_dir.hpp"
#include "workload_rows.hpp"

namespace alloclab::cli {
namespace {

using workload::Backend;
using workload::make_backend;
using workload::WorkloadArgs;

std::string simulated_names() {
  return algorithm_names(algorithms_on(BackendKind::sim));
}

// The allocators with a typed heap in the simulator (cpu_sim/typed_heap.hpp's table).
std::string typed_heap_names() {
  return algorithm_names(sim::TypedHeapTable::instance().registered());
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

struct Point {
  Algorithm algo;
  Workload w;
};

// One backend's part of a run: the backend, its points (every one checked), the family.
struct Plan {
  Backend backend;
  std::vector<Point> points;
  WorkloadFamily family;
};

// Everything before the first measurement: a.backend is one backend here.
Plan make_plan(const WorkloadArgs& a) {
  Backend backend = make_backend(a);
  const auto allocators = parse_allocators(a.allocators);
  if (a.trials < 1) throw InputError("--trials", "need at least one trial");
  if (a.repeats < 1) throw InputError("--repeats", "need at least one repeat");
  Workload base;
  base.family = parse_workload_family(a.family);
  base.pool_bytes = parse_bytes("--pool", a.pool);
  base.page_bytes = parse_bytes("--page-bytes", a.page_bytes.empty() ? "256" : a.page_bytes);
  base.rounds = a.rounds;
  base.free_fraction = a.free_fraction;
  base.initial_free = a.initial_free;
  base.batch = a.batch;
  base.batch_free = a.batch_free;
  base.block = a.block;
  base.warp_uniform = a.warp_uniform;
  base.seed = a.seed;
  const auto choice = parse_bit_choice(a.bit_choice);
  if (!choice)
    throw InputError("--bit-choice",
                     "unknown bit choice '" + a.bit_choice + "' (lowest|random|rotated)");
  base.bit_choice = *choice;
  if (base.family == WorkloadFamily::churn && a.rounds < 1)
    throw InputError("--rounds", "need at least one round");
  // scaling is alloc over an axis of N; without --N it is the survey's 2^0 .. 2^20.
  const std::string N_text = !a.N.empty()                             ? a.N
                             : base.family == WorkloadFamily::scaling ? "1..1048576*2"
                                                                      : "1024";
  const auto Ns = parse_count_list("--N", N_text);
  std::vector<SizeSpec> sizes;
  if (a.types_given) {
    // The types are the objects' sizes; the smallest is the slot of DynaSOAr's blocks (T_s).
    if (!a.size.empty())
      throw InputError("--size", "not with --types: the types are the objects' sizes");
    if (!a.page_bytes.empty())
      throw InputError("--page-bytes", "not with --types: the smallest type is the slot (T_s)");
    const dynasoar::TypeSizes t = dynasoar::parse_types("--types", a.types);
    base.type_bytes = t.bytes;
    base.page_bytes = t.smallest();
    const std::uint64_t largest = *std::max_element(t.bytes.begin(), t.bytes.end());
    sizes.push_back(SizeSpec{largest, largest});
  } else {
    if (a.size.empty())
      throw InputError("--size",
                       "required: bytes per object (or --types for objects of fixed "
                       "types on a typed heap)");
    sizes = parse_size_list("--size", a.size);
  }

  check_grid_size({{"--allocator", allocators.size()},
                   {"--size", sizes.size()},
                   {"--N", base.family == WorkloadFamily::oom ? 1 : Ns.size()}});
  std::vector<Point> points;
  for (auto algo : allocators)
    for (const auto& size : sizes)
      for (auto N : Ns) {
        Workload w = workload_for(algo, base);
        w.N = base.family == WorkloadFamily::oom ? 1 : N;
        w.size = size;
        backend.check(algo, w);  // reject bad points before any output
        points.push_back({algo, w});
        if (base.family == WorkloadFamily::oom) break;  // oom runs until full: N plays no part
      }
  if (backend.source.name == "gpu" && a.family_options.cuda_heap.empty() && !a.types_given) {
    // CUDA's malloc heap is sized once per process, before its first malloc kernel: for the
    // largest point.
    std::uint64_t heap = 0;
    for (const auto& pt : points)
      heap = std::max(heap, gpu::workload_heap_bytes(pt.algo, pt.w, gpu::WorkloadOptions{}));
    if (heap) {
      WorkloadArgs sized = a;
      sized.family_options.cuda_heap = std::to_string(heap);
      backend = make_backend(sized);
    }
  }
  return {std::move(backend), std::move(points), base.family};
}

// Runs a plan's points: their rows appended to --out DIR's file, or to `records`.
void execute(const WorkloadArgs& a, const Plan& plan, std::vector<Record>& records) {
  const Backend& backend = plan.backend;
  const std::vector<Point>& points = plan.points;
  std::optional<WorkloadOutputDir> out;
  if (!a.out.empty())
    out.emplace(a.out, backend.source.name, std::string(workload_family_name(plan.family)));
  std::uint64_t written = 0, skipped = 0, index = 0;
  for (const auto& pt : points) {
    ++index;
    const std::string what =
        fmt::format("{} size {} N {}", name(pt.algo), pt.w.size.text(),
                    pt.w.family == WorkloadFamily::oom ? std::string("-") : std::to_string(pt.w.N));
    if (out && out->has(coordinate_record(pt.algo, pt.w, backend.source, a.trials, a.repeats))) {
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
      WorkloadRun r;
      try {
        r = backend.run(pt.algo, pt.w, t);
      } catch (const gpu::KernelHung& e) {
        // The device is stuck with the kernel: this point's row says so, and the run ends here
        // (main: exit 5); the rows written so far stay.
        const Record hung = hung_record(pt.algo, pt.w, backend.source, a.trials, a.repeats,
                                        gpu::device_info().name, e.what());
        if (out)
          out->append({hung});
        else
          records.push_back(hung);
        if (!out) write_records(std::cout, records, a.format);
        throw;
      }
      bound = std::max(bound, r.step_bound);
      device = r.device;
      // Every trial's notes, each once (a note of one trial only still speaks for the row).
      for (const auto& n : r.notes)
        if (std::find(run_notes.begin(), run_notes.end(), n) == run_notes.end())
          run_notes.push_back(n);
      sums.resize(r.points.size());
      for (std::size_t k = 0; k < r.points.size(); ++k) {
        sums[k].add(r.points[k]);
        sums[k].alloc_registers = r.alloc_registers;
        sums[k].free_registers = r.free_registers;
      }
    }
    std::vector<Record> rows;
    for (const auto& s : sums)
      rows.push_back(
          point_record(pt.algo, pt.w, backend.source, a.repeats, s, bound, device, run_notes));
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
}

// --backend sim,gpu: every backend's points checked before the first one runs, then each
// backend's in turn (their rows printed together, or each to DIR/workloads/<backend>/).
void run(const WorkloadArgs& a) {
  std::vector<std::string> names;
  for (const auto& b : comma_items(a.backend))
    if (std::find(names.begin(), names.end(), b) == names.end()) names.push_back(b);
  if (names.empty()) throw InputError("--backend", "no backend given (sim, gpu)");
  std::vector<Plan> plans;
  for (const auto& b : names) {
    WorkloadArgs one = a;
    one.backend = b;
    plans.push_back(make_plan(one));
  }
  std::vector<Record> records;
  for (const auto& p : plans) execute(a, p, records);
  if (a.out.empty()) write_records(std::cout, records, a.format);
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
      "                 bytes handed out / pool bytes, count_at_failure (N is not used);\n"
      "                 with --batch-free f, round(f B) random objects of each batch are freed\n"
      "                 after it (0.5: the paper's churn to out of memory), and\n"
      "                 batches_at_failure counts the batches\n"
      "  fragmentation  N objects: address_range_bytes = highest end - lowest start handed\n"
      "                 out; fragmentation = that over the bytes requested (1 = packed)\n"
      "  scaling        alloc over an axis of N, by default 2^0 .. 2^20 (the time-vs-threads\n"
      "                 curve; rows say scaling)\n"
      "Bytes are written 4096, 100B, 64KiB, 512MiB, 8GiB (binary units). The page allocators\n"
      "take a request up to one page as one page (larger: an input error); RW_malloc takes\n"
      "ceil(size / page) consecutive pages; T = pool / --page-bytes. Every run is verified: each\n"
      "object inside the pool, no two overlapping, all pages back after the frees (exit 3).\n"
      "Typed objects (--types 60,64 instead of --size; allocators with a typed heap:\n" +
          typed_heap_names() +
          "): the smallest type T_s fixes the block (64 slots of\n"
          "T_s), type T holds N_T = floor(64 T_s / T) a block (60,64: 64 and 60), a type more "
          "than\n"
          "64x the smallest is an error; the pool is whole blocks. Request i is of type (i mod "
          "k)+1\n"
          "(k types). alloc, scaling, fragmentation: one batch of N, then one free batch; churn:\n"
          "rounds free a random fraction and the same threads (same types) allocate again; oom:\n"
          "batches until a request fails; mixed does not apply (the types are the sizes). Rows "
          "add\n"
          "heap_blocks, blocks_in_use, blocks_min (sum of ceil(live_T / N_T)), slot_fragmentation\n"
          "(F of DynaSOAr 6.3) and live_objects; sim modes sequential and lockstep; every batch\n"
          "checked by the typed heap (exit 3).\n"
          "Example: alloclab workload --allocator dynasoar --types 60,64 --workload oom --pool "
          "1MiB\n"
          "Example: alloclab workload --allocator dynasoar,dynasoar-norot --types 64 --workload "
          "churn\n"
          "         --N 4096 --rounds 8 --pool 4MiB --mode lockstep --format csv");
  cmd->add_option("--allocator", args->allocators, "comma list of allocators: " + simulated_names())
      ->required();
  cmd->add_option("--backend", args->backend,
                  "sim (the CPU simulator) and/or gpu (the allocator's CUDA kernels; needs a "
                  "device), a comma list: sim,gpu runs both, one after the other (the options "
                  "of one backend, e.g. --warm or --preboot, need it alone)")
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
                  "one run per entry; required unless --types");
  auto* types_option = cmd->add_option(
      "--types", args->types,
      "objects of fixed types by size in bytes, a comma list (e.g. 28 or 60,64) instead of --size "
      "and --page-bytes, on a typed heap (" +
          typed_heap_names() +
          "): the "
          "smallest fixes the block (64 of its slots), N_T = floor(64 smallest / size), a type "
          "more "
          "than 64x the smallest is an error; request i is of type (i mod k) + 1; not with mixed");
  cmd->add_option("--pool", args->pool, "pool bytes (e.g. 64MiB, 8GiB)")->required();
  cmd->add_option("--page-bytes", args->page_bytes,
                  "bytes per page of the page allocators, default 256 (those with their own page "
                  "size, ouro-*, use it: 16 B); not with --types");
  cmd->add_option("--rounds", args->rounds, "churn: rounds after the initial fill")
      ->capture_default_str();
  cmd->add_option("--free-fraction", args->free_fraction,
                  "churn: fraction of the live objects freed per round, in [0, 1]")
      ->capture_default_str();
  cmd->add_option("--batch", args->batch, "oom: objects per batch")->capture_default_str();
  cmd->add_option("--batch-free", args->batch_free,
                  "oom: fraction of each batch freed after it, in [0, 1) (0.5: Winter et al.'s "
                  "churn test, the live set growing by half a batch per batch)")
      ->capture_default_str();
  cmd->add_option("--free", args->initial_free,
                  "fraction of the pool's pages free at the start, in (0, 1]; the others are "
                  "used before the workload (chosen as simulate --free chooses them) and never "
                  "freed")
      ->capture_default_str();
  cmd->add_option("--block", args->block,
                  "threads per block of the GPU launches (a multiple of 32, at most 1024); the "
                  "simulator's warps are 32 consecutive threads either way")
      ->capture_default_str();
  cmd->add_flag("--block-sweep", args->block_sweep,
                "gpu: each point's times the mean over runs with blocks of 1, 2, 4, ..., 1024 "
                "threads, as Gelado & Garland's Figure 7 (PPoPP'19 §5.3); its other columns are "
                "the run with blocks of 256; rows have mode gpu-block-sweep. gg-* and cudamalloc "
                "only (the others' warp collectives need whole warps)");
  cmd->add_flag("--warp-uniform", args->warp_uniform,
                "mixed: all 32 lanes of a warp ask for the same size (drawn per warp) instead of "
                "one size per thread");
  cmd->add_option("--bit-choice", args->bit_choice,
                  "which free bit of a read word a thread claims: lowest (the papers'), random or "
                  "rotated, where the allocator offers it (" +
                      bit_choices_help() + ")")
      ->capture_default_str();
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
  cmd->add_flag("--warm", args->warm,
                "gpu: time the phases on the pool as the warm-up left it (everything freed), not "
                "a pristine one; rows get mode gpu-warm. Matters where a freed pool differs from a "
                "new one (ouro-*: typed chunks, full queues)");
  add_family_options(*cmd, args->family_options, BackendKind::sim | BackendKind::gpu);
  cmd->add_option("--watchdog", args->watchdog,
                  "gpu: seconds a kernel (allocation, free, a pool's set-up) may run; one that "
                  "runs longer is reported as hung in its row and ends the run (exit 5: the "
                  "device cannot be used again by this process); 0 = no limit")
      ->capture_default_str();
  cmd->add_option("--out", args->out,
                  "append the rows to DIR/workloads/<backend>/<workload>.csv (what validate DIR "
                  "and report DIR read) instead of printing them; points already there (same "
                  "coordinates, trials, repeats and seed) are skipped, so a killed run resumes");
  add_format_option(*cmd, args->format);
  cmd->callback([args, types_option] {
    args->types_given = types_option->count() > 0;
    run(*args);
  });
}

}  // namespace alloclab::cli
