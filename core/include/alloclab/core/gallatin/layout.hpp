// Gallatin's memory layout (McCoy & Pandey, PPoPP'24 §4-5): the pool in segments, a segment
// formatted into blocks of one size class, a block of `slices_per_block` slices. Shared by the
// CPU simulator and the GPU; offsets are bytes from the pool's start.
//
// Size classes k = 0 .. 8: slices of 16 B << k (16 B ... 4096 B), blocks of slices_per_block
// slices (the paper's 4096: 64 KB ... 16 MB), so a segment of the default 16 MB holds 256 >> k
// blocks of class k (256 for 16 B, one for 4096 B). The paper's "a segment can be split into 1 to
// 256 blocks" holds for these blocks; its "blocks range in size from 4 KB to 16 MB" does not
// (16 MB / 4 KB = 4096): studies/gallatin/README.md, errata.
#pragma once

#include <cstdint>
#include <string>

#include "alloclab/core/hd.hpp"

namespace alloclab::gallatin {

inline constexpr unsigned kSizeClasses = 9;
inline constexpr std::uint64_t kMinSliceBytes = 16;
inline constexpr std::uint64_t kMaxSliceBytes = kMinSliceBytes << (kSizeClasses - 1);  // 4096
inline constexpr std::uint64_t kDefaultSegmentBytes = std::uint64_t{16} << 20;
inline constexpr std::uint32_t kDefaultSlicesPerBlock = 4096;
inline constexpr std::uint32_t kNoTree = 0xffffffffu;  // a segment in the segment tree

struct Geometry {
  std::uint64_t segment_bytes = kDefaultSegmentBytes;
  std::uint32_t slices_per_block = kDefaultSlicesPerBlock;
  std::uint32_t segments = 0;  // the pool is exactly this many segments

  ALLOCLAB_HD std::uint64_t slice_bytes(unsigned k) const { return kMinSliceBytes << k; }
  ALLOCLAB_HD std::uint64_t block_bytes(unsigned k) const {
    return slice_bytes(k) * slices_per_block;
  }
  ALLOCLAB_HD std::uint32_t blocks_per_segment(unsigned k) const {
    return static_cast<std::uint32_t>(segment_bytes / block_bytes(k));
  }
  // Block slots per segment in the memory table (the smallest class's count).
  ALLOCLAB_HD std::uint32_t max_blocks() const { return blocks_per_segment(0); }
  ALLOCLAB_HD std::uint64_t pool_bytes() const { return segment_bytes * segments; }
  // Global block id (segment, block within it) and its first byte.
  ALLOCLAB_HD std::uint64_t block_id(std::uint32_t segment, std::uint32_t block) const {
    return std::uint64_t{segment} * max_blocks() + block;
  }
  ALLOCLAB_HD std::uint64_t block_offset(std::uint64_t id, unsigned k) const {
    return (id / max_blocks()) * segment_bytes + (id % max_blocks()) * block_bytes(k);
  }
};

// The size class of a request of `bytes` (1 .. 4096): the smallest 16 B << k >= bytes.
ALLOCLAB_HD unsigned size_class_of(std::uint64_t bytes) {
  unsigned k = 0;
  while ((kMinSliceBytes << k) < bytes) ++k;
  return k;
}

// "" when the geometry is usable, else one line: segments and slice counts are powers of two,
// the largest class's block fits one segment, and the pool has at least one segment.
inline std::string geometry_error(const Geometry& g) {
  auto pow2 = [](std::uint64_t x) { return x != 0 && (x & (x - 1)) == 0; };
  if (!pow2(g.segment_bytes)) return "the segment size must be a power of two bytes";
  if (!pow2(g.slices_per_block)) return "the slices per block must be a power of two";
  if (g.block_bytes(kSizeClasses - 1) > g.segment_bytes)
    return "a block of 4096-byte slices (" + std::to_string(g.block_bytes(kSizeClasses - 1)) +
           " B) must fit one segment (" + std::to_string(g.segment_bytes) + " B)";
  if (g.segments == 0) return "the pool must hold at least one segment";
  return {};
}

// Block-buffer slots of class k (§4.3): `sms` for the smallest class, half as many for each
// larger one, at least 4.
ALLOCLAB_HD std::uint32_t buffer_slots(std::uint32_t sms, unsigned k) {
  const std::uint32_t s = sms >> k;
  return s < 4 ? 4 : s;
}

}  // namespace alloclab::gallatin
