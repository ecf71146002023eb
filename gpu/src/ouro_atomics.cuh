// The atomics policy (core/ouroboros/host_atomics.hpp describes the contract) of the step machines
// on the device (Ouroboros, Gallatin, DynaSOAr, BitmapAlloc): the word atomics of common.cuh
// (cuda::atomic_ref, device scope, relaxed, on 32- and 64-bit words), its relaxed atomic load, and
// the fences: fence() sequentially consistent (a grower's writes before its later reads and
// writes), fence_release / fence_acquire the two sides of a publication (docs/memory-order.md).
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
  __device__ static void fence() { fence_sc_device(); }
  __device__ static void fence_release() { fence_release_device(); }
  __device__ static void fence_acquire() { fence_acquire_device(); }
};

}  // namespace alloclab::gpu::detail
