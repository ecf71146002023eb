// Shared CUDA machinery of the gpu/ module: error checking, device buffers, the pool, the kernel
// arguments every allocator takes, and the per-allocator launch entry points.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "alloclab/core/bit_choice.hpp"
#include "alloclab/core/bit_tricks.hpp"
#include "alloclab/core/pool.hpp"
#include "alloclab/core/probe_sequence.hpp"
#include "alloclab/gpu/measure.hpp"

namespace alloclab::gpu::detail {

[[noreturn]] void throw_cuda(cudaError_t e, const char* call, const char* file, int line);

// Every CUDA runtime call goes through this: a failure throws CudaError with file:line.
#define ALLOCLAB_CUDA(call)                                                               \
  do {                                                                                    \
    const cudaError_t alloclab_cuda_err_ = (call);                                        \
    if (alloclab_cuda_err_ != cudaSuccess)                                                \
      ::alloclab::gpu::detail::throw_cuda(alloclab_cuda_err_, #call, __FILE__, __LINE__); \
  } while (0)
// After a launch: the launch error, then (synchronously) the execution error.
#define ALLOCLAB_CUDA_LAUNCH() ALLOCLAB_CUDA(cudaGetLastError())

// Owning device allocation (cudaMalloc; never managed memory).
template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t n) { resize(n); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (ptr_) cudaFree(ptr_);
  }
  void resize(std::size_t n) {
    if (n == n_ && ptr_) return;
    if (ptr_) ALLOCLAB_CUDA(cudaFree(ptr_));
    ptr_ = nullptr;
    n_ = n;
    if (n) ALLOCLAB_CUDA(cudaMalloc(&ptr_, n * sizeof(T)));
  }
  T* get() const { return ptr_; }
  std::size_t size() const { return n_; }
  std::size_t bytes() const { return n_ * sizeof(T); }

 private:
  T* ptr_ = nullptr;
  std::size_t n_ = 0;
};

inline constexpr std::uint64_t kFailed = ~std::uint64_t{0};  // result slot of a failed request

// Everything an allocation kernel needs. Results: page[r*N + i] = first page of request r of
// thread i (kFailed if it failed); steps / collisions likewise (null when counters are off).
struct KernelArgs {
  std::uint64_t N = 0, A = 0, T = 0, words = 0;
  unsigned w = 32, lanes = 32, pages = 1, per_thread = 1;
  BitChoice bit_choice = BitChoice::lowest;  // RW-BM: which free bit to claim (bit_choice.hpp)
  std::uint64_t seed = 0;                    // trial seed
  std::uint64_t max_steps = 0;
  void* bitmap = nullptr;                    // words of w bits (uint32 or uint64)
  std::uint32_t* queue = nullptr;            // queue: ring of free page ids (capacity A)
  unsigned long long* queue_head = nullptr;  // queue: [0] = head (next ticket), [1] = tail
  std::uint64_t* page = nullptr;
  std::uint32_t* steps = nullptr;
  std::uint32_t* collisions = nullptr;
  std::uint64_t page_bytes = 0;  // cudamalloc
  void** ptrs = nullptr;         // cudamalloc results
};

// The result of request r of thread i, in the layout above: every allocation kernel ends a
// request with this (counters only in the kCounters instantiation).
template <bool kCounters>
__device__ __forceinline__ void record_request(const KernelArgs& a, std::uint64_t r,
                                               std::uint64_t i, std::uint64_t page,
                                               std::uint32_t steps, std::uint32_t collisions) {
  const std::uint64_t slot = r * a.N + i;
  a.page[slot] = page;
  if constexpr (kCounters) {
    a.steps[slot] = steps;
    a.collisions[slot] = collisions;
  }
}

inline unsigned blocks_for(std::uint64_t threads, unsigned block) {
  return static_cast<unsigned>((threads + block - 1) / block);
}

// One translation unit per allocator (gpu/src/<name>.cu).
void launch_queue_alloc(const KernelArgs& a, bool counters);
void launch_queue_free(const KernelArgs& a);
void launch_rw_alloc(const KernelArgs& a, bool counters);
void launch_rw_free(const KernelArgs& a);
void launch_rwbm_alloc(const KernelArgs& a, bool counters);
void launch_rwbm_free(const KernelArgs& a);  // also frees corw's pages (one bit per page)
void launch_corw_alloc(const KernelArgs& a, bool counters);
void launch_rwmalloc_alloc(const KernelArgs& a, bool counters);
void launch_rwmalloc_free(const KernelArgs& a);
void launch_cudamalloc_alloc(const KernelArgs& a);
void launch_cudamalloc_free(const KernelArgs& a);

// pool.cu: builds the initial bitmap (page p free iff pi(p) < A; bits past T used) and the
// queue's free list; popcount of used bits.
void build_bitmap(const KernelArgs& a);
std::uint64_t build_queue(const KernelArgs& a);  // returns number of free pages listed
std::uint64_t count_used_bits(const KernelArgs& a);

// Bitmap word helpers, templated on the word type (w = 32 or 64).
template <typename Word>
__device__ __forceinline__ Word atomic_or_word(Word* p, Word v) {
  if constexpr (sizeof(Word) == 4) {
    return atomicOr(reinterpret_cast<unsigned int*>(p), static_cast<unsigned int>(v));
  } else {
    return atomicOr(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
  }
}
template <typename Word>
__device__ __forceinline__ Word atomic_and_word(Word* p, Word v) {
  if constexpr (sizeof(Word) == 4) {
    return atomicAnd(reinterpret_cast<unsigned int*>(p), static_cast<unsigned int>(v));
  } else {
    return atomicAnd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
  }
}
template <typename Word>
__device__ __forceinline__ Word atomic_cas_word(Word* p, Word expected, Word v) {
  if constexpr (sizeof(Word) == 4) {
    return atomicCAS(reinterpret_cast<unsigned int*>(p), static_cast<unsigned int>(expected),
                     static_cast<unsigned int>(v));
  } else {
    return atomicCAS(reinterpret_cast<unsigned long long*>(p),
                     static_cast<unsigned long long>(expected), static_cast<unsigned long long>(v));
  }
}
// A fresh read (L2, bypassing the non-coherent L1).
template <typename Word>
__device__ __forceinline__ Word load_word(const Word* p) {
  return __ldcg(p);
}

}  // namespace alloclab::gpu::detail
