// ext-corw: alloclab's own CoRW (paper 000, Algorithm 2; gpu/src/corw.cuh) exposed only through
// the plug-in interface (docs/plugin-allocators.md), so that its rows and the registry's `corw`
// rows, measured in one run, show what the interface costs: the same device code (CorwDevice's
// malloc_page, behind the device-side heap PageHeap of gpu/src/page_heap.cuh), reached through
// malloc(bytes) / free(ptr) instead of the allocator's own kernel.
//
// Its pages are the workload's --page-bytes (Config::page_bytes), the pool cut into as many as
// fit; a request of up to one page takes one page (larger, or 0 bytes: nullptr), one bit per page
// in 32-bit words, the lowest free bit first (the paper's rule), as `corw` with its defaults. The
// bitmap is its own metadata (cudaMalloc'd beside the pool, as the registry's pool keeps it).
// Differences from `corw`'s kernel: a call starts its probe stream at a position drawn from the SM
// clock (PageHeap: a thread's later calls must not re-probe its earlier pages), where the kernel
// starts every thread at probe 0 of the trial's stream; and lanes that do not ask leave the warp
// (malloc(0)) instead of probing for the others. Neither changes what is counted where the run is
// deterministic (every request served, or the pool filled).
//
// In this repository only: it includes alloclab's internal headers (gpu/src), which a plug-in
// from outside should not rely on.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include <alloclab/gpu/plugin.cuh>

#include "corw.cuh"
#include "page_heap.cuh"

struct CorwPlugin {
  using Device = alloclab::gpu::detail::CorwDevice<std::uint32_t, alloclab::BitChoice::lowest>;
  alloclab::gpu::detail::PageHeap<Device> heap;

  static constexpr bool warp_collective = true;  // a warp's lanes share their words' free bits
  static constexpr bool per_warp = false;        // one page per request: no room for a warp's 32

  static CorwPlugin create(void* pool, std::size_t bytes, const alloclab::plugin::Config& c) {
    const std::uint64_t pages = c.page_bytes ? bytes / c.page_bytes : 0;
    if (pages == 0) throw std::runtime_error("ext-corw: the pool holds no page of --page-bytes");
    const std::uint64_t words = alloclab::word_count(pages, 32);
    std::uint32_t* bitmap = nullptr;
    cudaError_t e = cudaMalloc(&bitmap, words * sizeof *bitmap);
    if (e == cudaSuccess) e = cudaMemset(bitmap, 0, words * sizeof *bitmap);
    // The bits past the last page are used for good.
    if (e == cudaSuccess && pages % 32 != 0) {
      const std::uint32_t past = ~std::uint32_t{0} << (pages % 32);
      e = cudaMemcpy(bitmap + words - 1, &past, sizeof past, cudaMemcpyHostToDevice);
    }
    if (e != cudaSuccess)
      throw std::runtime_error(std::string("ext-corw: its bitmap: ") + cudaGetErrorString(e));
    CorwPlugin p{};
    p.heap.api = Device::on_pool({bitmap, words, 32}, pages, c.seed, c.max_steps);
    p.heap.arena = static_cast<unsigned char*>(pool);
    p.heap.page_bytes = c.page_bytes;
    p.heap.pages = pages;
    return p;
  }
  static void destroy(CorwPlugin& p) {
    cudaFree(p.heap.api.pool.bitmap);
    p.heap.api.pool.bitmap = nullptr;
  }

  __device__ void* malloc(std::size_t bytes) { return heap.malloc(bytes); }
  __device__ void free(void* ptr) { heap.free(ptr); }
};

ALLOCLAB_PLUGIN(CorwPlugin, "corw")
