// Pool set-up on the device: one thread per bitmap word evaluates the keyed permutation of
// core/pool.hpp for its w pages (O(1) per page, no shared state), so the GPU pool is bit for bit
// the simulator's. The queue's free list is the same set, compacted in page order with CUB.
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <cub/cub.cuh>

#include "common.cuh"

namespace alloclab::gpu::detail {

void throw_cuda(cudaError_t e, const char* call, const char* file, int line) {
  throw CudaError(std::string(file) + ":" + std::to_string(line) + ": " + call + ": " +
                  cudaGetErrorString(e));
}

namespace {

template <typename Word>
__global__ void build_bitmap_kernel(Word* bitmap, std::uint64_t words, unsigned w, std::uint64_t T,
                                    std::uint64_t A, PagePermutation pi) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= words) return;
  Word used = 0;
  for (unsigned b = 0; b < w; ++b) {
    const std::uint64_t p = i * w + b;
    if (p >= T || !initially_free(pi, p, A)) used |= Word{1} << b;
  }
  bitmap[i] = used;
}

struct FreePage {
  PagePermutation pi;
  std::uint64_t A;
  __device__ bool operator()(std::uint32_t p) const { return initially_free(pi, p, A); }
};

template <typename Word>
struct Popcount {
  __device__ unsigned long long operator()(Word x) const {
    return static_cast<unsigned long long>(bits::popcount(static_cast<std::uint64_t>(x)));
  }
};

template <typename Word>
std::uint64_t count_used(const Word* bitmap, std::uint64_t words) {
  DeviceBuffer<unsigned long long> out(1);
  auto it = thrust::make_transform_iterator(bitmap, Popcount<Word>{});
  std::size_t temp_bytes = 0;
  ALLOCLAB_CUDA(cub::DeviceReduce::Sum(nullptr, temp_bytes, it, out.get(), words));
  DeviceBuffer<unsigned char> temp(temp_bytes);
  ALLOCLAB_CUDA(cub::DeviceReduce::Sum(temp.get(), temp_bytes, it, out.get(), words));
  unsigned long long h = 0;
  ALLOCLAB_CUDA(cudaMemcpy(&h, out.get(), sizeof h, cudaMemcpyDeviceToHost));
  return h;
}

}  // namespace

void build_bitmap(const KernelArgs& a) {
  const PagePermutation pi(a.T, a.seed);
  if (a.w == 32)
    build_bitmap_kernel<<<blocks_for(a.words, 256), 256>>>(static_cast<std::uint32_t*>(a.bitmap),
                                                           a.words, 32, a.T, a.A, pi);
  else
    build_bitmap_kernel<<<blocks_for(a.words, 256), 256>>>(static_cast<std::uint64_t*>(a.bitmap),
                                                           a.words, 64, a.T, a.A, pi);
  ALLOCLAB_CUDA_LAUNCH();
}

std::uint64_t build_queue(const KernelArgs& a) {
  const FreePage pred{PagePermutation(a.T, a.seed), a.A};
  thrust::counting_iterator<std::uint32_t> pages(0);
  DeviceBuffer<unsigned long long> count(1);
  std::size_t temp_bytes = 0;
  ALLOCLAB_CUDA(cub::DeviceSelect::If(nullptr, temp_bytes, pages, a.queue, count.get(), a.T, pred));
  DeviceBuffer<unsigned char> temp(temp_bytes);
  ALLOCLAB_CUDA(
      cub::DeviceSelect::If(temp.get(), temp_bytes, pages, a.queue, count.get(), a.T, pred));
  unsigned long long h = 0;
  ALLOCLAB_CUDA(cudaMemcpy(&h, count.get(), sizeof h, cudaMemcpyDeviceToHost));
  return h;
}

std::uint64_t count_used_bits(const KernelArgs& a) {
  if (a.w == 32) return count_used(static_cast<const std::uint32_t*>(a.bitmap), a.words);
  return count_used(static_cast<const std::uint64_t*>(a.bitmap), a.words);
}

}  // namespace alloclab::gpu::detail
