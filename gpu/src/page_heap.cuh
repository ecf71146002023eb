// A byte-level heap over a page allocator's device-side API, for any kernel: malloc(bytes) hands
// out whole pages of an arena (page p starts at arena + p * page_bytes, as in the workloads),
// free(ptr) gives them back. The allocator is a type (policies as types, as mallocMC composes
// its allocators), recognised by the shape of its device API:
//  * one page per thread, probing a stream (RwDevice, RwbmDevice): malloc_page(thread, k);
//  * one page per thread, no stream (QueueDevice): malloc_page();
//  * one page per lane, warp-collective (CorwDevice): malloc_page(lane, members, asking);
//  * runs of n pages, warp-collective (RwmallocDevice): malloc_pages(n, asking, warp, k, members).
// PageHeap is device-copyable (pass it by value to a kernel); DevicePageHeap
// (device_page_heap.cuh) owns its memory on the host side. An allocator's device struct joins by
// having one of these shapes and, for DevicePageHeap, `using View` (BitmapView or QueueView),
// kWordBits (bitmaps: the word width) and a host-side static on_pool(view, pages, seed,
// max_steps) that makes it over a pool with every page free; no code here names an allocator.
//
// Decisions:
//  * One-page allocators serve 1 <= bytes <= page_bytes with one page; larger requests (and
//    bytes = 0) return nullptr. RW_malloc serves 1 <= bytes <= w * page_bytes with
//    ceil(bytes / page_bytes) consecutive pages (its runs lie inside one bitmap word); larger
//    requests return nullptr. free(ptr) learns the run's length from a byte per page (run_pages,
//    written at malloc at the run's first page, cleared at free).
//  * Every search is bounded by the allocator's max_steps: out of memory, or a search that hit
//    the bound, returns nullptr; nothing waits for memory to be freed, so nothing hangs.
//  * Divergent callers are correct for every allocator. RW_malloc is warp-collective: malloc
//    takes the lanes that called it together (__activemask(): the coalesced group, as
//    cooperative_groups::coalesced_threads() does) and serves their sizes one distinct page count
//    at a time, every lane of the group reading its word of each window (a group of g lanes
//    reads g words per round, so a lone caller's search costs more rounds). Enforcing
//    converged warps instead would make every caller of a case study restructure its control
//    flow, and a wrong call would deadlock or corrupt rather than fail.
//  * Probe streams: a thread (a group, for RW_malloc) probes the stream of its global index
//    from a position drawn from the SM clock at each call, so that a thread's later calls do not
//    re-probe the pages its earlier calls took (which would cost steps and, once a thread held
//    max_steps pages, fail spuriously). Results are therefore not reproducible run to run; the
//    allocation kernels (rw.cu, ...) keep the contract's streams from k = 0.
//  * The hand-over is ordered (docs/memory-order.md): free issues a release fence (device scope)
//    before the atomic that gives the pages back, malloc an acquire fence after the claim that
//    found them, so the freeing thread's writes happen before the next owner's accesses, on any
//    two SMs; free ignores nullptr. A pointer not handed out by this heap, or freed twice,
//    is undefined behaviour; where it can be seen (outside the arena, not at a page start, or,
//    for RW_malloc, not the start of a live run) free asserts in debug builds and ignores it
//    otherwise.
//  * The queue's device API needs allocation and free in separate phases (its tail is read as
//    fixed while it allocates): PageHeap<QueueDevice> inherits that (malloc and free in different
//    kernels, or separated by a grid-wide barrier).
#pragma once

#include <cassert>
#include <concepts>
#include <cstddef>
#include <cstdint>

#include "common.cuh"
#include "warp.cuh"

