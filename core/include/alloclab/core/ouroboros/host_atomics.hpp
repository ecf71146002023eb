// Host atomics policies for the Ouroboros primitives (bulk_semaphore.hpp, index_queue.hpp).
//
// The primitives take the atomic operations as a policy type `Atomics` (mallocMC style), so the
// same source serves the CPU simulator (std::atomic_ref here) and the CUDA kernels (a policy in
// gpu/ mapping to atomicAdd / atomicCAS / atomicExch and a volatile or ld.cg load). A policy
// provides, for T = std::uint32_t and T = std::uint64_t, on a plain word in memory:
//   static T load(T& w);                          // an ordinary (non-RMW) read of a shared word
//   static T fetch_add(T& w, T v);                // returns the old value; wraps modulo 2^bits
//   static T cas(T& w, T expected, T desired);    // returns the old value (CUDA atomicCAS style)
//   static T exchange(T& w, T v);                 // returns the old value
//   static T fetch_or(T& w, T v), fetch_and(T& w, T v);  // return the old value
//   static T fetch_max(T& w, T v);                // w = max(w, v) (unsigned); returns the old
//   static void fence();                          // orders this thread's earlier memory
//                                                 // operations before its later ones for every
//                                                 // observer (a grower publishing a chunk)
//   static void fence_release();                  // release fence: this thread's earlier memory
//                                                 // operations happen before whatever another
//                                                 // thread does after an acquire that reads one
//                                                 // of this thread's later atomic writes (a
//                                                 // free before the RMW that gives a block back)
//   static void fence_acquire();                  // acquire fence: pairs with a release (fence)
//                                                 // whose atomic write this thread's earlier
//                                                 // atomic read saw (a claim before the block's
//                                                 // metadata or bytes are used)
// docs/memory-order.md lists where the step machines call the two and why.
// Subtraction is fetch_add of the two's complement, as the GPU code does it.
//
// This header is host only (it includes <atomic>); the primitives themselves do not include it.
#pragma once

#include <atomic>
#include <cstdint>

#include "alloclab/core/ouroboros/single_thread_atomics.hpp"

namespace alloclab::ouro {

#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
// WebAssembly without threads (the explorer page): Emscripten 3.1's libc++ has no
// std::atomic_ref, and one thread needs none. The simulator's drivers, written against
// HostAtomics, compile there unchanged over the single-threaded policy.
using HostAtomics = SingleThreadAtomics;
#else

// Sequentially consistent std::atomic_ref operations: the strongest ordering, so a host test
// checks the algorithm and not a memory-order choice.
struct HostAtomics {
  template <class T>
  static T load(T& w) {
    return std::atomic_ref<T>(w).load();
  }
  template <class T>
  static T fetch_add(T& w, T v) {
    return std::atomic_ref<T>(w).fetch_add(v);
  }
  template <class T>
  static T cas(T& w, T expected, T desired) {
    std::atomic_ref<T>(w).compare_exchange_strong(expected, desired);
    return expected;  // compare_exchange_strong leaves the old value in `expected`
  }
  template <class T>
  static T exchange(T& w, T v) {
    return std::atomic_ref<T>(w).exchange(v);
  }
  template <class T>
  static T fetch_or(T& w, T v) {
    return std::atomic_ref<T>(w).fetch_or(v);
  }
  template <class T>
  static T fetch_and(T& w, T v) {
    return std::atomic_ref<T>(w).fetch_and(v);
  }
  template <class T>
  static T fetch_max(T& w, T v) {  // std::atomic_ref has no fetch_max before C++26
    std::atomic_ref<T> ref(w);
    T old = ref.load();
    while (old < v && !ref.compare_exchange_weak(old, v)) {
    }
    return old;
  }
  // Every operation above is sequentially consistent, which already orders a thread's earlier
  // operations before its later ones (and ThreadSanitizer does not model a standalone fence).
  static void fence() {}
  // The same holds for the ordered fences: a sequentially consistent operation is both a release
  // and an acquire, so they add nothing here.
  static void fence_release() {}
  static void fence_acquire() {}
};
#endif

// Operations issued by the calling host thread through CountingAtomics.
struct AtomicOpCounts {
  std::uint64_t loads = 0;
  std::uint64_t fetch_adds = 0;
  std::uint64_t cas = 0;  // attempts, successful or not
  std::uint64_t exchanges = 0;
  std::uint64_t bitwise = 0;  // fetch_or and fetch_and
  std::uint64_t maxes = 0;    // fetch_max
  std::uint64_t rmw() const { return fetch_adds + cas + exchanges + bitwise + maxes; }
};

// Counts every operation issued through it, per host thread (thread_local: the policy has only
// static functions, as the GPU one must). A simulator that drives several simulated threads from
// one host thread attributes operations to a simulated thread by the difference of counts()
// before and after that thread's step.
template <class Inner = HostAtomics>
struct CountingAtomics {
  static AtomicOpCounts& counts() {
    thread_local AtomicOpCounts c;
    return c;
  }
  template <class T>
  static T load(T& w) {
    ++counts().loads;
    return Inner::load(w);
  }
  template <class T>
  static T fetch_add(T& w, T v) {
    ++counts().fetch_adds;
    return Inner::fetch_add(w, v);
  }
  template <class T>
  static T cas(T& w, T expected, T desired) {
    ++counts().cas;
    return Inner::cas(w, expected, desired);
  }
  template <class T>
  static T exchange(T& w, T v) {
    ++counts().exchanges;
    return Inner::exchange(w, v);
  }
  template <class T>
  static T fetch_or(T& w, T v) {
    ++counts().bitwise;
    return Inner::fetch_or(w, v);
  }
  template <class T>
  static T fetch_and(T& w, T v) {
    ++counts().bitwise;
    return Inner::fetch_and(w, v);
  }
  template <class T>
  static T fetch_max(T& w, T v) {
    ++counts().maxes;
    return Inner::fetch_max(w, v);
  }
  static void fence() { Inner::fence(); }
  // Not counted, as fence() is not: a fence is no shared-memory access (the step counts stay the
  // paper's).
  static void fence_release() { Inner::fence_release(); }
  static void fence_acquire() { Inner::fence_acquire(); }
};

}  // namespace alloclab::ouro
