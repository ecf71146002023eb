// Baseline: CUDA device malloc/free, one request of pages * page_bytes bytes per thread (k with
// per_thread), over the device heap pool (device_heap.cuh), which sets the heap limit before the
// first malloc kernel. The result slot holds the address (kFailed for a null pointer), so the
// same sort-and-compare verification proves the ranges disjoint.
#include "device_heap.cuh"
#include "gpu_entry.cuh"

namespace alloclab::gpu::detail {
namespace {

__global__ void cudamalloc_alloc_kernel(KernelArgs a, HeapView pool) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= a.N || !asks(a, i)) return;
  const std::uint64_t bytes = a.bytes_of ? a.bytes_of[i] : pool.page_bytes * a.pages;
  for (unsigned r = 0; r < a.per_thread; ++r) {
    void* ptr = malloc(bytes);
    a.page[r * a.N + i] = ptr ? reinterpret_cast<std::uint64_t>(ptr) : kFailed;
  }
}

__global__ void cudamalloc_free_kernel(KernelArgs a, HeapView) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= a.N * a.per_thread) return;
  if (a.page[i] != kFailed) free(reinterpret_cast<void*>(a.page[i]));
}

// No steps to count: `counters` is ignored.
void launch_cudamalloc_alloc(const KernelArgs& a, const HeapView& pool, bool) {
  cudamalloc_alloc_kernel<<<blocks_for(a.N, a.block), a.block>>>(a, pool);
  ALLOCLAB_CUDA_LAUNCH();
}

void launch_cudamalloc_free(const KernelArgs& a, const HeapView& pool) {
  cudamalloc_free_kernel<<<blocks_for(a.N * a.per_thread, 256), 256>>>(a, pool);
  ALLOCLAB_CUDA_LAUNCH();
}

KernelRegisters cudamalloc_registers(const KernelArgs&, const HeapView&, bool) {
  return {registers_of(reinterpret_cast<const void*>(&cudamalloc_alloc_kernel)),
          registers_of(reinterpret_cast<const void*>(&cudamalloc_free_kernel))};
}

}  // namespace

// A null pointer from malloc is the device's out-of-memory answer.
ALLOCLAB_REGISTER_ENTRY(GpuTable, Algorithm::cudamalloc,
                        (gpu_entry(GpuTraits<DeviceHeap>{.alloc = &launch_cudamalloc_alloc,
                                                         .free = &launch_cudamalloc_free,
                                                         .out_of_memory = OutOfMemory::device,
                                                         .registers = &cudamalloc_registers})))

}  // namespace alloclab::gpu::detail
