// DynaSOAr's typed heap of byte sizes on the GPU and the applications that run on it (Springer &
// Masuhara, ECOOP'19 §6.3-6.4; studies/dynasoar/, "The applications on the GPU"): plain C++, so
// cli/ and the tests compile with g++. Built without CUDA every entry point that needs a device
// throws NoDevice.
//
// The heap is core/dynasoar's (heap.hpp with Heap::caps set on the device, N_T per type from
// types.hpp) driven by the same step machines as the simulator's typed heap
// (cpu_sim/typed_heap.hpp): one allocation kernel and one free kernel per batch. After every batch
// the heap is copied back and checked at rest on the host against a record of the live objects
// (HeapStorage::check_slots: Def. 1 in every block bitmap, every block's state, every live object
// in an allocated block of its type); a slot handed out twice, a free of an object not live, a
// machine abandoned past its bound: VerificationError. Out of memory: alloc.hpp's bounded give-up,
// the request gets nothing and is counted.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "alloclab/core/algorithm.hpp"
#include "alloclab/core/dynasoar/heap.hpp"
#include "alloclab/core/dynasoar/op_counts.hpp"
#include "alloclab/core/dynasoar/types.hpp"

namespace alloclab::gpu {

// The allocators with a typed heap on the GPU (registered from their own file, dynasoar.cu).
std::vector<Algorithm> typed_heap_algorithms();

struct TypedHeapGpuOptions {
  dynasoar::TypeSizes types{{64}};
  std::uint64_t heap_bytes = std::uint64_t{1} << 20;  // whole blocks of 64 x the smallest type
  unsigned retries = 5;                               // r: active lookups before the slow path
  std::uint64_t seed = 1;                             // rotation seeds (Philox)
};

struct TypedSlot {
  std::uint64_t block = 0;
  unsigned slot = 0;
  unsigned type = 0;  // type id 1..k
  bool operator==(const TypedSlot&) const = default;
};

// The allocator's counts over the launches so far, in ds_count order (op_counts.hpp).
using DsCountTotals = std::array<std::uint64_t, dynasoar::ds_count::kCounts>;

// A typed heap on the device with its host record (tests and the applications).
class TypedHeapGpu {
 public:
  TypedHeapGpu(Algorithm algo, const TypedHeapGpuOptions& o);
  ~TypedHeapGpu();
  TypedHeapGpu(const TypedHeapGpu&) = delete;
  TypedHeapGpu& operator=(const TypedHeapGpu&) = delete;

  // One allocation kernel: thread i asks for `per_thread` objects of type types[i] one after the
  // other (0: thread i asks nothing); the lanes of a warp (i / 32) asking for one type in the same
  // round coalesce. Result r * types.size() + i: request r of thread i, or nullopt (out of
  // memory). Checked at rest afterwards.
  std::vector<std::optional<TypedSlot>> allocate(const std::vector<unsigned>& types,
                                                 unsigned per_thread = 1);
  // One free kernel over `objects` (each must be live). Checked at rest afterwards.
  void free(const std::vector<TypedSlot>& objects);
  // parallel_do's enumeration of `type` on the device (§3.7): R = allocated[T].indices(), the
  // iteration bitmaps' snapshot, N_T consecutive threads a block; the objects the do-all's threads
  // meet, in thread order.
  std::vector<TypedSlot> enumerate(unsigned type);

