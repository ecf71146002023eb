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
  if (i >= a.N || !asks(a, i)) return;
  // Frees run in their own kernel, never during this one: the tail is fixed here.
  const unsigned long long tail = __ldcg(&pool.head[1]);
  const unsigned long long base = __ldcg(&pool.head[2]);
  for (unsigned r = 0; r < a.per_thread; ++r) {
    const unsigned long long ticket = atomicAdd(&pool.head[0], 1ull);
    // Tickets past the tail fail and are given back: the first failure happens only once all
    // tickets below the tail are drawn, so a returned ticket is never one a later request could
    // be served by, and after the kernel head = min(tail, tickets drawn) (frees pushed at the
    // tail stay reachable). The ring holds A entries (tail starts at A).
    const bool served = ticket < tail;
    if (!served) atomicAdd(&pool.head[0], ~0ull);
    // The request served k-th in this launch waited for k tickets (base: head at its start).
    // Atomics: the ticket, and the give-back of a failed one.
    record_request<kCounters>(a, r, i, served ? pool.ring[ticket % a.A] : kFailed,
                              static_cast<std::uint32_t>(ticket - base + 1), 0, served ? 1u : 2u);
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
    queue_alloc_kernel<true><<<blocks_for(a.N, a.block), a.block>>>(a, pool);
  else
    queue_alloc_kernel<false><<<blocks_for(a.N, a.block), a.block>>>(a, pool);
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
