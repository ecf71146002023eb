// A pool policy: where an allocator's memory comes from, as mallocMC composes an allocator from
// policies. The driver (measure.cu) asks every pool the same questions - how much device memory
// it needs, set it up, reset it to the pristine pool before each run, check it after the
// allocation kernel (conservation) and after the free kernel (restored) - and each allocator's
// kernels receive the pool's device view (its `View`, by value) next to KernelArgs.
//
// Besides the virtual interface, a pool type P used with gpu_entry<P> (gpu_entry.cuh) provides
//   using View = ...;                                       the kernels' view of the pool
//   P(const Scenario&, const MeasureOptions&, const KernelArgs&);   allocates nothing
//   View view() const;
//   static void check(const Scenario&, const MeasureOptions&);      its input checks (InputError)
// and, where the pool is CUDA's device heap, a static device_heap_bytes(s, o).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace alloclab::gpu::detail {

// What one run handed out, for the pool's own checks: the result slots sorted in increasing
// order (failed requests, kFailed, last), on the device.
struct Allocation {
  const std::uint64_t* sorted = nullptr;
  std::uint64_t requests = 0;  // N * per_thread slots
  unsigned pages = 1;          // pages per request
  std::uint64_t taken = 0;     // requests served
};

class PoolPolicy {
 public:
  virtual ~PoolPolicy() = default;
  // Device bytes set_up() will allocate (the pool, its pristine copy, set-up scratch), known
  // before anything is allocated, and the parameter that sizes them ("--T").
  virtual std::uint64_t device_bytes() const = 0;
  virtual const char* size_parameter() const = 0;
  // Before set_up() and outside its timing: allocates the device memory the allocator is handed
  // rather than builds (a plug-in's pool of bytes, as the workload's arena of pages is).
  virtual void prepare() {}
  // Allocates and builds the pristine pool and checks it (VerificationError).
  virtual void set_up() = 0;
  // Makes the pool pristine again before a run.
  virtual void reset() = 0;
  // Workloads: before each allocation launch, outside the timed region (the queue notes where
  // this launch's tickets start).
  virtual void begin_allocations() {}
  // Workloads: the pages the allocations hold now (pages used beyond the pristine pool), for the
  // accounting check after every phase; nullopt for a pool without pages (the device heap).
  virtual std::optional<std::uint64_t> pages_in_use() const = 0;
  // After the allocation kernel: the pool accounts for exactly what was handed out.
  virtual void verify_allocated(const Allocation& run) const = 0;
  // After the free kernel: the pool is the pristine pool again.
  virtual void verify_freed(const Allocation& run) const = 0;
  // A pool that cannot be reset by copying (the device heap) is freed after every run instead.
  virtual bool free_after_each_run() const { return false; }
  // The pages the pool holds free now, in increasing order, copied back (tests); nullopt for a
  // pool without pages (the device heap).
  virtual std::optional<std::vector<std::uint64_t>> free_pages() const = 0;
  virtual std::vector<std::string> notes() const { return {}; }
  // Workloads, allocators of bytes: the device addresses [first, first + bytes) every object must
  // lie in (a plug-in's pool); nullopt where the pool does not say (CUDA's malloc heap).
  struct ByteRange {
    std::uint64_t first = 0, bytes = 0;
  };
  virtual std::optional<ByteRange> object_bounds() const { return std::nullopt; }
};

}  // namespace alloclab::gpu::detail
