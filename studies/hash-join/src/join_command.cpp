// `alloclab join`: paper 000's case study (§5.2.3, Figure 12), a partitioned GPU hash join whose
// probe threads write their result tuples into 256-byte pages taken on demand from an allocator
// (alloclab/gpu/join.hpp). This file parses the options, computes the reference join on the host
// once per table (core/join/reference.hpp), runs every (tuples, allocator) point and writes one
// row per point. Every join is verified against the reference (exit 3 if one is not).
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
#include "alloclab/core/join/pages.hpp"
#include "alloclab/core/join/reference.hpp"
#include "alloclab/core/workload.hpp"
#include "alloclab/gpu/join.hpp"

namespace alloclab::cli {
namespace {

struct JoinArgs {
  std::string allocators, tuples = "16384,65536,262144,1048576,4194304,10000000";
  std::string pool = "32GiB";  // --pool: the output pages' bytes (Figure 12's 2^27 pages)
  std::uint64_t pages = 0;     // the pool's pages of 256 B (from --pool)
  std::uint64_t key_range = 0, seed = 1;
  std::uint64_t max_steps = std::uint64_t{1} << 16;
  double skew = 0;
  unsigned repeats = 3, tuples_per_thread = 1;
  Format format = Format::table;
};

std::string all_allocators() {
  std::string names;
  for (const std::string& a : gpu::join_allocators()) names += (names.empty() ? "" : ",") + a;
  return names;
}

gpu::JoinOptions options(const JoinArgs& a, const std::string& allocator, std::uint64_t tuples) {
  gpu::JoinOptions o;
  o.allocator = allocator;
  o.tables = {.build = tuples,
              .probe = tuples,
              .key_range = a.key_range == 0 ? tuples : a.key_range,
              .skew = a.skew,
              .seed = a.seed};
  o.pages = a.pages;
  o.tuples_per_thread = a.tuples_per_thread;
  o.repeats = a.repeats;
  o.max_steps = a.max_steps;
  return o;
}

Record row(const gpu::JoinOptions& o, const gpu::JoinRun& run, const join::JoinOutput& reference,
           const std::string& device) {
  Record r;
  r.set("allocator", o.allocator);
  r.set_int("tuples", o.tables.build);
  r.set("skew", o.tables.skew);
  r.set_int("key_range", o.tables.key_range);
  r.set_int("pages", o.pages);
  r.set("free_fraction_at_end", run.free_fraction_at_end);
  r.set("join_ms", run.join_ms);
  r.set("probe_ms", run.probe_ms);
  r.set("getpage_ms", run.getpage_ms);
  // Input tuples (|R| + |S|) a second through the whole join; S tuples a second through the
  // build-and-probe kernel.
  r.set("join_tuples_per_s",
        static_cast<double>(o.tables.build + o.tables.probe) / (run.join_ms * 1e-3));
  r.set("probe_tuples_per_s", static_cast<double>(o.tables.probe) / (run.probe_ms * 1e-3));
  r.set_int("result_tuples", run.result_tuples);
  r.set_int("reference_tuples", reference.tuples);
  r.set("out_of_memory", run.out_of_memory);
  r.set_int("pages_taken", run.pages_taken);
  r.set_int("getpage_calls", run.getpage_calls);
  r.set_int("getpage_warp_calls", run.getpage_warp_calls);
  r.set_int("resident_probe_threads", run.resident_probe_threads);
  r.set("getpage_cycles_per_call", run.getpage_cycles_per_call);
  r.set_int("probe_threads", run.probe_threads);
  r.set_int("partitions", std::uint64_t{1} << run.partition_bits);
  r.set_int("repeats", o.repeats);
  r.set("verified", run.verification.empty() && !run.out_of_memory);
  r.set("device", device);
  r.notes = run.notes;
  if (!run.verification.empty()) r.notes.push_back(run.verification);
  return r;
}

// --pool in pages of 256 B (a whole number of them).
std::uint64_t pool_pages(const std::string& pool) {
  const std::uint64_t bytes = parse_bytes("--pool", pool);
  if (bytes % join::kPageBytes != 0)
    throw InputError("--pool", fmt::format("{} bytes is not a whole number of {}-byte pages", bytes,
                                           join::kPageBytes));
  return bytes / join::kPageBytes;
}

void run(const JoinArgs& args) {
  JoinArgs a = args;
  a.pages = pool_pages(a.pool);
  std::vector<std::string> allocators =
      comma_items(a.allocators.empty() ? all_allocators() : a.allocators);
  if (allocators.empty()) throw InputError("--allocator", "no allocator given");
  const std::vector<std::uint64_t> sizes = parse_count_list("--tuples", a.tuples);
  // Every point's input checked before the first one runs (no device needed).
  for (std::uint64_t n : sizes)
    for (const std::string& alloc : allocators) gpu::check_join(options(a, alloc, n));
  std::string device;
  try {
    const gpu::DeviceInfo d = gpu::device_info();
    device = d.name + " (" + d.pci_bus_id + ")";
  } catch (const gpu::NoDevice& e) {
    throw InputError("device", std::string(e.what()) + " (alloclab join runs on a GPU)");
  }
  std::vector<Record> rows;
  std::vector<std::string> failures;  // verification failures (out of memory is not one)
  const std::size_t total = sizes.size() * allocators.size();
  for (std::uint64_t n : sizes) {
    const join::JoinOutput reference = join::reference_join(options(a, allocators[0], n).tables);
    for (const std::string& alloc : allocators) {
      const gpu::JoinOptions o = options(a, alloc, n);
      if (total > 1)
        std::cerr << fmt::format("join: [{}/{}] {} tuples {} ...\n", rows.size() + 1, total, alloc,
                                 n);
      const gpu::JoinRun run = gpu::run_join(o, reference);
      if (!run.verification.empty())
        failures.push_back(fmt::format("{} tuples {}: {}", alloc, n, run.verification));
      rows.push_back(row(o, run, reference, device));
      stream_csv_row(std::cout, rows, a.format);
    }
  }
  if (a.format != Format::csv) write_records(std::cout, rows, a.format);
  if (!failures.empty())
    throw VerificationError("join: a run failed verification: " + failures.front());
}

}  // namespace

std::vector<CLI::App*> add_join_command(CLI::App& app) {
  auto args = std::make_shared<JoinArgs>();
  auto* cmd = app.add_subcommand(
      "join",
      "Paper 000's case study (§5.2.3, Figure 12): a GPU hash join whose output pages come from "
      "an allocator. R (build) and S (probe), --tuples each, are generated on the device: R's "
      "keys are 0 .. tuples-1 shuffled, S's keys uniform in [0, key range) or Zipf-skewed "
      "(--skew: hot keys make hot output). The join radix-partitions both tables by the low "
      "bits of the key (histogram, prefix sum, scatter), then one block per task builds its "
      "partition of R into a shared-memory hash table and probes a run of S; each probe "
      "thread appends its matches (build payload, probe payload: 8 bytes) to its current "
      "256-byte output page (an 8-byte header, then 31 tuples) and takes a new page from the "
      "allocator (GETPAGE) when the page is full. 'direct' is the paper's Direct Output "
      "baseline: one global atomic counter, pages never freed. Pages are never freed by any "
      "allocator here, so the pool's free fraction falls as the tables grow (Figure 12 keeps "
      "128M pages for 16K to 10M tuples). Every join is verified: the pages are read back on "
      "the device and their tuple count and checksum must equal a reference join on the host "
      "(exit 3 if not). A pool that runs dry is reported (out_of_memory, with the tuples "
      "written), never a hang. Rows: join_ms (partitioning and build-and-probe, CUDA events, "
      "median of --repeats after one warm-up), probe_ms (the build-and-probe kernel), "
      "getpage_ms (probe_ms x the share of the probe threads' clock64 cycles spent inside "
      "GETPAGE), tuples per second of both, pages taken, the free fraction at the end. Needs a "
      "GPU (exit 2 without one).\n"
      "Example: alloclab join --allocator direct,corw --tuples 1048576\n"
      "Example: alloclab join --tuples 16384,10000000 --skew 1 --format csv");
  cmd->add_option("--allocator", args->allocators,
                  "comma list of output page sources: direct (Direct Output: one atomic "
                  "counter) or a GPU allocator with a page heap (a build without CUDA has direct "
                  "only; an unknown name is an input error that lists this build's); default all")
      ->capture_default_str();
  cmd->add_option("--tuples", args->tuples,
                  "tuples of R and of S, equal as in the paper (list: 'v', 'v1,v2', "
                  "'a..b*factor'); at most 2^24")
      ->capture_default_str();
  cmd->add_option("--pool", args->pool,
                  "bytes of the output pages' pool, whole pages of 256 B (e.g. 32GiB, 512MiB). "
                  "The default is Figure 12's 128M pages (2^27 pages, 32GiB), which fits an 80 GB "
                  "H100 or an H200; a device with less memory says so (exit 2): lower it there")
      ->capture_default_str();
  cmd->add_option("--skew", args->skew,
                  "Zipf exponent of S's keys in [0, 4]; 0 = uniform (the hottest keys all have "
                  "a partner in R)")
      ->capture_default_str();
  cmd->add_option("--key-range", args->key_range,
                  "S's keys lie in [0, key range); at least --tuples; the selectivity of a "
                  "uniform S is tuples / key range. 0 = --tuples (every S tuple matches)")
      ->capture_default_str();
  cmd->add_option("--repeats", args->repeats, "timed joins after one warm-up; medians reported")
      ->capture_default_str();
  cmd->add_option("--tuples-per-thread", args->tuples_per_thread,
                  "S tuples a probe thread handles; the paper runs about one thread a tuple")
      ->capture_default_str();
  cmd->add_option("--max-steps", args->max_steps,
                  "bound of one GETPAGE search of the probing allocators; a search that hits it "
                  "fails (reported as out of memory)")
      ->capture_default_str();
  cmd->add_option("--seed", args->seed, "seed of the tables and the probe streams")
      ->capture_default_str();
  add_format_option(*cmd, args->format);
  cmd->callback([args] { run(*args); });
  return {cmd};
}

}  // namespace alloclab::cli

ALLOCLAB_REGISTER_COMMAND((alloclab::cli::CommandEntry{
    .study = "hash-join", .order = 60, .add = &alloclab::cli::add_join_command}))
