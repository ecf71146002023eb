// RW_malloc (paper 000, Algorithm 3): n consecutive pages per request, found by a warp in a
// window of 32 words. The device-side API is rwmalloc.cuh (RwmallocDevice::malloc_pages,
// warp-collective); this file is its allocation kernel (one call per request by the whole warp)
// and registration.
#include "alloclab/core/errors.hpp"
#include "gpu_entry.cuh"
#include "page_heap_entry.cuh"
#include "rwmalloc.cuh"

namespace alloclab::gpu::detail {
namespace {

template <typename Word, bool kCounters>
__global__ void rwmalloc_alloc_kernel(KernelArgs a, BitmapView pool) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  // The whole warp reads the window, also lanes past N in the last warp (the contract's window is
  // always `lanes` words); such lanes only help and record nothing.
  if (i - threadIdx.x % 32 >= a.N) return;
  const bool real = i < a.N;
  const bool asking = real && asks(a, i);
  const unsigned lane = threadIdx.x % 32;
  // One n per warp (Algorithm 3's n): workloads give every lane of a warp the same pages_of.
  const unsigned n = a.pages_of ? a.pages_of[i - lane] : a.pages;
  const std::uint64_t warp_base = i - lane;
  const RwmallocDevice<Word> rwmalloc{pool, a.seed, a.max_steps};
  std::uint64_t k = 0;  // the warp's window counter (uniform), continued across its requests
  for (unsigned r = 0; r < a.per_thread; ++r) {
    const PageRequest got = rwmalloc.malloc_pages(n, asking, warp_base / 32, k);
    if (!asking) {
      // Lanes past N (no slot of their own) count on the warp's first lane, which is real.
      record_helper_atomics<kCounters>(a, r, real ? i : warp_base, got.atomics);
      continue;
    }
    record_request<kCounters>(a, r, i, got.page, got.steps, got.lost, got.atomics);
  }
}

template <typename Word>
void launch_alloc(const KernelArgs& a, const BitmapView& pool, bool counters) {
  if (counters)
    rwmalloc_alloc_kernel<Word, true><<<blocks_for(a.N, a.block), a.block>>>(a, pool);
  else
    rwmalloc_alloc_kernel<Word, false><<<blocks_for(a.N, a.block), a.block>>>(a, pool);
}

void launch_rwmalloc_alloc(const KernelArgs& a, const BitmapView& pool, bool counters) {
  if (pool.w == 32)
    launch_alloc<std::uint32_t>(a, pool, counters);
  else
    launch_alloc<std::uint64_t>(a, pool, counters);
  ALLOCLAB_CUDA_LAUNCH();
}

// Runs are found inside one word (Algorithm 3 as written).
void check_rwmalloc(const Scenario& s, const MeasureOptions&) {
  if (s.pages > s.w)
    throw InputError("--pages", "GPU RW_malloc finds runs inside one word: pages <= w");
}

template <typename Word>
const void* alloc_kernel_of(bool counters) {
  return counters ? reinterpret_cast<const void*>(&rwmalloc_alloc_kernel<Word, true>)
                  : reinterpret_cast<const void*>(&rwmalloc_alloc_kernel<Word, false>);
}

KernelRegisters rwmalloc_registers(const KernelArgs&, const BitmapView& pool, bool counters) {
  return {registers_of(pool.w == 32 ? alloc_kernel_of<std::uint32_t>(counters)
                                    : alloc_kernel_of<std::uint64_t>(counters)),
          bitmap_free_registers(pool)};
}

}  // namespace

ALLOCLAB_REGISTER_ENTRY(GpuTable, Algorithm::rwmalloc,
                        (gpu_entry(GpuTraits<BitmapPool>{.alloc = &launch_rwmalloc_alloc,
                                                         .free = &launch_bitmap_free,
                                                         .check = &check_rwmalloc,
                                                         .registers = &rwmalloc_registers})))

// Its page heap for the case studies (page_heap_entry.cuh): 32-bit words, the first free bit.
ALLOCLAB_REGISTER_ENTRY(PageHeapTable, Algorithm::rwmalloc,
                        (page_heap_entry<RwmallocDevice<std::uint32_t>>()))

}  // namespace alloclab::gpu::detail
