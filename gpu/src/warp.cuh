// Warp-level helpers shared by the warp-collective device APIs and the page heap.
#pragma once

namespace alloclab::gpu::detail {

// The hardware lane of the calling thread: threadIdx.x % 32 only for one-dimensional blocks, so
// warp-collective code that may run in any kernel asks the hardware.
__device__ __forceinline__ unsigned lane_id() {
  unsigned lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  return lane;
}

}  // namespace alloclab::gpu::detail
