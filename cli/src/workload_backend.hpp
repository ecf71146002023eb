// The part of `alloclab workload` (workload_command.cpp) that turns the command line into a
// backend: the simulator's or the GPU's runner, or a typed heap's (--types), each with its own
// input checks, and the options each refuses.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "alloclab/cli/family_options.hpp"
#include "alloclab/cli/output.hpp"
#include "alloclab/core/algorithm.hpp"
#include "alloclab/core/workload.hpp"
#include "alloclab/core/workload_result.hpp"
#include "workload_rows.hpp"

namespace alloclab::cli::workload {

struct WorkloadArgs {
  std::string allocators, backend = "sim", mode = "sequential", family, N, size, pool;
  std::string page_bytes;  // default 256 B (empty: not given)
  std::string types;       // --types 60,64 (types_given: the option was given, even empty)
  bool types_given = false;
  std::uint64_t rounds = 1;
  double free_fraction = 0.5;
  double initial_free = 1.0;
  std::uint64_t batch = 1024;
  double batch_free = 0;
  unsigned block = 256;
  bool warp_uniform = false;
  std::uint64_t trials = 1;
  unsigned repeats = 1;
  std::uint64_t seed = 1;
  std::uint64_t max_steps = 0;
  FamilyOptions family_options;  // the allocator families' own options (family_options.hpp)
  unsigned threads = 0;
  std::string bit_choice = "lowest";
  std::string counters = "on";
  unsigned warmup = 1;
  bool warm = false;
  bool block_sweep = false;  // --block-sweep (GPU): Figure 7's paper setting
  double watchdog = 300;
  std::string out;
  Format format = Format::table;
};

// The backend a run goes to: its input checks (before any output) and one trial of one point.
struct Backend {
  RowSource source;
  std::function<void(Algorithm, const Workload&)> check;
  std::function<WorkloadRun(Algorithm, const Workload&, std::uint64_t trial)> run;
};

// The backend --backend names (one backend here), its options checked against it.
Backend make_backend(const WorkloadArgs& a);

}  // namespace alloclab::cli::workload
