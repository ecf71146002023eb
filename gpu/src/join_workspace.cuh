// The hash join's device data and its partitioning phase (issue 17): R and S generated on the
// device from their specs (core/join/tables.hpp; never copied from the host), then, in the timed
// join, radix-partitioned by the low bits of the key (core/join/partition.hpp): a histogram per
// table (block-local counts in shared memory, one global atomic per block and partition), an
// exclusive prefix sum (cub::DeviceScan), a scatter (each block reserves its run of every
// partition with one atomic, then writes at shared-memory ranks), and the probe's task list
// (ceil(|S_p| / tuples a block) blocks per partition, by another prefix sum). The build-and-probe
// kernel (join_probe.cuh) reads ProbeArgs; the output's check reads the pages back
// (read_output). Non-template: compiled once (join_workspace.cu).
#pragma once

#include <cstdint>

#include "alloclab/core/join/pages.hpp"
#include "alloclab/core/join/partition.hpp"
#include "alloclab/core/join/reference.hpp"
#include "alloclab/core/join/tables.hpp"
#include "cuda_check.cuh"

namespace alloclab::gpu::detail {

inline constexpr unsigned kProbeBlock = 256;  // threads of a build-and-probe block

// What the probe threads count, summed over the grid (zeroed before each join).
struct JoinCounters {
  unsigned long long getpage_cycles;      // clock64 cycles inside GETPAGE
  unsigned long long getpage_calls;       // GETPAGE calls (failed ones included)
  unsigned long long getpage_warp_calls;  // the calls counted once per warp that made them together
  unsigned long long pages_taken;         // pages handed out
  unsigned long long thread_cycles;       // the probe threads' lifetimes in clock64 cycles
  unsigned int out_of_memory;             // set by the first failed GETPAGE: the others stop asking
};

struct ProbeArgs {
  const uint2* r = nullptr;                     // R partitioned: (key, payload)
  const uint2* s = nullptr;                     // S partitioned
  const std::uint32_t* r_offsets = nullptr;     // partitions + 1
  const std::uint32_t* s_offsets = nullptr;     // partitions + 1
  const std::uint32_t* task_offsets = nullptr;  // partitions + 1: first block of each partition
  std::uint32_t partitions = 0;
  unsigned bits = 0;
  unsigned tuples_per_thread = 1;
  unsigned char* arena = nullptr;      // the output pages
  std::uint32_t* last_page = nullptr;  // a probe thread's last page (kNoPage: none)
  JoinCounters* counters = nullptr;
};

// The pages read back: tuples, checksum, pages in the chains and broken chains.
struct OutputTotals {
  join::JoinOutput output;
  std::uint64_t pages = 0;
  std::uint64_t broken = 0;
};

class JoinWorkspace {
 public:
  JoinWorkspace(const join::JoinTables& t, unsigned tuples_per_thread);
  JoinWorkspace(const JoinWorkspace&) = delete;
  JoinWorkspace& operator=(const JoinWorkspace&) = delete;

  // Device bytes the workspace allocates for these tables (for the memory check).
  static std::uint64_t device_bytes(const join::JoinTables& t, unsigned tuples_per_thread);

  // The timed partitioning phase: histograms, scans, scatters of R and S, the task list. Zeroes
  // the counters first (a memset on the stream, so inside the timed region: a few bytes).
  void partition();
  // The build-and-probe grid: an upper bound of the tasks (extra blocks return at once).
  std::uint32_t probe_blocks() const { return probe_blocks_; }
  std::uint64_t probe_threads() const { return std::uint64_t{probe_blocks_} * kProbeBlock; }
  ProbeArgs probe_args(unsigned char* arena) const;
  JoinCounters counters() const;  // copied back
  // Reads every probe thread's chain of pages from `arena` (pages in all).
  OutputTotals read_output(unsigned char* arena, std::uint64_t pages) const;
  unsigned bits() const { return bits_; }

 private:
  join::JoinTables t_;
  unsigned tuples_per_thread_;
  unsigned bits_;
  std::uint32_t partitions_;
  std::uint32_t probe_blocks_;
  DeviceBuffer<uint2> r_in_, s_in_, r_out_, s_out_;
  DeviceBuffer<std::uint32_t> r_hist_, s_hist_, r_offsets_, s_offsets_, cursor_, tasks_,
      task_offsets_, last_page_;
  DeviceBuffer<JoinCounters> counters_;
  DeviceBuffer<unsigned char> scan_temp_;
  std::size_t scan_temp_bytes_ = 0;
};

}  // namespace alloclab::gpu::detail
