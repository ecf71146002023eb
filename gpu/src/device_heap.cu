// CUDA's device malloc heap as a pool: the heap limit and the pointer slots.
#include <algorithm>

#include "alloclab/core/errors.hpp"
#include "device_heap.cuh"

namespace alloclab::gpu::detail {
namespace {

std::size_t current_heap_limit() {
  std::size_t current = 0;
  ALLOCLAB_CUDA(cudaDeviceGetLimit(&current, cudaLimitMallocHeapSize));
  return current;
}

void raise_heap(std::size_t bytes) {
  if (current_heap_limit() >= bytes) return;
  const cudaError_t e = cudaDeviceSetLimit(cudaLimitMallocHeapSize, bytes);
  if (e != cudaSuccess) {
    cudaGetLastError();
    throw InputError("--cuda-heap",
                     "cannot raise the device malloc heap to " + std::to_string(bytes) +
                         " bytes after the first malloc "
                         "kernel (" +
                         cudaGetErrorString(e) + "); give --cuda-heap for the largest grid point");
  }
}

}  // namespace

void DeviceHeap::check(const Scenario&, const MeasureOptions& o) {
  if (o.page_bytes < 1) throw InputError("--page-bytes", "must be >= 1");
}

std::uint64_t DeviceHeap::device_heap_bytes(const Scenario& s, const MeasureOptions& o) {
  if (o.heap_bytes) return o.heap_bytes;
  const std::uint64_t need = s.N * o.per_thread * s.pages * o.page_bytes;
  return std::max<std::uint64_t>(2 * need, 1ull << 31);
}

DeviceHeap::DeviceHeap(const Scenario& s, const MeasureOptions& o, const KernelArgs&)
    : name_(name(s.algo)),
      page_bytes_(o.page_bytes),
      heap_bytes_(device_heap_bytes(s, o)),
      sized_by_user_(o.heap_bytes != 0) {}

std::uint64_t DeviceHeap::device_bytes() const {
  // The heap where it must grow (a heap already this large is in use).
  const std::uint64_t current = current_heap_limit();
  return heap_bytes_ > current ? heap_bytes_ - current : 0;
}

void DeviceHeap::set_up() {
  raise_heap(heap_bytes_);
}

}  // namespace alloclab::gpu::detail
