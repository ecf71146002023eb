// gg-ualloc and gg-malloc on the GPU: UAlloc (Gelado & Garland, PPoPP'19 §4.2) and the paper's
// malloc/free (§4), the step machines of core/gelado/ualloc_alloc.hpp, ualloc_free.hpp and
// tbuddy.hpp (the simulator drives the same ones, cpu_sim/src/gg_ualloc.cpp) run to their end by
// each thread with device atomics, over the pool of gg_ualloc_pool.cuh (studies/gelado-garland/,
// "UAlloc on the GPU").
//
//  * Arenas: a thread's arena is the SM it runs on (%smid) modulo the pool's arena count (by
//    default one per SM; fewer on a pool of under 8 chunks per SM). A bin's arena is in its
//    header, so a free goes to the arena that allocated the object, wherever it runs.
//  * malloc: a request of n units asks for 8 x 2^ceil(log2 n) bytes; up to 1 KB from UAlloc, from
//    2 KB a TBuddy block of ceil(bytes / 4 KB) pages, whose request units the pool keeps per page
//    (free() reads the block's order there). free() dispatches by the address alone: 4 KB-aligned
//    to TBuddy, otherwise UAlloc (no UAlloc object is 4 KB-aligned: every one lies past a bin's
//    128 B header).
//  * Needs independent thread scheduling (Volta and later): a thread spins on a mutex (a list's,
//    a chunk list's, the RCU barrier's, a TBuddy node's) that another lane of its own warp may
//    hold, which only a scheduler that interleaves a warp's diverged paths lets finish.
//  * Memory order: the shared code's words are read at L2 (ld.cg) and written by atomics, which
//    are relaxed on the device: two atomics of one thread on different words may become visible
//    in either order. The atomics policy below fences before and after every read-modify-write,
//    so that what a thread wrote before a release (a bin's header before its link, a cleared bit
//    before the count's increment, a mutex's critical section before its release, an SRCU
//    reader's increment before its epoch check) is seen by whoever sees the release.
//  * Bounds: an alloc at --max-steps gives up where that leaves nothing half done (give_up); one
//    that spins kStuckSteps steps (or a free) is a defect, counted in the pool's `stuck` word,
//    and fails verification. Out of memory (TBuddy has no chunk) returns null, counted.
#include <string>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/gelado/tbuddy.hpp"
#include "alloclab/core/gelado/ualloc_alloc.hpp"
#include "alloclab/core/gelado/ualloc_chunk_group.hpp"
#include "alloclab/core/gelado/ualloc_free.hpp"
#include "alloclab/core/gelado/ualloc_pool.hpp"
#include "alloclab/core/random_stream.hpp"
#include "gg_ualloc_pool.cuh"
#include "gpu_entry.cuh"
#include "ouro_atomics.cuh"
#include "pool_page_heap.cuh"

namespace alloclab::gpu::detail {
namespace {

constexpr unsigned kMostThreads = 512;  // gg_ualloc_pool.cu checks --block against it

// The read-modify-writes of the calling thread's current request, in shared memory.
__shared__ std::uint32_t ualloc_rmw_tally[kMostThreads];

// DeviceAtomics with a fence on each side of every read-modify-write (see the memory order
// above), counting the calling thread's read-modify-writes in ualloc_rmw_tally.
struct OrderedAtomics {
  template <class T>
  __device__ static T load(T& w) {
    return DeviceAtomics::load(w);
  }
  template <class T>
  __device__ static T fetch_add(T& w, T v) {
    return rmw([&] { return DeviceAtomics::fetch_add(w, v); });
  }
  template <class T>
  __device__ static T cas(T& w, T expected, T desired) {
    return rmw([&] { return DeviceAtomics::cas(w, expected, desired); });
  }
  template <class T>
  __device__ static T exchange(T& w, T v) {
    return rmw([&] { return DeviceAtomics::exchange(w, v); });
  }
  template <class T>
  __device__ static T fetch_or(T& w, T v) {
    return rmw([&] { return DeviceAtomics::fetch_or(w, v); });
  }
  template <class T>
  __device__ static T fetch_and(T& w, T v) {
    return rmw([&] { return DeviceAtomics::fetch_and(w, v); });
  }

