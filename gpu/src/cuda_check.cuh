// Host-side CUDA plumbing of the gpu/ module: every runtime call is checked (a failure throws
// CudaError with file:line), and device memory is owned by DeviceBuffer (cudaMalloc, never
// managed memory).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

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

// Set once a kernel ran past the watchdog (KernelHung): the device is stuck with it, and every
// call that waits for the device (cudaFree, a copy) would wait for ever, so owners stop giving
// memory back; the process is about to end.
inline bool& device_stuck() {
  static bool stuck = false;
  return stuck;
}

// Owning device allocation (cudaMalloc; never managed memory).
template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t n) { resize(n); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (ptr_ && !device_stuck()) cudaFree(ptr_);
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

// One value copied back from the device.
template <typename T>
T read_scalar(const T* d) {
  T h{};
  ALLOCLAB_CUDA(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
  return h;
}

// A device counter set to 0 (what the verification kernels count into).
class DeviceCounter {
 public:
  DeviceCounter() : value_(1) { ALLOCLAB_CUDA(cudaMemset(value_.get(), 0, value_.bytes())); }
  unsigned long long* get() const { return value_.get(); }
  std::uint64_t read() const { return read_scalar(value_.get()); }

 private:
  DeviceBuffer<unsigned long long> value_;
};

inline unsigned blocks_for(std::uint64_t threads, unsigned block) {
  return static_cast<unsigned>((threads + block - 1) / block);
}

}  // namespace alloclab::gpu::detail
