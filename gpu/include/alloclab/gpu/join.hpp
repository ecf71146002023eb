// The hash join case study on the GPU (issue 17; paper 000 §5.2.3, Figure 12): a partitioned hash
// join of R and S (core/join/tables.hpp, generated on the device) whose probe threads write their
// result tuples into 256-byte pages taken on demand from an allocator: "direct" (the paper's
// Direct Output baseline, one atomic counter, pages never freed) or any allocator with a page
// heap entry (gpu/src/page_heap_entry.cuh). Plain C++ (no CUDA types); built without CUDA,
// run_join throws NoDevice after the input checks.
//
// Every run is verified: the pages are read back on the device (core/join/pages.hpp) and their
// tuple count and checksum must equal the reference the caller passes (core/join/reference.hpp's
// reference_join of the same tables).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "alloclab/core/join/reference.hpp"
#include "alloclab/core/join/tables.hpp"
#include "alloclab/gpu/measure.hpp"

namespace alloclab::gpu {

// The Direct Output baseline's name (the join's own, not a registered allocator).
inline constexpr const char* kDirectOutput = "direct";

struct JoinOptions {
  std::string allocator = kDirectOutput;  // "direct" or an allocator with a page heap entry
  join::JoinTables tables;
  std::uint64_t pages = std::uint64_t{1} << 27;  // output pages of 256 B in the pool (Figure 12)
  unsigned tuples_per_thread = 1;  // S tuples a probe thread handles (the paper: about 1)
  unsigned repeats = 3;            // timed joins after one untimed warm-up join; medians
  std::uint64_t max_steps = std::uint64_t{1} << 16;  // bound of an allocator's page search
};

struct JoinRun {
  // Medians over the timed joins (CUDA events): the whole join (partitioning of R and S: histogram,
  // scan, scatter; then the build-and-probe kernel), the build-and-probe kernel alone, and the
  // time inside GETPAGE (clock64 cycles summed over the probe threads, divided by the SM clock
  // and by the probe threads resident at once: the share of the probe kernel's time its threads
  // spent taking pages).
  double join_ms = 0, probe_ms = 0, getpage_ms = 0;
  double getpage_cycles_per_call = 0;  // mean clock64 cycles of one GETPAGE (the last join)
  std::uint64_t getpage_calls = 0;     // pages asked for (the last join)
  // The page-request trace (the last join): GETPAGE calls counted once per warp whose lanes made
  // them together (getpage_calls / getpage_warp_calls threads ask at once), and the probe
  // threads the GPU holds at once (SMs x resident blocks of the probe kernel x its block size).
  std::uint64_t getpage_warp_calls = 0;
  std::uint64_t resident_probe_threads = 0;
  std::uint64_t pages_taken = 0;  // pages handed out (the last join)
  std::uint64_t probe_threads = 0;
  unsigned partition_bits = 0;
  std::uint64_t result_tuples = 0;  // read back from the pages (the last join)
  bool out_of_memory = false;       // a GETPAGE failed: result_tuples is what was written
  double free_fraction_at_end = 0;  // (pages - pages_taken) / pages
  std::string verification;         // "" when every join matched the reference
  std::vector<std::string> notes;
};

// "direct" and then, in registry order, the allocators with a page heap entry.
std::vector<std::string> join_allocators();

// InputError naming the parameter (no device needed): the tables (--tuples, --key-range,
// --skew), --tuples above the GPU join's 2^24, --pool of 0 or >= 2^32 - 1 pages, --repeats 0,
// --tuples-per-thread 0, --max-steps, an allocator without a page heap (listing those with one).
void check_join(const JoinOptions& o);

JoinRun run_join(const JoinOptions& o, const join::JoinOutput& reference);

}  // namespace alloclab::gpu
