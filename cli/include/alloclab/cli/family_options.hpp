// Options an allocator family owns, declared once here by that family and offered by each command
// where the family runs: `simulate` (the simulator), `measure` (the GPU) and `workload` (both).
// A command calls add_family_options with the backends it runs; CLI11 fills one FamilyOptions,
// which the command copies into its backend's options (sim::SimOptions, gpu::MeasureOptions...).
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace alloclab::cli {

struct FamilyOptions {
  std::uint32_t queue_capacity = 0;          // Ouroboros: --queue-capacity; 0 = the default
  std::uint32_t arenas = 0, chunk_bins = 0;  // UAlloc: --arenas, --chunk-bins; 0 = the default
  std::string chunk_mutex = "collective";    // UAlloc: --chunk-mutex collective|single
  std::string gg_order = "acq-rel";          // gg-* on the GPU: --gg-order acq-rel|fenced
  std::string gg_wait = "warp";              // UAlloc on the GPU: --gg-wait warp|thread
  bool preboot = false;                      // Gallatin in the simulator: --preboot
  std::string cuda_heap;                     // CUDA's malloc: --cuda-heap BYTES; empty = sized

  bool single_chunk_mutex() const { return chunk_mutex == "single"; }
  // --cuda-heap in bytes (InputError naming it when it is not a byte quantity); 0 where not given.
  std::uint64_t cuda_heap_bytes() const;
};

// A family whose allocators have options of their own.
struct AllocatorFamily {
  std::string_view name;        // "UAlloc"
  std::string_view allocators;  // "gg-ualloc, gg-malloc", as --help names them
  unsigned backends;            // BackendKind bits: where its options act
  void (*add)(CLI::App& cmd, FamilyOptions& options);
};

// Every family with options, in --help order.
const std::vector<AllocatorFamily>& allocator_families();

// Adds the options of every family that runs on one of `backends` (BackendKind bits).
void add_family_options(CLI::App& cmd, FamilyOptions& options, unsigned backends);

}  // namespace alloclab::cli
