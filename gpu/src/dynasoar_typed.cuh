// The typed heap of byte sizes on the device (alloclab/gpu/dynasoar_apps.hpp): core/dynasoar's heap
// with Heap::caps on the device, its allocation and free kernels over the shared step machines
// (dynasoar_serve.cuh), parallel_do's enumeration, and the host record and check at rest that
// follow every batch. The applications (dynasoar_wator.cu, linux-scalability) drive it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "alloclab/core/backend_table.hpp"
#include "alloclab/core/dynasoar/heap_storage.hpp"
#include "alloclab/gpu/dynasoar_apps.hpp"
#include "device.cuh"
#include "dynasoar_gpu.cuh"

namespace alloclab::gpu::detail {

// What an allocator with a typed heap on the GPU is: whether a warp's lanes of one type coalesce
// and whether lookups rotate (§4.2). Registered from the allocator's file (dynasoar.cu).
struct GpuTypedHeapEntry {
  bool coalesce = true;
  bool rotate = true;
};
using GpuTypedHeapTable = BackendTable<GpuTypedHeapEntry>;

// parallel_do over the live objects of one type (§3.7), set up by TypedDeviceHeap::parallel_do:
// R = allocated[T].indices() (ascending) and each block's iteration bitmap (its allocation bitmap
// at the set-up, the preset bits dropped); thread tid of the do-all looks at slot tid mod N_T of
// block R[tid / N_T] (N_T consecutive threads a block) and has an object where the snapshot's bit
// is set.
struct DoAll {
  const std::uint64_t* blocks = nullptr;
  const std::uint64_t* iteration = nullptr;
  std::uint64_t count = 0;  // |R|
  unsigned capacity = 1;    // N_T
  __host__ __device__ std::uint64_t threads() const { return count * capacity; }
  __device__ bool object(std::uint64_t tid, std::uint64_t& block, unsigned& slot) const {
    const std::uint64_t k = tid / capacity;
    if (k >= count) return false;
    slot = static_cast<unsigned>(tid % capacity);
    block = blocks[k];
    return (iteration[k] >> slot) & 1u;
  }
  // The calling thread's index and object (its typed key) in this parallel_do; false for a
  // thread past the last block or on a slot the snapshot found free.
  __device__ bool this_object(std::uint64_t& tid, std::uint64_t& key) const;
};

// An object's key: block * 64 + slot (kFailed: none).
__host__ __device__ inline std::uint64_t typed_key(std::uint64_t block, unsigned slot) {
  return block * 64 + slot;
}

__device__ inline bool DoAll::this_object(std::uint64_t& tid, std::uint64_t& key) const {
  tid = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  std::uint64_t block = 0;
  unsigned slot = 0;
  if (tid >= threads() || !object(tid, block, slot)) return false;
  key = typed_key(block, slot);
  return true;
}

struct TypedDeviceHeap {
  TypedDeviceHeap(Algorithm algo, const TypedHeapGpuOptions& o);

  // Back to a heap of free blocks with an empty record (the counts kept).
  void reset();
  // One allocation kernel: thread i of `threads` asks for `per_thread` objects of type d_types[i]
  // (0: none); d_out[r * threads + i] = the key of request r of thread i, or kFailed. Returns the
  // kernel's milliseconds. The record is not updated: record_allocated.
  double launch_allocate(const std::uint32_t* d_types, std::uint64_t threads, unsigned per_thread,
                         std::uint64_t* d_out);
  // One free kernel over d_keys[i] of type d_types[i] (kFailed or type 0: nothing). Returns ms.
  double launch_free(const std::uint64_t* d_keys, const std::uint32_t* d_types, std::uint64_t n);
  // The record follows a launch (host copies of its arguments and results); a slot handed out
  // twice, in a block holding another type, past the capacity, or a free of an object not live
  // is a VerificationError. Then the heap is checked at rest (check_at_rest).
  void record_allocated(const std::vector<std::uint32_t>& types, unsigned per_thread,
                        const std::vector<std::uint64_t>& keys, const char* when);
  void record_freed(const std::vector<std::uint64_t>& keys, const std::vector<std::uint32_t>& types,
                    const char* when);
  // Copies the heap back and checks it with the simulator's check at rest against the record,
  // and that no machine was abandoned or found a double free. Throws VerificationError.
  void check_at_rest(const char* when);
  // parallel_do's set-up for `type` on the device (R, the snapshot); its count read back.
  DoAll parallel_do(unsigned type);
  bool live(std::uint64_t key, unsigned type) const {
    const std::uint64_t b = key / 64;
    return b < M && ref_type[b] == type && ((ref_slots[b] >> (key % 64)) & 1u);
  }
  dynasoar::Heap device_heap() const;
  void read_counts();

  std::string name;
  GpuTypedHeapEntry variant;
  TypedHeapGpuOptions opt;
  std::uint64_t M;
  std::uint64_t free_words, type_words;
  dynasoar::HeapStorage mirror;  // the heap copied back after every batch
  std::vector<std::uint64_t> ref_slots;
  std::vector<std::uint32_t> ref_type;
  std::uint64_t live_count = 0, failed = 0, allocations = 0, frees = 0, batches = 0;
  DsCountTotals totals{};
  double last_ms = 0;
  DeviceBuffer<std::uint64_t> words;  // free | typed bitmaps | block bitmaps
  DeviceBuffer<std::uint32_t> types;
  DeviceBuffer<std::uint8_t> caps;
  DeviceBuffer<DsMisc> misc;
  DeviceBuffer<unsigned long long> counts;
  DeviceBuffer<std::uint32_t> word_counts, word_offsets;  // parallel_do's scan
  DeviceBuffer<std::uint64_t> do_blocks, do_iteration;
  DeviceBuffer<std::uint8_t> scan_temp;
  EventTimer timer;
};

}  // namespace alloclab::gpu::detail

namespace alloclab::gpu {
struct TypedHeapGpu::Impl : detail::TypedDeviceHeap {
  using TypedDeviceHeap::TypedDeviceHeap;
};
}  // namespace alloclab::gpu
