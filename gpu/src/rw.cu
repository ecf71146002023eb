// RW (paper 000, Algorithm 1): probe one random page per step; claim it with one atomicOr on its
// bit of the bitmap (the paper keeps a used flag per page; one bit per page is the same protocol
// at 1/32 of the memory). The device-side API is rw.cuh; this file is its allocation kernel and
// registration.
#include "gpu_entry.cuh"
#include "page_heap_entry.cuh"
#include "rw.cuh"

namespace alloclab::gpu::detail {
namespace {

template <bool kCounters>
__global__ void rw_alloc_kernel(KernelArgs a, BitmapView pool) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= a.N || !asks(a, i)) return;
  const RwDevice rw{pool, a.T, a.seed, a.max_steps};
  std::uint64_t k = 0;  // this thread's probe counter, continued across its requests
  for (unsigned r = 0; r < a.per_thread; ++r) {
    const PageRequest got = rw.malloc_page(i, k);
    record_request<kCounters>(a, r, i, got.page, got.steps, got.lost, got.atomics);
  }
}

void launch_rw_alloc(const KernelArgs& a, const BitmapView& pool, bool counters) {
  if (counters)
    rw_alloc_kernel<true><<<blocks_for(a.N, a.block), a.block>>>(a, pool);
  else
    rw_alloc_kernel<false><<<blocks_for(a.N, a.block), a.block>>>(a, pool);
  ALLOCLAB_CUDA_LAUNCH();
}

KernelRegisters rw_registers(const KernelArgs&, const BitmapView& pool, bool counters) {
  const void* alloc = counters ? reinterpret_cast<const void*>(&rw_alloc_kernel<true>)
                               : reinterpret_cast<const void*>(&rw_alloc_kernel<false>);
  return {registers_of(alloc), bitmap_free_registers(pool)};
}

}  // namespace

// One bit per page in 32-bit words (RW has no --w: Capabilities.bitmap_words is false).
ALLOCLAB_REGISTER_ENTRY(GpuTable, Algorithm::rw,
                        (gpu_entry(GpuTraits<BitmapPool>{.alloc = &launch_rw_alloc,
                                                         .free = &launch_bitmap_free,
                                                         .registers = &rw_registers})))

// Its page heap for the case studies (page_heap_entry.cuh).
ALLOCLAB_REGISTER_ENTRY(PageHeapTable, Algorithm::rw, (page_heap_entry<RwDevice>()))

}  // namespace alloclab::gpu::detail
