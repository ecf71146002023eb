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
//  * Memory order (gg_atomics.cuh; studies/gelado-garland/memory-order.md has the table): loads
//    acquire, read-modify-writes acq_rel at device scope, a seq_cst fence at SRCU's two
//    store-then-load points only; --gg-order fenced restores the previous policy (a seq_cst fence
//    on each side of every read-modify-write) for comparison.
//  * Warp-aggregated waits (--gg-wait warp, the default): the lanes of a warp asking for one
//    class elect a leader that waits on the class's semaphore once for all their units (up to
//    ualloc_most_shared_units), then serves them (UAllocAlloc::grant_unit); a leader that grows
//    serves them once its bin is linked, or fails them with itself.
//  * Out of memory is sticky (UAllocPoolWords::oom_mark): a TBuddy alloc that found nothing marks
//    its order in the current TBuddy epoch (bumped by every TBuddy free); until the next free, a
//    grower whose arena's chunk list is empty fails without taking the chunk mutex, and a malloc
//    block of that order or more fails without climbing TBuddy.
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
#include "gg_atomics.cuh"
#include "gg_ualloc_pool.cuh"
#include "gpu_entry.cuh"
#include "pool_page_heap.cuh"
#include "warp.cuh"

namespace alloclab::gpu::detail {
namespace {

// Threads per block at most (gg_ualloc_pool.cu checks --block against it): blocks of up to 512
// run the kernel compiled for 512, blocks of 1024 (Figure 7's paper setting) the one for 1024.
constexpr unsigned kMostThreads = 1024;
constexpr unsigned kLeanThreads = 512;

// The read-modify-writes of the calling thread's current request, in shared memory.
__shared__ std::uint32_t ualloc_rmw_tally[kMostThreads];

// The launch's memory order (GgOrder, set by launch_ualloc_alloc/free from the view) and the
// tally of the calling thread's read-modify-writes.
__constant__ unsigned ualloc_order = 0;
struct UAllocTally {
  __device__ static void count() { ++ualloc_rmw_tally[threadIdx.x]; }
  __device__ static bool fenced() { return ualloc_order == unsigned(GgOrder::fenced); }
};
using OrderedAtomics = GgAtomics<UAllocTally>;

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
struct NeverStop {
  template <class Op>
  __device__ bool operator()(const Op&) const {
    return false;
  }
};
// `stop(op)` true ends the run early (a warp leader's wait: run_alloc again to go on).
template <class Op, class View, class Phase, class Intercept = NoIntercept, class Stop = NeverStop>
__device__ std::uint64_t run_alloc(Op& op, const View& v, Phase done, std::uint64_t max_steps,
                                   unsigned long long* stuck, Intercept intercept = {},
                                   Stop stop = {}) {
  std::uint64_t steps = 0;
  std::uint32_t run = 0;  // spinning steps in a row
  bool stopping = false;
  while (op.phase() != done && !stop(op)) {
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
__device__ void mark_tbuddy_empty(const UAllocGpuView& v, std::uint64_t epoch, std::uint32_t order);
__device__ std::uint64_t collective_chunk_take(Alloc& op, const UAllocGpuView& v,
                                               std::uint32_t arena, std::uint32_t scatter,
                                               std::uint64_t epoch) {
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
      // Acquire: the leader wrote this lane's bin before it released the lane's bit.
      if (cuda::atomic_ref<unsigned, cuda::thread_scope_block>(ualloc_chunk_served[warp])
              .fetch_and(~bit, cuda::memory_order_acquire) &
          bit) {
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
    bool short_of_bins = false;
    for (unsigned m = members; m != 0; m &= m - 1) {
      bins[__ffs(m) - 1] = g.bin(r);
      short_of_bins |= g.bin(r++) == gelado::kNoBin;
    }
    if (short_of_bins) mark_tbuddy_empty(v, epoch, u.chunk_order);  // TBuddy had no chunk
    cuda::atomic_ref<unsigned, cuda::thread_scope_block>(ualloc_chunk_served[warp])
        .fetch_or(members, cuda::memory_order_release);  // the bins above before the bits
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
// ---- Sticky out of memory (UAllocPoolWords::oom_mark) ----
// The mark is a hint read and written relaxed: a stale one costs a TBuddy walk, or fails a request
// that TBuddy could not have served when its epoch was read (no free since a walk found nothing).
__device__ std::uint64_t tbuddy_epoch(const UAllocGpuView& v) {
  return cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(v.words->tbuddy_epoch)
      .load(cuda::memory_order_relaxed);
}
__device__ bool tbuddy_known_empty(const UAllocGpuView& v, std::uint64_t epoch,
                                   std::uint32_t order) {
  const std::uint64_t mark =
      cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(v.words->oom_mark)
          .load(cuda::memory_order_relaxed);
  return (mark >> 8) == epoch + 1 && order >= 255u - (mark & 255u);
}
__device__ void mark_tbuddy_empty(const UAllocGpuView& v, std::uint64_t epoch,
                                  std::uint32_t order) {
  cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(v.words->oom_mark)
      .fetch_max(((epoch + 1) << 8) | (255u - order), cuda::memory_order_relaxed);
}
__device__ void count_fast_failure(const UAllocGpuView& v) {
  cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(v.words->oom_fast)
      .fetch_add(1ull, cuda::memory_order_relaxed);
}

// One UAlloc request of class k by the calling thread, run from its start (`units` = 1: its own
// wait) or, for a warp leader, to the end of its wait (`units` > 1, stop_after_wait): the
// request's fields but the unit then come from finish_ualloc_request.
struct UAllocRun {
  std::uint64_t steps = 0;
  std::uint64_t epoch = 0;  // TBuddy's epoch when the request first waited for a chunk
  bool epoch_read = false, failed_fast = false;
};
__device__ void run_ualloc(Alloc& op, UAllocRun& r, const UAllocGpuView& v, std::uint32_t arena,
                           std::uint32_t scatter, std::uint64_t max_steps, bool collective,
                           bool stop_after_wait) {
  // A grower at the chunk mutex: failed at once where TBuddy is known empty and its arena's chunk
  // list holds nothing; with `collective`, its chunk mutex taken by its warp's group.
  auto chunk_take = [&](Alloc& alloc, std::uint64_t& steps) {
    if (!alloc.waiting_for_chunk()) return false;
    if (!r.epoch_read) {
      r.epoch = tbuddy_epoch(v);
      r.epoch_read = true;
    }
    // The epoch now (the mark must be of the current one), then the arena's chunk list.
    if (tbuddy_known_empty(v, tbuddy_epoch(v), v.u.chunk_order) &&
        OrderedAtomics::load(v.u.chunk_heads[arena]) == gelado::kNoBin) {
      r.failed_fast = true;
      count_fast_failure(v);
      alloc.grant_bin(gelado::kNoBin, nullptr);  // it signals the failure, as a grower does
      ++steps;
      return true;
    }
    if (!collective) return false;
    steps += collective_chunk_take(alloc, v, arena, scatter, r.epoch);
    return true;
  };
  auto waited = [&](const Alloc& alloc) {
    return stop_after_wait && alloc.phase() != gelado::UAllocAllocPhase::wait;
  };
  r.steps += run_alloc(op, v.u, gelado::UAllocAllocPhase::done, max_steps, &v.words->stuck,
                       chunk_take, waited);
}
__device__ void finish_ualloc_request(UAllocRequest& q, const Alloc& op, const UAllocRun& r,
                                      const UAllocGpuView& v) {
  q.steps = static_cast<std::uint32_t>(r.steps);
  if (op.overflowed() || op.buddy_stats().max_locks_held > 2) atomicAdd(&v.words->bad, 1ull);
  if (op.phase() == gelado::UAllocAllocPhase::done && op.result() != gelado::kUAllocFailed)
    q.unit = op.result() / gelado::kUAllocUnitBytes;
  // A single grower (not a group's) whose TBuddy walk found no chunk: the order is empty.
  if (!r.failed_fast && op.buddy_stats().gave_up == 0 && op.stats().grow_failed > 0 && r.epoch_read)
    mark_tbuddy_empty(v, r.epoch, v.u.chunk_order);
  const gelado::UAllocStats& us = op.stats();
  q.collisions = us.sem_cas_failures + us.count_cas_failures + us.bit_retries;
  gelado::ualloc_alloc_count_values(us, q.counts);
}

// One malloc of `units` units of 8 B by the calling thread, run to its end (UAlloc up to 1 KB,
// from 2 KB a TBuddy block, gg-malloc only): the allocation kernel's request and the case
// studies' GETPAGE (UAllocPageTake below). Returns the first unit or kFailed; its steps, failed
// atomics and counts (kUAllocCountNames' allocation part) in the rest.
__device__ UAllocRequest ualloc_malloc_request(const UAllocGpuView& v, std::uint32_t units,
                                               std::uint32_t scatter, std::uint64_t max_steps,
                                               bool collective) {
  UAllocRequest q;
  const std::uint64_t bytes = gelado::ualloc_request_bytes(units);
  if (bytes <= gelado::kUAllocMaxBytes) {
    const std::uint32_t arena = sm_id() % v.u.arenas;
    Alloc op(v.u, gelado::ualloc_class_of(static_cast<std::uint32_t>(bytes)), arena, scatter);
    UAllocRun r;
    run_ualloc(op, r, v, arena, scatter, max_steps, collective, false);
    finish_ualloc_request(q, op, r, v);
    return q;
  }
  // gg-malloc only (the input checks): whole pages from TBuddy, at once null where TBuddy is
  // known to have no block of this order (the sticky mark).
  const std::uint32_t order = gelado::ualloc_big_order(units);
  const std::uint64_t epoch = tbuddy_epoch(v);
  if (tbuddy_known_empty(v, epoch, order)) {
    count_fast_failure(v);
    q.steps = 1;
    return q;
  }
  PagesAlloc op(order, scatter);
  q.steps = static_cast<std::uint32_t>(
      run_alloc(op, v.u.buddy, gelado::TBuddyAllocPhase::done, max_steps, &v.words->stuck));
  const gelado::TBuddyStats& ts = op.stats();
  if (ts.max_locks_held > 2) atomicAdd(&v.words->bad, 1ull);
  const std::uint32_t node = op.phase() == gelado::TBuddyAllocPhase::done ? op.node() : 0;
  if (node != 0) {
    const std::uint32_t page = gelado::tb_offset(v.u.buddy.height, node);
    v.big_units[page] = units;  // the block is this thread's: a plain store
    q.unit = std::uint64_t{page} * gelado::kUAllocUnitsPerPage;
  } else if (ts.gave_up == 0) {
    mark_tbuddy_empty(v, epoch, order);
  }
  q.collisions = ts.cas_failures + ts.sem_cas_failures;
  q.counts[gelado::ualloc_count::gave_up] = ts.gave_up;  // as the simulator counts a malloc block
  return q;
}

// A warp-aggregated UAlloc request (--gg-wait warp): `group`, the lanes of the calling thread's
// warp asking for class k in this round (all in one arena: one SM), split into runs of at most
// ualloc_most_shared_units(k) lanes by rank. Each run's lowest lane waits for the run's units at
// once; the others wait for its word (a shuffle) and then go on as takers (grant_unit), or fail
// with it: a leader that grew serves them once its bin is linked (their slots are in it), one
// whose growth failed or that gave up fails them (the units were never theirs).
constexpr unsigned kRetryAlone = 2;  // a leader's word: its growth failed, ask alone
__device__ UAllocRequest ualloc_warp_request(const UAllocGpuView& v, std::uint32_t k,
                                             unsigned group, std::uint32_t scatter,
                                             std::uint64_t max_steps) {
  const unsigned cap = gelado::ualloc_most_shared_units(k);
  const unsigned rank = __popc(group & lanemask_lt());
  unsigned run_mask = 0, r = 0;
  for (unsigned m = group; m != 0; m &= m - 1, ++r)
    if (r / cap == rank / cap) run_mask |= m & (0u - m);
  const unsigned leader = __ffs(run_mask) - 1, n = __popc(run_mask);
  const std::uint32_t arena = sm_id() % v.u.arenas;
  UAllocRequest q;
  UAllocRun run;
  if (n == 1) {
    Alloc op(v.u, k, arena, scatter);
    run_ualloc(op, run, v, arena, scatter, max_steps, v.collective, false);
    finish_ualloc_request(q, op, run, v);
    return q;
  }
  const bool leads = lane_id() == leader;
  Alloc op(v.u, k, arena, scatter, leads ? n : 1);
  unsigned served = 0;
  if (leads) {
    run_ualloc(op, run, v, arena, scatter, max_steps, v.collective, true);
    if (op.stats().waits_took > 0) {
      served = 1;  // the run's units are in C's past: the lanes take slots the list offers
    } else if (op.stats().waits_grew > 0) {
      run_ualloc(op, run, v, arena, scatter, max_steps, v.collective, false);  // grow, link
      served = op.result() != gelado::kUAllocFailed ? 1 : kRetryAlone;
    }
  }
  served = __shfl_sync(run_mask, served, leader);
  if (served == kRetryAlone) {
    // The growth failed (TBuddy has no chunk, now marked): the run's units were never there, but
    // fewer may be (C < n made the leader grow). Each lane asks alone, as the paper's threads do,
    // so that a pool serves exactly what fits; those that must grow fail fast on the mark.
    return ualloc_malloc_request(v, gelado::ualloc_class_bytes(k) / gelado::kUAllocUnitBytes,
                                 scatter, max_steps, v.collective);
  }
  if (!leads && served) op.grant_unit();
  if (leads || served) run_ualloc(op, run, v, arena, scatter, max_steps, v.collective, false);
  finish_ualloc_request(q, op, run, v);
  return q;
}

template <bool kCounters, unsigned kBound>
__global__ void __launch_bounds__(kBound) ualloc_alloc_kernel(KernelArgs a, UAllocGpuView v) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  start_chunk_groups();
  if (i == 0) start_alloc_launch(a, v, kCounters && a.op_counts != nullptr);
  // Every lane of the warp stays for the rounds (the aggregated waits' collectives); those
  // without a request pass.
  const bool mine = i < a.N && asks(a, i);
  const unsigned warp_first = threadIdx.x - lane_id();
  const unsigned lanes = min(32u, blockDim.x - warp_first);
  const unsigned warp_mask = lanes == 32 ? ~0u : (1u << lanes) - 1;
  const std::uint32_t units = !mine ? 0 : a.pages_of ? a.pages_of[i] : a.pages;
  const std::uint64_t bytes = mine ? gelado::ualloc_request_bytes(units) : 0;
  const bool small = mine && bytes <= gelado::kUAllocMaxBytes;
  const std::uint32_t k = small ? gelado::ualloc_class_of(static_cast<std::uint32_t>(bytes)) : 0;
  for (unsigned r = 0; r < a.per_thread; ++r) {
    UAllocRequest q;
    std::uint32_t scatter = 0;
    if (mine) {
      ualloc_rmw_tally[threadIdx.x] = 0;
      scatter = static_cast<std::uint32_t>(
          PhiloxStream(a.seed, StreamDomain::probe, i + std::uint64_t{r} * a.N).bits(0));
    }
    if (v.warp_waits) {
      __syncwarp(warp_mask);
      const unsigned group = __match_any_sync(warp_mask, small ? k : ~0u);
      if (small)
        q = ualloc_warp_request(v, k, group, scatter, a.max_steps);
      else if (mine)
        q = ualloc_malloc_request(v, units, scatter, a.max_steps, v.collective);
    } else if (mine) {
      q = ualloc_malloc_request(v, units, scatter, a.max_steps, v.collective);
    }
    if (!mine) continue;
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
      if (st == gelado::StepStatus::done) {
        // A TBuddy block is back: a new epoch, which ends any out-of-memory mark. Release: a
        // request that reads the new epoch walks TBuddy, whose words the free has written.
        cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(v.words->tbuddy_epoch)
            .fetch_add(1ull, cuda::memory_order_release);
        return;
      }
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

// The memory order of this unit's kernels (ualloc_order), copied only when it changes.
void set_ualloc_order(const UAllocGpuView& v) {
  static unsigned current = 0;
  const unsigned want = unsigned(v.fenced ? GgOrder::fenced : GgOrder::acq_rel);
  if (want == current) return;
  ALLOCLAB_CUDA(cudaMemcpyToSymbol(ualloc_order, &want, sizeof want));
  current = want;
}

void launch_ualloc_alloc(const KernelArgs& a, const UAllocGpuView& v, bool counters) {
  set_ualloc_order(v);
  const auto grid = blocks_for(a.N, a.block);
  if (a.block > kLeanThreads) {
    if (counters)
      ualloc_alloc_kernel<true, kMostThreads><<<grid, a.block>>>(a, v);
    else
      ualloc_alloc_kernel<false, kMostThreads><<<grid, a.block>>>(a, v);
  } else if (counters) {
    ualloc_alloc_kernel<true, kLeanThreads><<<grid, a.block>>>(a, v);
  } else {
    ualloc_alloc_kernel<false, kLeanThreads><<<grid, a.block>>>(a, v);
  }
  ALLOCLAB_CUDA_LAUNCH();
}

void launch_ualloc_free(const KernelArgs& a, const UAllocGpuView& v) {
  set_ualloc_order(v);
  ualloc_free_kernel<<<blocks_for(a.N * a.per_thread, 256), 256>>>(a, v);
  ALLOCLAB_CUDA_LAUNCH();
}

KernelRegisters ualloc_registers(const KernelArgs&, const UAllocGpuView&, bool counters) {
  return kernel_registers(counters,
                          reinterpret_cast<const void*>(&ualloc_alloc_kernel<true, kLeanThreads>),
                          reinterpret_cast<const void*>(&ualloc_alloc_kernel<false, kLeanThreads>),
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
