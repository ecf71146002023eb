// dynasoar, dynasoar-nocoal and dynasoar-norot on the GPU: DynaSOAr's allocate (Alg. 1, 6, 8) and
// deallocate (Alg. 2, 7, 9) as the step machines of core/dynasoar/alloc.hpp and free.hpp (the
// simulator drives the same ones) with device atomics, over the heap of dynasoar_pool.cuh
// (studies/dynasoar/gpu.md, "The GPU backend").
//
// Warp coalescing (§4.2): the lanes of a warp that ask for one type in the same round
// (`__match_any_sync` of the type and the request's index) elect their lowest lane; it runs one
// AllocOp for all of them (want = the group's size), whose Block::reserve takes as many free slots
// of one block as lanes still wait for with ONE atomicOr on the block's bitmap, and hands the
// slots to the group's lanes in lane order (the simulator's lockstep order), writing their
// results itself. A lane's steps are the group's until its slot came, as in the simulator.
// dynasoar-nocoal: every lane is its own group (want = 1). Rotation: try_find_set and reserve
// start at (seed + warp id) mod 64, the seed the group's first lane's Philox number, incremented
// on every retry; dynasoar-norot: 0 everywhere.
//
// Bounds, so that no kernel can hang: an allocation gives up at the start of a round after
// kMaxEmptyRounds rounds that found active[T] and free empty, or once it has made --max-steps
// steps (alloc.hpp), and its unserved lanes fail (null, counted as gave_up); a machine still
// running kDsStuckSteps steps past --max-steps (a set or clear spinning on another thread's
// update) and a free running kDsStuckSteps steps are abandoned and counted in DsMisc::stuck, which
// fails verification.
#include "alloclab/core/dynasoar/alloc.hpp"
#include "dynasoar_pool.cuh"
#include "dynasoar_serve.cuh"
#include "dynasoar_typed.cuh"
#include "gpu_entry.cuh"
#include "ouro_atomics.cuh"
#include "pool_page_heap.cuh"

namespace alloclab::gpu::detail {
namespace {

using dynasoar::DsCounts;
namespace ds_count = dynasoar::ds_count;

// The leader's part: one AllocOp for the `group`'s lanes (lane0: the warp's first thread), run to
// its end (dynasoar_serve.cuh). Slots go to the group's lanes in lane order, each through
// deliver_to(lane, page or kFailed, the group's steps until then).
template <bool kRotate, class Deliver>
__device__ __forceinline__ DsCounts serve_group(const KernelArgs& a, const DsHeapView& v,
                                                unsigned r, std::uint64_t lane0, unsigned group,
                                                unsigned n, Deliver deliver_to) {
  const unsigned leader = __ffs(group) - 1;
  dynasoar::AllocConfig cfg;
  cfg.rotate = kRotate;
  cfg.max_steps = a.max_steps;
  return ds_serve_group(
      v.heap, v.misc, cfg, static_cast<unsigned>(lane0 / 32), ds_seed(a, lane0 + leader, r), group,
      n, [&](unsigned lane, std::uint64_t block, unsigned slot, std::uint32_t steps) {
        deliver_to(lane, block == kFailed ? kFailed : dynasoar::slot_first_page(block, slot, n),
                   steps);
      });
}

template <bool kCounters, bool kCoalesce, bool kRotate>
__global__ void __launch_bounds__(1024)
    ds_alloc_kernel(const __grid_constant__ KernelArgs a, const __grid_constant__ DsHeapView v) {
  if (blockIdx.x == 0 && threadIdx.x == 0)
    take_free_counts<kCounters>(a, v.misc, ds_count::invalidations, dynasoar::kDsFreeCounts);
  __syncwarp();  // the warp converged again: its lanes of one type meet in one group below
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= a.N || !asks(a, i)) return;
  const unsigned n = a.pages_of ? a.pages_of[i] : a.pages;
  const std::uint64_t lane0 = i - lane_id();  // blocks are whole warps (KernelArgs::block)
  for (unsigned r = 0; r < a.per_thread; ++r) {
    // n <= 64: the request index above it keeps a lane that runs ahead out of another's group.
    const unsigned group =
        kCoalesce ? __match_any_sync(__activemask(), n | (r << 8)) : 1u << lane_id();
    DsCounts c;
    if (lane_id() == static_cast<unsigned>(__ffs(group) - 1)) {
      // The other lanes' results are written as they come, the leader's with the group's counts.
      std::uint64_t page = kFailed;
      std::uint32_t steps = 0;
      const unsigned leader = lane_id();
      c = serve_group<kRotate>(
          a, v, r, lane0, group, n, [&](unsigned lane, std::uint64_t got, std::uint32_t got_steps) {
            if (lane == leader) {
              page = got;
              steps = got_steps;
            } else {
              record_request<kCounters>(a, r, lane0 + lane, got, got_steps, 0, 0);
            }
          });
      // The group's atomics and lost atomics are its leader's (the simulator sums them per
      // group); its other lanes issued none.
      record_request<kCounters>(a, r, i, page, steps, c.lost_atomics(), c.atomics());
    }
    __syncwarp(group);
    if constexpr (kCounters) {
      std::uint32_t values[ds_count::kCounts];
      dynasoar::alloc_count_values(c, values);
      record_op_counts<kCounters>(a, values);
    }
  }
}

// Frees every served request: slot (p mod 64) / n of block p / 64 of its type n (Alg. 2).
__global__ void ds_free_kernel(const __grid_constant__ KernelArgs a,
                               const __grid_constant__ DsHeapView v) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= a.N * a.per_thread || a.page[i] == kFailed) return;
  const std::uint64_t p = a.page[i];
  const unsigned n = a.pages_of ? a.pages_of[i] : a.pages;
  const DsCounts c = ds_free_object(v.heap, v.misc, p / 64, static_cast<unsigned>((p % 64) / n), n);
  std::uint32_t f[dynasoar::kDsFreeCounts];
  dynasoar::free_count_values(c, f);
  for (unsigned k = 0; k < dynasoar::kDsFreeCounts; ++k)
    if (f[k]) count_add(&v.misc->free_counts[k], static_cast<unsigned long long>(f[k]));
}

