// Figure 6's benchmark of Gelado & Garland (core/gelado/rcu_list_bench.hpp) on the GPU: one CUDA
// thread per input tag running the same step machine (the same SRCU, srcu.hpp), spinning with a
// short __nanosleep back-off and a step bound (a thread past it gives up where it holds nothing:
// counted, and the run then fails verification; never a hang). Needs independent thread
// scheduling (Volta and later): a spinning barrier waits for a holder or a reader that may share
// its warp. Plain C++ (no CUDA types); built without CUDA it throws NoDevice.
//
// Each launch starts from a fresh list and is verified (verify_rcu_list over every thread's
// role and counts and the words at the end).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "alloclab/core/gelado/rcu_list_bench_summary.hpp"
#include "alloclab/gpu/measure.hpp"

namespace alloclab::gpu {

struct RcuBenchGpuOptions {
  gelado::RcuListConfig config;  // threads T, nodes W, conditional
  unsigned block = 256;
  std::uint64_t seed = 1;       // the input vector's shuffle
  std::uint64_t max_steps = 0;  // per thread; 0 = kRcuBenchGpuSteps
  unsigned repeats = 5;         // timed launches (median)
  unsigned warmup = 1;          // untimed launches first
  std::uint32_t backoff_max_ns = 256;
};

// A thread's bound on the GPU: with 256 ns back-offs, a few seconds at most.
inline constexpr std::uint64_t kRcuBenchGpuSteps = 1ull << 24;
// The most threads a launch takes (the tags and the per-thread counts on the device).
inline constexpr std::uint64_t kRcuBenchGpuMaxThreads = 1ull << 22;

struct RcuBenchGpuRun {
  gelado::RcuListSummary summary;  // the last timed launch's
  std::string verification;        // "" when every launch verified
  std::vector<double> kernel_ms;   // each timed launch
  double median_ms = 0;
  std::uint64_t max_steps = 0;  // the bound used
};

// InputError naming the parameter (no device needed): threads 0 or above the limit, nodes above
// threads, block not a multiple of 32 or above 1024, repeats 0.
void check_rcu_bench_gpu(const RcuBenchGpuOptions& o);

RcuBenchGpuRun run_rcu_bench_gpu(const RcuBenchGpuOptions& o);

}  // namespace alloclab::gpu
