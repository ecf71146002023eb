// The words of a chunk of Ouroboros variant C (Winter et al., ICS'20, §4.2, Alg. 5) and of the
// entries of its chunk queues. Pure functions of words; the operations are in chunk_queue.hpp.
//
// A chunk of variant C tracks its pages with a bit mask (bit set = page free) and a count of free
// pages. alloclab adds two things the paper's chunk lacks, each the answer to a race the printed
// algorithm leaves open (studies/ouroboros/variant-c.md, "Variant C: decisions"):
//  * an epoch beside the count, in the same 64-bit word, advanced when an emptied chunk is
//    flashed back to the chunk-reuse queue. A thread that read a queue entry before the chunk was
//    flashed and retyped finds a different epoch in the value its atomic returns, and gives the
//    page back instead of taking a page of another size class;
//  * a flags word (in the queue, retired), so that a chunk is in its class's queue at most once
//    and exactly one thread hands a flashed chunk to the reuse queue.
// Queue entries carry the chunk, the low bits of its epoch and the low bits of their own queue
// position, so that a reader can tell an entry written for this position from one left over
// from the previous lap of the ring (the thread that removes it may not have done so yet).
#pragma once

#include <cstdint>

#include "alloclab/core/bit_tricks.hpp"
#include "alloclab/core/hd.hpp"
#include "alloclab/core/ouroboros/layout.hpp"