namespace alloclab::gpu::detail {

// One page per thread from a probe stream (thread, position k); k advances.
template <typename Api>
concept ProbingPageApi = requires(const Api& api, std::uint64_t x, std::uint64_t& k) {
  { api.malloc_page(x, k) } -> std::same_as<PageRequest>;
  api.free_page(x);
};
// One page per thread, no stream.
template <typename Api>
concept TicketPageApi = requires(const Api& api, std::uint64_t x) {
  { api.malloc_page() } -> std::same_as<PageRequest>;
  api.free_page(x);
};
// One page per lane, the lanes of a mask asking together (their state made by api.lane).
template <typename Api>
concept WarpPageApi = requires(const Api& api, std::uint64_t x, unsigned m, bool b) {
  api.lane(x, x);
  {
    api.malloc_page(*static_cast<decltype(api.lane(x, x))*>(nullptr), m, b)
    } -> std::same_as<PageRequest>;
  api.free_page(x);
};
// Runs of up to kWordBits pages, asked for together by the lanes of a mask.
template <typename Api>
concept WarpRunApi = requires(const Api& api, unsigned n, bool b, std::uint64_t x,
                              std::uint64_t& k) {
  { api.malloc_pages(n, b, x, k, n) } -> std::same_as<PageRequest>;
  api.free_pages(x, n);
  { Api::kWordBits } -> std::convertible_to<unsigned>;
};

// Linear index of the calling thread in the grid (any block and grid shape).
__device__ __forceinline__ std::uint64_t thread_in_block() {
  return (threadIdx.z * std::uint64_t{blockDim.y} + threadIdx.y) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ std::uint64_t block_in_grid() {
  return (blockIdx.z * std::uint64_t{gridDim.y} + blockIdx.y) * gridDim.x + blockIdx.x;
}
__device__ __forceinline__ std::uint64_t global_thread_index() {
  return block_in_grid() * (std::uint64_t{blockDim.x} * blockDim.y * blockDim.z) +
         thread_in_block();
}
// Index of the calling thread's warp in the grid (warps are formed from the linear thread index
// inside a block; the last warp of a block may be partial).
__device__ __forceinline__ std::uint64_t global_warp_index() {
  const std::uint64_t warps_per_block =
      (std::uint64_t{blockDim.x} * blockDim.y * blockDim.z + 31) / 32;
  return block_in_grid() * warps_per_block + thread_in_block() / 32;
}
// A fresh start in a probe stream: the SM clock, mixed with the caller's index (distinct calls
// of one thread see distinct clocks; mix64 is a bijection, so distinct clocks give distinct
// starts, and 2^64 positions make overlapping stretches of max_steps probes negligible).
__device__ __forceinline__ std::uint64_t fresh_probe_start(std::uint64_t caller) {
  return mix64(static_cast<std::uint64_t>(clock64()) ^ mix64(caller));
}

template <typename Api>
requires ProbingPageApi<Api> || TicketPageApi<Api> || WarpPageApi<Api> || WarpRunApi<Api>
struct PageHeap {
  static constexpr bool kRuns = WarpRunApi<Api>;

  Api api;                            // the allocator's device struct (its pool, seed, max_steps)
  unsigned char* arena = nullptr;     // pages * page_bytes bytes
  std::uint64_t page_bytes = 0;       // >= 1
  std::uint64_t pages = 0;            // pages of the pool and the arena
  std::uint8_t* run_pages = nullptr;  // RW_malloc: pages of the live run starting at each page

  // The largest request served.
  __host__ __device__ std::uint64_t max_bytes() const {
    if constexpr (kRuns)
      return std::uint64_t{Api::kWordBits} * page_bytes;
    else
      return page_bytes;
  }

  // `bytes` bytes starting at a page of the arena, or nullptr (bytes = 0, bytes > max_bytes(),
  // out of memory, or the step bound reached). Any thread, divergent or not.
  __device__ void* malloc(std::size_t bytes) const {
    if constexpr (kRuns) {
      return malloc_run(bytes);
    } else {
      if (bytes == 0 || bytes > page_bytes) return nullptr;
      PageRequest got;
      if constexpr (ProbingPageApi<Api>) {
        const std::uint64_t thread = global_thread_index();
        std::uint64_t k = fresh_probe_start(thread);
        got = api.malloc_page(thread, k);
      } else if constexpr (WarpPageApi<Api>) {
        // The lanes that called together (the coalesced group) share their words' free bits.
        const std::uint64_t thread = global_thread_index();
        auto lane = api.lane(thread, fresh_probe_start(thread));
        got = api.malloc_page(lane, __activemask(), true);
      } else {
        got = api.malloc_page();
      }
      if (got.page == kFailed) return nullptr;
      fence_acquire_device();  // the previous owner's writes (its free's release) before ours
      return arena + got.page * page_bytes;
    }
  }

  // Gives back what malloc returned; nullptr is ignored. Any thread.
  __device__ void free(void* ptr) const {
    if (ptr == nullptr) return;
    const auto* p = static_cast<unsigned char*>(ptr);
    const bool at_page = p >= arena && static_cast<std::uint64_t>(p - arena) < pages * page_bytes &&
                         static_cast<std::uint64_t>(p - arena) % page_bytes == 0;
    assert(at_page);  // a pointer this heap handed out
    if (!at_page) return;
    const std::uint64_t page = static_cast<std::uint64_t>(p - arena) / page_bytes;
    if constexpr (kRuns) {
      const unsigned n = __ldcg(&run_pages[page]);  // from L2: malloc may have run on another SM
      assert(n != 0);                               // a live run starts here
      if (n == 0) return;
      run_pages[page] = 0;
      fence_release_device();  // the cleared entry and the object's last writes before the pages
      api.free_pages(page, n);
    } else {
      fence_release_device();  // the object's last writes before the page is handed out again
      api.free_page(page);
    }
  }

 private:
  // RW_malloc: the lanes that called together (the coalesced group) search together, one
  // distinct page count at a time; each lane of the group reads its word of every window.
  __device__ void* malloc_run(std::size_t bytes) const {
    const unsigned group = __activemask();
    const int leader = __ffs(static_cast<int>(group)) - 1;
    const unsigned n = bytes == 0 || bytes > max_bytes()
                           ? 0u
                           : static_cast<unsigned>(bytes / page_bytes + (bytes % page_bytes != 0));
    // The group's stream: its warp's; the start is the leader's draw, so it is uniform.
    const std::uint64_t warp = global_warp_index();
    std::uint64_t k = 0;
    if (static_cast<int>(lane_id()) == leader) k = fresh_probe_start(global_thread_index());
    k = __shfl_sync(group, k, leader);
    PageRequest mine;
    for (unsigned pending = __ballot_sync(group, n != 0); pending != 0;) {
      const int first = __ffs(static_cast<int>(pending)) - 1;
      const unsigned run = __shfl_sync(group, n, first);
      const bool asking = n == run;
      const PageRequest got = api.malloc_pages(run, asking, warp, k, group);
      if (asking) mine = got;
      pending &= ~__ballot_sync(group, asking);
    }
    if (mine.page == kFailed) return nullptr;
    fence_acquire_device();  // the previous owner's writes (its free's release) before ours
    run_pages[mine.page] = static_cast<std::uint8_t>(n);
    return arena + mine.page * page_bytes;
  }
};

}  // namespace alloclab::gpu::detail
