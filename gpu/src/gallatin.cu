// gallatin on the GPU: Gallatin (McCoy & Pandey, PPoPP'24 Alg. 1-4) driving the shared operations
// of core/gallatin/allocator.hpp (the simulator drives the same ones, cpu_sim/src/gallatin.cpp)
// with device atomics, over a pool of whole 16 MiB segments in units of 16 B (studies/gallatin/,
// "The GPU backend").
//
//  * Warp teams (Alg. 3): the lanes of a warp that ask for one size class (`__match_any_sync`)
//    form a team; its lowest lane runs Ops::malloc_team for all of them, which is ONE atomicAdd on
//    the block counter of the team's buffer slot on the fast path; the team's lanes take the
//    slices in rank order (the leader scatters them through shared memory).
//  * Per-SM block buffers: the slot of class k is the SM the leader runs on (%smid) modulo the
//    class's slots (buffer_slots: the SM count for 16 B, halved per class, at least 4), sized for
//    the device's SM count.
//  * Frees (Alg. 4): the lanes of a warp that free slices of one block form a team; its leader
//    adds the team's size to the block's free counter in ONE atomicAdd (Ops::add_frees), which
//    gives the block back when all its slices are free (and an emptied segment back to the
//    segment tree, the paper's way).
//  * Bounds: every loop of the shared code is bounded (kRaceBound, kWaitBound, kVebMaxAttempts);
//    out of memory returns null (kFailed); a loop or wait that reached its bound is counted in
//    the pool's `stuck` word, which fails verification.
//  * One team fills an empty slot, the others on it wait (bounded): fill_gate below.
//  * Requests above 4096 B (core/gallatin/large.hpp: 2^j contiguous 4 KiB slices, a whole block,
//    or contiguous segments from the back of the segment tree) are served one thread each, as
//    the public code serves them: in a run whose largest request (KernelArgs::pages) is above a
//    slice, the kernel's kLarge instance sends such a lane to large_requests before the warp
//    forms its teams. Runs of slices only launch the kLarge = false instance, which is the
//    slice kernel as it was (not one instruction added). Their frees are one increment of the
//    block's free counter like a slice's, or the segments back.
//  * Pre-boot (the paper's init, at set-up, outside the timed kernels and the counts): the block
//    buffers start filled (gallatin_host_state.hpp), so that the first teams of the launch do not
//    all find their slots empty and fetch blocks at once; the simulator fills them on demand
//    instead, so its refills include the first block of every slot (studies/gallatin/gpu.md).
// Verification after every phase: the state is copied back and checked at rest on the host
// (state_check: the vEB trees, segments, rings, block counters and buffers consistent). After a
// measure() allocation kernel each block's live slices come from the results handed out (not from
// the counters), so "handed out = freed + live" is checked against an independent count; in
// workloads they come from the counters and the driver checks their units against the census of
// the live objects.
#include <string>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/gallatin/allocator.hpp"
#include "alloclab/core/gallatin/large.hpp"
#include "alloclab/core/gallatin/op_counts.hpp"
#include "gallatin_pool.cuh"
#include "gpu_entry.cuh"
#include "ouro_atomics.cuh"
#include "pool_page_heap.cuh"
#include "warp.cuh"

