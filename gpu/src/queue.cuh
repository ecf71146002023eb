// The queue baseline's device-side API (Ouroboros-style page queue, paper 000 Eq. 1): a ring of
// the A free page ids; a request takes ticket = atomicAdd(head, 1) and gets ring[ticket] if the
// ticket is below the tail, else it gives the ticket back and fails (out of memory). Frees push at
// the tail. Allocation and free must not run at the same time (the tail is read as fixed); the
// allocation kernel (queue.cu) is one call per request.
#pragma once

#include "queue_pool.cuh"

namespace alloclab::gpu::detail {

struct QueueDevice {
  using View = QueueView;
  QueueView pool;
  std::uint64_t A = 0;  // ring capacity: the free pages at the start

  // Over a pool of `pages` pages, all free (PageHeap's host side, device_page_heap.cuh); the
  // queue has no steps to bound.
  static QueueDevice on_pool(const View& pool, std::uint64_t pages, std::uint64_t, std::uint64_t) {
    return {pool, pages};
  }

  // One page. Steps = the position of the ticket since the launch began (kBase): the request
  // served k-th waited for k tickets.
  __device__ __forceinline__ PageRequest malloc_page() const {
    const unsigned long long tail = __ldcg(&pool.head[QueueView::kTail]);
    const unsigned long long ticket = atomic_add_word(&pool.head[QueueView::kHead], 1ull);
    // The first failure happens only once all tickets below the tail are drawn, so a returned
    // ticket is never one a later request could be served by; after the launch head =
    // min(tail, tickets drawn), and pages freed at the tail stay reachable.
    PageRequest r;
    r.atomics = 1;
    if (ticket < tail) {
      r.page = pool.ring[ticket % A];
    } else {
      count_add(&pool.head[QueueView::kHead], ~0ull);
      r.atomics = 2;
    }
    r.steps = static_cast<std::uint32_t>(ticket - __ldcg(&pool.head[QueueView::kBase]) + 1);
    return r;
  }

  __device__ __forceinline__ void free_page(std::uint64_t page) const {
    const unsigned long long t = atomic_add_word(&pool.head[QueueView::kTail], 1ull);
    pool.ring[t % A] = static_cast<std::uint32_t>(page);
  }
};

}  // namespace alloclab::gpu::detail
