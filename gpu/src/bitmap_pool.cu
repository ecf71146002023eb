// The bitmap pool on the device: one thread per word evaluates the keyed permutation of
// core/pool.hpp for its w pages (O(1) per page, no shared state), so the GPU pool is bit for bit
// the simulator's; a copy of it (the pristine pool) resets every run and checks the free kernel.
#include <thrust/iterator/transform_iterator.h>
#include <cub/cub.cuh>

#include <algorithm>

#include "alloclab/core/errors.hpp"
#include "bitmap_pool.cuh"

namespace alloclab::gpu::detail {
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

template <typename Word>
struct Popcount {
  __device__ unsigned long long operator()(Word x) const {
    return static_cast<unsigned long long>(bits::popcount(static_cast<std::uint64_t>(x)));
  }
};

// Bytes of CUB's temporary storage for the popcount reduction over `words` words.
template <typename Word>
std::size_t count_used_temp_bytes(std::uint64_t words) {
  auto it = thrust::make_transform_iterator(static_cast<const Word*>(nullptr), Popcount<Word>{});
  std::size_t temp_bytes = 0;
  ALLOCLAB_CUDA(cub::DeviceReduce::Sum(nullptr, temp_bytes, it,
                                       static_cast<unsigned long long*>(nullptr), words));
  return temp_bytes;
}

template <typename Word>
std::uint64_t count_used(const Word* bitmap, std::uint64_t words) {
  DeviceBuffer<unsigned long long> out(1);
  auto it = thrust::make_transform_iterator(bitmap, Popcount<Word>{});
  std::size_t temp_bytes = 0;
  ALLOCLAB_CUDA(cub::DeviceReduce::Sum(nullptr, temp_bytes, it, out.get(), words));
  DeviceBuffer<unsigned char> temp(temp_bytes);
  ALLOCLAB_CUDA(cub::DeviceReduce::Sum(temp.get(), temp_bytes, it, out.get(), words));
  return read_scalar(out.get());
}

// Every page of every range handed out is marked used.
template <typename Word>
__global__ void unmarked_pages_kernel(const std::uint64_t* sorted, std::uint64_t n,
                                      std::uint64_t len, const Word* bitmap, std::uint64_t T,
                                      unsigned long long* errors) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= n) return;
  const std::uint64_t x = sorted[i];
  if (x == kFailed || x + len > T) return;  // outside the pool: the driver's range check
  constexpr unsigned w = sizeof(Word) * 8;
  unsigned long long bad = 0;
  for (std::uint64_t p = x; p < x + len; ++p)
    if (!((bitmap[p / w] >> (p % w)) & 1)) ++bad;
  if (bad) count_add(errors, bad);
}

template <typename Word>
__global__ void mismatch_kernel(const Word* a, const Word* b, std::uint64_t n,
                                unsigned long long* count) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i < n && a[i] != b[i]) count_add(count, 1ull);
}

// Frees every served request: clears its run of a.pages bits (one bit for one-page allocators).
// Runs lie inside one word (the allocators of runs find them there).
template <typename Word>
__global__ void bitmap_free_kernel(KernelArgs a, BitmapView pool) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= a.N * a.per_thread) return;
  const std::uint64_t p = a.page[i];
  if (p == kFailed) return;
  bitmap_free_run<Word>(pool, p, a.pages_of ? a.pages_of[i] : a.pages);
}

}  // namespace

void BitmapPool::check(const Scenario& s, const MeasureOptions&) {
  if (caps(s.algo).bitmap_words && s.w != 32 && s.w != 64)
    throw InputError("--w", "the GPU kernels use w = 32 or 64");
}

BitmapPool::BitmapPool(const Scenario& s, const MeasureOptions&, const KernelArgs& a)
    : name_(name(s.algo)),
      T_(a.T),
      A_(a.A),
      seed_(a.seed),
      w_(caps(s.algo).bitmap_words ? s.w : 32),
      words_(word_count(a.T, w_)) {}

std::uint64_t BitmapPool::device_bytes() const {
  // The bitmap and its pristine copy, and the popcount's scratch.
  const std::uint64_t temp = w_ == 32 ? count_used_temp_bytes<std::uint32_t>(words_)
                                      : count_used_temp_bytes<std::uint64_t>(words_);
  return 2 * words_ * (w_ / 8) + temp + sizeof(unsigned long long);
}

std::uint64_t BitmapPool::used_bits(const void* bitmap) const {
  if (w_ == 32) return count_used(static_cast<const std::uint32_t*>(bitmap), words_);
  return count_used(static_cast<const std::uint64_t*>(bitmap), words_);
}

