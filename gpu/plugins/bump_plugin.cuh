// ext-bump: the simplest GPU allocator there is, as a plug-in (docs/plugin-allocators.md). One
// counter of bytes handed out; malloc adds the request (rounded up to 16 B) to it with one atomic
// and returns the bytes at the old value; free does nothing, so nothing is ever served twice.
// Its time on the reference workload is the floor of a device allocator on that GPU (one atomic
// per request, no search, no reuse): the report divides the other allocators' times by it.
#pragma once

#include <cuda_runtime.h>
#include <cuda/atomic>

#include <cstddef>
#include <stdexcept>
#include <string>

#include <alloclab/gpu/plugin.cuh>

struct BumpAllocator {
  unsigned long long* top;  // bytes handed out so far (device memory)
  unsigned char* base;      // the pool
  std::size_t bytes;

  static constexpr std::size_t alignment = 16;
  static constexpr bool reuses_freed = false;

  static BumpAllocator create(void* pool, std::size_t bytes, const alloclab::plugin::Config&) {
    BumpAllocator b{nullptr, static_cast<unsigned char*>(pool), bytes};
    cudaError_t e = cudaMalloc(&b.top, sizeof *b.top);
    if (e == cudaSuccess) e = cudaMemset(b.top, 0, sizeof *b.top);
    if (e != cudaSuccess)
      throw std::runtime_error(std::string("ext-bump: its counter: ") + cudaGetErrorString(e));
    return b;
  }
  static void destroy(BumpAllocator& b) {
    cudaFree(b.top);
    b.top = nullptr;
  }

  __device__ void* malloc(std::size_t n) {
    if (n == 0) return nullptr;
    const unsigned long long need = (static_cast<unsigned long long>(n) + 15) & ~15ull;
    // Relaxed: the counter only has to hand out disjoint ranges; the objects' bytes are ordered by
    // the kernels that write and read them.
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> counter(*top);
    const unsigned long long at = counter.fetch_add(need, cuda::std::memory_order_relaxed);
    if (at >= bytes || need > bytes - at) return nullptr;  // out of memory (no wrap: 2^64 bytes)
    return base + at;
  }
  __device__ void free(void*) {}
};

ALLOCLAB_PLUGIN(BumpAllocator, "bump")
