// The hash join's build-and-probe kernel and its driver (issue 17), templated on where the output
// pages come from (an Output: Direct Output, join_direct.cu, or an allocator's page heap,
// page_heap_entry.cuh). One block per task: a task is a run of kProbeBlock x tuples_per_thread
// S tuples of one partition; the block builds its partition's R tuples into a shared-memory
// linear-probing table (core/join/partition.hpp), then each thread probes its S tuples
// (coalesced: tuple first + k * kProbeBlock + thread) and appends each match to its current page
// through PageWriter (core/join/pages.hpp), taking a page from the Output when the page is full.
//
// GETPAGE time: each probe thread sums the clock64 cycles around its GETPAGE calls and its own
// lifetime in cycles (kernel entry to exit); getpage_ms = probe_ms x (GETPAGE cycles / lifetime
// cycles, summed over the threads): the share of the probe threads' time spent taking pages.
// Out of memory: the first failed GETPAGE sets a flag; threads that see it stop asking (so a
// pool run dry costs each thread at most one failed search) and keep what they wrote.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "alloclab/core/median.hpp"
#include "alloclab/gpu/join.hpp"
#include "common.cuh"
#include "device.cuh"
#include "join_workspace.cuh"
#include "warp.cuh"

namespace alloclab::gpu::detail {

// A probe thread's GETPAGE with its counts.
template <class OutDevice>
struct TimedTake {
  const OutDevice& out;
  JoinCounters* counters;
  unsigned long long cycles = 0, calls = 0, warp_calls = 0, taken = 0;