void BitmapPool::set_up() {
  const std::size_t word_bytes = w_ / 8;
  bitmap_.resize(words_ * word_bytes);
  pristine_.resize(words_ * word_bytes);
  const PagePermutation pi(T_, seed_);
  if (w_ == 32)
    build_bitmap_kernel<<<blocks_for(words_, 256), 256>>>(
        reinterpret_cast<std::uint32_t*>(pristine_.get()), words_, 32, T_, A_, pi);
  else
    build_bitmap_kernel<<<blocks_for(words_, 256), 256>>>(
        reinterpret_cast<std::uint64_t*>(pristine_.get()), words_, 64, T_, A_, pi);
  ALLOCLAB_CUDA_LAUNCH();
  const std::uint64_t used = used_bits(pristine_.get());
  if (used != words_ * w_ - A_)
    throw VerificationError("pool set-up: " + std::to_string(words_ * w_ - used) +
                            " free bits, expected A=" + std::to_string(A_));
}

void BitmapPool::reset() {
  ALLOCLAB_CUDA(
      cudaMemcpy(bitmap_.get(), pristine_.get(), bitmap_.bytes(), cudaMemcpyDeviceToDevice));
}

void BitmapPool::verify_allocated(const Allocation& run) const {
  DeviceCounter errors;
  const unsigned blocks = blocks_for(run.requests, 256);
  if (w_ == 32)
    unmarked_pages_kernel<<<blocks, 256>>>(run.sorted, run.requests, run.pages,
                                           reinterpret_cast<const std::uint32_t*>(bitmap_.get()),
                                           T_, errors.get());
  else
    unmarked_pages_kernel<<<blocks, 256>>>(run.sorted, run.requests, run.pages,
                                           reinterpret_cast<const std::uint64_t*>(bitmap_.get()),
                                           T_, errors.get());
  ALLOCLAB_CUDA_LAUNCH();
  if (const auto bad = errors.read())
    throw VerificationError(name_ + ": " + std::to_string(bad) +
                            " pages handed out are not marked used in the bitmap");
  const std::uint64_t initially_used = words_ * w_ - A_;
  const std::uint64_t used = used_bits(bitmap_.get());
  if (used != initially_used + run.taken * run.pages)
    throw VerificationError(name_ + ": bitmap has " + std::to_string(used - initially_used) +
                            " newly used pages, " + std::to_string(run.taken) + " requests taken");
}

void BitmapPool::verify_freed(const Allocation&) const {
  DeviceCounter count;
  if (w_ == 32)
    mismatch_kernel<<<blocks_for(words_, 256), 256>>>(
        reinterpret_cast<const std::uint32_t*>(bitmap_.get()),
        reinterpret_cast<const std::uint32_t*>(pristine_.get()), words_, count.get());
  else
    mismatch_kernel<<<blocks_for(words_, 256), 256>>>(
        reinterpret_cast<const std::uint64_t*>(bitmap_.get()),
        reinterpret_cast<const std::uint64_t*>(pristine_.get()), words_, count.get());
  ALLOCLAB_CUDA_LAUNCH();
  if (const auto m = count.read())
    throw VerificationError(name_ + ": free left " + std::to_string(m) +
                            " bitmap words different from the pool");
}

std::optional<std::vector<std::uint64_t>> BitmapPool::free_pages() const {
  std::vector<unsigned char> h(bitmap_.bytes());
  ALLOCLAB_CUDA(cudaMemcpy(h.data(), bitmap_.get(), h.size(), cudaMemcpyDeviceToHost));
  std::vector<std::uint64_t> out;
  for (std::uint64_t p = 0; p < T_; ++p)
    if (!((h[p / 8] >> (p % 8)) & 1)) out.push_back(p);  // little-endian words: bit p of byte p/8
  return out;
}

int bitmap_free_registers(const BitmapView& pool) {
  cudaFuncAttributes f{};
  if (pool.w == 32)
    ALLOCLAB_CUDA(cudaFuncGetAttributes(&f, bitmap_free_kernel<std::uint32_t>));
  else
    ALLOCLAB_CUDA(cudaFuncGetAttributes(&f, bitmap_free_kernel<std::uint64_t>));
  return f.numRegs;
}

void launch_bitmap_free(const KernelArgs& a, const BitmapView& pool) {
  const unsigned blocks = blocks_for(a.N * a.per_thread, 256);
  if (pool.w == 32)
    bitmap_free_kernel<std::uint32_t><<<blocks, 256>>>(a, pool);
  else
    bitmap_free_kernel<std::uint64_t><<<blocks, 256>>>(a, pool);
  ALLOCLAB_CUDA_LAUNCH();
}

}  // namespace alloclab::gpu::detail
