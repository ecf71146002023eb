// The GPU backend's table of allocators (core/backend_table.hpp). Each allocator's .cu composes
// its entry from a pool policy (pool_policy.cuh) and its own traits - alloc/free launches, how it
// runs out of memory, its own input checks - and registers it:
//
//   ALLOCLAB_REGISTER_ENTRY(GpuTable, Algorithm::rw,
//                           gpu_entry(GpuTraits<BitmapPool>{.alloc = ..., .free = ...}))
//
// measure() is then a lookup in GpuTable plus the generic driver of measure.cu.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "alloclab/core/backend_table.hpp"
#include "common.cuh"
#include "pool_policy.cuh"

namespace alloclab::gpu::detail {

// How a request that cannot be served shows, which decides what the driver checks.
enum class OutOfMemory {
  counted_by_pool,  // the pool serves an exact count (the queue: min(N*k, A)); its pool checks it
  step_bound,       // a request fails only when it reaches --max-steps
  device,           // the device says so (device malloc returns null); nothing to check
  exhausted,        // the allocator has nothing left for the request's class (Ouroboros: no free
                    // chunk); its pool checks what it handed out against its own counters
};

// The kernels' arguments a scenario and the measurement options fix (seed: the scenario's, as
// given). Both drivers (measure.cu, workload.cu) start from it, so a scenario field the kernels
// read cannot reach one driver and not the other.
inline KernelArgs kernel_args(const Scenario& s, const MeasureOptions& o) {
  KernelArgs a;
  a.N = s.N;
  a.A = s.A;
  a.T = s.T;
  a.lanes = s.lanes;
  a.pages = s.pages;
  a.bit_choice = s.bit_choice;
  a.per_thread = o.per_thread;
  a.seed = s.seed;
  a.max_steps = o.max_steps;
  a.block = o.block;
  return a;
}

// Registers per thread of an allocator's allocation and free kernels (cudaFuncGetAttributes'
// numRegs): the instantiations a launch with these arguments would run.
struct KernelRegisters {
  int alloc = 0, free = 0;
};

// numRegs of a __global__ function.
inline int registers_of(const void* kernel) {
  cudaFuncAttributes attributes{};
  ALLOCLAB_CUDA(cudaFuncGetAttributes(&attributes, kernel));
  return attributes.numRegs;
}

// The registers of an allocator whose allocation kernel is `with` or `without` the counters
// (pointers to the __global__ instantiations) and whose free kernel is `free`.
inline KernelRegisters kernel_registers(bool counters, const void* with, const void* without,
                                        const void* free) {
  return {registers_of(counters ? with : without), registers_of(free)};
}

// One allocator bound to its pool for one measure() call.
class GpuAllocator {
 public:
  virtual ~GpuAllocator() = default;
  virtual PoolPolicy& pool() = 0;
  virtual void alloc(const KernelArgs& a, bool counters) = 0;
  virtual void free(const KernelArgs& a) = 0;
  // What alloc(a, counters) and free(a) would run, where the allocator's entry says
  // (GpuTraits::registers); nullopt otherwise.
  virtual std::optional<KernelRegisters> registers(const KernelArgs&, bool) const {
    return std::nullopt;
  }
};

struct GpuEntry {
  OutOfMemory out_of_memory = OutOfMemory::step_bound;
  // The pool's and the allocator's own input checks (InputError); no device needed.
  std::function<void(const Scenario&, const MeasureOptions&)> check;
  // Device malloc heap the run needs (0: none); fixed per process before the first malloc kernel.
  std::function<std::uint64_t(const Scenario&, const MeasureOptions&)> device_heap_bytes;
  std::function<std::unique_ptr<GpuAllocator>(const Scenario&, const MeasureOptions&,
                                              const KernelArgs&)>
      make;
  std::vector<std::string> op_count_names;  // GpuTraits::op_count_names
  // Its pool is CUDA's malloc heap (the heap is sized for it before the first malloc kernel).
  bool uses_device_heap = false;
};
using GpuTable = BackendTable<GpuEntry>;

// The entry of an allocator the registry declares on the gpu backend (std::logic_error where its
// file registered none: a build mistake, not the user's).
inline const GpuEntry& gpu_entry_for(Algorithm algo) {
  const GpuEntry* e = GpuTable::instance().find(algo);
  if (!e)
    throw std::logic_error("the registry declares '" + std::string(name(algo)) +
                           "' on the gpu backend but no GPU entry is registered for it");
  return *e;
}

// An allocator's GPU traits over pool policy Pool.
template <typename Pool>
struct GpuTraits {
  using View = typename Pool::View;
  void (*alloc)(const KernelArgs&, const View&, bool counters) = nullptr;
  void (*free)(const KernelArgs&, const View&) = nullptr;
  OutOfMemory out_of_memory = OutOfMemory::step_bound;
  void (*check)(const Scenario&, const MeasureOptions&) = nullptr;  // beyond the pool's checks
  // The allocator's own counts, in the order its kernels pass them to record_op_counts (with the
  // counters on, the driver keeps their totals: KernelArgs::op_counts); empty: none.
  std::span<const char* const> op_count_names = {};
  // The registers per thread of the kernels alloc(a, view, counters) and free(a, view) launch
  // (registers_of each); null: not reported (the row's columns stay empty).
  KernelRegisters (*registers)(const KernelArgs&, const View&, bool counters) = nullptr;
};

template <typename Pool>
class PooledAllocator final : public GpuAllocator {
 public:
  PooledAllocator(const GpuTraits<Pool>& traits, const Scenario& s, const MeasureOptions& o,
                  const KernelArgs& a)
      : traits_(traits), pool_(s, o, a) {}
  PoolPolicy& pool() override { return pool_; }
  void alloc(const KernelArgs& a, bool counters) override {
    traits_.alloc(a, pool_.view(), counters);
  }
  void free(const KernelArgs& a) override { traits_.free(a, pool_.view()); }
  std::optional<KernelRegisters> registers(const KernelArgs& a, bool counters) const override {
    if (!traits_.registers) return std::nullopt;
    return traits_.registers(a, pool_.view(), counters);
  }

 private:
  GpuTraits<Pool> traits_;
  Pool pool_;
};

template <typename Pool>
GpuEntry gpu_entry(const GpuTraits<Pool>& traits) {
  GpuEntry e;
  e.out_of_memory = traits.out_of_memory;
  e.op_count_names.assign(traits.op_count_names.begin(), traits.op_count_names.end());
  e.check = [traits](const Scenario& s, const MeasureOptions& o) {
    Pool::check(s, o);
    if (traits.check) traits.check(s, o);
  };
  e.uses_device_heap = requires(const Scenario& s, const MeasureOptions& o) {
    Pool::device_heap_bytes(s, o);
  };
  e.device_heap_bytes = [](const Scenario& s, const MeasureOptions& o) -> std::uint64_t {
    if constexpr (requires { Pool::device_heap_bytes(s, o); })
      return Pool::device_heap_bytes(s, o);
    else
      return 0;
  };
  e.make = [traits](const Scenario& s, const MeasureOptions& o, const KernelArgs& a) {
    return std::unique_ptr<GpuAllocator>(new PooledAllocator<Pool>(traits, s, o, a));
  };
  return e;
}

}  // namespace alloclab::gpu::detail