namespace alloclab::gpu::detail {
namespace {

// The device's atomics with a pause for the shared code's waits (Ops::pause says why): the
// first 32 reads back to back (a wait is usually a few of another caller's steps), then a sleep
// between reads. A wait's bound (kWaitBound reads) then lasts about a second instead of 0.1 s;
// it is a defect's bound, never a schedule's: the H200's hash join met it without the pause
// (a 117 ms join where 3.6 ms is usual, reports/data/nvidia-h200/join-7e1ce3a).
struct WaitingDeviceAtomics : DeviceAtomics {
  __device__ static void pause(std::uint32_t w) {
    if (w >= 32) __nanosleep(64);
  }
};
using Op = gallatin::Ops<WaitingDeviceAtomics>;
using Big = gallatin::Large<WaitingDeviceAtomics>;
// Units of the largest slice: a request of more goes to large_requests.
constexpr std::uint32_t kSliceUnits = gallatin::kMaxSliceBytes / kGallatinUnitBytes;
using gallatin::kOpCounts;

__device__ __forceinline__ unsigned sm_id() {
  unsigned sm;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  return sm;
}

// Threads of an allocation block at most (--block): 512 leaves the kernel up to 128 registers,
// which its slow path (a block refill: the vEB trees, a segment's ring) needs without spilling.
constexpr unsigned kMostThreads = 512;
constexpr unsigned kMostWarps = kMostThreads / 32;

// A team that finds its buffer slot empty (the first teams on a slot the pre-boot did not fill, or
// a block used up) would call get_block together with every other team on that slot: dozens to
// thousands of teams fetching blocks at once, all but one giving theirs back, and meanwhile
// taking blocks the others need (a transient out of memory). The GPU lets one team per slot fill
// it: the first to take the slot's token goes on (and returns it after), the others wait until
// the slot holds a block or the token is back, then go on too. A bounded wait: past it a team
// goes on anyway (the shared operations are correct either way; the gate only spares work).
// One extra read of the slot per team; not in the shared operations' counts.
constexpr std::uint32_t kFillWaitSpins = 1u << 14;

// `seen`: the slot's value the team has just read (non-zero: a block, no gate).
__device__ bool fill_gate(std::uint32_t seen, const std::uint32_t* slot_cell,
                          std::uint32_t* token) {
  if (seen != 0) return false;
  if (atomic_cas_word(token, 0u, 1u) == 0u) return true;
  for (std::uint32_t spin = 0; spin < kFillWaitSpins; ++spin) {
    if (load_word(slot_cell) != 0 || load_word(token) == 0) break;
    __nanosleep(spin < 32 ? 64 : 512);
  }
  return false;
}

// Where a team's leader puts its slices (put_run): one run (the fast path, a team served from
// one block) is kept as its first slice, from which every lane computes its own; a second run
// (a refill in the middle of the team) scatters all of them, run by run, to the lanes' words of
// the warp's shared array (slice j to the team's j-th lane).
struct TeamRuns {
  std::uint64_t* warp_slices;  // the warp's 32 words in shared memory
  unsigned rest;               // the team's lanes not written yet (scattered mode)
  unsigned runs = 0;           // 0, 1, or 2 for "scattered"
  std::uint64_t first = 0;     // run 0's first slice
  std::uint32_t count = 0;     // run 0's slices