namespace alloclab::ouro {

// ---- The chunk's state word: epoch (bits 32..63) and free pages + bias (bits 0..31) ----
// Alg. 5 takes a page with atomicSub before it looks, so the count dips below zero while
// threads undo their misses; the bias keeps the dips from borrowing from the epoch.
inline constexpr std::int64_t kChunkCountBias = std::int64_t{1} << 30;

ALLOCLAB_HD std::uint64_t chunk_state(std::uint32_t epoch, std::int64_t free_pages) {
  return (std::uint64_t{epoch} << 32) | static_cast<std::uint32_t>(free_pages + kChunkCountBias);
}
ALLOCLAB_HD std::int64_t state_free(std::uint64_t state) {
  return static_cast<std::int64_t>(state & 0xFFFF'FFFFu) - kChunkCountBias;
}
ALLOCLAB_HD std::uint32_t state_epoch(std::uint64_t state) {
  return static_cast<std::uint32_t>(state >> 32);
}
// One page taken (Alg. 5 l.2) or given back (l.3 and a free), as one atomic add on the word.
inline constexpr std::uint64_t kStateTakeOne = ~std::uint64_t{0};  // -1
inline constexpr std::uint64_t kStateGiveOne = 1;

// ---- Flags: bits 0..1 below, bits 16..31 the low bits of the epoch they belong to ----
// A thread that acts on a chunk after it was flashed and retyped (a remover or publisher whose
// entry or count read is of the chunk's earlier life) finds another epoch there and leaves the
// flags alone.
inline constexpr std::uint32_t kChunkInQueue = 1;  // an entry for it is in its class's queue
inline constexpr std::uint32_t kChunkRetired = 2;  // flashed: waits to be handed to reuse
ALLOCLAB_HD std::uint32_t flags_of_epoch(std::uint32_t epoch) {
  return epoch << 16;
}
ALLOCLAB_HD bool flags_epoch_is(std::uint32_t flags, std::uint32_t epoch) {
  return (flags >> 16) == (epoch & 0xFFFFu);
}

// Per chunk; the caller places an array of them (host or device memory). 88 bytes.
struct ChunkMeta {
  std::uint64_t state = static_cast<std::uint64_t>(kChunkCountBias);  // epoch 0, no free page
  std::uint32_t flags = 0;                                            // see above
  std::uint32_t unused = 0;
  std::uint64_t position = 0;  // 1 + the queue position of its entry once written; 0: none (a
                               // hint for a flasher: it acts only on the exact entry there)
  std::uint64_t bits[kUnitsPerChunk / 64] = {};  // page p free <=> bit p % 64 of word p / 64
};

// Mask words a chunk of class k uses, and the value of word w when every page is free.
ALLOCLAB_HD unsigned mask_words(unsigned page_class) {
  const std::uint32_t pages = pages_per_chunk(page_class);
  return pages >= 64 ? pages / 64 : 1;
}
ALLOCLAB_HD std::uint64_t full_mask_word(unsigned page_class) {
  const std::uint32_t pages = pages_per_chunk(page_class);
  return pages >= 64 ? ~std::uint64_t{0} : bits::low_mask(pages);
}

// A set bit of `mask` (non-zero) chosen from `rotation` on: lanes that start at different bits
// spread over the word instead of all taking its lowest bit (the public code rotates by thread
// index too).
ALLOCLAB_HD unsigned pick_set_bit(std::uint64_t mask, unsigned rotation) {
  const unsigned r = rotation & 63u;
  const std::uint64_t rotated = r == 0 ? mask : (mask >> r) | (mask << (64 - r));
  return (bits::count_trailing_zeros(rotated) + r) & 63u;
}

// ---- Queue entries: chunk (bits 0..22), epoch (23..38), position tag (39..63) ----
// Pools under 2^32 units have at most 2^23 - 1 chunks (ids below the hole's); a ring has at most
// 2^24 slots (twice the chunks, rounded up to a power of two), so the tag of a position differs
// from that of the position one lap earlier.
inline constexpr std::uint64_t kEmptyEntry = ~std::uint64_t{0};
inline constexpr unsigned kEntryChunkBits = 23;
inline constexpr unsigned kEntryEpochBits = 16;
inline constexpr unsigned kEntryTagBits = 25;
inline constexpr std::uint64_t kEntryChunkMask = (std::uint64_t{1} << kEntryChunkBits) - 1;
inline constexpr std::uint64_t kEntryEpochMask = (std::uint64_t{1} << kEntryEpochBits) - 1;
inline constexpr std::uint64_t kEntryTagMask = (std::uint64_t{1} << kEntryTagBits) - 1;

ALLOCLAB_HD std::uint64_t make_entry(std::uint32_t chunk, std::uint32_t epoch,
                                     std::uint64_t position) {
  return (std::uint64_t{chunk} & kEntryChunkMask) |
         ((std::uint64_t{epoch} & kEntryEpochMask) << kEntryChunkBits) |
         ((position & kEntryTagMask) << (kEntryChunkBits + kEntryEpochBits));
}
// A hole: what a flasher leaves where it took its chunk's entry out of the middle of a queue
// (the chunk id no pool reaches); the thread that finds it at front removes it.
inline constexpr std::uint32_t kHoleChunk = static_cast<std::uint32_t>(kEntryChunkMask);
ALLOCLAB_HD std::uint64_t make_hole(std::uint64_t position) {
  return make_entry(kHoleChunk, 0, position);
}
ALLOCLAB_HD std::uint32_t entry_chunk(std::uint64_t e) {
  return static_cast<std::uint32_t>(e & kEntryChunkMask);
}
ALLOCLAB_HD bool entry_epoch_is(std::uint64_t e, std::uint32_t epoch) {
  return ((e >> kEntryChunkBits) & kEntryEpochMask) == (std::uint64_t{epoch} & kEntryEpochMask);
}
ALLOCLAB_HD bool entry_is_hole(std::uint64_t e) {
  return (e & kEntryChunkMask) == kHoleChunk;
}
// Whether slot content `e` is the entry (or hole) written for virtual position `position`.
ALLOCLAB_HD bool entry_is_for(std::uint64_t e, std::uint64_t position) {
  return e != kEmptyEntry &&
         (e >> (kEntryChunkBits + kEntryEpochBits)) == (position & kEntryTagMask);
}

}  // namespace alloclab::ouro
