// The atomics policy of Gelado & Garland's GPU code (gg-tbuddy, gg-ualloc, gg-malloc, the bulk
// semaphore's Figure 5 bench, the RCU list's Figure 6 bench): every atomic through libcu++'s
// cuda::atomic_ref at device scope with an explicit order, every fence through
// cuda::atomic_thread_fence (studies/gelado-garland/memory-order.md has the table of publish and
// consume points this order serves).
//
// Two orders, chosen per launch (GgOrder; `--gg-order` on the commands that run them):
//  * acq-rel (default): loads acquire, read-modify-writes acq_rel, no fence except
//    fence_sc() where a step machine asks for one (the SRCU read side's store-then-load, which
//    release/acquire does not order: srcu.hpp). Every point where one thread publishes state
//    another consumes is an RMW (a signal, an unlock, a link, a cleared bit, a CAS), and every
//    consumer reaches it through an acquire load or RMW, so this is what the design needs.
//  * fenced: the previous policy, kept so that the two can be measured: relaxed atomics with a
//    seq_cst device fence on each side of every read-modify-write (UAlloc's OrderedAtomics);
//    loads relaxed.
// The policy is a template over `Tally`, which counts the calling thread's read-modify-writes
// (each translation unit has its own shared-memory tally) and reads the launch's order:
//   struct Tally { __device__ static void count(); __device__ static bool fenced(); };
#pragma once

#include <cuda/atomic>

namespace alloclab::gpu::detail {

enum class GgOrder : unsigned { acq_rel = 0, fenced = 1 };

template <class Tally>
struct GgAtomics {
  template <class T>
  using Ref = cuda::atomic_ref<T, cuda::thread_scope_device>;

  template <class T>
  __device__ static T load(T& w) {
    return Ref<T>(w).load(Tally::fenced() ? cuda::memory_order_relaxed
                                          : cuda::memory_order_acquire);
  }
  template <class T>
  __device__ static T fetch_add(T& w, T v) {
    return rmw([&](cuda::memory_order o) { return Ref<T>(w).fetch_add(v, o); });
  }
  template <class T>
  __device__ static T cas(T& w, T expected, T desired) {
    return rmw([&](cuda::memory_order o) {
      T seen = expected;
      Ref<T>(w).compare_exchange_strong(seen, desired, o, failure_order(o));
      return seen;  // `expected` on success, the word found otherwise
    });
  }
  template <class T>
  __device__ static T exchange(T& w, T v) {
    return rmw([&](cuda::memory_order o) { return Ref<T>(w).exchange(v, o); });
  }
  template <class T>
  __device__ static T fetch_or(T& w, T v) {
    return rmw([&](cuda::memory_order o) { return Ref<T>(w).fetch_or(v, o); });
  }
  template <class T>
  __device__ static T fetch_and(T& w, T v) {
    return rmw([&](cuda::memory_order o) { return Ref<T>(w).fetch_and(v, o); });
  }
  // A store-then-load that must not be reordered (Dekker's pattern: the SRCU read side's
  // increment before its epoch check, the barrier's flip before its reader count). The fenced
  // order has fenced after the store already.
  __device__ static void fence_sc() {
    if (!Tally::fenced())
      cuda::atomic_thread_fence(cuda::memory_order_seq_cst, cuda::thread_scope_device);
  }

 private:
  __device__ static cuda::memory_order failure_order(cuda::memory_order o) {
    return o == cuda::memory_order_acq_rel ? cuda::memory_order_acquire
                                           : cuda::memory_order_relaxed;
  }
  template <class F>
  __device__ static auto rmw(F f) {
    Tally::count();
    if (!Tally::fenced()) return f(cuda::memory_order_acq_rel);
    cuda::atomic_thread_fence(cuda::memory_order_seq_cst, cuda::thread_scope_device);
    const auto old = f(cuda::memory_order_relaxed);
    cuda::atomic_thread_fence(cuda::memory_order_seq_cst, cuda::thread_scope_device);
    return old;
  }
};

// A tally that counts nothing, for code without a per-request count (the benches).
template <GgOrder kOrder>
struct NoTally {
  __device__ static void count() {}
  __device__ static bool fenced() { return kOrder == GgOrder::fenced; }
};

}  // namespace alloclab::gpu::detail
