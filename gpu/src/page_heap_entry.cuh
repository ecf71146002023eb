// The registry of page heaps (issue 17): case studies that take pages from an allocator (the hash
// join, alloclab/gpu/join.hpp) run over any allocator with a device page API, through
// DevicePageHeap (device_page_heap.cuh). Each allocator's own .cu registers its entry, one line:
//
//   ALLOCLAB_REGISTER_ENTRY(PageHeapTable, Algorithm::rw, page_heap_entry<RwDevice>())
//
// which instantiates the case studies' kernels for its device API there; the case studies find
// it by table lookup and never name an allocator (core/backend_table.hpp).
#pragma once

#include <cstdint>

#include "alloclab/core/backend_table.hpp"
#include "alloclab/core/join/pages.hpp"
#include "alloclab/gpu/join.hpp"
#include "device_page_heap.cuh"
#include "join_probe.cuh"

namespace alloclab::gpu::detail {

struct PageHeapEntry {
  // The hash join with its output pages from this allocator (join_probe.cuh's driver).
  JoinRun (*join)(const JoinOptions&, const join::JoinOutput& reference) = nullptr;
  // The allocator's own input checks of a join (InputError naming the join's parameter; no
  // device needed); null: none beyond the join's.
  void (*check)(const JoinOptions&) = nullptr;
};
using PageHeapTable = BackendTable<PageHeapEntry>;

// GETPAGE of the join: one 256-byte page of the heap, as a page id.
template <class Api>
struct PageHeapTake {
  PageHeap<Api> heap;
  __device__ std::uint32_t take_page() const {
    const void* p = heap.malloc(join::kPageBytes);
    if (p == nullptr) return join::kNoPage;
    return static_cast<std::uint32_t>((static_cast<const unsigned char*>(p) - heap.arena) /
                                      join::kPageBytes);
  }
};

// The join's Output over DevicePageHeap<Api> (join_probe.cuh: run_join_with).
template <class Api>
class PageHeapOutput {
 public:
  explicit PageHeapOutput(const JoinOptions& o)
      : pages_(o.pages),
        heap_({.pages = o.pages,
               .page_bytes = join::kPageBytes,
               .seed = o.tables.seed,
               .max_steps = o.max_steps}) {}
  void reset() { heap_.reset(); }
  PageHeapTake<Api> device() const { return {heap_.device()}; }
  unsigned char* arena() const { return heap_.arena(); }
  // Read from the pool where that is quick (it copies the pool back and walks it).
  std::int64_t pool_free_pages() const {
    if (pages_ > (std::uint64_t{1} << 22)) return -1;
    return static_cast<std::int64_t>(heap_.free_pages().size());
  }

 private:
  std::uint64_t pages_;
  DevicePageHeap<Api> heap_;
};

template <class Api>
PageHeapEntry page_heap_entry() {
  return {&run_join_with<PageHeapOutput<Api>>};
}

}  // namespace alloclab::gpu::detail
