// Ouroboros' memory layout (Winter et al., ICS'20, §3.1-3.2): the pool is cut into chunks of
// 8 KiB addressed by index; a chunk of size class k holds pages of 16 << k bytes (k = 0..9, 16 B
// to 8 KiB), fixed for the chunk's life. alloclab measures the pool in units of the smallest page
// (16 B), so a chunk is 512 units and a page of class k is 1 << k units; a page index is
// (chunk, page within the chunk) packed into 32 bits as chunk * pages_per_chunk(k) + page.
#pragma once

#include <cstdint>

#include "alloclab/core/hd.hpp"

namespace alloclab::ouro {

inline constexpr std::uint32_t kChunkBytes = 8192;  // §3.2: the standard chunk, the largest page
inline constexpr std::uint32_t kSmallestPageBytes = 16;  // after 9 halvings
inline constexpr unsigned kPageClasses = 10;             // 16, 32, ..., 8192 B: one queue each
inline constexpr std::uint32_t kUnitsPerChunk = kChunkBytes / kSmallestPageBytes;  // 512

// Pages of class k on one chunk: 512, 256, ..., 1.
ALLOCLAB_HD std::uint32_t pages_per_chunk(unsigned page_class) {
  return kUnitsPerChunk >> page_class;
}
// Units (16 B) one page of class k spans.
ALLOCLAB_HD std::uint32_t units_per_page(unsigned page_class) {
  return std::uint32_t{1} << page_class;
}
ALLOCLAB_HD std::uint64_t page_bytes_of_class(unsigned page_class) {
  return std::uint64_t{kSmallestPageBytes} << page_class;
}

// The class that serves a request of `units` units (1 .. 512): the smallest k with 2^k >= units.
// Returns kPageClasses for 0 or more than a chunk (the caller's input check refuses those).
ALLOCLAB_HD unsigned page_class_of_units(std::uint64_t units) {
  if (units == 0 || units > kUnitsPerChunk) return kPageClasses;
  unsigned k = 0;
  while ((std::uint64_t{1} << k) < units) ++k;
  return k;
}
ALLOCLAB_HD unsigned page_class_of_bytes(std::uint64_t bytes) {
  return page_class_of_units((bytes + kSmallestPageBytes - 1) / kSmallestPageBytes);
}

ALLOCLAB_HD std::uint32_t page_index(std::uint32_t chunk, std::uint32_t page, unsigned page_class) {
  return chunk * pages_per_chunk(page_class) + page;
}
// The first unit of the page with index `index` of class k: chunk * 512 + page * 2^k.
ALLOCLAB_HD std::uint64_t unit_of_page_index(std::uint32_t index, unsigned page_class) {
  const std::uint32_t per = pages_per_chunk(page_class);
  return std::uint64_t{index / per} * kUnitsPerChunk +
         std::uint64_t{index % per} * units_per_page(page_class);
}
// The inverse, for a unit that starts a page of class k (unit_starts_page).
ALLOCLAB_HD std::uint32_t page_index_of_unit(std::uint64_t unit, unsigned page_class) {
  const auto chunk = static_cast<std::uint32_t>(unit / kUnitsPerChunk);
  const auto page = static_cast<std::uint32_t>((unit % kUnitsPerChunk) >> page_class);
  return page_index(chunk, page, page_class);
}
ALLOCLAB_HD bool unit_starts_page(std::uint64_t unit, unsigned page_class) {
  return (unit % kUnitsPerChunk) % units_per_page(page_class) == 0;
}

// Largest page index + 1 of class k over `chunks` chunks must stay below the deletion marker
// (0xFFFFFFFF): chunks * 512 < 2^32, i.e. pools under 32 TiB.
ALLOCLAB_HD std::uint64_t chunk_count_of_units(std::uint64_t units) {
  return units / kUnitsPerChunk;
}

}  // namespace alloclab::ouro
