// A plug-in's GPU entries (docs/plugin-allocators.md): the kernels that call its malloc and free
// for the drivers (measure.cu, workload.cu) over its pool (plugin_pool.cuh), and the two
// allocators it becomes, registered from the file generated for it at configure time
// (cmake/AlloclabPlugins.cmake):
//   ext-<name>       every thread that asks calls malloc(bytes) itself (a warp-collective
//                    plug-in: every lane of the warp, converged, 0 bytes where it does not ask);
//   ext-<name>-warp  one lane allocates for its warp: the lowest asking lane calls malloc once for
//                    the sum of its warp's requests and hands each asking lane its slice.
// Decisions of the per-warp variant:
//  * A slice is a 16 B header and the request rounded up to 16 B, so every object is 16 B
//    aligned (the block itself is aligned up inside a request 15 B larger where the plug-in
//    promises less). The first slice's header holds the pointer malloc returned and the count of
//    the block's live slices; the others' hold the address of the first header. free(p) takes one
//    from the count (acq_rel, device scope) and the lane that takes the last frees the block:
//    every workload family, churn included, runs on it. Its cost (16 B per object, one atomic
//    per free) is in its rows, which is the point of measuring it beside the per-thread one.
//  * A plug-in whose free must come from the allocating thread has no per-warp variant (the block
//    is freed by whichever lane frees last), nor one that declares per_warp = false: its
//    ext-<name>-warp runs on no backend (the name is declared at configure time, before anyone
//    reads the header's declarations).
#pragma once

#include <cuda/atomic>

#include <cstdint>
#include <string>
#include <string_view>

#include <alloclab/gpu/plugin.cuh>

#include "alloclab/core/algorithm.hpp"
#include "gpu_entry.cuh"
#include "plugin_pool.cuh"

namespace alloclab::gpu::detail::plugins {

// The kernels are compiled for blocks of up to 256 threads (registers to spare, as CoRW's) and
// again for up to 1024; a launch takes the smaller bound that holds its block.
constexpr unsigned kSmallBlock = 256, kLargeBlock = 1024;

// The bytes thread i asks for: its own (workloads), or pages * page bytes (measure()).
template <typename P>
__device__ __forceinline__ std::uint64_t request_bytes_of(const KernelArgs& a,
                                                          const PluginView<P>& v, std::uint64_t i) {
  return a.bytes_of ? a.bytes_of[i] : v.page_bytes * a.pages;
}

__device__ __forceinline__ std::uint64_t as_slot(const void* p) {
  return p ? reinterpret_cast<std::uint64_t>(p) : kFailed;
}

template <typename P, unsigned kBound>
__global__ void __launch_bounds__(kBound) alloc_kernel(KernelArgs a, PluginView<P> v) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  P p = v.plugin;
  if constexpr (plugin::warp_collective<P>()) {
    // Every lane of a warp calls, converged; a lane past N or not asking passes 0.
    if (i - threadIdx.x % 32 >= a.N) return;  // the whole warp is past the end
    const bool asking = i < a.N && asks(a, i);
    const std::uint64_t bytes = asking ? request_bytes_of(a, v, i) : 0;
    for (unsigned r = 0; r < a.per_thread; ++r) {
      void* got = p.malloc(bytes);
      if (asking) a.page[r * a.N + i] = as_slot(got);
    }
  } else {
    if (i >= a.N || !asks(a, i)) return;
    const std::uint64_t bytes = request_bytes_of(a, v, i);
    for (unsigned r = 0; r < a.per_thread; ++r) a.page[r * a.N + i] = as_slot(p.malloc(bytes));
  }
}

// Slot j was allocated by thread j % launch of a launch of the same block size (workloads: one
// object per thread, oom batches of `launch`; measure(): request r of thread i is slot r*N + i).
// A plug-in whose free may come from any thread gets one thread per slot; the others get the
// allocating thread's index, which frees that thread's slots.
template <typename P, unsigned kBound>
__global__ void __launch_bounds__(kBound) free_kernel(KernelArgs a, PluginView<P> v) {
  const std::uint64_t t = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  const std::uint64_t slots = a.N * a.per_thread;
  P p = v.plugin;
  if constexpr (plugin::free_from_any_thread<P>()) {
    if (t < slots && a.page[t] != kFailed) p.free(reinterpret_cast<void*>(a.page[t]));
  } else {
    if (t >= v.launch) return;
    for (std::uint64_t j = t; j < slots; j += v.launch)
      if (a.page[j] != kFailed) p.free(reinterpret_cast<void*>(a.page[j]));
  }
}

// The per-warp variant's header before each slice (see the decisions above).
struct alignas(16) SliceHeader {
  std::uint64_t link;  // the first slice's: what malloc returned; the others': the first header
  std::uint32_t live;  // the first slice's: the block's slices not yet freed
  std::uint32_t first;
};
constexpr std::uint64_t kHeaderBytes = sizeof(SliceHeader);
static_assert(kHeaderBytes == 16);

