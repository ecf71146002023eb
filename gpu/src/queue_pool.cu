// The queue's pool on the device: the free pages of core/pool.hpp compacted in page order with
// CUB into the pristine ring, copied back before every run.
#include <thrust/iterator/counting_iterator.h>
#include <cub/cub.cuh>

#include <algorithm>

#include "alloclab/core/errors.hpp"
#include "queue_pool.cuh"

namespace alloclab::gpu::detail {
namespace {

struct FreePage {
  PagePermutation pi;
  std::uint64_t A;
  __device__ bool operator()(std::uint32_t p) const { return initially_free(pi, p, A); }
};

// CUB's scratch for selecting the free pages of [0, T) (nullptr: size only).
std::size_t select_free(void* temp, std::size_t temp_bytes, std::uint32_t* out,
                        unsigned long long* count, std::uint64_t T, const FreePage& pred) {
  thrust::counting_iterator<std::uint32_t> pages(0);
  ALLOCLAB_CUDA(cub::DeviceSelect::If(temp, temp_bytes, pages, out, count, T, pred));
  return temp_bytes;
}

}  // namespace

void QueuePool::check(const Scenario& s, const MeasureOptions&) {
  if (s.T > 0xffffffffull) throw InputError("--T", "the queue stores 32-bit page ids: T < 2^32");
}

QueuePool::QueuePool(const Scenario& s, const MeasureOptions&, const KernelArgs& a)
    : name_(name(s.algo)), T_(a.T), A_(a.A), seed_(a.seed) {}

std::uint64_t QueuePool::device_bytes() const {
  // The ring and its pristine copy, head and tail, and the selection's scratch and count.
  const FreePage pred{PagePermutation(T_, seed_), A_};
  const std::size_t temp = select_free(nullptr, 0, nullptr, nullptr, T_, pred);
  return 2 * std::max<std::uint64_t>(A_, 1) * sizeof(std::uint32_t) +
         QueueView::kSlots * sizeof(unsigned long long) + temp + sizeof(unsigned long long);
}

void QueuePool::set_up() {
  ring_.resize(std::max<std::uint64_t>(A_, 1));
  pristine_.resize(ring_.size());
  head_.resize(QueueView::kSlots);
  const FreePage pred{PagePermutation(T_, seed_), A_};
  DeviceBuffer<unsigned long long> count(1);
  const std::size_t temp_bytes = select_free(nullptr, 0, pristine_.get(), count.get(), T_, pred);
  DeviceBuffer<unsigned char> temp(temp_bytes);
  select_free(temp.get(), temp_bytes, pristine_.get(), count.get(), T_, pred);
  const std::uint64_t listed = read_scalar(count.get());
  if (listed != A_)
    throw VerificationError("queue set-up listed " + std::to_string(listed) +
                            " free pages, expected A=" + std::to_string(A_));
}

void QueuePool::reset() {
  ALLOCLAB_CUDA(cudaMemcpy(ring_.get(), pristine_.get(), ring_.bytes(), cudaMemcpyDeviceToDevice));
  unsigned long long h[QueueView::kSlots] = {};
  h[QueueView::kTail] = A_;
  ALLOCLAB_CUDA(cudaMemcpy(head_.get(), h, sizeof h, cudaMemcpyHostToDevice));
}

void QueuePool::verify_allocated(const Allocation& run) const {
  // Out of memory is exact: every request draws one ticket, the first A tickets are served and
  // the others given back.
  const unsigned long long tickets = read_scalar(head_.get() + QueueView::kHead);
  if (tickets != std::min<std::uint64_t>(run.requests, A_))
    throw VerificationError(name_ + ": " + std::to_string(tickets) + " tickets kept by " +
                            std::to_string(run.requests) + " requests, expected min(N*k, A)");
  if (run.taken != std::min<std::uint64_t>(run.requests, A_))
    throw VerificationError(name_ + ": taken " + std::to_string(run.taken) +
                            ", expected min(N*k, A)");
}

void QueuePool::verify_freed(const Allocation& run) const {
  const unsigned long long tail = read_scalar(head_.get() + QueueView::kTail);
  if (tail != A_ + run.taken)
    throw VerificationError(name_ + ": free pushed " + std::to_string(tail - A_) +
                            " pages, expected " + std::to_string(run.taken));
}

std::optional<std::vector<std::uint64_t>> QueuePool::free_pages() const {
  // The live entries are the slots [first unserved ticket, tail), modulo the capacity A.
  std::vector<std::uint32_t> ring(ring_.size());
  ALLOCLAB_CUDA(cudaMemcpy(ring.data(), ring_.get(), ring_.bytes(), cudaMemcpyDeviceToHost));
  const std::uint64_t first = read_scalar(head_.get() + QueueView::kHead);
  const std::uint64_t tail = read_scalar(head_.get() + QueueView::kTail);
  std::vector<std::uint64_t> out;
  for (std::uint64_t t = first; t < tail; ++t) out.push_back(ring[t % A_]);
  std::sort(out.begin(), out.end());
  return out;
}

void QueuePool::begin_allocations() {
  ALLOCLAB_CUDA(cudaMemcpy(head_.get() + QueueView::kBase, head_.get() + QueueView::kHead,
                           sizeof(unsigned long long), cudaMemcpyDeviceToDevice));
}

std::optional<std::uint64_t> QueuePool::pages_in_use() const {
  // Dequeued (head) minus returned (tail - A).
  return read_scalar(head_.get() + QueueView::kHead) + A_ -
         read_scalar(head_.get() + QueueView::kTail);
}

}  // namespace alloclab::gpu::detail