  __device__ void scatter(std::uint32_t n, std::uint64_t from, std::uint64_t stride) {
    for (std::uint32_t i = 0; i < n; ++i) {
      warp_slices[__ffs(rest) - 1] = from + i * stride;
      rest &= rest - 1;
    }
  }
  __device__ void run(std::uint32_t, std::uint32_t n, std::uint64_t from, std::uint64_t stride) {
    if (runs == 0) {
      runs = 1;
      first = from;
      count = n;
      return;
    }
    if (runs == 1) scatter(count, first, stride);  // run 0, now that lanes cannot compute it
    runs = 2;
    scatter(n, from, stride);
  }
};

// The launch's counts of the frees since the previous counted allocation launch go to that
// launch's totals (as the simulator adds them to the next allocate()), and the free kernel keeps
// counts only after a counted launch (no counters with --counters off).
__device__ void start_alloc_launch(const KernelArgs& a, const GallatinView& v, bool counted) {
  v.words->counting = counted ? 1u : 0u;
  if (!counted) return;
  for (unsigned j = 0; j < kOpCounts - gallatin::kAllocCounts; ++j) {
    const unsigned long long n = atomic_exch_word(&v.words->free_counts[j], 0ull);
    if (n) count_add(&a.op_counts[gallatin::kAllocCounts + j], n);
  }
}

// One malloc of class k by the calling lane (Alg. 3 through its warp team): the lanes asking for
// class k now form the team, its leader serves them all, each lane takes its slice. Returns the
// unit or kFailed; `team` is the team's mask and, on the leader, `c` its counts (zero elsewhere).
// `warp_slices`: the warp's 32 words in shared memory. The allocation kernel and the case
// studies' GETPAGE (GallatinPageTake) both serve requests through it.
__device__ __forceinline__ std::uint64_t gallatin_malloc_lane(const GallatinView& v, unsigned k,
                                                              std::uint64_t* warp_slices,
                                                              unsigned& team, gallatin::Counts& c) {
  const unsigned lane = lane_id();
  // The team's buffer slot (its class's slot of this SM) and that slot's fill token.
  const std::uint32_t slot = sm_id() % v.st.slots[k];
  const std::uint32_t at = v.st.slot_offset[k] + slot;
  team = __match_any_sync(__activemask(), k);
  const unsigned leader = __ffs(team) - 1;
  const unsigned size = __popc(team);
  std::uint32_t served = 0;
  bool one_run = true;
  std::uint64_t first = 0;
  if (lane == leader) {
    // One read of the slot serves the gate and Alg. 3's first attempt.
    const std::uint32_t seen = load_word(&v.st.buffer[at]);
    const bool filler = fill_gate(seen, &v.st.buffer[at], &v.fill[at]);
    TeamRuns out{warp_slices, team};
    served = Op::malloc_team(v.st, k, slot, size, out, c, seen != 0 ? seen : gallatin::kUnread);
    if (filler) atomic_exch_word(&v.fill[at], 0u);
    if (c.stuck) count_add(&v.words->stuck, static_cast<unsigned long long>(c.stuck));
    one_run = out.runs <= 1;
    first = out.first;
  }
  __syncwarp(team);
  served = __shfl_sync(team, served, leader);
  one_run = __shfl_sync(team, one_run, leader);
  first = __shfl_sync(team, first, leader);
  const unsigned rank = __popc(team & lanemask_lt());
  const std::uint64_t slice = one_run ? first + rank * v.st.g.slice_bytes(k) : warp_slices[lane];
  __syncwarp(team);  // warp_slices is written again by the next leaders
  return rank < served ? slice / kGallatinUnitBytes : kFailed;
}

// The rounds of thread i whose request (`units` of 16 B) is larger than a slice: one thread each,
// through the shared large paths; a request of 2^j slices uses the class-8 slot of its SM. Not
// inlined, and its arguments by value (copied only on this path: a reference to a kernel
// parameter would make every thread copy the parameters to local memory), so that the slice
// path's code stays as it was.
// A request's allocation counts (kOpCountNames' order; the frees' three are added by the launch):
// `teams` 1 on its team's leader, `team_lanes` its team's size, the rest the leader's counts.
template <bool kCounters>
__device__ __forceinline__ void record_alloc_counts(const KernelArgs& a, std::uint32_t teams,
                                                    std::uint32_t team_lanes,
                                                    const gallatin::Counts& c) {
  const std::uint32_t values[kOpCounts] = {teams,
                                           team_lanes,
                                           c.block_refills,
                                           c.segments_formatted,
                                           c.veb.loads,
                                           c.veb.levels,
                                           c.veb.atomics,
                                           c.veb.restarts,
                                           c.restarts,
                                           c.init_writes,
                                           0,
                                           0,
                                           0};
  record_op_counts<kCounters>(a, values);
}

template <bool kCounters>
__device__ __noinline__ void large_requests(const KernelArgs a, const GallatinView v,
                                            std::uint64_t i, std::uint32_t units) {
  const gallatin::Route route =
      gallatin::route_of(std::uint64_t{units} * kGallatinUnitBytes, v.st.g);
  const std::uint32_t slot = sm_id() % v.st.slots[gallatin::kLargestClass];
  for (unsigned r = 0; r < a.per_thread; ++r) {
    gallatin::Counts c;
    const std::uint64_t offset = Big::malloc(v.st, route, slot, c);
    if (c.stuck) count_add(&v.words->stuck, static_cast<unsigned long long>(c.stuck));
    const std::uint64_t unit = offset == gallatin::kNoBlock ? kFailed : offset / kGallatinUnitBytes;
    if constexpr (kCounters) {
      record_request<kCounters>(a, r, i, unit, c.attempts, c.restarts + c.veb.restarts,
                                c.all_atomics());
      record_alloc_counts<kCounters>(a, 1u, 1u, c);
    } else {
      record_request<kCounters>(a, r, i, unit, 0, 0, 0);
    }
  }
}

template <bool kCounters, bool kLarge>
__global__ void __launch_bounds__(kMostThreads)
    gallatin_alloc_kernel(KernelArgs a, GallatinView v) {
  // Per warp of the block, per lane: the slice its team's leader got for it.
  __shared__ std::uint64_t lane_slice[kMostWarps][32];
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i == 0) start_alloc_launch(a, v, kCounters && a.op_counts != nullptr);
  if (i >= a.N || !asks(a, i)) return;
  const std::uint32_t units = a.pages_of ? a.pages_of[i] : a.pages;
  if constexpr (kLarge) {
    if (units > kSliceUnits) {  // above 4096 B: one thread each, no team
      large_requests<kCounters>(a, v, i, units);
      return;
    }
  }
  const unsigned k = gallatin::size_class_of(std::uint64_t{units} * kGallatinUnitBytes);
  std::uint64_t* warp_slices = lane_slice[threadIdx.x / 32];
  for (unsigned r = 0; r < a.per_thread; ++r) {
    unsigned team = 0;
    gallatin::Counts c;
    const std::uint64_t unit = gallatin_malloc_lane(v, k, warp_slices, team, c);
    if constexpr (kCounters) {
      const unsigned leader = __ffs(team) - 1;
      const bool lead = lane_id() == leader;
      const std::uint32_t attempts = __shfl_sync(team, c.attempts, leader);
      record_request<kCounters>(a, r, i, unit, attempts, lead ? c.restarts + c.veb.restarts : 0u,
                                lead ? c.all_atomics() : 0u);
      record_alloc_counts<kCounters>(a, lead ? 1u : 0u, static_cast<std::uint32_t>(__popc(team)),
                                     c);
    } else {
      record_request<kCounters>(a, r, i, unit, 0, 0, 0);
    }
  }
}

// Alg. 4: the lanes freeing slices of one block free them together (a request of 2^j slices or a
// whole block is one increment too: large.hpp counted the rest as freed when it was served).
__global__ void gallatin_free_kernel(KernelArgs a, GallatinView v) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= a.N * a.per_thread || a.page[i] == kFailed) return;
  const gallatin::State& st = v.st;
  const std::uint64_t offset = a.page[i] * kGallatinUnitBytes;
  const auto s = static_cast<std::uint32_t>(offset / st.g.segment_bytes);
  const std::uint32_t k = load_word(&st.tree_id[s]);
  if (k >= gallatin::kSizeClasses) {  // a large allocation's first segment: its segments back
    if (!gallatin::is_large_head(k)) return;  // not an allocation's start (never handed out)
    gallatin::Counts c;
    Big::free_segments(st, s, k, c);
    if (load_word(&v.words->counting)) {
      count_add(&v.words->free_counts[1], static_cast<unsigned long long>(c.segments_returned));
      count_add(&v.words->free_counts[2], static_cast<unsigned long long>(c.all_atomics()));
    }
    return;
  }
  const auto b = static_cast<std::uint32_t>((offset % st.g.segment_bytes) / st.g.block_bytes(k));
  const std::uint64_t id = st.g.block_id(s, b);
  const unsigned team = __match_any_sync(__activemask(), static_cast<unsigned long long>(id));
  gallatin::Counts c;
  if (lane_id() == static_cast<unsigned>(__ffs(team) - 1)) {
    Op::add_frees(st, id, k, __popc(team), c);
    if (c.stuck) count_add(&v.words->stuck, static_cast<unsigned long long>(c.stuck));
    if (load_word(&v.words->counting)) {
      const unsigned long long n[] = {c.blocks_returned, c.segments_returned, c.all_atomics()};
      for (unsigned j = 0; j < 3; ++j)
        if (n[j]) count_add(&v.words->free_counts[j], n[j]);
    }
  }
}

