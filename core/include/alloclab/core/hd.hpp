// ALLOCLAB_HD marks functions shared by the CPU simulator and the CUDA kernels: the same source
// runs on both sides, so the simulator and the GPU draw the same numbers and flip the same bits.
#pragma once

#if defined(__CUDACC__)
#define ALLOCLAB_HD __host__ __device__ __forceinline__
#else
#define ALLOCLAB_HD inline
#endif
