// The atomics policy (core/ouroboros/host_atomics.hpp describes the contract) of the Ouroboros
// step machines on the device: the word atomics of common.cuh (atomicAdd / atomicCAS / atomicExch /
// atomicOr / atomicAnd / atomicMax on 32- and 64-bit words, and __threadfence) and its L2 read
// (ld.cg, past the non-coherent L1).
#pragma once

#include "common.cuh"

namespace alloclab::gpu::detail {

struct DeviceAtomics {
  template <class T>
  __device__ static T load(T& w) {
    return load_word(&w);
  }
  template <class T>
  __device__ static T fetch_add(T& w, T v) {
    return atomic_add_word(&w, v);
  }
  template <class T>
  __device__ static T cas(T& w, T expected, T desired) {
    return atomic_cas_word(&w, expected, desired);
  }
  template <class T>
  __device__ static T exchange(T& w, T v) {
    return atomic_exch_word(&w, v);
  }
  template <class T>
  __device__ static T fetch_or(T& w, T v) {
    return atomic_or_word(&w, v);
  }
  template <class T>
  __device__ static T fetch_and(T& w, T v) {
    return atomic_and_word(&w, v);
  }
  template <class T>
  __device__ static T fetch_max(T& w, T v) {
    return atomic_max_word(&w, v);
  }
  __device__ static void fence() { __threadfence(); }
};

}  // namespace alloclab::gpu::detail
