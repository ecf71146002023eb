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

// The lanes below the calling one (bit l set for every lane l < lane_id()): a lane's rank among
// the lanes of a mask m is __popc(m & lanemask_lt()).
__device__ __forceinline__ unsigned lanemask_lt() {
  unsigned mask;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(mask));
  return mask;
}

}  // namespace alloclab::gpu::detail