 private:
  template <class F>
  __device__ static auto rmw(F f) {
    ++ualloc_rmw_tally[threadIdx.x];
    __threadfence();
    const auto old = f();
    __threadfence();
    return old;
  }
};

using Alloc = gelado::UAllocAlloc<OrderedAtomics>;
using ChunkGroup = gelado::UAllocChunkGroup<OrderedAtomics>;
using Free = gelado::UAllocFree<OrderedAtomics>;
using PagesAlloc = gelado::TBuddyAlloc<OrderedAtomics>;
using PagesFree = gelado::TBuddyFree<OrderedAtomics>;

// An operation spinning this many steps is a defect (every wait is for an operation running).
constexpr std::uint64_t kStuckSteps = std::uint64_t{1} << 26;

// The counts, one list with the simulator's (gelado/ualloc_op_counts.hpp): the allocations'
// (UAllocStats), then the frees' since the previous counted allocation launch.
using gelado::kUAllocCountNames;
constexpr unsigned kAllocCounts = gelado::kUAllocAllocCounts;

__device__ __forceinline__ unsigned sm_id() {
  unsigned sm;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  return sm;
}

// The back-off after the `run`-th spinning step in a row: short while it may be a lost CAS (the
// next attempt should come soon), longer once the thread is waiting for another one (a grower
// initialising a bin, a mutex held across a TBuddy alloc), so that a wait of a few milliseconds
// takes thousands of steps, not tens of thousands, and stays far below --max-steps.
__device__ __forceinline__ void ualloc_back_off(std::uint32_t run) {
  __nanosleep(run < 8 ? 32 : run < 64 ? 256 : 1024);
}

// Runs `op` to its end: the caller's step bound through give_up, kStuckSteps as a defect.
// `intercept(op, steps)` may take a step's place (true: it did, and added its steps): UAlloc's
// collective chunk mutex. Returns the steps taken.
struct NoIntercept {
  template <class Op>
  __device__ bool operator()(Op&, std::uint64_t&) const {
    return false;
  }
};
template <class Op, class View, class Phase, class Intercept = NoIntercept>
__device__ std::uint64_t run_alloc(Op& op, const View& v, Phase done, std::uint64_t max_steps,
                                   unsigned long long* stuck, Intercept intercept = {}) {
  std::uint64_t steps = 0;
  std::uint32_t run = 0;  // spinning steps in a row
  bool stopping = false;
  while (op.phase() != done) {
    if (steps >= max_steps && !stopping) stopping = op.give_up(v);
    if (op.phase() == done) break;
    if (steps >= kStuckSteps) {
      atomicAdd(stuck, 1ull);
      break;
    }
    if (intercept(op, steps)) {
      run = 0;
      continue;
    }
    const gelado::StepStatus st = op.step(v);
    ++steps;
    if (st == gelado::StepStatus::spinning)
      ualloc_back_off(++run);
    else
      run = 0;
  }
  return steps;
}

// The collective chunk mutex (§4.2.2, gelado/ualloc_chunk_group.hpp), per warp of the block: the
// lanes waiting for a chunk-list bin (want) and those a leader has served (served), and the bin
// each lane was given. Threads of one warp need not run together (independent scheduling does
// not reconverge lanes that waited apart), so a group is not the lanes that happen to be
// converged but those registered as waiting when one of them takes the mutex.
__shared__ unsigned ualloc_chunk_want[kMostThreads / 32], ualloc_chunk_served[kMostThreads / 32];
__shared__ std::uint32_t ualloc_group_bins[kMostThreads];

// Every thread of the block, before any request of the allocation kernel.
__device__ void start_chunk_groups() {
  if (threadIdx.x < kMostThreads / 32)
    ualloc_chunk_want[threadIdx.x] = ualloc_chunk_served[threadIdx.x] = 0;
  __syncthreads();
}

// A grower at the chunk mutex: it registers as waiting, then until a leader has served it, tries
// the mutex; the lane that takes it empties the waiting mask and serves every lane in it (itself
// too, unless a leader before it did) with one group machine: the rank walk, a chunk from TBuddy
// if the list runs out, the release. Each member then goes on from its own bin. The counts of the
// groups a lane led go to its request. Returns the steps taken (tries, and the groups it ran).
// A lane that spins kStuckSteps is a defect: counted in `stuck`, and it fails as out of memory.
__device__ std::uint64_t collective_chunk_take(Alloc& op, const UAllocGpuView& v,
                                               std::uint32_t arena, std::uint32_t scatter) {
  const gelado::UAllocView& u = v.u;
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32, bit = 1u << lane;
  std::uint32_t* bins = &ualloc_group_bins[threadIdx.x - lane];
  gelado::UAllocStats led;  // the groups this lane ran
  std::uint64_t steps = 0;
  atomicOr(&ualloc_chunk_want[warp], bit);
  for (;;) {
    ChunkGroup g(u, arena, 1, scatter);
    std::uint32_t run = 0;
    for (;;) {  // until served, or the mutex is this lane's
      if (atomicAnd(&ualloc_chunk_served[warp], ~bit) & bit) {
        __threadfence_block();  // its bin was written before its bit was set
        led.lock_spins += g.stats().lock_spins;
        op.grant_bin(bins[lane], &led);
        return steps;
      }
      if (steps >= kStuckSteps) {
        atomicAdd(&v.words->stuck, 1ull);
        op.grant_bin(gelado::kNoBin, &led);
        return steps;
      }
      ++steps;
      if (g.step(u) != gelado::StepStatus::spinning) break;  // the lock phase: one try-lock
      ualloc_back_off(++run);
    }
    const unsigned members = atomicExch(&ualloc_chunk_want[warp], 0u);
    g.set_members(__popc(members));
    run = 0;
    while (g.phase() != gelado::UAllocChunkGroupPhase::done && steps < kStuckSteps) {
      ++steps;
      if (g.step(u) == gelado::StepStatus::spinning)
        ualloc_back_off(++run);
      else
        run = 0;
    }
    if (g.phase() != gelado::UAllocChunkGroupPhase::done) atomicAdd(&v.words->stuck, 1ull);
    if (g.overflowed() || g.buddy_stats().max_locks_held > 2) atomicAdd(&v.words->bad, 1ull);
    std::uint32_t r = 0;
    for (unsigned m = members; m != 0; m &= m - 1) bins[__ffs(m) - 1] = g.bin(r++);
    __threadfence_block();
    atomicOr(&ualloc_chunk_served[warp], members);
    const gelado::UAllocStats& gs = g.stats();
    led.memory_ops += gs.memory_ops;
    led.lock_spins += gs.lock_spins;
    led.chunk_refills += gs.chunk_refills;
    led.chunk_locks += gs.chunk_locks;
  }
}

// The launch's counts of the frees since the previous counted allocation launch go to this
// launch's totals (as the simulator adds them to the next allocate()).
__device__ void start_alloc_launch(const KernelArgs& a, const UAllocGpuView& v, bool counted) {
  v.words->counting = counted ? 1u : 0u;
  if (!counted) return;
  for (unsigned j = 0; j < kUAllocFreeCounts; ++j) {
    const unsigned long long n = atomicExch(&v.words->free_counts[j], 0ull);
    if (n) atomicAdd(&a.op_counts[kAllocCounts + j], n);
  }
}

// One malloc of `units` units of 8 B by the calling thread, run to its end (UAlloc up to 1 KB,
// from 2 KB a TBuddy block, gg-malloc only): the allocation kernel's request and the case
// studies' GETPAGE (UAllocPageTake below). Returns the first unit or kFailed; its steps, failed
// atomics and counts (kUAllocCountNames' allocation part) in the rest.
struct UAllocRequest {
  std::uint64_t unit = kFailed;
  std::uint32_t steps = 0, collisions = 0;
  std::uint32_t counts[kAllocCounts] = {};
};
__device__ UAllocRequest ualloc_malloc_request(const UAllocGpuView& v, std::uint32_t units,
                                               std::uint32_t scatter, std::uint64_t max_steps,
                                               bool collective) {
  UAllocRequest q;
  const std::uint64_t bytes = gelado::ualloc_request_bytes(units);
  if (bytes <= gelado::kUAllocMaxBytes) {
    const std::uint32_t arena = sm_id() % v.u.arenas;
    Alloc op(v.u, gelado::ualloc_class_of(static_cast<std::uint32_t>(bytes)), arena, scatter);
    // With `collective` (a kernel that ran start_chunk_groups) a grower's chunk mutex is taken
    // by its warp's group; else each takes it alone (a group of one).
    auto chunk_take = [&](Alloc& alloc, std::uint64_t& steps) {
      if (!collective || !alloc.waiting_for_chunk()) return false;
      steps += collective_chunk_take(alloc, v, arena, scatter);
      return true;
    };
    q.steps = static_cast<std::uint32_t>(
        run_alloc(op, v.u, gelado::UAllocAllocPhase::done, max_steps, &v.words->stuck, chunk_take));
    if (op.overflowed() || op.buddy_stats().max_locks_held > 2) atomicAdd(&v.words->bad, 1ull);
    if (op.phase() == gelado::UAllocAllocPhase::done && op.result() != gelado::kUAllocFailed)
      q.unit = op.result() / gelado::kUAllocUnitBytes;
    const gelado::UAllocStats& us = op.stats();
    q.collisions = us.sem_cas_failures + us.count_cas_failures + us.bit_retries;
    gelado::ualloc_alloc_count_values(us, q.counts);
    return q;
  }
  // gg-malloc only (the input checks): whole pages from TBuddy.
  PagesAlloc op(gelado::ualloc_big_order(units), scatter);
  q.steps = static_cast<std::uint32_t>(
      run_alloc(op, v.u.buddy, gelado::TBuddyAllocPhase::done, max_steps, &v.words->stuck));
  const gelado::TBuddyStats& ts = op.stats();
  if (ts.max_locks_held > 2) atomicAdd(&v.words->bad, 1ull);
  const std::uint32_t node = op.phase() == gelado::TBuddyAllocPhase::done ? op.node() : 0;
  if (node != 0) {
    const std::uint32_t page = gelado::tb_offset(v.u.buddy.height, node);
    v.big_units[page] = units;  // the block is this thread's: a plain store
    q.unit = std::uint64_t{page} * gelado::kUAllocUnitsPerPage;
  }
  q.collisions = ts.cas_failures + ts.sem_cas_failures;
  q.counts[gelado::ualloc_count::gave_up] = ts.gave_up;  // as the simulator counts a malloc block
  return q;
}

template <bool kCounters>
__global__ void __launch_bounds__(kMostThreads) ualloc_alloc_kernel(KernelArgs a, UAllocGpuView v) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  start_chunk_groups();
  if (i == 0) start_alloc_launch(a, v, kCounters && a.op_counts != nullptr);
  if (i >= a.N || !asks(a, i)) return;
  const std::uint32_t units = a.pages_of ? a.pages_of[i] : a.pages;
  for (unsigned r = 0; r < a.per_thread; ++r) {
    ualloc_rmw_tally[threadIdx.x] = 0;
    const auto scatter = static_cast<std::uint32_t>(
        PhiloxStream(a.seed, StreamDomain::probe, i + std::uint64_t{r} * a.N).bits(0));
    const UAllocRequest q = ualloc_malloc_request(v, units, scatter, a.max_steps, v.collective);
    record_request<kCounters>(a, r, i, q.unit, q.steps, q.collisions,
                              ualloc_rmw_tally[threadIdx.x]);
    record_op_counts<kCounters>(a, q.counts);
  }
}

__global__ void __launch_bounds__(256) ualloc_free_kernel(KernelArgs a, UAllocGpuView v) {
  const std::uint64_t slot = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (slot >= a.N * a.per_thread || a.page[slot] == kFailed) return;
  ualloc_rmw_tally[threadIdx.x] = 0;
  const std::uint64_t off = a.page[slot] * gelado::kUAllocUnitBytes;
  if (off % gelado::kUAllocBinBytes == 0) {  // §4: the dispatch by alignment alone
    const auto page = static_cast<std::uint32_t>(off / gelado::kUAllocBinBytes);
    const std::uint32_t units = v.big_units[page];
    if (!v.with_malloc || units == 0) {
      atomicAdd(&v.words->bad, 1ull);
      return;
    }
    v.big_units[page] = 0;
    PagesFree op(v.u.buddy,
                 gelado::tb_node(v.u.buddy.height, page, gelado::ualloc_big_order(units)));
    for (std::uint64_t steps = 1;; ++steps) {
      if (steps >= kStuckSteps) {
        atomicAdd(&v.words->stuck, 1ull);
        return;
      }
      const gelado::StepStatus st = op.step(v.u.buddy);
      if (st == gelado::StepStatus::done) return;
      if (st == gelado::StepStatus::spinning) ualloc_back_off(static_cast<std::uint32_t>(steps));
    }
  }
  Free op(v.u, off);
  for (std::uint64_t steps = 1;; ++steps) {
    if (steps >= kStuckSteps) {
      atomicAdd(&v.words->stuck, 1ull);
      return;
    }
    const gelado::StepStatus st = op.step(v.u);
    if (st == gelado::StepStatus::done) break;
    if (st == gelado::StepStatus::spinning) ualloc_back_off(static_cast<std::uint32_t>(steps));
  }
  if (op.outcome() != gelado::UAllocFreeOutcome::freed) {
    atomicAdd(&v.words->bad, 1ull);
    return;
  }
  if (load_word(&v.words->counting)) {
    const gelado::UAllocStats& s = op.stats();
    std::uint32_t n[kUAllocFreeCounts];
    gelado::ualloc_free_count_values(s, n);
    for (unsigned j = 0; j < kUAllocFreeCounts; ++j)
      if (n[j]) atomicAdd(&v.words->free_counts[j], static_cast<unsigned long long>(n[j]));
  }
}

// GETPAGE of the case studies (pool_page_heap.cuh): one malloc of a 256 B page (32 units). The
// object lies 128 B past a 256 B boundary (the bin's header), so its page id, unit / 32, is
// floor(offset / 256): two objects of 256 B that do not overlap start at least 256 B apart, so
// their ids differ, and the join's pages of the arena are as disjoint as the objects.
struct UAllocPageTake {
  UAllocGpuView view;
  KernelArgs args;
  static constexpr std::uint64_t kUnitBytes = gelado::kUAllocUnitBytes;
  __device__ std::uint64_t take(std::uint32_t units) const {
    ualloc_rmw_tally[threadIdx.x] = 0;  // counted by OrderedAtomics; not read here
    // Groups of one: the case studies' kernels do not set up the warps' waiting masks.
    return ualloc_malloc_request(view, units, page_take_scatter(args), args.max_steps, false).unit;
  }
};

}  // namespace