void check_gallatin(const Scenario&, const MeasureOptions& o) {
  if (o.block > kMostThreads)
    throw InputError("--block", "the gallatin kernel is compiled for at most " +
                                    std::to_string(kMostThreads) + " threads per block");
}

// GETPAGE of the case studies (pool_page_heap.cuh): one slice of a page's units through the
// calling lane's warp team (the lanes asking at once), as the allocation kernel serves them.
struct GallatinPageTake {
  GallatinView view;
  KernelArgs args;
  static constexpr std::uint64_t kUnitBytes = kGallatinUnitBytes;
  __device__ std::uint64_t take(std::uint32_t units) const {
    __shared__ std::uint64_t lane_slice[kProbeBlock / 32][32];
    unsigned team = 0;
    gallatin::Counts c;
    return gallatin_malloc_lane(view, gallatin::size_class_of(units * kGallatinUnitBytes),
                                lane_slice[threadIdx.x / 32], team, c);
  }
};

}  // namespace

void launch_gallatin_alloc(const KernelArgs& a, const GallatinView& v, bool counters) {
  const unsigned blocks = blocks_for(a.N, a.block);
  if (a.pages > kSliceUnits) {  // the run's largest request is above a slice
    if (counters)
      gallatin_alloc_kernel<true, true><<<blocks, a.block>>>(a, v);
    else
      gallatin_alloc_kernel<false, true><<<blocks, a.block>>>(a, v);
  } else if (counters) {
    gallatin_alloc_kernel<true, false><<<blocks, a.block>>>(a, v);
  } else {
    gallatin_alloc_kernel<false, false><<<blocks, a.block>>>(a, v);
  }
  ALLOCLAB_CUDA_LAUNCH();
}