__host__ __device__ constexpr std::uint64_t round_up_16(std::uint64_t x) {
  return (x + 15) & ~std::uint64_t{15};
}

template <typename P, unsigned kBound>
__global__ void __launch_bounds__(kBound) warp_alloc_kernel(KernelArgs a, PluginView<P> v) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i - threadIdx.x % 32 >= a.N) return;  // the whole warp is past the end
  const unsigned lane = threadIdx.x % 32;
  const bool asking = i < a.N && asks(a, i);
  const std::uint64_t slice = asking ? kHeaderBytes + round_up_16(request_bytes_of(a, v, i)) : 0;
  // This lane's offset in the block: the slices of the asking lanes below it (a warp scan).
  unsigned long long inclusive = slice;
  for (unsigned d = 1; d < 32; d <<= 1) {
    const unsigned long long below = __shfl_up_sync(0xffffffffu, inclusive, d);
    if (lane >= d) inclusive += below;
  }
  const std::uint64_t total = __shfl_sync(0xffffffffu, inclusive, 31);
  const std::uint64_t offset = inclusive - slice;
  const unsigned askers = __ballot_sync(0xffffffffu, asking);
  if (askers == 0) return;  // warp-uniform
  const unsigned leader = static_cast<unsigned>(__ffs(static_cast<int>(askers)) - 1);
  const std::uint64_t ask = total + (plugin::alignment<P>() < 16 ? 15 : 0);
  P p = v.plugin;
  for (unsigned r = 0; r < a.per_thread; ++r) {
    void* got = nullptr;
    if constexpr (plugin::warp_collective<P>())
      got = p.malloc(lane == leader ? ask : 0);
    else if (lane == leader)
      got = p.malloc(ask);
    const auto base = __shfl_sync(0xffffffffu, reinterpret_cast<unsigned long long>(got), leader);
    if (!asking) continue;
    if (base == 0) {
      a.page[r * a.N + i] = kFailed;
      continue;
    }
    const std::uint64_t head = round_up_16(base);
    auto* h = reinterpret_cast<SliceHeader*>(head + offset);
    if (lane == leader)
      *h = SliceHeader{base, static_cast<std::uint32_t>(__popc(askers)), 1};
    else
      *h = SliceHeader{head, 0, 0};
    a.page[r * a.N + i] = head + offset + kHeaderBytes;
  }
}

template <typename P, unsigned kBound>
__global__ void __launch_bounds__(kBound) warp_free_kernel(KernelArgs a, PluginView<P> v) {
  const std::uint64_t j = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (j >= a.N * a.per_thread || a.page[j] == kFailed) return;
  auto* h = reinterpret_cast<SliceHeader*>(a.page[j] - kHeaderBytes);
  auto* first = h->first ? h : reinterpret_cast<SliceHeader*>(h->link);
  cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device> live(first->live);
  // acq_rel: every slice's last writes come before the block is given back, by whoever frees last.
  if (live.fetch_sub(1, cuda::std::memory_order_acq_rel) == 1) {
    P p = v.plugin;
    p.free(reinterpret_cast<void*>(first->link));
  }
}

template <typename P, bool kWarp, unsigned kBound>
void launch_alloc_bound(const KernelArgs& a, const PluginView<P>& v) {
  if constexpr (kWarp)
    warp_alloc_kernel<P, kBound><<<blocks_for(a.N, a.block), a.block>>>(a, v);
  else
    alloc_kernel<P, kBound><<<blocks_for(a.N, a.block), a.block>>>(a, v);
  ALLOCLAB_CUDA_LAUNCH();
}

// No steps to count: `counters` is ignored (steps are not observable in a plug-in).
template <typename P, bool kWarp>
void launch_alloc(const KernelArgs& a, const PluginView<P>& v, bool) {
  if (a.block <= kSmallBlock)
    launch_alloc_bound<P, kWarp, kSmallBlock>(a, v);
  else
    launch_alloc_bound<P, kWarp, kLargeBlock>(a, v);
}

template <typename P, bool kWarp, unsigned kBound>
void launch_free_bound(const KernelArgs& a, const PluginView<P>& v) {
  const std::uint64_t slots = a.N * a.per_thread;
  if constexpr (kWarp)
    warp_free_kernel<P, kBound><<<blocks_for(slots, a.block), a.block>>>(a, v);
  else if constexpr (plugin::free_from_any_thread<P>())
    free_kernel<P, kBound><<<blocks_for(slots, a.block), a.block>>>(a, v);
  else  // the allocating threads' indices, in blocks of the allocation's size
    free_kernel<P, kBound><<<blocks_for(v.launch, a.block), a.block>>>(a, v);
  ALLOCLAB_CUDA_LAUNCH();
}

