// The GPU hash join's radix partitioning and per-partition hash table (issue 17), shared by the
// device kernels (gpu/src/join_*.cu) and the host tests: a tuple's partition is the low `bits`
// bits of its key; within a partition every key has those bits, so the hash table slot is taken
// from the key's high part. R's keys are exactly 0 .. build - 1 (tables.hpp), so R's partitions
// hold floor or ceil(build / 2^bits) tuples each: the bits are chosen so that the largest fits a
// block's shared-memory table at half load.
#pragma once

#include <cstdint>

#include "alloclab/core/hd.hpp"

namespace alloclab::join {

// Largest R partition a probe block's shared table holds (kHashSlots slots of key and payload,
// 32 KiB); the table is at most half full, so linear probing stays short.
inline constexpr std::uint64_t kMaxBuildPerPartition = 2048;
inline constexpr unsigned kHashSlotBits = 12;
inline constexpr std::uint32_t kHashSlots = 1u << kHashSlotBits;  // 2 * kMaxBuildPerPartition
// A partition's counters live in shared memory during histogram and scatter (2^13 x 4 B = 32 KiB).
inline constexpr unsigned kMaxPartitionBits = 13;
// The largest build table the GPU join takes: 2^13 partitions of 2048 tuples (2^24).
inline constexpr std::uint64_t kMaxGpuJoinBuild = kMaxBuildPerPartition << kMaxPartitionBits;
inline constexpr std::uint32_t kEmptyKey = 0xffffffffu;  // a free slot (keys are < 2^24 here)

// The fewest radix bits b with ceil(build / 2^b) <= kMaxBuildPerPartition (build <=
// kMaxGpuJoinBuild).
inline unsigned partition_bits(std::uint64_t build) {
  unsigned bits = 0;
  while (((build + (std::uint64_t{1} << bits) - 1) >> bits) > kMaxBuildPerPartition) ++bits;
  return bits;
}

ALLOCLAB_HD std::uint32_t partition_of(std::uint32_t key, unsigned bits) {
  return key & ((1u << bits) - 1u);
}

// First slot of a key in its partition's table: Fibonacci hashing of the key's high part (the
// low bits are the partition's, the same for every key of it).
ALLOCLAB_HD std::uint32_t hash_slot(std::uint32_t key, unsigned bits) {
  return (static_cast<std::uint32_t>(key >> bits) * 0x9e3779b1u) >> (32 - kHashSlotBits);
}

}  // namespace alloclab::join
