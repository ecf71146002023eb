// Workload rows read back: what `alloclab workload --format csv` prints (docs/workloads.md,
// "Results"), one row per allocator x size x N (per churn round), on the simulator or a GPU.
//
// Where `validate` and `report` find them: DIR/workloads/, every *.csv below it, each file one
// `alloclab workload --format csv` output as it was written (DIR/workloads/sim/alloc.csv, and the
// GPU's committed reports/data/<gpu>/workloads/*.csv copied to DIR/workloads/<gpu>/). They are not
// turned into sweep.csv rows: a sweep row is one metric at one point of the paper's grid (N, A,
// T, w, lanes, pages), resumed per (point, backend); a workload row is a whole measurement with
// other coordinates (object size, pool bytes, round, batch) and some twenty quantities, and the
// workload command already writes it in a stable form that the GPU script commits as is. A
// folder of those files keeps every column and needs no second format.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "alloclab/core/algorithm.hpp"
#include "alloclab/core/result.hpp"

namespace alloclab::validation {

// The sub-directory of a sweep directory that holds workload CSVs.
inline constexpr const char* kWorkloadsDir = "workloads";

struct WorkloadRow {
  Algorithm allocator = Algorithm::queue;
  std::string backend, mode, workload, device;
  std::string size;                         // as written: "256", or "16..4096" (mixed)
  std::optional<std::uint64_t> size_bytes;  // one size for every object; nullopt for a range
  std::optional<std::uint64_t> N;           // null for oom (it runs until full)
  std::optional<std::uint64_t> round;       // churn
  std::optional<std::uint64_t> batch;       // oom
  std::uint64_t pool_bytes = 0, page_bytes = 0;
  std::string bit_choice = "lowest";  // rows written before the column: the lowest bit
  bool verified = false;
  bool hung = false;  // a GPU kernel ran past the watchdog: nothing measured (column `hung`)
  Record values;      // every column as read (numbers, nulls, text), and the notes
  std::string file;   // where it was read from (relative to the directory read, when one was)
  std::size_t line = 0;

  std::optional<double> number(const std::string& key) const { return values.number(key); }
  std::uint64_t pages_total() const { return pool_bytes / page_bytes; }  // T
  // Where the row was measured, as the report names it: "sim" (with its mode where not
  // sequential), or the GPU's name.
  std::string source() const;
  // "file:line", for messages and verdict explanations.
  std::string where() const;
};

// The columns every workload row has (docs/workloads.md); a file that lacks one is not a workload
// CSV.
inline constexpr const char* kWorkloadRequiredKeys[] = {
    "allocator",  "backend",     "mode",     "workload", "N",      "size",
    "pool_bytes", "page_bytes",  "trials",   "requests", "allocs", "alloc_ms",
    "failed",     "utilisation", "verified", "device"};

// One file. Throws std::runtime_error naming the file (and line) when a required column is
// missing, an allocator is not in the registry, or a value is malformed (a size that is neither
// bytes nor lo..hi, page or pool bytes of 0, verified not true/false). `display` names the file in
// messages (default: path).
std::vector<WorkloadRow> read_workload_csv(const std::string& path,
                                           const std::string& display = {});

// Every *.csv under dir (recursively, in path order), each file named from dir's own name down
// ("workloads/sim/alloc.csv"); empty when dir does not exist.
std::vector<WorkloadRow> read_workload_dir(const std::string& dir);

}  // namespace alloclab::validation
