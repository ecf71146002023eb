// RW (paper 000, Algorithm 1): probe one random page per step; claim it with one atomicOr on its
// bit of the bitmap (the paper keeps a used flag per page; one bit per page is the same protocol
// at 1/32 of the memory). A step = one probe (rw_probe_page); a lost claim is a collision.
#include "bitmap_pool.cuh"
#include "gpu_entry.cuh"

namespace alloclab::gpu::detail {
namespace {

template <bool kCounters>
__global__ void rw_alloc_kernel(KernelArgs a, BitmapView pool) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= a.N || !asks(a, i)) return;
  auto* bitmap = static_cast<std::uint32_t*>(pool.bitmap);
  std::uint64_t k = 0;  // this thread's probe counter, continued across its requests
  for (unsigned r = 0; r < a.per_thread; ++r) {
    std::uint32_t steps = 0, lost = 0;
    std::uint64_t got = kFailed;
    while (steps < a.max_steps) {
      const std::uint64_t p = rw_probe_page(a.seed, i, k++, a.T);
      ++steps;
      const std::uint32_t bit = 1u << (p % 32);
      if (load_word(&bitmap[p / 32]) & bit) continue;
      if (!(atomicOr(&bitmap[p / 32], bit) & bit)) {
        got = p;
        break;
      }
      ++lost;
    }
    // Every atomicOr either won (once) or was lost.
    record_request<kCounters>(a, r, i, got, steps, lost, lost + (got != kFailed ? 1u : 0u));
  }
}

void launch_rw_alloc(const KernelArgs& a, const BitmapView& pool, bool counters) {
  if (counters)
    rw_alloc_kernel<true><<<blocks_for(a.N, a.block), a.block>>>(a, pool);
  else
    rw_alloc_kernel<false><<<blocks_for(a.N, a.block), a.block>>>(a, pool);
  ALLOCLAB_CUDA_LAUNCH();
}

}  // namespace

// One bit per page in 32-bit words (RW has no --w: Capabilities.bitmap_words is false).
ALLOCLAB_REGISTER_ENTRY(GpuTable, Algorithm::rw,
                        (gpu_entry(GpuTraits<BitmapPool>{.alloc = &launch_rw_alloc,
                                                         .free = &launch_bitmap_free})))

}  // namespace alloclab::gpu::detail
