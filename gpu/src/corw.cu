// CoRW (paper 000, Algorithm 2): the allocation kernel over its device-side API (corw.cuh: the
// rule, its deviations from Algorithm 2, the bit orders and the fast paths) and its registration.
// `--bit-choice` (core/bit_choice.hpp): lowest, the paper's, or rotated (each lane's bit order
// rotated by lane * w / 32), a template parameter of the one kernel body. Free clears one bit per
// page, as for RW-BM (the bitmap pool's launch_bitmap_free).
#include "alloclab/core/errors.hpp"
#include "bit_choice_dispatch.cuh"
#include "corw.cuh"
#include "gpu_entry.cuh"
#include "page_heap_entry.cuh"

namespace alloclab::gpu::detail {
namespace {

// The most threads per block the kernel is compiled for (--block above it is an input error).
constexpr unsigned kBlock = 256;

template <typename Word, bool kCounters, BitChoice kChoice>
__global__ void __launch_bounds__(kBlock) corw_alloc_kernel(KernelArgs a, BitmapView pool) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= a.N) return;
  // The warp's live lanes are lanes 0 .. member_count-1: all of them call malloc_page together.
  const std::uint64_t warp_base = i - threadIdx.x % 32;
  const unsigned member_count =
      a.N - warp_base >= 32 ? 32u : static_cast<unsigned>(a.N - warp_base);
  const unsigned members = member_count == 32 ? 0xffffffffu : ((1u << member_count) - 1u);
  // A lane that does not ask (workloads) still reads and offers its word's free bits.
  const bool asking = asks(a, i);
  const CorwDevice<Word, kChoice> corw{pool, a.seed, a.max_steps};
  CorwLane me = corw.lane(i);  // this lane's probe stream, continued across its requests
  for (unsigned r = 0; r < a.per_thread; ++r) {
    const PageRequest got = corw.malloc_page(me, members, asking);
    if (asking) {
      record_request<kCounters>(a, r, i, got.page, got.steps, got.lost, got.atomics);
      record_extra_lost_bits<kCounters>(a, r, i, got.extra_lost_bits);
    } else {
      record_helper_atomics<kCounters>(a, r, i, got.atomics);
    }
  }
}

template <typename Word, BitChoice kChoice>
void launch_alloc(const KernelArgs& a, const BitmapView& pool, bool counters) {
  if (counters)
    corw_alloc_kernel<Word, true, kChoice><<<blocks_for(a.N, a.block), a.block>>>(a, pool);
  else
    corw_alloc_kernel<Word, false, kChoice><<<blocks_for(a.N, a.block), a.block>>>(a, pool);
}

template <typename Word>
void launch_alloc(const KernelArgs& a, const BitmapView& pool, bool counters) {
  dispatch_bit_choice<BitChoice::lowest, BitChoice::rotated>(a.bit_choice, [&](auto choice) {
    launch_alloc<Word, decltype(choice)::value>(a, pool, counters);
  });
}

void launch_corw_alloc(const KernelArgs& a, const BitmapView& pool, bool counters) {
  if (pool.w == 32)
    launch_alloc<std::uint32_t>(a, pool, counters);
  else
    launch_alloc<std::uint64_t>(a, pool, counters);
  ALLOCLAB_CUDA_LAUNCH();
}

void check_corw(const Scenario&, const MeasureOptions& o) {
  if (o.block > kBlock)
    throw InputError("--block", "the CoRW kernel is compiled for at most " +
                                    std::to_string(kBlock) + " threads per block");
}

// The kernel launch_corw_alloc runs for (a, pool, counters).
template <typename Word>
const void* alloc_kernel_of(const KernelArgs& a, bool counters) {
  const void* kernel = nullptr;
  dispatch_bit_choice<BitChoice::lowest, BitChoice::rotated>(a.bit_choice, [&](auto choice) {
    constexpr BitChoice c = decltype(choice)::value;
    kernel = counters ? reinterpret_cast<const void*>(&corw_alloc_kernel<Word, true, c>)
                      : reinterpret_cast<const void*>(&corw_alloc_kernel<Word, false, c>);
  });
  return kernel;
}

KernelRegisters corw_registers(const KernelArgs& a, const BitmapView& pool, bool counters) {
  return {registers_of(pool.w == 32 ? alloc_kernel_of<std::uint32_t>(a, counters)
                                    : alloc_kernel_of<std::uint64_t>(a, counters)),
          bitmap_free_registers(pool)};
}

}  // namespace

// A warp of 32 lanes (Capabilities.warp_collective: the driver checks lanes = 32).
ALLOCLAB_REGISTER_ENTRY(GpuTable, Algorithm::corw,
                        (gpu_entry(GpuTraits<BitmapPool>{.alloc = &launch_corw_alloc,
                                                         .free = &launch_bitmap_free,
                                                         .check = &check_corw,
                                                         .registers = &corw_registers})))

// Its page heap for the case studies (page_heap_entry.cuh): 32-bit words, the first free bit.
ALLOCLAB_REGISTER_ENTRY(PageHeapTable, Algorithm::corw,
                        (page_heap_entry<CorwDevice<std::uint32_t, BitChoice::lowest>>()))

}  // namespace alloclab::gpu::detail