template <typename P, bool kWarp>
void launch_free(const KernelArgs& a, const PluginView<P>& v) {
  if (a.block <= kSmallBlock)
    launch_free_bound<P, kWarp, kSmallBlock>(a, v);
  else
    launch_free_bound<P, kWarp, kLargeBlock>(a, v);
}

template <typename P, bool kWarp, unsigned kBound>
KernelRegisters registers_bound() {
  if constexpr (kWarp)
    return {registers_of(reinterpret_cast<const void*>(&warp_alloc_kernel<P, kBound>)),
            registers_of(reinterpret_cast<const void*>(&warp_free_kernel<P, kBound>))};
  else
    return {registers_of(reinterpret_cast<const void*>(&alloc_kernel<P, kBound>)),
            registers_of(reinterpret_cast<const void*>(&free_kernel<P, kBound>))};
}

template <typename P, bool kWarp>
KernelRegisters registers(const KernelArgs& a, const PluginView<P>&, bool) {
  return a.block <= kSmallBlock ? registers_bound<P, kWarp, kSmallBlock>()
                                : registers_bound<P, kWarp, kLargeBlock>();
}

// The largest request of the per-warp variant: 32 slices and the alignment slack in one of the
// plug-in's requests (0: no limit).
constexpr std::uint64_t warp_max_request(std::uint64_t plugin_max) {
  if (plugin_max == 0) return 0;
  const std::uint64_t per_lane = (plugin_max > 15 ? plugin_max - 15 : 0) / 32;
  return per_lane > kHeaderBytes ? (per_lane - kHeaderBytes) & ~std::uint64_t{15} : 0;
}

template <typename P>
Capabilities plugin_capabilities(bool per_warp) {
  Capabilities c;
  c.requests = RequestKind::bytes;
  c.bitmap_words = false;
  c.frees = plugin::reuses_freed<P>();
  c.backends = static_cast<unsigned>(BackendKind::gpu);
  if (per_warp) {
    c.alignment_bytes = 16;
    c.warp_collective = true;  // a warp is served together (the driver asks for 32 lanes)
    c.max_request_bytes = warp_max_request(plugin::max_request<P>());
    if (!plugin::free_from_any_thread<P>() || !plugin::per_warp<P>()) c.backends = 0;
  } else {
    c.alignment_bytes = plugin::alignment<P>();
    c.warp_collective = plugin::warp_collective<P>();
    c.max_request_bytes = plugin::max_request<P>();
  }
  return c;
}

// Declares both allocators of plug-in P (see the top) and registers their GPU entries.
template <typename P>
bool register_plugin(std::string_view plugin_name, std::string_view type, std::string_view header) {
  const std::string name = "ext-" + std::string(plugin_name);
  const std::string from = "plug-in " + std::string(type) + " (" + std::string(header) + ")";
  auto& table = PluginTable::instance();
  const Capabilities own = plugin_capabilities<P>(false);
  const Algorithm id = table.declare(name, from, own);
  table.refine(id, from, own);
  GpuTable::instance().add(id,
                           gpu_entry(GpuTraits<PluginPool<P>>{.alloc = &launch_alloc<P, false>,
                                                              .free = &launch_free<P, false>,
                                                              .out_of_memory = OutOfMemory::device,
                                                              .registers = &registers<P, false>}));
  const std::string warp_from =
      name +
      " with one lane allocating for its warp: one malloc of the warp's requests, each "
      "rounded up to 16 B behind a 16 B header, freed with the block's last object; " +
      from;
  const Capabilities warp = plugin_capabilities<P>(true);
  const Algorithm warp_id = table.declare(name + "-warp", warp_from, warp);
  table.refine(warp_id, warp_from, warp);
  // (Its kernels are compiled only where it runs.)
  if constexpr (plugin::free_from_any_thread<P>() && plugin::per_warp<P>())
    GpuTable::instance().add(
        warp_id, gpu_entry(GpuTraits<PluginPool<P>>{.alloc = &launch_alloc<P, true>,
                                                    .free = &launch_free<P, true>,
                                                    .out_of_memory = OutOfMemory::device,
                                                    .registers = &registers<P, true>}));
  return true;
}

}  // namespace alloclab::gpu::detail::plugins

// The line each generated file ends with (cmake/AlloclabPlugins.cmake): Type's allocators, from
// `header`, registered when the program starts.
// clang-format off
#define ALLOCLAB_REGISTER_PLUGIN(Type, name, header)                                          \
  namespace {                                                                                 \
  [[maybe_unused]] const bool ALLOCLAB_REGISTRY_CONCAT(alloclab_plugin_registered_, __LINE__) = \
      ::alloclab::gpu::detail::plugins::register_plugin<Type>(name, #Type, header);           \
  }
// clang-format on
