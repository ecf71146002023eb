// RW-BM (paper 000, Sec. 4.1): the allocation kernel over its device-side API (rwbm.cuh: one
// random word per step, a free bit claimed with atomicOr, lost claims retried on the returned
// value) and its registration. `--bit-choice` (core/bit_choice.hpp, a template parameter: lowest
// compiles to the original loop) replaces "lowest free bit" by a random free bit ranked by the
// low 32 bits of the probe number, or by the first free bit at or after lane * w / lanes; the
// probed words stay those of bitmap_probe_word. Free clears one bit per page (the bitmap pool's
// launch_bitmap_free).
#include "bit_choice_dispatch.cuh"
#include "gpu_entry.cuh"
#include "page_heap_entry.cuh"
#include "rwbm.cuh"

namespace alloclab::gpu::detail {
namespace {

template <typename Word, bool kCounters, BitChoice kChoice>
__global__ void rwbm_alloc_kernel(KernelArgs a, BitmapView pool) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= a.N || !asks(a, i)) return;
  const RwbmDevice<Word, kChoice> rwbm{pool, a.seed, a.max_steps, a.lanes};
  std::uint64_t k = 0;  // this thread's probe counter, continued across its requests
  for (unsigned r = 0; r < a.per_thread; ++r) {
    const PageRequest got = rwbm.malloc_page(i, k);
    record_request<kCounters>(a, r, i, got.page, got.steps, got.lost, got.atomics);
  }
}

template <typename Word, BitChoice kChoice>
void launch_alloc(const KernelArgs& a, const BitmapView& pool, bool counters) {
  if (counters)
    rwbm_alloc_kernel<Word, true, kChoice><<<blocks_for(a.N, a.block), a.block>>>(a, pool);
  else
    rwbm_alloc_kernel<Word, false, kChoice><<<blocks_for(a.N, a.block), a.block>>>(a, pool);
}

template <typename Word>
void launch_alloc(const KernelArgs& a, const BitmapView& pool, bool counters) {
  dispatch_bit_choice<BitChoice::lowest, BitChoice::random, BitChoice::rotated>(
      a.bit_choice,
      [&](auto choice) { launch_alloc<Word, decltype(choice)::value>(a, pool, counters); });
}

void launch_rwbm_alloc(const KernelArgs& a, const BitmapView& pool, bool counters) {
  if (pool.w == 32)
    launch_alloc<std::uint32_t>(a, pool, counters);
  else
    launch_alloc<std::uint64_t>(a, pool, counters);
  ALLOCLAB_CUDA_LAUNCH();
}

// The kernel launch_rwbm_alloc runs for (a, pool, counters).
template <typename Word>
const void* alloc_kernel_of(const KernelArgs& a, bool counters) {
  const void* kernel = nullptr;
  dispatch_bit_choice<BitChoice::lowest, BitChoice::random, BitChoice::rotated>(
      a.bit_choice, [&](auto choice) {
        constexpr BitChoice c = decltype(choice)::value;
        kernel = counters ? reinterpret_cast<const void*>(&rwbm_alloc_kernel<Word, true, c>)
                          : reinterpret_cast<const void*>(&rwbm_alloc_kernel<Word, false, c>);
      });
  return kernel;
}

KernelRegisters rwbm_registers(const KernelArgs& a, const BitmapView& pool, bool counters) {
  return {registers_of(pool.w == 32 ? alloc_kernel_of<std::uint32_t>(a, counters)
                                    : alloc_kernel_of<std::uint64_t>(a, counters)),
          bitmap_free_registers(pool)};
}

}  // namespace

ALLOCLAB_REGISTER_ENTRY(GpuTable, Algorithm::rwbm,
                        (gpu_entry(GpuTraits<BitmapPool>{.alloc = &launch_rwbm_alloc,
                                                         .free = &launch_bitmap_free,
                                                         .registers = &rwbm_registers})))

// Its page heap for the case studies (page_heap_entry.cuh): 32-bit words, the first free bit.
ALLOCLAB_REGISTER_ENTRY(PageHeapTable, Algorithm::rwbm,
                        (page_heap_entry<RwbmDevice<std::uint32_t, BitChoice::lowest>>()))

}  // namespace alloclab::gpu::detail
