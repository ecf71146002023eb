#include "alloclab/cli/family_options.hpp"

#include <vector>

#include "alloclab/core/algorithm.hpp"
#include "alloclab/core/ouroboros/config.hpp"
#include "alloclab/core/workload.hpp"

namespace alloclab::cli {
namespace {

// Ouroboros (Winter et al., ICS'20): its size classes' queues.
void add_ouroboros(CLI::App& cmd, FamilyOptions& o) {
  cmd.add_option("--queue-capacity", o.queue_capacity, ouro::queue_capacity_help())
      ->capture_default_str();
}

// UAlloc (Gelado & Garland, PPoPP'19): arenas, the chunk list's mutex, bins per chunk.
void add_ualloc(CLI::App& cmd, FamilyOptions& o) {
  cmd.add_option("--arenas", o.arenas,
                 "UAlloc (gg-ualloc, gg-malloc): arenas, at most one per SM. GPU: a thread uses "
                 "its SM's, modulo the count; 0 = one per SM, fewer where the pool has under 8 "
                 "chunks each. Simulator (at most 132): thread i uses arena (i / lanes) mod "
                 "arenas; 0 = 1")
      ->capture_default_str();
  cmd.add_option("--chunk-mutex", o.chunk_mutex,
                 "UAlloc (gg-ualloc, gg-malloc): collective (a warp's growers that reach the "
                 "chunk list's mutex before it is taken served by one acquisition, §4.2.2) or "
                 "single (each grower alone); in the simulator, lockstep mode")
      ->check(CLI::IsMember({"collective", "single"}))
      ->capture_default_str();
  cmd.add_option("--chunk-bins", o.chunk_bins,
                 "UAlloc (gg-ualloc, gg-malloc): 4 KB bins per chunk, 64 (256 KB) or 128 "
                 "(512 KB): the paper's two readings; 0 = 64")
      ->capture_default_str();
  cmd.add_option("--gg-order", o.gg_order,
                 "Gelado & Garland on the GPU (gg-tbuddy, gg-ualloc, gg-malloc): acq-rel (loads "
                 "acquire, read-modify-writes acq_rel, a seq_cst fence only at SRCU's two "
                 "store-then-load points) or fenced (relaxed atomics with a seq_cst fence on "
                 "each side of every read-modify-write: the previous policy, for comparison)")
      ->check(CLI::IsMember({"acq-rel", "fenced"}))
      ->capture_default_str();
  cmd.add_option("--gg-wait", o.gg_wait,
                 "UAlloc on the GPU (gg-ualloc, gg-malloc): warp (the lanes of a warp asking for "
                 "one class wait on its semaphore once, for all their units, through one leader) "
                 "or thread (each thread waits for its unit: the previous behaviour)")
      ->check(CLI::IsMember({"warp", "thread"}))
      ->capture_default_str();
}

// Gallatin (McCoy & Pandey, PPoPP'24): its block buffers, in the simulator (the GPU backend
// always pre-boots).
void add_gallatin(CLI::App& cmd, FamilyOptions& o) {
  cmd.add_flag("--preboot", o.preboot,
               "Gallatin (gallatin), simulator: fill the block buffers before the first request, "
               "as the paper's init and the GPU backend do (every class on pools of 64 segments "
               "or more, else the run's class); default: they fill on demand. Workload rows get "
               "mode <mode>-preboot");
}

// CUDA's device malloc (cudamalloc): its heap, fixed once per process.
void add_cuda_malloc(CLI::App& cmd, FamilyOptions& o) {
  cmd.add_option("--cuda-heap", o.cuda_heap,
                 "CUDA's malloc (cudamalloc): the device malloc heap, its pool, in bytes (e.g. "
                 "4GiB). CUDA fixes it before the first malloc kernel of a process, so one "
                 "invocation sizes it once; default: for the largest point of the run (measure: "
                 "twice the bytes of its requests, at least 2 GiB; workload: its --pool)");
}

}  // namespace

std::uint64_t FamilyOptions::cuda_heap_bytes() const {
  return cuda_heap.empty() ? 0 : parse_bytes("--cuda-heap", cuda_heap);
}

const std::vector<AllocatorFamily>& allocator_families() {
  static const std::vector<AllocatorFamily> families{
      {"Ouroboros", "ouro-*", BackendKind::sim | BackendKind::gpu, add_ouroboros},
      {"UAlloc", "gg-ualloc, gg-malloc", BackendKind::sim | BackendKind::gpu, add_ualloc},
      {"Gallatin", "gallatin", static_cast<unsigned>(BackendKind::sim), add_gallatin},
      {"CUDA malloc", "cudamalloc", static_cast<unsigned>(BackendKind::gpu), add_cuda_malloc},
  };
  return families;
}

void add_family_options(CLI::App& cmd, FamilyOptions& options, unsigned backends) {
  for (const auto& f : allocator_families())
    if ((f.backends & backends) != 0) f.add(cmd, options);
}

}  // namespace alloclab::cli