  double last_kernel_ms() const;  // the last allocate's or free's kernel
  double fragmentation() const;   // §6.3's F at rest
  std::uint64_t blocks() const;
  std::uint64_t blocks_in_use() const;
  std::uint64_t live_objects() const;  // the record's
  std::uint64_t failed() const;        // requests out of memory so far
  const DsCountTotals& counts() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// linux-scalability (§6.4, Fig. 14A) on the GPU: `threads` threads each allocate n objects of
// `object_bytes` in ONE kernel, then one kernel frees them all, on a fresh heap for each n; the
// largest n at which every request is served is found by doubling, then bisection. Allocators with
// a typed heap (typed_heap_algorithms) run on it; any other GPU allocator runs through measure()
// with a page of object_bytes (one object a page: bitmap-alloc), its own verification.
struct LinuxScalabilityGpuOptions {
  std::uint64_t object_bytes = 64;
  std::uint64_t heap_bytes = std::uint64_t{1} << 30;
  std::uint64_t threads = 16384;
  unsigned retries = 5;
  std::uint64_t seed = 1;
  std::uint64_t max_n = 0;  // 0: search until a kernel fails; else at most this n
};
struct LinuxScalabilityGpuRun {
  std::string device;
  std::uint64_t capacity = 0;        // objects the heap holds
  std::uint64_t n_max = 0;           // largest n with every request served
  std::uint64_t next_failed = 0;     // requests that failed at the smallest n that failed
  std::uint64_t next_n = 0;          // that n (0: none failed, max_n reached)
  double utilisation = 0;            // threads x n_max x size / heap bytes
  double alloc_ms = 0, free_ms = 0;  // the kernels at n_max
  std::uint64_t kernels = 0;         // n tried
  DsCountTotals counts{};            // at n_max (typed heap only; zeros otherwise)
  bool typed_heap = false;           // ran on the typed heap (else measure())
};
LinuxScalabilityGpuRun run_linux_scalability_gpu(Algorithm algo,
                                                 const LinuxScalabilityGpuOptions& o);

// The Wa-Tor-like churn on the GPU (studies/dynasoar/): the rules of cpu_sim's run_wator, the
// agents' moves made by parallel_do kernels over the live fish and sharks, the cells arbitrating
// the moves (the lowest Philox priority wins a cell), births allocated by the allocation kernel,
// deaths freed by the free kernel. Every random choice is a Philox number of the cell and the
// iteration, so a seed gives the same populations every run; which slots the allocator hands out
// depends on the GPU's schedule (F varies a little between runs).
struct WatorGpuOptions {
  TypedHeapGpuOptions heap;  // types: fish, shark
  unsigned width = 64, height = 64, iterations = 500;
  double fish_fraction = 0.25, shark_fraction = 0.25;
  unsigned fish_breed = 4, shark_breed = 4;
  int shark_energy = 2, fish_energy = 4;
};
struct WatorGpuIteration {
  unsigned iteration = 0;
  std::uint64_t fish = 0, sharks = 0;
  std::uint64_t fish_births = 0, shark_births = 0, fish_eaten = 0, shark_deaths = 0;
  std::uint64_t failed = 0, blocks = 0;
  double fragmentation = 0;
  double alloc_ms = 0;  // the allocator's kernels (allocation and free) this iteration
  double app_ms = 0;    // the application's kernels (parallel_do set-up, moves, births placed)
  double wall_ms = 0;   // the iteration, the host checks included
  std::uint64_t blocks_initialised = 0, lookups = 0;
};
struct WatorGpuRun {
  std::string device;
  std::vector<WatorGpuIteration> iterations;
  double steady_fragmentation = 0;  // mean F over the second half of the iterations
  double kernel_ms = 0;             // alloc_ms + app_ms over every iteration
  double wall_s = 0;
  std::uint64_t allocations = 0, frees = 0, failed = 0;
  DsCountTotals counts{};
};
WatorGpuRun run_wator_gpu(Algorithm algo, const WatorGpuOptions& o);

// The counts as the simulator's DsCounts (saturated at 2^32 - 1), for the rows both backends
// share. Bitmap loads and atomics are not among the totals (0).
inline dynasoar::DsCounts ds_counts_of(const DsCountTotals& t) {
  namespace k = dynasoar::ds_count;
  auto v = [&t](unsigned i) {
    return static_cast<std::uint32_t>(t[i] < 0xffffffffull ? t[i] : 0xffffffffull);
  };
  dynasoar::DsCounts c;
  c.bitmap.levels = v(k::levels);
  c.bitmap.set_spins = v(k::set_spins);
  c.bitmap.clear_spins = v(k::clear_spins);
  c.bitmap.find_fails = v(k::find_fails);
  c.lookups = v(k::lookups);
  c.lookup_fails = v(k::lookup_fails);
  c.reserves = v(k::reserves);
  c.reserve_lost = v(k::reserve_lost);
  c.reserve_fails = v(k::reserve_fails);
  c.blocks_initialised = v(k::blocks_initialised);
  c.free_lookup_fails = v(k::free_lookup_fails);
  c.tail_skips = v(k::tail_skips);
  c.rollbacks = v(k::rollbacks);
  c.gave_up = v(k::gave_up);
  c.invalidations = v(k::invalidations);
  c.invalidated = v(k::invalidated);
  c.inval_rollbacks = v(k::inval_rollbacks);
  c.inval_retries = v(k::inval_retries);
  return c;
}

}  // namespace alloclab::gpu
