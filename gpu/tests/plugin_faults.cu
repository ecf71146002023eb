// The faulty plug-ins of plugin_faults.hpp, each registered as a configured plug-in would be
// (gpu/src/plugin_entry.cuh), and the stall plug-in's gate.
#include <cuda/atomic>

#include <alloclab/gpu/plugin.cuh>

#include "plugin_entry.cuh"
#include "plugin_faults.hpp"

namespace {

// A bump allocator the faulty ones build on: consecutive 16 B-rounded ranges of the pool.
struct Bump {
  unsigned long long* top;
  unsigned char* base;
  std::size_t bytes;
  static Bump make(void* pool, std::size_t bytes) {
    Bump b{nullptr, static_cast<unsigned char*>(pool), bytes};
    ALLOCLAB_CUDA(cudaMalloc(&b.top, sizeof *b.top));
    ALLOCLAB_CUDA(cudaMemset(b.top, 0, sizeof *b.top));
    return b;
  }
  __device__ unsigned char* take(std::size_t n) {
    const unsigned long long need = (n + 15) & ~15ull;
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> counter(*top);
    const unsigned long long at = counter.fetch_add(need, cuda::std::memory_order_relaxed);
    return at + need <= bytes ? base + at : nullptr;
  }
};

struct Overlapping {
  unsigned char* base;
  static Overlapping create(void* pool, std::size_t, const alloclab::plugin::Config&) {
    return {static_cast<unsigned char*>(pool)};
  }
  static void destroy(Overlapping&) {}
  __device__ void* malloc(std::size_t n) { return n ? base : nullptr; }
  __device__ void free(void*) {}
};

struct Outside {
  Bump bump;
  static Outside create(void* pool, std::size_t bytes, const alloclab::plugin::Config&) {
    return {Bump::make(pool, bytes)};
  }
  static void destroy(Outside& o) { cudaFree(o.bump.top); }
  // Thread 5's object lies past the pool's end.
  __device__ void* malloc(std::size_t n) {
    unsigned char* p = bump.take(n);
    return p && blockIdx.x == 0 && threadIdx.x == 5 ? bump.base + bump.bytes : p;
  }
  __device__ void free(void*) {}
};

struct Misaligned {
  Bump bump;
  static constexpr std::size_t alignment = 16;
  static Misaligned create(void* pool, std::size_t bytes, const alloclab::plugin::Config&) {
    return {Bump::make(pool, bytes)};
  }
  static void destroy(Misaligned& m) { cudaFree(m.bump.top); }
  __device__ void* malloc(std::size_t n) {
    unsigned char* p = bump.take(n + 16);
    return p ? p + 8 : nullptr;
  }
  __device__ void free(void*) {}
};

// Declares (by default) that it reuses freed memory; it never does.
struct Leak {
  Bump bump;
  static Leak create(void* pool, std::size_t bytes, const alloclab::plugin::Config&) {
    return {Bump::make(pool, bytes)};
  }
  static void destroy(Leak& l) { cudaFree(l.bump.top); }
  __device__ void* malloc(std::size_t n) { return bump.take(n); }
  __device__ void free(void*) {}
};

volatile int* gate_host = nullptr;  // mapped pinned memory: 1 = shut
int* gate_device = nullptr;

struct Stall {
  Bump bump;
  volatile int* gate;
  static constexpr bool reuses_freed = false;
  static Stall create(void* pool, std::size_t bytes, const alloclab::plugin::Config&) {
    return {Bump::make(pool, bytes), gate_device};
  }
  static void destroy(Stall& s) { cudaFree(s.bump.top); }
  __device__ void* malloc(std::size_t n) {
    while (*gate) __nanosleep(1000);
    return bump.take(n);
  }
  __device__ void free(void*) {}
};

}  // namespace

ALLOCLAB_PLUGIN(Overlapping, "test-overlap")
ALLOCLAB_PLUGIN(Outside, "test-outside")
ALLOCLAB_PLUGIN(Misaligned, "test-misaligned")
ALLOCLAB_PLUGIN(Leak, "test-leak")
ALLOCLAB_PLUGIN(Stall, "test-stall")
ALLOCLAB_REGISTER_PLUGIN(Overlapping, "test-overlap", "gpu/tests/plugin_faults.cu")
ALLOCLAB_REGISTER_PLUGIN(Outside, "test-outside", "gpu/tests/plugin_faults.cu")
ALLOCLAB_REGISTER_PLUGIN(Misaligned, "test-misaligned", "gpu/tests/plugin_faults.cu")
ALLOCLAB_REGISTER_PLUGIN(Leak, "test-leak", "gpu/tests/plugin_faults.cu")
ALLOCLAB_REGISTER_PLUGIN(Stall, "test-stall", "gpu/tests/plugin_faults.cu")

namespace alloclab::gpu::test {

void shut_stall_gate(bool shut) {
  if (!gate_host) {
    int* host = nullptr;
    ALLOCLAB_CUDA(cudaHostAlloc(&host, sizeof(int), cudaHostAllocMapped));
    gate_host = host;
    ALLOCLAB_CUDA(cudaHostGetDevicePointer(&gate_device, host, 0));
  }
  *gate_host = shut ? 1 : 0;
}

void recover_from_stall() {
  shut_stall_gate(false);
  ALLOCLAB_CUDA(cudaDeviceSynchronize());
  detail::device_stuck() = false;
}

}  // namespace alloclab::gpu::test
