// The GPU workload's input checks that need no device (workload_input.cpp), shared by the CUDA
// build (workload.cu adds the allocator's own GPU checks) and the host-only stub.
#pragma once

#include "alloclab/gpu/workload.hpp"
#include "input_checks.hpp"

namespace alloclab::gpu::detail {

inline constexpr std::uint64_t kMaxLaunchThreads = 1ull << 31;
// Allocators of runs of pages find a run inside one bitmap word; workloads use 32-bit words.
inline constexpr unsigned kRunWordBits = 32;

void check_workload_registry_input(Algorithm algo, const Workload& w, const WorkloadOptions& o);
std::uint64_t workload_heap_bytes(Algorithm algo, const Workload& w, const WorkloadOptions& o);

}  // namespace alloclab::gpu::detail