  __device__ std::uint32_t operator()() {
    if (*static_cast<volatile unsigned*>(&counters->out_of_memory) != 0) return join::kNoPage;
    // The page-request trace: the lanes that ask together count one warp call (its lowest lane
    // counts it), so calls / warp_calls is how many threads of a warp ask at once.
    if (lane_id() == static_cast<unsigned>(__ffs(__activemask()) - 1)) ++warp_calls;
    const long long start = clock64();
    const std::uint32_t page = out.take_page();
    cycles += static_cast<unsigned long long>(clock64() - start);
    ++calls;
    if (page == join::kNoPage)
      atomic_exch_word(&counters->out_of_memory, 1u);
    else
      ++taken;
    return page;
  }
};

__device__ __forceinline__ void add_over_warp(unsigned long long* total, unsigned long long v) {
  for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(0xffffffffu, v, d);
  if (lane_id() == 0 && v != 0) count_add(total, v);
}

template <class OutDevice>
__global__ void __launch_bounds__(kProbeBlock) build_probe_kernel(ProbeArgs a, OutDevice out) {
  const long long born = clock64();
  __shared__ std::uint32_t keys[join::kHashSlots];
  __shared__ std::uint32_t values[join::kHashSlots];
  const std::uint32_t task = blockIdx.x;
  const std::uint64_t thread = blockIdx.x * std::uint64_t{kProbeBlock} + threadIdx.x;
  if (task >= a.task_offsets[a.partitions]) {  // past the last task (the grid is a bound)
    a.last_page[thread] = join::kNoPage;
    return;
  }
  // The task's partition: the last p with task_offsets[p] <= task (partitions without S tuples
  // have no task and share their offset with the next).
  std::uint32_t lo = 0, hi = a.partitions;
  while (hi - lo > 1) {
    const std::uint32_t mid = (lo + hi) / 2;
    if (a.task_offsets[mid] <= task)
      lo = mid;
    else
      hi = mid;
  }
  const std::uint32_t p = lo;
  for (std::uint32_t s = threadIdx.x; s < join::kHashSlots; s += kProbeBlock)
    keys[s] = join::kEmptyKey;
  __syncthreads();
  for (std::uint32_t i = a.r_offsets[p] + threadIdx.x; i < a.r_offsets[p + 1]; i += kProbeBlock) {
    const uint2 r = a.r[i];
    std::uint32_t slot = join::hash_slot(r.x, a.bits);
    while (atomic_cas_word(&keys[slot], join::kEmptyKey, r.x) != join::kEmptyKey)
      slot = (slot + 1) & (join::kHashSlots - 1);
    values[slot] = r.y;
  }
  __syncthreads();

  const std::uint32_t s_end = a.s_offsets[p + 1];
  const std::uint64_t first =
      a.s_offsets[p] + std::uint64_t{task - a.task_offsets[p]} * kProbeBlock * a.tuples_per_thread;
  join::PageWriter writer(a.arena);
  TimedTake<OutDevice> take{out, a.counters};
  bool writing = true;
  for (unsigned k = 0; k < a.tuples_per_thread; ++k) {
    const std::uint64_t i = first + std::uint64_t{k} * kProbeBlock + threadIdx.x;
    if (i >= s_end) break;
    const uint2 s = a.s[i];
    for (std::uint32_t slot = join::hash_slot(s.x, a.bits);;
         slot = (slot + 1) & (join::kHashSlots - 1)) {
      const std::uint32_t key = keys[slot];
      if (key == join::kEmptyKey) break;
      if (key == s.x) {
        if (writing) writing = writer.append({values[slot], s.y}, take);
        break;
      }
    }
  }
  a.last_page[thread] = writer.finish();
  add_over_warp(&a.counters->getpage_cycles, take.cycles);
  add_over_warp(&a.counters->getpage_calls, take.calls);
  add_over_warp(&a.counters->getpage_warp_calls, take.warp_calls);
  add_over_warp(&a.counters->pages_taken, take.taken);
  add_over_warp(&a.counters->thread_cycles, static_cast<unsigned long long>(clock64() - born));
}

// Runs o.repeats + 1 joins (the first untimed) with pages from Output, each verified against
// `reference`. Output (a host-side owner) has: Output(const JoinOptions&), reset() (every page
// free again), device() (its device handle: take_page() -> page id or kNoPage), arena(), and
// pool_free_pages() (its free pages read from the pool, or -1 where that would be slow).
template <class Output>
JoinRun run_join_with(const JoinOptions& o, const join::JoinOutput& reference) {
  require_device();
  require_device_bytes(
      "--pool", "the join",
      {{"output pages", o.pages * join::kPageBytes},
       {"tables and partitions", JoinWorkspace::device_bytes(o.tables, o.tuples_per_thread)}});
  JoinWorkspace ws(o.tables, o.tuples_per_thread);
  Output out(o);
  JoinRun run;
  run.probe_threads = ws.probe_threads();
  {
    int per_sm = 0, sms = 0, dev = 0;
    ALLOCLAB_CUDA(cudaGetDevice(&dev));
    ALLOCLAB_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    ALLOCLAB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, build_probe_kernel<decltype(out.device())>, kProbeBlock, 0));
    run.resident_probe_threads = std::min<std::uint64_t>(
        run.probe_threads, std::uint64_t(per_sm) * std::uint64_t(sms) * kProbeBlock);
  }
  run.partition_bits = ws.bits();
  std::vector<double> join_ms, probe_ms, getpage_ms;
  for (unsigned r = 0; r <= o.repeats; ++r) {
    out.reset();
    ALLOCLAB_CUDA(cudaDeviceSynchronize());
    EventTimer join_timer, probe_timer;
    join_timer.start();
    ws.partition();
    probe_timer.start();
    build_probe_kernel<<<ws.probe_blocks(), kProbeBlock>>>(ws.probe_args(out.arena()),
                                                           out.device());
    ALLOCLAB_CUDA_LAUNCH();
    const double probe = probe_timer.stop();
    const double join = join_timer.stop();
    const JoinCounters c = ws.counters();
    const OutputTotals got = ws.read_output(out.arena(), o.pages);
    const bool oom = c.out_of_memory != 0;
    std::string bad;
    if (got.broken != 0)
      bad = std::to_string(got.broken) + " chains of pages broken (a page handed out twice?)";
    else if (got.pages != c.pages_taken)
      bad = std::to_string(got.pages) + " pages hold output but " + std::to_string(c.pages_taken) +
            " were handed out";
    else if (!oom && got.output.tuples != reference.tuples)
      bad = std::to_string(got.output.tuples) + " result tuples, the reference " +
            std::to_string(reference.tuples);
    else if (!oom && got.output.checksum != reference.checksum)
      bad = "the checksum of the result tuples differs from the reference's";
    else if (oom && got.output.tuples >= reference.tuples)
      bad = "out of memory reported with every result tuple written";
    if (const std::int64_t free = out.pool_free_pages();
        bad.empty() && free >= 0 && static_cast<std::uint64_t>(free) != o.pages - c.pages_taken)
      bad = "the pool has " + std::to_string(free) +
            " free pages, not pages - pages taken = " + std::to_string(o.pages - c.pages_taken);
    if (!bad.empty() && run.verification.empty())
      run.verification = "join " + std::to_string(r) + ": " + bad;
    run.out_of_memory = run.out_of_memory || oom;
    run.result_tuples = got.output.tuples;
    run.pages_taken = c.pages_taken;
    run.getpage_calls = c.getpage_calls;
    run.getpage_warp_calls = c.getpage_warp_calls;
    run.getpage_cycles_per_call =
        c.getpage_calls ? static_cast<double>(c.getpage_cycles) / c.getpage_calls : 0.0;
    if (r == 0) continue;  // the warm-up
    join_ms.push_back(join);
    probe_ms.push_back(probe);
    getpage_ms.push_back(c.thread_cycles ? probe * static_cast<double>(c.getpage_cycles) /
                                               static_cast<double>(c.thread_cycles)
                                         : 0.0);
  }
  run.join_ms = median_of(join_ms);
  run.probe_ms = median_of(probe_ms);
  run.getpage_ms = median_of(getpage_ms);
  run.free_fraction_at_end = static_cast<double>(o.pages - std::min(o.pages, run.pages_taken)) /
                             static_cast<double>(o.pages);
  if (run.out_of_memory)
    run.notes.push_back("out of memory: " + std::to_string(run.result_tuples) + " of " +
                        std::to_string(reference.tuples) + " result tuples written in " +
                        std::to_string(run.pages_taken) + " pages");
  return run;
}

}  // namespace alloclab::gpu::detail
