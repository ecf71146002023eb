// Figure 5's benchmark of Gelado & Garland (core/gelado/semaphore_bench.hpp) on the GPU: one
// CUDA thread per simulated thread running the same step machine, spinning with a short
// __nanosleep back-off. Plain C++ (no CUDA types); built without CUDA it throws NoDevice.
//
// Every launch is verified (each thread's outcome and unit check, the shared words:
// verify_sem_bench). The timed launches store one byte per thread; one more launch with
// counters stores each thread's counts and the peak of concurrent growers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "alloclab/core/gelado/semaphore_bench_summary.hpp"
#include "alloclab/gpu/measure.hpp"

namespace alloclab::gpu {

struct SemaphoreBenchGpuOptions {
  gelado::SemBenchConfig config;  // batches_available 0: ceil(threads / B)
  std::uint64_t threads = 1u << 20;
  // Lane 0 of each warp asks for its 32 lanes at once (warp aggregation); threads a multiple of
  // 32. The summary's requesters are then threads / 32.
  bool warp = false;
  unsigned block = 256;
  std::uint64_t max_steps = 0;  // per thread; 0 = kSemBenchGpuSteps
  unsigned repeats = 5;         // timed launches (median)
  unsigned warmup = 1;          // untimed launches first
  // A thread that lost a CAS or keeps waiting sleeps 32 ns, doubling each time in a row, up to
  // this (__nanosleep). A short cap lets every thread hammer the one word: the lost CASes crowd
  // out the successful ones (studies/gelado-garland/figure-5.md, "Figure 5 on the H200").
  std::uint32_t backoff_max_ns = 256;
};

// A thread's bound on the GPU: with 256 ns back-offs, a few seconds at most.
inline constexpr std::uint64_t kSemBenchGpuSteps = 1ull << 24;

struct SemaphoreBenchGpuRun {
  gelado::SemBenchSummary summary;  // the counters launch's
  std::string verification;         // "" when every launch verified
  std::vector<double> kernel_ms;    // each timed launch
  double median_ms = 0;
  std::uint64_t peak_growers = 0;  // the counters launch's
  std::uint64_t max_steps = 0;     // the bound used
};

// InputError naming the parameter (no device needed): threads 0, batch 0, block not a multiple
// of 32 or above 1024, the bulk word's ranges.
void check_semaphore_bench_gpu(const SemaphoreBenchGpuOptions& o);

SemaphoreBenchGpuRun run_semaphore_bench_gpu(const SemaphoreBenchGpuOptions& o);

}  // namespace alloclab::gpu
