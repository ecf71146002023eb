// The atomics policy (core/ouroboros/host_atomics.hpp describes the contract) of the Ouroboros
// step machines on the device: atomicAdd / atomicCAS / atomicExch on 32- and 64-bit words, and a
// load from L2 (ld.cg, past the non-coherent L1) for the plain reads of shared words.
#pragma once

#include <cstdint>

namespace alloclab::gpu::detail {

struct DeviceAtomics {
  template <class T>
  __device__ static T load(T& w) {
    if constexpr (sizeof(T) == 4)
      return static_cast<T>(__ldcg(reinterpret_cast<const unsigned int*>(&w)));
    else
      return static_cast<T>(__ldcg(reinterpret_cast<const unsigned long long*>(&w)));
  }
  template <class T>
  __device__ static T fetch_add(T& w, T v) {
    if constexpr (sizeof(T) == 4)
      return static_cast<T>(
          atomicAdd(reinterpret_cast<unsigned int*>(&w), static_cast<unsigned int>(v)));
    else
      return static_cast<T>(
          atomicAdd(reinterpret_cast<unsigned long long*>(&w), static_cast<unsigned long long>(v)));
  }
  template <class T>
  __device__ static T cas(T& w, T expected, T desired) {
    if constexpr (sizeof(T) == 4)
      return static_cast<T>(atomicCAS(reinterpret_cast<unsigned int*>(&w),
                                      static_cast<unsigned int>(expected),
                                      static_cast<unsigned int>(desired)));
    else
      return static_cast<T>(atomicCAS(reinterpret_cast<unsigned long long*>(&w),
                                      static_cast<unsigned long long>(expected),
                                      static_cast<unsigned long long>(desired)));
  }
  template <class T>
  __device__ static T exchange(T& w, T v) {
    if constexpr (sizeof(T) == 4)
      return static_cast<T>(
          atomicExch(reinterpret_cast<unsigned int*>(&w), static_cast<unsigned int>(v)));
    else
      return static_cast<T>(atomicExch(reinterpret_cast<unsigned long long*>(&w),
                                       static_cast<unsigned long long>(v)));
  }
};

}  // namespace alloclab::gpu::detail
