// The memory manager's chunks of the GPU's Ouroboros allocators (ouro_gpu_support.cuh).
#include <algorithm>

#include "alloclab/core/ouroboros/layout.hpp"
#include "alloclab/core/pool.hpp"
#include "cuda_check.cuh"
#include "ouro_gpu_support.cuh"

namespace alloclab::gpu::detail {
namespace {

__global__ void free_chunks_kernel(std::uint8_t* whole, std::uint64_t chunks, std::uint64_t A,
                                   PagePermutation pi) {
  const std::uint64_t c = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (c >= chunks) return;
  bool all = true;
  for (std::uint64_t u = c * ouro::kUnitsPerChunk; all && u < (c + 1) * ouro::kUnitsPerChunk; ++u)
    all = initially_free(pi, u, A);
  whole[c] = all ? 1 : 0;
}

}  // namespace

std::vector<std::uint32_t> chunks_free_at_start(std::uint64_t T, std::uint64_t A,
                                                std::uint64_t seed, std::uint64_t chunks) {
  std::vector<std::uint32_t> available;
  if (A == T) {
    for (std::uint64_t c = 0; c < chunks; ++c) available.push_back(static_cast<std::uint32_t>(c));
    return available;
  }
  DeviceBuffer<std::uint8_t> whole(std::max<std::uint64_t>(chunks, 1));
  free_chunks_kernel<<<blocks_for(chunks, 256), 256>>>(whole.get(), chunks, A,
                                                       PagePermutation(T, seed));
  ALLOCLAB_CUDA_LAUNCH();
  std::vector<std::uint8_t> h(chunks);
  ALLOCLAB_CUDA(cudaMemcpy(h.data(), whole.get(), chunks, cudaMemcpyDeviceToHost));
  for (std::uint64_t c = 0; c < chunks; ++c)
    if (h[c]) available.push_back(static_cast<std::uint32_t>(c));
  return available;
}

}  // namespace alloclab::gpu::detail
