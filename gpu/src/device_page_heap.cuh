// The host-side owner of a PageHeap (page_heap.cuh): allocates the allocator's pool with every
// page free (a bitmap of the allocator's word width, or the queue's ring of all page ids), the
// arena of pages * page_bytes bytes and, for RW_malloc, the run-length table; times the pool's
// initialisation with CUDA events; gives kernels the device handle (device(), by value); frees
// everything when it goes. It needs no workload driver: a test kernel or a case study makes one
// and launches its own kernels with device().
//
//   DevicePageHeap<RwmallocDevice<std::uint32_t>> heap({.pages = 1 << 20, .page_bytes = 64});
//   my_kernel<<<blocks, threads>>>(heap.device());   // heap.device().malloc(bytes) in there
#pragma once

#include <memory>
#include <type_traits>
#include <vector>

#include "bitmap_pool.cuh"
#include "device.cuh"
#include "page_heap.cuh"
#include "queue_pool.cuh"

namespace alloclab::gpu::detail {

struct PageHeapParams {
  std::uint64_t pages = 0;             // >= 1 (the queue: < 2^32)
  std::uint64_t page_bytes = 0;        // >= 1
  std::uint64_t seed = 1;              // of the probe streams
  std::uint64_t max_steps = 1u << 20;  // in [1, 2^32): bound of every search (as MeasureOptions)
};

// A bitmap of w-bit words with pages [0, pages) free and the bits past them used for good.
class FreeBitmap {
 public:
  FreeBitmap(std::uint64_t pages, unsigned w);
  static std::uint64_t device_bytes(std::uint64_t pages, unsigned w);
  void make_all_free();  // device work only (the owner times it)
  BitmapView view() const { return {bitmap_.get(), words_, w_}; }
  std::vector<std::uint64_t> free_pages() const;  // copied back, increasing

 private:
  std::uint64_t pages_;
  unsigned w_;
  std::uint64_t words_;
  DeviceBuffer<unsigned char> bitmap_;
};

// The queue's ring holding every page id (capacity A = pages), head 0, tail = pages.
class FreeQueue {
 public:
  explicit FreeQueue(std::uint64_t pages);
  static std::uint64_t device_bytes(std::uint64_t pages);
  void make_all_free();
  QueueView view() const { return {ring_.get(), head_.get()}; }
  std::vector<std::uint64_t> free_pages() const;  // the ring's live slots, sorted

 private:
  std::uint64_t pages_;
  DeviceBuffer<std::uint32_t> ring_;
  DeviceBuffer<unsigned long long> head_;
};

// InputError naming "pages", "page_bytes" or "max_steps" where a heap cannot be made; then
// InputError on "pages" where the device lacks the memory.
void check_page_heap(const PageHeapParams& p, bool queue, std::uint64_t pool_bytes,
                     std::uint64_t run_table_bytes);

template <typename Api>
class DevicePageHeap {
 public:
  using Heap = PageHeap<Api>;
  static constexpr bool kQueue = std::is_same_v<typename Api::View, QueueView>;
  using Pool = std::conditional_t<kQueue, FreeQueue, FreeBitmap>;

  explicit DevicePageHeap(const PageHeapParams& p) : p_(p) {
    std::uint64_t pool_bytes = 0;
    if constexpr (kQueue)
      pool_bytes = FreeQueue::device_bytes(p.pages);
    else
      pool_bytes = FreeBitmap::device_bytes(p.pages, Api::kWordBits);
    check_page_heap(p, kQueue, pool_bytes, Heap::kRuns ? p.pages : 0);
    if constexpr (kQueue)
      pool_ = std::make_unique<FreeQueue>(p.pages);
    else
      pool_ = std::make_unique<FreeBitmap>(p.pages, Api::kWordBits);
    arena_.resize(p.pages * p.page_bytes);
    if constexpr (Heap::kRuns) run_pages_.resize(p.pages);
    EventTimer timer;
    timer.start();
    reset();
    init_ms_ = timer.stop();
  }
  DevicePageHeap(const DevicePageHeap&) = delete;
  DevicePageHeap& operator=(const DevicePageHeap&) = delete;

  // The device handle: pass it by value to kernels. Valid while this object lives.
  Heap device() const {
    return {Api::on_pool(pool_->view(), p_.pages, p_.seed, p_.max_steps), arena_.get(),
            p_.page_bytes, p_.pages, run_pages_.get()};
  }
  // Every page free again (a case study's next run over the same heap); device work only.
  void reset() {
    pool_->make_all_free();
    if constexpr (Heap::kRuns) ALLOCLAB_CUDA(cudaMemset(run_pages_.get(), 0, run_pages_.bytes()));
  }
  // Device time of making the pool all free (CUDA events around the initialising launches and
  // copies; the allocations are not timed).
  double init_ms() const { return init_ms_; }
  const PageHeapParams& params() const { return p_; }
  unsigned char* arena() const { return arena_.get(); }
  std::uint64_t arena_bytes() const { return arena_.bytes(); }
  // The pool's free pages now, copied back in increasing order (checks, not a hot path); call
  // between kernels.
  std::vector<std::uint64_t> free_pages() const { return pool_->free_pages(); }
  std::uint64_t pages_in_use() const { return p_.pages - free_pages().size(); }

 private:
  PageHeapParams p_;
  std::unique_ptr<Pool> pool_;
  DeviceBuffer<unsigned char> arena_;
  DeviceBuffer<std::uint8_t> run_pages_;
  double init_ms_ = 0;
};

}  // namespace alloclab::gpu::detail
