// The pools of DevicePageHeap with every page free: a bitmap cleared but for the bits past the
// last page, or the queue's ring of all page ids in order; and the heap's input checks.
#include <algorithm>
#include <string>

#include "alloclab/core/errors.hpp"
#include "device_page_heap.cuh"

namespace alloclab::gpu::detail {
namespace {

__global__ void all_page_ids_kernel(std::uint32_t* ring, std::uint64_t pages) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i < pages) ring[i] = static_cast<std::uint32_t>(i);
}

}  // namespace

FreeBitmap::FreeBitmap(std::uint64_t pages, unsigned w)
    : pages_(pages), w_(w), words_(word_count(pages, w)), bitmap_(words_ * (w / 8)) {}

std::uint64_t FreeBitmap::device_bytes(std::uint64_t pages, unsigned w) {
  return word_count(pages, w) * (w / 8);
}

void FreeBitmap::make_all_free() {
  ALLOCLAB_CUDA(cudaMemset(bitmap_.get(), 0, bitmap_.bytes()));
  const unsigned past = static_cast<unsigned>(pages_ % w_);
  if (past == 0) return;
  // The last word's bits from `past` on lie past the last page: used for good. Words are
  // little-endian, so its bytes are the low w/8 bytes of the 64-bit mask.
  const std::uint64_t used = ~std::uint64_t{0} << past;
  unsigned char bytes[8];
  for (unsigned b = 0; b < 8; ++b) bytes[b] = static_cast<unsigned char>(used >> (8 * b));
  ALLOCLAB_CUDA(
      cudaMemcpy(bitmap_.get() + (words_ - 1) * (w_ / 8), bytes, w_ / 8, cudaMemcpyHostToDevice));
}

std::vector<std::uint64_t> FreeBitmap::free_pages() const {
  std::vector<unsigned char> h(bitmap_.bytes());
  ALLOCLAB_CUDA(cudaMemcpy(h.data(), bitmap_.get(), h.size(), cudaMemcpyDeviceToHost));
  std::vector<std::uint64_t> out;
  for (std::uint64_t p = 0; p < pages_; ++p)
    if (!((h[p / 8] >> (p % 8)) & 1)) out.push_back(p);  // little-endian words: bit p of byte p/8
  return out;
}

FreeQueue::FreeQueue(std::uint64_t pages) : pages_(pages), ring_(pages), head_(QueueView::kSlots) {}

std::uint64_t FreeQueue::device_bytes(std::uint64_t pages) {
  return pages * sizeof(std::uint32_t) + QueueView::kSlots * sizeof(unsigned long long);
}

void FreeQueue::make_all_free() {
  all_page_ids_kernel<<<blocks_for(pages_, 256), 256>>>(ring_.get(), pages_);
  ALLOCLAB_CUDA_LAUNCH();
  unsigned long long h[QueueView::kSlots] = {};
  h[QueueView::kTail] = pages_;  // head = base = 0: every page is in the ring
  ALLOCLAB_CUDA(cudaMemcpy(head_.get(), h, sizeof h, cudaMemcpyHostToDevice));
}

std::vector<std::uint64_t> FreeQueue::free_pages() const {
  std::vector<std::uint32_t> ring(ring_.size());
  ALLOCLAB_CUDA(cudaMemcpy(ring.data(), ring_.get(), ring_.bytes(), cudaMemcpyDeviceToHost));
  unsigned long long h[QueueView::kSlots] = {};
  ALLOCLAB_CUDA(cudaMemcpy(h, head_.get(), sizeof h, cudaMemcpyDeviceToHost));
  std::vector<std::uint64_t> out;
  for (std::uint64_t t = h[QueueView::kHead]; t < h[QueueView::kTail]; ++t)
    out.push_back(ring[t % pages_]);
  std::sort(out.begin(), out.end());
  return out;
}

void check_page_heap(const PageHeapParams& p, bool queue, std::uint64_t pool_bytes,
                     std::uint64_t run_table_bytes) {
  if (p.pages < 1) throw InputError("pages", "must be >= 1");
  if (p.page_bytes < 1) throw InputError("page_bytes", "must be >= 1");
  if (p.max_steps < 1 || p.max_steps > 0xffffffffull)
    throw InputError("max_steps", "must be in [1, 2^32) (steps are counted in 32 bits)");
  if (queue && p.pages > 0xffffffffull)
    throw InputError("pages", "the queue stores 32-bit page ids: pages < 2^32");
  if (p.pages > ~std::uint64_t{0} / p.page_bytes)
    throw InputError("page_bytes", "the arena of pages * page_bytes bytes overflows 64 bits");
  require_device_bytes(
      "pages", "the page heap",
      {{"arena", p.pages * p.page_bytes}, {"pool", pool_bytes}, {"run table", run_table_bytes}});
}

}  // namespace alloclab::gpu::detail
