// Workloads (core/workload.hpp) on the GPU: every allocator's own device allocation and free
// kernels, launched phase by phase (the allocations of a run, a churn round, an oom batch) over
// one object per thread. Plain C++ (no CUDA types), so cli/ and tests compile with g++; built
// without CUDA, run_workload throws NoDevice after the input checks.
//
// Every run is verified outside the timed kernels, never optionally (VerificationError):
//  - every object is null (counted as failed) or inside the pool and aligned as promised;
//  - the byte ranges of the live objects are pairwise disjoint (sorted by address on the device,
//    neighbours compared);
//  - a pattern each thread writes into the first and last (up to) 8 bytes of its object is intact
//    before the object is freed and at the end;
//  - the pool's pages in use equal the live objects' pages after every phase, and 0 after the
//    final frees;
//  - a second identical allocation phase after everything was freed serves as many requests.
#pragma once

#include <cstdint>

#include "alloclab/core/workload.hpp"
#include "alloclab/core/workload_result.hpp"
#include "alloclab/gpu/measure.hpp"

namespace alloclab::gpu {

struct WorkloadOptions {
  std::uint64_t max_steps = 1u << 20;        // per request; a request that reaches it fails (null)
  std::uint32_t queue_capacity = 0;          // Ouroboros: MeasureOptions::queue_capacity
  std::uint32_t arenas = 0, chunk_bins = 0;  // gg-ualloc, gg-malloc: MeasureOptions' own
  bool single_chunk_mutex = false;           // ... and MeasureOptions::single_chunk_mutex
  bool gg_fenced = false, gg_thread_waits = false;  // gg-*: MeasureOptions' own
  // Figure 7's paper setting (Gelado & Garland §5.3): each point's alloc and free times the mean
  // over runs with blocks of 1, 2, 4, ..., 1024 threads; the other fields the run of 256.
  bool block_sweep = false;
  bool counters = true;  // per-request steps and collisions stored by the timed kernels
  // Untimed allocation phases (all threads) and frees before the first timed one, after which
  // the pool is made pristine again: the first launch of a kernel in a process pays for loading
  // it (a fresh 2^20-thread RW-BM launch measured 0.135 ms against 0.04 ms warm, H200).
  unsigned warmup = 1;
  // CUDA's malloc heap (cudamalloc's pool): fixed per process before its first malloc kernel,
  // so a process running several points sets it to the largest (workload_heap_bytes); 0 = the
  // workload's pool bytes.
  std::uint64_t heap_bytes = 0;
  // Repeats of each trial (core/workload_repeats.hpp), inside one run_workload: the pool, the
  // arena and the verification buffers are allocated and the pool built once; every repeat runs
  // the family's phases (the second identical run included) from the pristine pool with the same
  // seeds and is verified. Times are the medians over the repeats (init: the one set-up of the
  // trial), counts the first repeat's (a note where they differed). At least 1 (--repeats).
  unsigned repeats = 1;
  // Warm (--warm): the timed phases start from the pool as the warm-up runs left it (everything
  // freed) instead of the pristine pool. The same for allocators whose pool is pristine again
  // after a free (the bitmaps); for Ouroboros, whose chunks stay typed and whose freed pages wait
  // in its queues, it measures the allocator as a long-running program sees it (and as the
  // public Ouroboros benchmark times it: after a warm-up on the same instance).
  bool warm = false;
  // The watchdog (--watchdog): an allocation or free kernel, or a pool's set-up, that has not
  // ended after this many seconds throws KernelHung (measure.hpp); 0 = wait for ever. A kernel
  // cannot be stopped from the host without destroying its context: the device is unusable for
  // the rest of the process, so the CLI reports the row as hung and ends.
  double watchdog_seconds = 300;
};

// The checks that need no device: the workload's own (check_workload), the registry's (a GPU
// backend), what the allocator's GPU kernels serve (sizes, one size per warp for runs of pages)
// and the launch (--N, --block). InputError naming the parameter.
void check_workload_input(Algorithm algo, const Workload& w, const WorkloadOptions& o);

// Device heap bytes a workload of `algo` needs (0 where the allocator does not use it).
std::uint64_t workload_heap_bytes(Algorithm algo, const Workload& w, const WorkloadOptions& o);

// Runs trial `trial` (seed trial_seed(w.seed, trial)) of workload w with allocator algo on a
// pool of w.pool_bytes that starts fully free, o.repeats times (see WorkloadOptions::repeats).
// InputError when the device cannot hold it.
WorkloadRun run_workload(Algorithm algo, const Workload& w, const WorkloadOptions& o,
                         std::uint64_t trial);

}  // namespace alloclab::gpu