template <bool kCoalesce, bool kRotate>
void launch_ds_alloc(const KernelArgs& a, const DsHeapView& v, bool counters) {
  if (counters)
    ds_alloc_kernel<true, kCoalesce, kRotate><<<blocks_for(a.N, a.block), a.block>>>(a, v);
  else
    ds_alloc_kernel<false, kCoalesce, kRotate><<<blocks_for(a.N, a.block), a.block>>>(a, v);
  ALLOCLAB_CUDA_LAUNCH();
}

void launch_ds_free(const KernelArgs& a, const DsHeapView& v) {
  ds_free_kernel<<<blocks_for(a.N * a.per_thread, 256), 256>>>(a, v);
  ALLOCLAB_CUDA_LAUNCH();
}

template <bool kCoalesce, bool kRotate>
KernelRegisters ds_registers(const KernelArgs&, const DsHeapView&, bool counters) {
  return kernel_registers(
      counters, reinterpret_cast<const void*>(&ds_alloc_kernel<true, kCoalesce, kRotate>),
      reinterpret_cast<const void*>(&ds_alloc_kernel<false, kCoalesce, kRotate>),
      reinterpret_cast<const void*>(&ds_free_kernel));
}

// GETPAGE of the case studies (pool_page_heap.cuh): an object of the one type, a page (the
// heap's pages are the join's 256 B pages). The lanes asking at once form the group (or, without
// coalescing, each lane its own), as in the allocation kernel; the leader hands each its page
// through the warp's words in shared memory.
template <bool kCoalesce, bool kRotate>
struct DsPageTake {
  DsHeapView view;
  KernelArgs args;
  static constexpr std::uint64_t kUnitBytes = join::kPageBytes;
  __device__ std::uint64_t take(std::uint32_t units) const {
    __shared__ std::uint64_t lane_page[kProbeBlock / 32][32];
    std::uint64_t* pages = lane_page[threadIdx.x / 32];
    const unsigned group = kCoalesce ? __activemask() : 1u << lane_id();
    const std::uint64_t lane0 = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x - lane_id();
    if (lane_id() == static_cast<unsigned>(__ffs(group) - 1))
      serve_group<kRotate>(
          args, view, 0, lane0, group, units,
          [&](unsigned lane, std::uint64_t got, std::uint32_t) { pages[lane] = got; });
    __syncwarp(group);
    const std::uint64_t page = pages[lane_id()];
    __syncwarp(group);  // the words are written again by the next leaders
    return page;
  }
};

}  // namespace

ALLOCLAB_REGISTER_ENTRY(GpuTable, Algorithm::dynasoar,
                        (gpu_entry(GpuTraits<DsHeapPool>{.alloc = &launch_ds_alloc<true, true>,
                                                         .free = &launch_ds_free,
                                                         .out_of_memory = OutOfMemory::exhausted,
                                                         .op_count_names = dynasoar::kDsCountNames,
                                                         .registers = &ds_registers<true, true>})))
ALLOCLAB_REGISTER_ENTRY(PageHeapTable, Algorithm::dynasoar,
                        (pool_page_heap_entry<DsHeapPool, DsPageTake<true, true>>()))

ALLOCLAB_REGISTER_ENTRY(GpuTable, Algorithm::dynasoar_nocoal,
                        (gpu_entry(GpuTraits<DsHeapPool>{.alloc = &launch_ds_alloc<false, true>,
                                                         .free = &launch_ds_free,
                                                         .out_of_memory = OutOfMemory::exhausted,
                                                         .op_count_names = dynasoar::kDsCountNames,
                                                         .registers = &ds_registers<false, true>})))
ALLOCLAB_REGISTER_ENTRY(PageHeapTable, Algorithm::dynasoar_nocoal,
                        (pool_page_heap_entry<DsHeapPool, DsPageTake<false, true>>()))

ALLOCLAB_REGISTER_ENTRY(GpuTable, Algorithm::dynasoar_norot,
                        (gpu_entry(GpuTraits<DsHeapPool>{.alloc = &launch_ds_alloc<true, false>,
                                                         .free = &launch_ds_free,
                                                         .out_of_memory = OutOfMemory::exhausted,
                                                         .op_count_names = dynasoar::kDsCountNames,
                                                         .registers = &ds_registers<true, false>})))
ALLOCLAB_REGISTER_ENTRY(PageHeapTable, Algorithm::dynasoar_norot,
                        (pool_page_heap_entry<DsHeapPool, DsPageTake<true, false>>()))

// The typed heap of byte sizes (dynasoar_typed.cu: `alloclab wator` and `linux-scalability`
// with --backend gpu): whether a warp's lanes of one type coalesce and lookups rotate.
ALLOCLAB_REGISTER_ENTRY(GpuTypedHeapTable, Algorithm::dynasoar, (GpuTypedHeapEntry{}))
ALLOCLAB_REGISTER_ENTRY(GpuTypedHeapTable, Algorithm::dynasoar_nocoal,
                        (GpuTypedHeapEntry{.coalesce = false}))
ALLOCLAB_REGISTER_ENTRY(GpuTypedHeapTable, Algorithm::dynasoar_norot,
                        (GpuTypedHeapEntry{.rotate = false}))

}  // namespace alloclab::gpu::detail
