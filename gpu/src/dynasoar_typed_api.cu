// The host API of the GPU's typed heap (alloclab/gpu/dynasoar_apps.hpp) over
// TypedHeapGpu::Impl (dynasoar_typed.cuh): a batch uploaded, its kernel, its results downloaded,
// the record and the check at rest.
#include <algorithm>
#include <string>

#include "alloclab/core/errors.hpp"
#include "dynasoar_typed.cuh"

namespace alloclab::gpu {
namespace detail {

std::vector<Algorithm> typed_heap_algorithms_impl();

namespace {
// Thread tid of the do-all writes the key of the object it meets (kFailed: none).
__global__ void enumerate_kernel(const DoAll d, std::uint64_t* out) {
  const std::uint64_t tid = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (tid >= d.threads()) return;
  std::uint64_t block = 0;
  unsigned slot = 0;
  out[tid] = d.object(tid, block, slot) ? typed_key(block, slot) : kFailed;
}
}  // namespace

}  // namespace detail

using detail::DeviceBuffer;
using detail::kFailed;

std::vector<Algorithm> typed_heap_algorithms() {
  return detail::typed_heap_algorithms_impl();
}

TypedHeapGpu::TypedHeapGpu(Algorithm algo, const TypedHeapGpuOptions& o)
    : impl_(std::make_unique<Impl>(algo, o)) {}
TypedHeapGpu::~TypedHeapGpu() = default;

std::vector<std::optional<TypedSlot>> TypedHeapGpu::allocate(const std::vector<unsigned>& types,
                                                             unsigned per_thread) {
  const std::uint64_t k = impl_->opt.types.bytes.size();
  std::vector<std::uint32_t> asked(types.begin(), types.end());
  for (const std::uint32_t t : asked)
    if (t > k)
      throw InputError("--types",
                       "a request names type " + std::to_string(t) + " of " + std::to_string(k));
  const std::uint64_t n = asked.size() * per_thread;
  DeviceBuffer<std::uint32_t> d_types(asked.size());
  DeviceBuffer<std::uint64_t> d_out(n);
  if (!asked.empty())
    ALLOCLAB_CUDA(
        cudaMemcpy(d_types.get(), asked.data(), asked.size() * 4, cudaMemcpyHostToDevice));
  impl_->launch_allocate(d_types.get(), asked.size(), per_thread, d_out.get());
  std::vector<std::uint64_t> keys(n);
  if (n) ALLOCLAB_CUDA(cudaMemcpy(keys.data(), d_out.get(), n * 8, cudaMemcpyDeviceToHost));
  impl_->record_allocated(asked, per_thread, keys, "after an allocation kernel");
  std::vector<std::optional<TypedSlot>> out(n);
  for (std::uint64_t j = 0; j < n; ++j) {
    const std::uint32_t t = asked.empty() ? 0 : asked[j % asked.size()];
    if (t != 0 && keys[j] != kFailed)
      out[j] = TypedSlot{keys[j] / 64, static_cast<unsigned>(keys[j] % 64), t};
  }
  return out;
}

void TypedHeapGpu::free(const std::vector<TypedSlot>& objects) {
  std::vector<std::uint64_t> keys;
  std::vector<std::uint32_t> types;
  for (const TypedSlot& o : objects) {
    if (o.slot >= 64 || o.type == 0)
      throw VerificationError("free of an object not live (block " + std::to_string(o.block) +
                              ", slot " + std::to_string(o.slot) + ")");
    keys.push_back(detail::typed_key(o.block, o.slot));
    types.push_back(o.type);
  }
  // A free of an object not live (or one freed twice in the batch) is refused before the kernel:
  // the device would find its bit clear, or free a slot another object holds.
  std::vector<std::uint64_t> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  const bool twice = std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end();
  for (std::size_t i = 0; i < keys.size(); ++i)
    if (twice || !impl_->live(keys[i], types[i]))
      throw VerificationError(impl_->name + ": free of an object not live (block " +
                              std::to_string(keys[i] / 64) + ", slot " +
                              std::to_string(keys[i] % 64) + "): a double free");
  DeviceBuffer<std::uint64_t> d_keys(keys.size());
  DeviceBuffer<std::uint32_t> d_types(types.size());
  if (!keys.empty()) {
    ALLOCLAB_CUDA(cudaMemcpy(d_keys.get(), keys.data(), keys.size() * 8, cudaMemcpyHostToDevice));
    ALLOCLAB_CUDA(
        cudaMemcpy(d_types.get(), types.data(), types.size() * 4, cudaMemcpyHostToDevice));
  }
  impl_->launch_free(d_keys.get(), d_types.get(), keys.size());
  impl_->record_freed(keys, types, "after a free kernel");
}

std::vector<TypedSlot> TypedHeapGpu::enumerate(unsigned type) {
  if (type < 1 || type > impl_->opt.types.bytes.size())
    throw InputError("--types", "no type " + std::to_string(type));
  const detail::DoAll d = impl_->parallel_do(type);
  std::vector<std::uint64_t> keys(d.threads());
  if (!keys.empty()) {
    DeviceBuffer<std::uint64_t> out(keys.size());
    detail::enumerate_kernel<<<detail::blocks_for(keys.size(), 256), 256>>>(d, out.get());
    ALLOCLAB_CUDA_LAUNCH();
    ALLOCLAB_CUDA(cudaMemcpy(keys.data(), out.get(), keys.size() * 8, cudaMemcpyDeviceToHost));
  }
  std::vector<TypedSlot> objects;
  for (const std::uint64_t key : keys)
    if (key != kFailed)
      objects.push_back(TypedSlot{key / 64, static_cast<unsigned>(key % 64), type});
  return objects;
}

double TypedHeapGpu::last_kernel_ms() const {
  return impl_->last_ms;
}
double TypedHeapGpu::fragmentation() const {
  return impl_->mirror.fragmentation();
}
std::uint64_t TypedHeapGpu::blocks() const {
  return impl_->M;
}
std::uint64_t TypedHeapGpu::blocks_in_use() const {
  return impl_->mirror.blocks_in_use();
}
std::uint64_t TypedHeapGpu::live_objects() const {
  return impl_->live_count;
}
std::uint64_t TypedHeapGpu::failed() const {
  return impl_->failed;
}
const DsCountTotals& TypedHeapGpu::counts() const {
  return impl_->totals;
}

}  // namespace alloclab::gpu
