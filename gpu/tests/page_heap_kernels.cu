// The PageHeap tests' kernels (page_heap_cases.hpp): a heap made by DevicePageHeap, with no
// workload driver, used by divergent callers; the checks of the results are the test's (host).
#include <algorithm>

#include "alloclab/core/errors.hpp"
#include "corw.cuh"
#include "device_page_heap.cuh"
#include "page_heap_cases.hpp"
#include "queue.cuh"
#include "rw.cuh"
#include "rwbm.cuh"
#include "rwmalloc.cuh"

namespace alloclab::gpu::test {
namespace {

using detail::DeviceBuffer;
using detail::DevicePageHeap;
using detail::PageHeapParams;

__device__ __forceinline__ unsigned char pattern_byte(std::uint64_t slot, std::uint64_t offset) {
  return static_cast<unsigned char>(mix64(slot * 0x9e3779b97f4a7c15ull + offset) >> 7);
}

__device__ __forceinline__ std::uint64_t thread_index() {
  return blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
}

template <typename Heap>
__global__ void divergent_alloc_kernel(Heap heap, const std::uint8_t* calls,
                                       const std::uint64_t* bytes, std::uint64_t threads,
                                       unsigned per_thread, std::uint64_t* address) {
  const std::uint64_t i = thread_index();
  if (i >= threads) return;
  for (unsigned r = 0; r < calls[i]; ++r) {
    const std::uint64_t slot = i * per_thread + r;
    unsigned char* p;
    if ((i + r) % 2 == 0) {
      for (std::uint64_t s = 0; s < i % 7; ++s) __nanosleep(64);
      p = static_cast<unsigned char*>(heap.malloc(bytes[slot]));
    } else {
      p = static_cast<unsigned char*>(heap.malloc(bytes[slot]));
      __nanosleep(32);
    }
    address[slot] = reinterpret_cast<std::uint64_t>(p);
    if (p)
      for (std::uint64_t b = 0; b < bytes[slot]; ++b) p[b] = pattern_byte(slot, b);
  }
}

__global__ void broken_patterns_kernel(const std::uint64_t* address, const std::uint64_t* bytes,
                                       std::uint64_t slots, unsigned long long* broken) {
  const std::uint64_t slot = thread_index();
  if (slot >= slots || address[slot] == 0) return;
  const auto* p = reinterpret_cast<const unsigned char*>(address[slot]);
  bool ok = true;
  for (std::uint64_t b = 0; b < bytes[slot]; ++b) ok = ok && p[b] == pattern_byte(slot, b);
  if (!ok) detail::count_add(broken, 1ull);
}

// Every thread frees its pointers in reverse call order, nulls included; odd threads first sleep
// so that the frees, too, come from divergent lanes.
template <typename Heap>
__global__ void free_all_kernel(Heap heap, const std::uint8_t* calls, std::uint64_t threads,
                                unsigned per_thread, const std::uint64_t* address) {
  const std::uint64_t i = thread_index();
  if (i >= threads) return;
  if (i % 2) __nanosleep(128);
  for (unsigned r = calls[i]; r-- > 0;)
    heap.free(reinterpret_cast<void*>(address[i * per_thread + r]));
}

template <typename T>
void copy_to(DeviceBuffer<T>& d, const std::vector<T>& v) {
  d.resize(v.size());
  ALLOCLAB_CUDA(cudaMemcpy(d.get(), v.data(), d.bytes(), cudaMemcpyHostToDevice));
}

template <typename Api>
HeapRun run_typed(const HeapPlan& plan) {
  const std::uint64_t slots = plan.threads * plan.calls_per_thread;
  if (plan.calls.size() != plan.threads || plan.bytes.size() != slots)
    throw std::invalid_argument("HeapPlan: calls needs threads entries, bytes threads * calls");
  DevicePageHeap<Api> heap({.pages = plan.pages,
                            .page_bytes = plan.page_bytes,
                            .seed = plan.seed,
                            .max_steps = plan.max_steps});
  DeviceBuffer<std::uint8_t> calls;
  DeviceBuffer<std::uint64_t> bytes;
  copy_to(calls, plan.calls);
  copy_to(bytes, plan.bytes);
  DeviceBuffer<std::uint64_t> address(slots);
  ALLOCLAB_CUDA(cudaMemset(address.get(), 0, address.bytes()));
  const unsigned blocks = detail::blocks_for(plan.threads, plan.block);

  HeapRun run;
  run.arena = reinterpret_cast<std::uint64_t>(heap.arena());
  run.arena_bytes = heap.arena_bytes();
  run.max_bytes = heap.device().max_bytes();
  run.init_ms = heap.init_ms();
  divergent_alloc_kernel<<<blocks, plan.block>>>(
      heap.device(), calls.get(), bytes.get(), plan.threads, plan.calls_per_thread, address.get());
  ALLOCLAB_CUDA_LAUNCH();
  ALLOCLAB_CUDA(cudaDeviceSynchronize());
  run.free_after_alloc = heap.free_pages();
  run.address.resize(slots);
  ALLOCLAB_CUDA(
      cudaMemcpy(run.address.data(), address.get(), address.bytes(), cudaMemcpyDeviceToHost));

  detail::DeviceCounter broken;
  broken_patterns_kernel<<<detail::blocks_for(slots, 256), 256>>>(address.get(), bytes.get(), slots,
                                                                  broken.get());
  ALLOCLAB_CUDA_LAUNCH();
  run.broken_patterns = broken.read();

  free_all_kernel<<<blocks, plan.block>>>(heap.device(), calls.get(), plan.threads,
                                          plan.calls_per_thread, address.get());
  ALLOCLAB_CUDA_LAUNCH();
  ALLOCLAB_CUDA(cudaDeviceSynchronize());
  run.free_after_free = heap.free_pages();
  return run;
}

using alloclab::BitChoice;
using Rw = detail::RwDevice;
using Rwbm32 = detail::RwbmDevice<std::uint32_t, BitChoice::lowest>;
using Rwbm64 = detail::RwbmDevice<std::uint64_t, BitChoice::lowest>;
using Queue = detail::QueueDevice;
using Rwmalloc32 = detail::RwmallocDevice<std::uint32_t>;
using Rwmalloc64 = detail::RwmallocDevice<std::uint64_t>;
using Corw32 = detail::CorwDevice<std::uint32_t, BitChoice::lowest>;
using Corw64 = detail::CorwDevice<std::uint64_t, BitChoice::lowest>;
using CorwRotated32 = detail::CorwDevice<std::uint32_t, BitChoice::rotated>;

template <typename F>
auto with_api(HeapAllocator a, F f) {
  switch (a) {
    case HeapAllocator::rw:
      return f(Rw{});
    case HeapAllocator::rwbm32:
      return f(Rwbm32{});
    case HeapAllocator::rwbm64:
      return f(Rwbm64{});
    case HeapAllocator::queue:
      return f(Queue{});
    case HeapAllocator::rwmalloc32:
      return f(Rwmalloc32{});
    case HeapAllocator::corw32:
      return f(Corw32{});
    case HeapAllocator::corw64:
      return f(Corw64{});
    case HeapAllocator::corw_rotated32:
      return f(CorwRotated32{});
    case HeapAllocator::rwmalloc64:
      break;
  }
  return f(Rwmalloc64{});
}

}  // namespace

HeapRun run_heap(const HeapPlan& plan) {
  return with_api(plan.allocator, [&](auto api) { return run_typed<decltype(api)>(plan); });
}

std::string heap_input_error(HeapAllocator allocator, std::uint64_t pages, std::uint64_t page_bytes,
                             std::uint64_t max_steps) {
  return with_api(allocator, [&](auto api) -> std::string {
    try {
      DevicePageHeap<decltype(api)> heap(
          {.pages = pages, .page_bytes = page_bytes, .max_steps = max_steps});
    } catch (const InputError& e) {
      return e.parameter();
    }
    return "";
  });
}

}  // namespace alloclab::gpu::test
