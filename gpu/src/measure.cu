// The measurement driver, the same for every allocator: look up the allocator's GPU entry
// (gpu_entry.cuh), check the input and the device memory the run needs, set up its pool, then
// warm-up runs and timed repeats (CUDA events around the allocation kernel only, each from the
// pristine pool), each verified (generic checks on the result slots, then the pool's own), then
// statistics and the free kernel (timed once) of the last repeat.
#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "alloclab/core/errors.hpp"
#include "device.cuh"
#include "gpu_entry.cuh"
#include "input_checks.hpp"
#include "run_results.cuh"

namespace alloclab::gpu {
using namespace detail;

namespace {

// Steps are the registry's unit of TAS and WAS; an allocator that defines none has no counters.
bool steps_observable(Algorithm algo) {
  return !info(algo).step_definition.empty();
}

// Before anything is allocated: the pool (with its copy and scratch), the per-request result
// slots (page, sorted, steps, collisions) and the verification's scratch must fit in the free
// device memory. Otherwise an input error names the parameter that sized the larger part.
void check_device_memory(Algorithm algo, const PoolPolicy& pool, std::uint64_t R) {
  const std::uint64_t pool_bytes = pool.device_bytes();
  const std::uint64_t request_bytes =
      R * (2 * sizeof(std::uint64_t) + 2 * sizeof(std::uint32_t)) + result_scratch_bytes(R);
  require_device_bytes(
      pool_bytes >= request_bytes ? pool.size_parameter() : "--N", std::string(name(algo)),
      {{"pool", pool_bytes}, {"per-request results and verification", request_bytes}});
}

}  // namespace

std::vector<Algorithm> algorithms_with_gpu_entry() {
  return GpuTable::instance().registered();
}

void check_input(Algorithm algo, const Scenario& s, const MeasureOptions& o) {
  check_registry_input(algo, s, o);
  if (const GpuEntry* e = GpuTable::instance().find(algo)) e->check(s, o);
}

std::uint64_t device_heap_bytes(Algorithm algo, const Scenario& s, const MeasureOptions& o) {
  const GpuEntry* e = GpuTable::instance().find(algo);
  return e ? e->device_heap_bytes(s, o) : 0;
}

MeasureResult measure(Algorithm algo, const Scenario& s, const MeasureOptions& o,
                      std::uint64_t trial) {
  check_input(algo, s, o);
  require_device();
  const GpuEntry& entry = gpu_entry_for(algo);
  KernelArgs args = kernel_args(s, o);
  args.seed = trial_seed(s.seed, trial);  // trial t of a measurement: its own pool and probes
  const std::unique_ptr<GpuAllocator> allocator = entry.make(s, o, args);
  PoolPolicy& pool = allocator->pool();
  const std::uint64_t R = s.N * o.per_thread;
  check_device_memory(algo, pool, R);

  const std::string who(name(algo));
  // Allocators of pages hand out page ids of the pool; allocators of bytes, addresses.
  const bool page_ids = caps(algo).requests != RequestKind::bytes;
  const std::uint64_t len = page_ids ? s.pages : s.pages * o.page_bytes;
  const bool counters = o.counters && steps_observable(algo);
  const bool step_bound = entry.out_of_memory == OutOfMemory::step_bound;

  MeasureResult res;
  EventTimer timer;
  DeviceBuffer<std::uint64_t> page(R), sorted(R);
  DeviceBuffer<std::uint32_t> steps(R), collisions(R);

  // Pool set-up (timed separately).
  pool.prepare();
  timer.start();
  pool.set_up();
  res.setup_ms = timer.stop();
  KernelArgs a = args;
  a.page = page.get();
  a.steps = steps.get();
  a.collisions = collisions.get();

  const unsigned runs = o.warmup + o.repeats;
  for (unsigned run = 0; run < runs; ++run) {
    // Reset to the same pool.
    pool.reset();
    ALLOCLAB_CUDA(cudaMemset(page.get(), 0xff, page.bytes()));
    ALLOCLAB_CUDA(cudaMemset(steps.get(), 0, steps.bytes()));
    ALLOCLAB_CUDA(cudaMemset(collisions.get(), 0, collisions.bytes()));
    KernelArgs timed = a;
    if (!counters) timed.steps = timed.collisions = nullptr;
    ALLOCLAB_CUDA(cudaDeviceSynchronize());
    timer.start();
    allocator->alloc(timed, counters);
    const double ms = timer.stop();
    ALLOCLAB_CUDA(cudaGetLastError());
    if (run >= o.warmup) res.kernel_ms_all.push_back(ms);

    // Verify this run: disjoint ranges of initially free pages, then the pool's conservation.
    const std::uint64_t taken = count_taken(page);
    sort_results(page, sorted);
    if (const std::uint64_t errors = range_violations(sorted, len, page_ids, s.T, s.A, args.seed))
      throw VerificationError(who + ": " + std::to_string(errors) +
                              " violations (pages handed out twice, overlapping ranges, or pages "
                              "that were not free)");
    if (page_ids && taken * s.pages > s.A)
      throw VerificationError(who + ": more pages taken than free");
    const Allocation done{sorted.get(), R, s.pages, taken};
    pool.verify_allocated(done);
    res.taken = taken;
    res.failed = R - taken;

    if (run + 1 < runs) {
      if (pool.free_after_each_run()) {
        allocator->free(a);  // e.g. the device heap must be empty again before the next repeat
        ALLOCLAB_CUDA(cudaDeviceSynchronize());
      }
      continue;
    }
    if (counters) {
      const Stats st = reduce_stats(a, steps, collisions, page);
      if (st.taken != taken) throw VerificationError("statistics disagree on taken");
      res.tas = st.tas;
      res.was = st.was;
      res.steps_p50 = st.p50;
      res.steps_p99 = st.p99;
      res.steps_max = st.max;
      res.collisions = st.collisions;
      if (step_bound && res.failed > 0 && st.max < o.max_steps)
        throw VerificationError(who + ": a request failed before the step bound");
    } else {
      res.has_steps = false;
    }
    if (step_bound && res.failed > 0)
      res.notes.push_back("failed: " + std::to_string(res.failed) +
                          " requests reached the step bound --max-steps=" +
                          std::to_string(o.max_steps) + " (out of memory)");
    if (o.keep_per_thread) {
      std::vector<std::uint64_t> h(R);
      ALLOCLAB_CUDA(cudaMemcpy(h.data(), page.get(), page.bytes(), cudaMemcpyDeviceToHost));
      res.first_page.resize(R);
      std::uint64_t lowest = kFailed;
      for (auto x : h) lowest = std::min(lowest, x);
      for (std::uint64_t r = 0; r < R; ++r)
        res.first_page[r] =
            h[r] == kFailed ? -1 : static_cast<std::int64_t>(page_ids ? h[r] : h[r] - lowest);
      res.steps.resize(R);
      if (counters)
        ALLOCLAB_CUDA(
            cudaMemcpy(res.steps.data(), steps.get(), steps.bytes(), cudaMemcpyDeviceToHost));
    }
    if (o.keep_free_pages) res.free_after_alloc = pool.free_pages();
    // The free kernel, timed once, must restore the pool.
    timer.start();
    allocator->free(a);
    res.free_ms = timer.stop();
    ALLOCLAB_CUDA(cudaGetLastError());
    pool.verify_freed(done);
    if (o.keep_free_pages) res.free_after_free = pool.free_pages();
  }
  ALLOCLAB_CUDA(cudaDeviceSynchronize());
  res.kernel_ms = median_of(res.kernel_ms_all);
  for (auto& note : pool.notes()) res.notes.push_back(std::move(note));
  return res;
}

}  // namespace alloclab::gpu
