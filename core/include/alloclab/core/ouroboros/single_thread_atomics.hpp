// A single-threaded atomics policy: the static interface of HostAtomics (host_atomics.hpp) on
// plain reads and writes, for a build with one thread and no std::atomic_ref (the explorer page:
// WebAssembly without threads, Emscripten 3.1's libc++ lacks std::atomic_ref). With one thread
// every operation is trivially atomic and sequentially consistent, so the step machines that take
// an `Atomics` policy (Ouroboros, Gelado & Garland, Gallatin, DynaSOAr) compile and behave exactly
// as under HostAtomics driven by one host thread: the page runs the real algorithms, not a copy.
// Never use it where two threads may touch the same word.
#pragma once

#include <cstdint>

namespace alloclab::ouro {

struct SingleThreadAtomics {
  template <class T>
  static T load(T& w) {
    return w;
  }
  template <class T>
  static T fetch_add(T& w, T v) {
    const T old = w;
    w = static_cast<T>(old + v);  // unsigned: wraps modulo 2^bits, as the atomic add does
    return old;
  }
  template <class T>
  static T cas(T& w, T expected, T desired) {
    const T old = w;
    if (old == expected) w = desired;
    return old;
  }
  template <class T>
  static T exchange(T& w, T v) {
    const T old = w;
    w = v;
    return old;
  }
  template <class T>
  static T fetch_or(T& w, T v) {
    const T old = w;
    w = static_cast<T>(old | v);
    return old;
  }
  template <class T>
  static T fetch_and(T& w, T v) {
    const T old = w;
    w = static_cast<T>(old & v);
    return old;
  }
  template <class T>
  static T fetch_max(T& w, T v) {
    const T old = w;
    if (old < v) w = v;
    return old;
  }
  // One thread: nothing to order.
  static void fence() {}
  static void fence_release() {}
  static void fence_acquire() {}
};

}  // namespace alloclab::ouro
