// What every allocator's kernels share: the kernel arguments every allocator takes, the end of a
// request (record_request) and the atomic helpers on bitmap words of either width. An allocator's
// own state (its pool: a bitmap, a queue, the device heap) is not here but in its pool policy
// (pool_policy.cuh), passed to its kernels as a second argument, so a new allocator does not
// grow KernelArgs.
#pragma once

#include <cuda_runtime.h>

#include <cuda/atomic>

#include <cstdint>
#include <type_traits>

#include "alloclab/core/bit_choice.hpp"
#include "alloclab/core/bit_tricks.hpp"
#include "alloclab/core/pool.hpp"
#include "alloclab/core/probe_sequence.hpp"
#include "cuda_check.cuh"
#include "warp.cuh"

namespace alloclab::gpu::detail {

// Word atomics, templated on the word type (32 or 64 bits): the bitmaps' and Ouroboros' words.
// Every atomic of the GPU code goes through cuda::atomic_ref (libcu++) with an explicit scope and
// order (docs/memory-order.md): device scope, since the threads that share a pool run on every SM
// of the one GPU (no host or peer GPU touches it during a kernel); relaxed, since a claim or a
// count carries only its own value: where one thread publishes state that another then reads,
// the step machines and kernels add a release fence before the publishing write and an acquire
// fence after the consuming read (fence_release_device / fence_acquire_device below, the atomics
// policy's fence_release / fence_acquire), as each family's table in its doc lists. The relaxed
// RMWs compile to the same atom.relaxed.gpu as CUDA's atomicOr & co.
template <typename T>
__device__ __forceinline__ cuda::atomic_ref<T, cuda::thread_scope_device> device_ref(T& w) {
  return cuda::atomic_ref<T, cuda::thread_scope_device>(w);
}
inline constexpr cuda::std::memory_order kRelaxed = cuda::std::memory_order_relaxed;
// The value operand takes the word's type (a literal 1ull on a std::uint64_t word is fine).
template <typename T>
using Value = std::type_identity_t<T>;

template <typename Word>
__device__ __forceinline__ Word atomic_or_word(Word* p, Value<Word> v) {
  return device_ref(*p).fetch_or(v, kRelaxed);
}
template <typename Word>
__device__ __forceinline__ Word atomic_and_word(Word* p, Value<Word> v) {
  return device_ref(*p).fetch_and(v, kRelaxed);
}
template <typename Word>
__device__ __forceinline__ Word atomic_max_word(Word* p, Value<Word> v) {
  return device_ref(*p).fetch_max(v, kRelaxed);
}
template <typename Word>
__device__ __forceinline__ Word atomic_min_word(Word* p, Value<Word> v) {
  return device_ref(*p).fetch_min(v, kRelaxed);
}
// Returns the old value (atomicCAS style).
template <typename Word>
__device__ __forceinline__ Word atomic_cas_word(Word* p, Value<Word> expected, Value<Word> v) {
  Word old = expected;
  device_ref(*p).compare_exchange_strong(old, v, kRelaxed, kRelaxed);
  return old;  // the old value either way
}
template <typename Word>
__device__ __forceinline__ Word atomic_add_word(Word* p, Value<Word> v) {
  return device_ref(*p).fetch_add(v, kRelaxed);
}
template <typename Word>
__device__ __forceinline__ Word atomic_exch_word(Word* p, Value<Word> v) {
  return device_ref(*p).exchange(v, kRelaxed);
}
// A fresh read of a word other threads write with atomics: a relaxed device-scope atomic load
// (served by L2, past the non-coherent L1, as __ldcg was). Other types (a byte): __ldcg.
template <typename Word>
__device__ __forceinline__ Word load_word(const Word* p) {
  if constexpr (sizeof(Word) == 4 || sizeof(Word) == 8)
    return device_ref(*const_cast<Word*>(p)).load(kRelaxed);
  else
    return __ldcg(p);
}
// A statistic (a count, a sum, a flag that only the host reads after the kernel): relaxed, no
// other thread reads data through it.
template <typename T>
__device__ __forceinline__ void count_add(T* p, Value<T> v) {
  device_ref(*p).fetch_add(v, kRelaxed);
}
template <typename T>
__device__ __forceinline__ void count_min(T* p, Value<T> v) {
  device_ref(*p).fetch_min(v, kRelaxed);
}
template <typename T>
__device__ __forceinline__ void count_max(T* p, Value<T> v) {
  device_ref(*p).fetch_max(v, kRelaxed);
}
// The two sides of a publication (docs/memory-order.md): a release fence before the atomic write
// that publishes (a free's give-back, a chunk or block made visible), an acquire fence after the
// atomic read that found it (a claim, a slot read). Device scope: producer and consumer may be on
// any two SMs.
__device__ __forceinline__ void fence_release_device() {
  cuda::atomic_thread_fence(cuda::std::memory_order_release, cuda::thread_scope_device);
}
__device__ __forceinline__ void fence_acquire_device() {
  cuda::atomic_thread_fence(cuda::std::memory_order_acquire, cuda::thread_scope_device);
}
// Sequentially consistent (what __threadfence was): where a thread's earlier writes must be
// ordered before its later reads too (Ouroboros' grower; the policy's fence()).
__device__ __forceinline__ void fence_sc_device() {
  cuda::atomic_thread_fence(cuda::std::memory_order_seq_cst, cuda::thread_scope_device);
}

inline constexpr std::uint64_t kFailed = ~std::uint64_t{0};  // result slot of a failed request

// What every allocation kernel takes: the scenario and the per-request result slots. Results:
// page[r*N + i] = first page of request r of thread i (kFailed if it failed; the address for
// allocators of bytes); steps / collisions likewise (null when counters are off).
struct KernelArgs {
  std::uint64_t N = 0, A = 0, T = 0;
  unsigned lanes = 32, pages = 1, per_thread = 1;
  // Which free bit to claim (bit_choice.hpp), where the allocator implements the choice
  // (Capabilities::bit_choices: RW-BM, CoRW).
  BitChoice bit_choice = BitChoice::lowest;
  std::uint64_t seed = 0;  // trial seed
  std::uint64_t max_steps = 0;
  unsigned block = 256;  // threads per block of the allocation launch (a multiple of 32)
  std::uint64_t* page = nullptr;
  std::uint32_t* steps = nullptr;
  std::uint32_t* collisions = nullptr;
  std::uint32_t* atomics = nullptr;  // per request, with the counters (workloads; null: not kept)
  // Per request, with the counters (workloads; null: not kept): the lost bits beyond the first of
  // each atomic claim that lost any, so that failed claims = collisions - this. Only allocators
  // whose one atomic claims several bits (CoRW) write it; for the others (one bit or one run per
  // atomic, or no atomic claims) it stays 0 and failed claims = collisions.
  std::uint32_t* extra_lost_bits = nullptr;
  // With the counters, where the allocator names counts of its own (GpuEntry::op_count_names):
  // their totals over the launch's requests (null: not kept). record_op_counts adds to them.
  unsigned long long* op_counts = nullptr;
  // Workloads (workload.cu; one request per thread): thread i asks only where active[i] != 0
  // (null: every thread), for pages_of[i] pages (allocators of runs and their free; null:
  // `pages`) or bytes_of[i] bytes (allocators of bytes; null: pages * page bytes). A thread that
  // does not ask records nothing (its result slot keeps what it held).
  const std::uint8_t* active = nullptr;
  const std::uint32_t* pages_of = nullptr;
  const std::uint64_t* bytes_of = nullptr;
};

// What one device-side page allocation returned (the device APIs, e.g. rw.cuh): the first page
// or kFailed, its steps (the registry's unit), lost claims and the atomics it issued.
// extra_lost_bits: lost bits beyond the first of each atomic that lost any (failed claims =
// lost - extra_lost_bits); 0 where one atomic claims one bit or one run.
struct PageRequest {
  std::uint64_t page = kFailed;
  std::uint32_t steps = 0, lost = 0, atomics = 0;
  std::uint32_t extra_lost_bits = 0;
};

__device__ __forceinline__ bool asks(const KernelArgs& a, std::uint64_t i) {
  return a.active == nullptr || a.active[i] != 0;
}

// The result of request r of thread i, in the layout above: every allocation kernel ends a
// request with this (counters only in the kCounters instantiation).
// `atomics`: the atomic read-modify-writes the request issued on the pool (stored only where
// a.atomics is set: workloads).
// A lane that did not ask but issued atomics for its warp (warp-collective allocators): its
// atomics are added to the slot of `slot_thread` (its own, or a real lane's) so totals are exact.
template <bool kCounters>
__device__ __forceinline__ void record_helper_atomics(const KernelArgs& a, std::uint64_t r,
                                                      std::uint64_t slot_thread,
                                                      std::uint32_t atomics) {
  if constexpr (kCounters)
    if (a.atomics && atomics) count_add(&a.atomics[r * a.N + slot_thread], atomics);
}

template <bool kCounters>
__device__ __forceinline__ void record_request(const KernelArgs& a, std::uint64_t r,
                                               std::uint64_t i, std::uint64_t page,
                                               std::uint32_t steps, std::uint32_t collisions,
                                               std::uint32_t atomics) {
  const std::uint64_t slot = r * a.N + i;
  a.page[slot] = page;
  if constexpr (kCounters) {
    a.steps[slot] = steps;
    a.collisions[slot] = collisions;
    if (a.atomics && atomics) count_add(&a.atomics[slot], atomics);  // helpers add to it too
  }
}

// The lost bits beyond the first of each failed atomic of request r of thread i (see
// KernelArgs::extra_lost_bits), where it is kept.
template <bool kCounters>
__device__ __forceinline__ void record_extra_lost_bits(const KernelArgs& a, std::uint64_t r,
                                                       std::uint64_t i, std::uint32_t n) {
  if constexpr (kCounters)
    if (a.extra_lost_bits) a.extra_lost_bits[r * a.N + i] = n;
}

// Adds the calling lane's own counts (values[0..kN), in the allocator's order of
// GpuEntry::op_count_names) to the launch's totals, where they are kept: summed over the lanes
// that call it together first, so that each warp issues one atomic per count, not 32.
template <bool kCounters, unsigned kN>
__device__ __forceinline__ void record_op_counts(const KernelArgs& a,
                                                 const std::uint32_t (&values)[kN]) {
  if constexpr (kCounters) {
    if (!a.op_counts) return;
    const unsigned together = __activemask();
    const bool first = lane_id() == static_cast<unsigned>(__ffs(together) - 1);
    for (unsigned j = 0; j < kN; ++j) {
      const unsigned sum = __reduce_add_sync(together, values[j]);
      if (first && sum) count_add(&a.op_counts[j], static_cast<unsigned long long>(sum));
    }
  }
}

// Requests in flight at once on any current GPU: at most 2048 resident threads per SM, and no
// GPU has more than 160 SMs (H100/H200: 132). Allocators whose counters bound the requests in
// flight (a semaphore's E and R) check their input against this.
inline constexpr std::uint64_t kMostResidentThreads = 160ull * 2048;

// The back-off of a thread that waits for another (a lock held, a CAS lost, a reservation not
// yet served): short sleeps for the first spins, longer ones after.
__device__ __forceinline__ void spin_back_off(std::uint32_t spins) {
  __nanosleep(spins < 8 ? 32 : 256);
}

}  // namespace alloclab::gpu::detail
