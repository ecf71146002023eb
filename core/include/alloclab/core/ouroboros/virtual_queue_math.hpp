// Index arithmetic and static memory of Ouroboros' three queue layouts (Winter et al., ICS'20,
// §4-5): S (a static ring per queue, Alg. 1), VA (virtualized array-hierarchy queue: a static
// ring of Queue-Chunk references, the items on Queue-Chunks, §5.1) and VL (virtualized
// linked-chunk queue: three pointers, §5.2).
#pragma once

#include <cstdint>

#include "alloclab/core/hd.hpp"

namespace alloclab::ouro {

// Items one Queue-Chunk holds: its data region divided by the item width. The chunk's metadata
// (padded to 128 B, §3.2) lies outside the data region, as in the public code, so an 8 KiB
// chunk of 4-byte indices holds 2048.
ALLOCLAB_HD std::uint32_t queue_chunk_items(std::uint32_t chunk_bytes, std::uint32_t item_bytes) {
  return chunk_bytes / item_bytes;
}

// Where virtual position v of a VA queue lives (§5.1): "dividing the virtual position by the
// number of items per QueueChunk modulo the chunk queue size" gives the slot of the chunk
// reference; the remainder is the item within that Queue-Chunk.
struct VirtualSlot {
  std::uint64_t chunk_slot;  // in the static ring of Queue-Chunk references
  std::uint32_t offset;      // item within the Queue-Chunk
};

ALLOCLAB_HD VirtualSlot va_locate(std::uint64_t virtual_position, std::uint32_t items_per_chunk,
                                  std::uint64_t chunk_queue_size) {
  VirtualSlot s;
  s.chunk_slot = (virtual_position / items_per_chunk) % chunk_queue_size;
  s.offset = static_cast<std::uint32_t>(virtual_position % items_per_chunk);
  return s;
}

// The thread that gets offset 0 of a Queue-Chunk allocates and publishes the next one before it
// touches its own item (§5.1; VL does the same, §5.2).
ALLOCLAB_HD bool va_allocates_next_chunk(std::uint64_t virtual_position,
                                         std::uint32_t items_per_chunk) {
  return virtual_position % items_per_chunk == 0;
}

// Items a VA queue can hold at once: every reference slot filled.
ALLOCLAB_HD std::uint64_t va_capacity(std::uint32_t items_per_chunk,
                                      std::uint64_t chunk_queue_size) {
  return std::uint64_t{items_per_chunk} * chunk_queue_size;
}

// ---- Static memory of one queue, in bytes (what exists before any item is queued) ----

// S: the whole ring.
ALLOCLAB_HD std::uint64_t static_bytes_s(std::uint64_t capacity, std::uint32_t item_bytes) {
  return capacity * item_bytes;
}

// VA as the paper counts it (§5.1): one reference per Queue-Chunk the capacity needs; the queue
// alloclab builds has two more (va_reference_count, queue_chunk.hpp). Per reference this replaces a
// whole chunk's worth of ring, so S / VA = chunk_bytes / reference_bytes: 8 KiB / 4 B = 2048, the
// paper's "1/2048", when the references are 4-byte chunk indices (chunks are addressed by
// integer index, §3.2; the public code stores index_t there). 8-byte pointers would give 1/1024.
ALLOCLAB_HD std::uint64_t static_bytes_va(std::uint64_t capacity, std::uint32_t chunk_bytes,
                                          std::uint32_t item_bytes, std::uint32_t reference_bytes) {
  const std::uint64_t items = queue_chunk_items(chunk_bytes, item_bytes);
  return (capacity + items - 1) / items * reference_bytes;
}

// VL: front, back and old (§5.2), independent of the capacity.
ALLOCLAB_HD std::uint64_t static_bytes_vl(std::uint32_t pointer_bytes) {
  return 3 * std::uint64_t{pointer_bytes};
}

// ---- A Queue-Chunk's two fill counters in one 32-bit word (§5.1) ----
// countA (low 16 bits) counts enqueues, countB (high 16 bits) items present: an enqueue adds 1
// to both in one atomic, a dequeue subtracts 1 from countB. The chunk is used up, and goes back
// to the memory manager, when countA = #spots and countB = 0, i.e. when the word equals #spots.
inline constexpr unsigned kQueueChunkCountBits = 16;
inline constexpr std::uint32_t kQueueChunkMaxSpots = (1u << kQueueChunkCountBits) - 1;

ALLOCLAB_HD std::uint32_t queue_chunk_enqueue_delta() {
  return (1u << kQueueChunkCountBits) + 1u;
}
ALLOCLAB_HD std::uint32_t queue_chunk_dequeue_delta() {
  return 0u - (1u << kQueueChunkCountBits);
}
ALLOCLAB_HD std::uint32_t queue_chunk_count_a(std::uint32_t word) {
  return word & kQueueChunkMaxSpots;
}
ALLOCLAB_HD std::uint32_t queue_chunk_count_b(std::uint32_t word) {
  return word >> kQueueChunkCountBits;
}
ALLOCLAB_HD bool queue_chunk_used_up(std::uint32_t word, std::uint32_t spots) {
  return word == spots;
}
// Whether #spots fits countA (an 8 KiB chunk of 4-byte items: 2048, fine; 256 KiB: 65536, not).
ALLOCLAB_HD bool queue_chunk_counters_fit(std::uint32_t spots) {
  return spots <= kQueueChunkMaxSpots;
}

}  // namespace alloclab::ouro