void launch_gallatin_free(const KernelArgs& a, const GallatinView& v) {
  gallatin_free_kernel<<<blocks_for(a.N * a.per_thread, 256), 256>>>(a, v);
  ALLOCLAB_CUDA_LAUNCH();
}

// The kernels launch_gallatin_alloc and launch_gallatin_free run.
KernelRegisters gallatin_registers(const KernelArgs& a, const GallatinView&, bool counters) {
  const void* alloc =
      a.pages > kSliceUnits
          ? (counters ? reinterpret_cast<const void*>(&gallatin_alloc_kernel<true, true>)
                      : reinterpret_cast<const void*>(&gallatin_alloc_kernel<false, true>))
          : (counters ? reinterpret_cast<const void*>(&gallatin_alloc_kernel<true, false>)
                      : reinterpret_cast<const void*>(&gallatin_alloc_kernel<false, false>));
  return {registers_of(alloc), registers_of(reinterpret_cast<const void*>(&gallatin_free_kernel))};
}

ALLOCLAB_REGISTER_ENTRY(GpuTable, Algorithm::gallatin,
                        (gpu_entry(GpuTraits<GallatinPool>{
                            .alloc = &launch_gallatin_alloc,
                            .free = &launch_gallatin_free,
                            .out_of_memory = OutOfMemory::exhausted,
                            .check = &check_gallatin,
                            .op_count_names = gallatin::kOpCountNames,
                            .registers = &gallatin_registers})))

ALLOCLAB_REGISTER_ENTRY(PageHeapTable, Algorithm::gallatin,
                        (pool_page_heap_entry<GallatinPool, GallatinPageTake>()))

}  // namespace alloclab::gpu::detail
