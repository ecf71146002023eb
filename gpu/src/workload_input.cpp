// The input checks of a GPU workload that need no device and no GPU entry (built with or without
// CUDA): the workload's own, the registry's, and what the GPU kernels of the registry's request
// kinds serve.
#include "workload_input.hpp"

#include <string>

#include "alloclab/core/errors.hpp"

namespace alloclab::gpu::detail {

void check_workload_registry_input(Algorithm algo, const Workload& w, const WorkloadOptions& o) {
  check_workload_for(algo, w);
  if (const auto why = why_no_gpu_backend(algo)) throw InputError("--allocator", *why);
  // One thread per object; per-object counters are 32-bit and launches at most 2^31 threads.
  if (w.N > kMaxLaunchThreads)
    throw InputError("--N", std::to_string(w.N) + " threads: one launch holds at most 2^31");
  if (w.family == WorkloadFamily::oom && w.batch > kMaxLaunchThreads)
    throw InputError("--batch",
                     std::to_string(w.batch) + " objects: one launch holds at most 2^31 threads");
  if (o.max_steps < 1) throw InputError("--max-steps", "must be >= 1");
  // The kernels count a request's steps in 32 bits: a bound at or past 2^32 would never be reached.
  if (o.max_steps >= (1ull << 32)) throw InputError("--max-steps", "must be < 2^32");
  if (o.repeats < 1) throw InputError("--repeats", "need at least one repeat");
  // Throws naming --size where a request is more than one page for a one-page allocator.
  pages_for_request(algo, w.size.lo, w.page_bytes);
  const std::uint64_t most_pages = pages_for_request(algo, w.size.hi, w.page_bytes);
  const std::string who(name(algo));
  // Runs of pages found in bitmap words (RW_malloc's kernel): one run inside one 32-bit word, one
  // run length per warp. Allocators of size classes (Ouroboros) serve each lane its own class.
  if (caps(algo).requests == RequestKind::pages && caps(algo).bitmap_words) {
    if (most_pages > kRunWordBits)
      throw InputError("--size", std::to_string(w.size.hi) + " bytes is " +
                                     std::to_string(most_pages) + " pages of " +
                                     std::to_string(w.page_bytes) + " B; " + who +
                                     "'s GPU kernel finds a run inside one 32-bit word: at most " +
                                     std::to_string(kRunWordBits * w.page_bytes) + " bytes");
    if (w.size.is_range() && !w.warp_uniform)
      throw InputError("--warp-uniform", who +
                                             "'s GPU kernel serves one request size per warp "
                                             "(the n of its warp loop): give --warp-uniform for "
                                             "mixed sizes");
  }
  if (caps(algo).requests == RequestKind::bytes && w.initial_free < 1.0)
    throw InputError("--free", who +
                                   " hands out bytes, not pages of a pool alloclab can prefill; "
                                   "--free applies to the pools of pages");
  if (const std::uint64_t most = caps(algo).max_request_bytes; most && w.size.hi > most)
    throw InputError("--size", std::to_string(w.size.hi) + " bytes: " + who + " serves at most " +
                                   std::to_string(most) + " bytes per request");
  if (caps(algo).requests != RequestKind::bytes && w.pages_total() > 0xffffffffull)
    throw InputError("--pool", std::to_string(w.pages_total()) +
                                   " pages (pool / --page-bytes): the GPU workloads keep page "
                                   "counts below 2^32; use larger pages");
}

std::uint64_t workload_heap_bytes(Algorithm algo, const Workload& w, const WorkloadOptions& o) {
  // Plug-ins (allocators of bytes too) have a pool of their own, not CUDA's heap.
  if (caps(algo).requests != RequestKind::bytes || is_plugin(algo)) return 0;
  return o.heap_bytes ? o.heap_bytes : w.pool_bytes;
}

}  // namespace alloclab::gpu::detail
