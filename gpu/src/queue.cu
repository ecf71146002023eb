// The queue baseline (Ouroboros-style page queue, paper 000 Eq. 1): a ring of the A free page ids
// in page order; each request takes ticket = atomicAdd(head, 1) and gets queue[ticket] if
// ticket < A (else it fails: out of memory). Steps = ticket + 1 (the thread served k-th waits for
// k positions), as the registry defines it. Free pushes at the tail.
#include "gpu_entry.cuh"
#include "queue_pool.cuh"

namespace alloclab::gpu::detail {
namespace {

template <bool kCounters>
__global__ void queue_alloc_kernel(KernelArgs a, QueueView pool) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= a.N) return;
  for (unsigned r = 0; r < a.per_thread; ++r) {
    const unsigned long long ticket = atomicAdd(&pool.head[0], 1ull);
    // Tickets past the tail fail; the ring holds A entries (tail starts at A).
    record_request<kCounters>(a, r, i, ticket < a.A ? pool.ring[ticket % a.A] : kFailed,
                              static_cast<std::uint32_t>(ticket + 1), 0);
  }
}

__global__ void queue_free_kernel(KernelArgs a, QueueView pool) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= a.N * a.per_thread) return;
  const std::uint64_t p = a.page[i];
  if (p == kFailed) return;
  const unsigned long long t = atomicAdd(&pool.head[1], 1ull);
  pool.ring[t % a.A] = static_cast<std::uint32_t>(p);
}

void launch_queue_alloc(const KernelArgs& a, const QueueView& pool, bool counters) {
  if (counters)
    queue_alloc_kernel<true><<<blocks_for(a.N, 256), 256>>>(a, pool);
  else
    queue_alloc_kernel<false><<<blocks_for(a.N, 256), 256>>>(a, pool);
  ALLOCLAB_CUDA_LAUNCH();
}

void launch_queue_free(const KernelArgs& a, const QueueView& pool) {
  queue_free_kernel<<<blocks_for(a.N * a.per_thread, 256), 256>>>(a, pool);
  ALLOCLAB_CUDA_LAUNCH();
}

}  // namespace

// Tickets past the A free pages fail at once: the pool counts out of memory exactly.
ALLOCLAB_REGISTER_ENTRY(GpuTable, Algorithm::queue,
                        (gpu_entry(GpuTraits<QueuePool>{
                            .alloc = &launch_queue_alloc,
                            .free = &launch_queue_free,
                            .out_of_memory = OutOfMemory::counted_by_pool})))

}  // namespace alloclab::gpu::detail
