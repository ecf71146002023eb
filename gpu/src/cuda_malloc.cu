// Baseline: CUDA device malloc/free, one request of pages * page_bytes bytes per thread (k with
// per_thread). The heap limit is set by the caller (measure.cu) before the first malloc kernel.
// The result slot holds the address (kFailed for a null pointer), so the same sort-and-compare
// verification proves the ranges disjoint.
#include "common.cuh"

namespace alloclab::gpu::detail {
namespace {

__global__ void cudamalloc_alloc_kernel(KernelArgs a) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= a.N) return;
  for (unsigned r = 0; r < a.per_thread; ++r) {
    void* ptr = malloc(a.page_bytes * a.pages);
    const std::uint64_t slot = r * a.N + i;
    a.ptrs[slot] = ptr;
    a.page[slot] = ptr ? reinterpret_cast<std::uint64_t>(ptr) : kFailed;
  }
}

__global__ void cudamalloc_free_kernel(KernelArgs a) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= a.N * a.per_thread) return;
  if (a.ptrs[i]) free(a.ptrs[i]);
  a.ptrs[i] = nullptr;
}

}  // namespace

void launch_cudamalloc_alloc(const KernelArgs& a) {
  cudamalloc_alloc_kernel<<<blocks_for(a.N, 256), 256>>>(a);
  ALLOCLAB_CUDA_LAUNCH();
}

void launch_cudamalloc_free(const KernelArgs& a) {
  cudamalloc_free_kernel<<<blocks_for(a.N * a.per_thread, 256), 256>>>(a);
  ALLOCLAB_CUDA_LAUNCH();
}

}  // namespace alloclab::gpu::detail
