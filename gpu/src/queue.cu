// The queue baseline (Ouroboros-style page queue, paper 000 Eq. 1): the allocation and free
// kernels over its device-side API (queue.cuh: a ticket per request, served below the tail,
// given back above it; frees push at the tail) and its registration. Steps = the ticket's
// position in the launch + 1 (the thread served k-th waits for k positions), as the registry
// defines it.
#include "gpu_entry.cuh"
#include "page_heap_entry.cuh"
#include "queue.cuh"

namespace alloclab::gpu::detail {
namespace {

template <bool kCounters>
__global__ void queue_alloc_kernel(KernelArgs a, QueueView pool) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= a.N || !asks(a, i)) return;
  const QueueDevice queue{pool, a.A};
  for (unsigned r = 0; r < a.per_thread; ++r) {
    const PageRequest got = queue.malloc_page();
    record_request<kCounters>(a, r, i, got.page, got.steps, 0, got.atomics);
  }
}

__global__ void queue_free_kernel(KernelArgs a, QueueView pool) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= a.N * a.per_thread) return;
  if (a.page[i] != kFailed) QueueDevice{pool, a.A}.free_page(a.page[i]);
}

void launch_queue_alloc(const KernelArgs& a, const QueueView& pool, bool counters) {
  if (counters)
    queue_alloc_kernel<true><<<blocks_for(a.N, a.block), a.block>>>(a, pool);
  else
    queue_alloc_kernel<false><<<blocks_for(a.N, a.block), a.block>>>(a, pool);
  ALLOCLAB_CUDA_LAUNCH();
}

void launch_queue_free(const KernelArgs& a, const QueueView& pool) {
  queue_free_kernel<<<blocks_for(a.N * a.per_thread, 256), 256>>>(a, pool);
  ALLOCLAB_CUDA_LAUNCH();
}

KernelRegisters queue_registers(const KernelArgs&, const QueueView&, bool counters) {
  const void* alloc = counters ? reinterpret_cast<const void*>(&queue_alloc_kernel<true>)
                               : reinterpret_cast<const void*>(&queue_alloc_kernel<false>);
  return {registers_of(alloc), registers_of(reinterpret_cast<const void*>(&queue_free_kernel))};
}

}  // namespace

// Tickets past the A free pages fail at once: the pool counts out of memory exactly.
ALLOCLAB_REGISTER_ENTRY(GpuTable, Algorithm::queue,
                        (gpu_entry(GpuTraits<QueuePool>{
                            .alloc = &launch_queue_alloc,
                            .free = &launch_queue_free,
                            .out_of_memory = OutOfMemory::counted_by_pool,
                            .registers = &queue_registers})))

// Its page heap for the case studies (page_heap_entry.cuh).
ALLOCLAB_REGISTER_ENTRY(PageHeapTable, Algorithm::queue, (page_heap_entry<QueueDevice>()))

}  // namespace alloclab::gpu::detail
