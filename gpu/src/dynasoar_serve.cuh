// The device driver of DynaSOAr's allocate shared by the page-typed heap's kernels (dynasoar.cu)
// and the typed heap of byte sizes (dynasoar_typed.cu): a coalesced group's leader runs ONE
// AllocOp (core/dynasoar/alloc.hpp) for its lanes to the end, with the bounds that keep a kernel
// from hanging (studies/dynasoar/gpu.md, "The GPU backend").
#pragma once

#include <cstdint>

#include "alloclab/core/dynasoar/alloc.hpp"
#include "dynasoar_gpu.cuh"
#include "ouro_atomics.cuh"

namespace alloclab::gpu::detail {

// One AllocOp for the lanes of `group` (a lane mask; its lowest lane leads) asking for type n,
// run to its end. Slots go to the group's lanes in lane order (the simulator's lockstep order),
// each through deliver_to(lane, block, slot, the group's steps until then); the lanes left unserved
// get block kFailed. A machine still running kDsStuckSteps past cfg.max_steps is abandoned and
// counted in misc->stuck; a rollback that found a double free in misc->broken.
template <class Deliver>
__device__ __noinline__ dynasoar::DsCounts ds_serve_group(const dynasoar::Heap& heap, DsMisc* misc,
                                                          dynasoar::AllocConfig cfg, unsigned warp,
                                                          unsigned seed, unsigned group, unsigned n,
                                                          Deliver deliver_to) {
  using dynasoar::BitStatus;
  dynasoar::AllocOp<DeviceAtomics> op(n, __popc(group), warp, seed, cfg);
  dynasoar::DsCounts c;
  unsigned waiting = group;  // lanes not served yet
  const std::uint64_t stuck_at = ds_stuck_at(cfg.max_steps);
  std::uint32_t spins = 0;
  for (;;) {
    const BitStatus st = op.step(heap, c);
    if (op.pending()) {
      for (std::uint64_t m = op.pending_mask(); m != 0; m &= m - 1) {
        const unsigned lane = __ffs(waiting) - 1;
        waiting &= waiting - 1;
        deliver_to(lane, op.pending_block(), bits::count_trailing_zeros(m), ds_steps(op.steps()));
      }
      op.take();
    }
    if (st == BitStatus::done || op.finished()) break;
    if (op.steps() >= stuck_at) {
      count_add(&misc->stuck, 1ull);
      break;
    }
    if (st == BitStatus::spinning)
      ds_back_off(spins);
    else
      spins = 0;
  }
  if (op.broken()) count_add(&misc->broken, 1ull);
  for (; waiting != 0; waiting &= waiting - 1)
    deliver_to(__ffs(waiting) - 1, kFailed, 0u, ds_steps(op.steps()));
  return c;
}

// One DeallocOp (Alg. 2, 7, 9) run to its end; abandoned (misc->stuck) after kDsStuckSteps steps,
// a double free counted in misc->broken.
__device__ __forceinline__ dynasoar::DsCounts ds_free_object(const dynasoar::Heap& heap,
                                                             DsMisc* misc, std::uint64_t block,
                                                             unsigned slot, unsigned n) {
  using dynasoar::BitStatus;
  dynasoar::DeallocOp<DeviceAtomics> op(block, slot, n);
  dynasoar::DsCounts c;
  std::uint32_t spins = 0;
  for (std::uint64_t k = 0;; ++k) {
    if (k >= kDsStuckSteps) {
      count_add(&misc->stuck, 1ull);
      break;
    }
    const BitStatus st = op.step(heap, c);
    if (st == BitStatus::done) break;
    if (st == BitStatus::spinning)
      ds_back_off(spins);
    else
      spins = 0;
  }
  if (op.double_free()) count_add(&misc->broken, 1ull);
  return c;
}

}  // namespace alloclab::gpu::detail
