// `alloclab workload --types 60,64 --backend gpu`: the workload families over the GPU's typed heap
// (dynasoar_apps.hpp's TypedHeapGpu: one allocation kernel and one free kernel per batch, the heap
// checked at rest on the host after every kernel) through the driver shared with the simulator
// (core/dynasoar/typed_workload.hpp). Plain C++; without CUDA, or without a device, NoDevice.
#pragma once

#include <cstdint>

#include "alloclab/core/algorithm.hpp"
#include "alloclab/core/workload.hpp"
#include "alloclab/core/workload_result.hpp"

namespace alloclab::gpu {

struct TypedWorkloadGpuOptions {
  unsigned retries = 5;  // r: active lookups before the slow path (the paper's 5)
  unsigned repeats = 1;  // each on a heap built anew; counts may differ (the schedule decides)
  // Untimed runs of the first allocation batch and its frees, each on a heap of its own, before
  // the timed run: the first launch of a kernel in a process loads it.
  unsigned warmup = 1;
};

// InputError naming the parameter, before anything runs (no device needed): an allocator without
// a typed heap on the GPU (--allocator), and check_typed_workload's.
void check_typed_workload_input_gpu(Algorithm algo, const Workload& w,
                                    const TypedWorkloadGpuOptions& o);

// Trial `trial` (seed trial_seed(w.seed, trial)) of typed workload w on the device, o.repeats
// times; times are the kernels' (CUDA events), medians over the repeats.
WorkloadRun run_typed_workload_gpu(Algorithm algo, const Workload& w,
                                   const TypedWorkloadGpuOptions& o, std::uint64_t trial);

}  // namespace alloclab::gpu