void launch_ualloc_alloc(const KernelArgs& a, const UAllocGpuView& v, bool counters) {
  if (counters)
    ualloc_alloc_kernel<true><<<blocks_for(a.N, a.block), a.block>>>(a, v);
  else
    ualloc_alloc_kernel<false><<<blocks_for(a.N, a.block), a.block>>>(a, v);
  ALLOCLAB_CUDA_LAUNCH();
}

void launch_ualloc_free(const KernelArgs& a, const UAllocGpuView& v) {
  ualloc_free_kernel<<<blocks_for(a.N * a.per_thread, 256), 256>>>(a, v);
  ALLOCLAB_CUDA_LAUNCH();
}

KernelRegisters ualloc_registers(const KernelArgs&, const UAllocGpuView&, bool counters) {
  return kernel_registers(counters, reinterpret_cast<const void*>(&ualloc_alloc_kernel<true>),
                          reinterpret_cast<const void*>(&ualloc_alloc_kernel<false>),
                          reinterpret_cast<const void*>(&ualloc_free_kernel));
}

ALLOCLAB_REGISTER_ENTRY(GpuTable, Algorithm::gg_ualloc,
                        (gpu_entry(GpuTraits<UAllocPoolOf<false>>{
                            .alloc = &launch_ualloc_alloc,
                            .free = &launch_ualloc_free,
                            .out_of_memory = OutOfMemory::exhausted,
                            .op_count_names = kUAllocCountNames,
                            .registers = &ualloc_registers})))
ALLOCLAB_REGISTER_ENTRY(GpuTable, Algorithm::gg_malloc,
                        (gpu_entry(GpuTraits<UAllocPoolOf<true>>{
                            .alloc = &launch_ualloc_alloc,
                            .free = &launch_ualloc_free,
                            .out_of_memory = OutOfMemory::exhausted,
                            .op_count_names = kUAllocCountNames,
                            .registers = &ualloc_registers})))

ALLOCLAB_REGISTER_ENTRY(PageHeapTable, Algorithm::gg_ualloc,
                        (pool_page_heap_entry<UAllocPoolOf<false>, UAllocPageTake>()))
ALLOCLAB_REGISTER_ENTRY(PageHeapTable, Algorithm::gg_malloc,
                        (pool_page_heap_entry<UAllocPoolOf<true>, UAllocPageTake>()))

}  // namespace alloclab::gpu::detail
