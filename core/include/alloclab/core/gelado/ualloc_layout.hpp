// UAlloc's memory layout (Gelado & Garland, PPoPP'19 §4.2, Fig. 3): pure arithmetic shared by
// the CPU simulator and the GPU (studies/gelado-garland/ualloc.md, "UAlloc").
//
// A chunk comes from TBuddy (so it is aligned to its size) and is cut into 4 KB bins. A bin
// serves one size once initialised; its first 128 B are its header (the bitmap of up to 512
// slots and the words below), so no UAlloc address is ever 4 KB-aligned, which is how free()
// tells UAlloc's memory from TBuddy's (§4). Bins 0 and 1 are special: bin 0 begins with the chunk
// header, and "the bottom 3,968 bytes of these two" bins are 62 tails of 128 B, tail t appended
// to regular bin t + 2 and used only by sizes <= 128 B, so such a bin holds 4 KB of objects.
//
// The chunk's size is the paper's inconsistency: §4.2 says 512 KB chunks (128 bins) but also a
// chunk header tracking "the 64 bins in the chunk" with 2 special bins + 62 tails = 64 (256 KB).
// Both are a parameter here (bins per chunk, 64 or 128). alloclab's default is 64: three numbers
// of the text agree on it (the 64-bin bitmap, 2 + 62 = 64, 3968 = 31 x 128 per special bin),
// one (512 KB) does not. Under the 128-bin reading the same two special bins give the same 62
// tails; regular bins 64..127 have none.
//
// Sizes are rounded up to a power of two (§4); UAlloc serves 8 B .. 1 KB (classes 0..7). A 2 KB
// object would fit only once in a bin (3,968 B usable), which is why malloc sends 2 KB to TBuddy
// as 4 KB (§5.3).
#pragma once

#include <cstdint>

#include "alloclab/core/hd.hpp"

namespace alloclab::gelado {

inline constexpr std::uint32_t kUAllocBinBytes = 4096;
inline constexpr std::uint32_t kUAllocHeaderBytes = 128;
inline constexpr std::uint32_t kUAllocBodyBytes = kUAllocBinBytes - kUAllocHeaderBytes;  // 3968
inline constexpr std::uint32_t kUAllocTailBytes = 128;
inline constexpr std::uint32_t kUAllocSpecialBins = 2;
inline constexpr std::uint32_t kUAllocTails = 62;  // §4.2
inline constexpr std::uint32_t kUAllocTailsPerSpecialBin =
    kUAllocBodyBytes / kUAllocTailBytes;               // 31
inline constexpr std::uint32_t kUAllocMaxSlots = 512;  // the bitmap's bits
inline constexpr std::uint32_t kUAllocBitmapWords = kUAllocMaxSlots / 64;
inline constexpr std::uint32_t kUAllocMinBytes = 8;
inline constexpr std::uint32_t kUAllocClasses = 8;  // 8 B .. 1 KB
inline constexpr std::uint32_t kUAllocMaxBytes = kUAllocMinBytes << (kUAllocClasses - 1);
inline constexpr std::uint32_t kUAllocDefaultChunkBins = 64;
inline constexpr std::uint32_t kNoBin = 0xffffffffu;  // an empty list, a missing link

static_assert(kUAllocSpecialBins * kUAllocTailsPerSpecialBin == kUAllocTails);

// The bytes of size class k.
ALLOCLAB_HD std::uint32_t ualloc_class_bytes(std::uint32_t k) {
  return kUAllocMinBytes << k;
}
// The class of a request of `bytes` (1 .. kUAllocMaxBytes): the power of two >= bytes, >= 8 B.
ALLOCLAB_HD std::uint32_t ualloc_class_of(std::uint32_t bytes) {
  std::uint32_t k = 0;
  while (ualloc_class_bytes(k) < bytes) ++k;
  return k;
}
// Does regular bin b (2 <= b < bins per chunk) have a tail? Tails 0..61 go to bins 2..63.
ALLOCLAB_HD bool ualloc_has_tail(std::uint32_t bin) {
  return bin >= kUAllocSpecialBins && bin - kUAllocSpecialBins < kUAllocTails;
}
// Slots of a bin of class k in the bin's 3,968 B body.
ALLOCLAB_HD std::uint32_t ualloc_body_slots(std::uint32_t k) {
  return kUAllocBodyBytes / ualloc_class_bytes(k);
}
// Slots of bin b of class k: the body's, plus the tail's for sizes <= 128 B where the bin has one.
ALLOCLAB_HD std::uint32_t ualloc_slots(std::uint32_t k, std::uint32_t bin) {
  const std::uint32_t s = ualloc_class_bytes(k);
  const std::uint32_t tail =
      (s <= kUAllocTailBytes && ualloc_has_tail(bin)) ? kUAllocTailBytes / s : 0;
  return ualloc_body_slots(k) + tail;
}
// The semaphore batch of class k: one new bin's slots (a bin with a tail). 512 for 8 B, the
// paper's "batch size we use in UAlloc" (§5.1); a grower's batch is the bin it initialises.
ALLOCLAB_HD std::uint32_t ualloc_batch(std::uint32_t k) {
  return ualloc_slots(k, kUAllocSpecialBins);
}

// The most units one warp-aggregated wait may take for class k (UAllocAlloc's `units`): a
// grower keeps them all out of the bin it initialises, whose slots may be the body's alone (a bin
// without a tail), and a wait asks for at most its batch; and at most a warp's 32 lanes.
ALLOCLAB_HD std::uint32_t ualloc_most_shared_units(std::uint32_t k) {
  const std::uint32_t body = ualloc_body_slots(k);
  return body < 32 ? body : 32;
}

// Byte offset, from the chunk's start, of slot j of bin b of class k: the body first, then the
// tail (tail t = b - 2 sits in special bin t / 31, after its 128 B header, at (t % 31) x 128).
ALLOCLAB_HD std::uint32_t ualloc_slot_offset(std::uint32_t k, std::uint32_t bin, std::uint32_t j) {
  const std::uint32_t s = ualloc_class_bytes(k);
  const std::uint32_t body = ualloc_body_slots(k);
  if (j < body) return bin * kUAllocBinBytes + kUAllocHeaderBytes + j * s;
  const std::uint32_t t = bin - kUAllocSpecialBins;
  return (t / kUAllocTailsPerSpecialBin) * kUAllocBinBytes + kUAllocHeaderBytes +
         (t % kUAllocTailsPerSpecialBin) * kUAllocTailBytes + (j - body) * s;
}

// Where an offset inside a chunk lies: the bin whose slot it is (its class is read from the
// bin's header) and, for that class, the slot. `in_tail` says it is in a special bin's tails.
struct UAllocPlace {
  std::uint32_t bin = 0;
  bool in_tail = false;
  std::uint32_t rest = 0;  // bytes after the body's start (or the tail's start)
};
ALLOCLAB_HD UAllocPlace ualloc_place(std::uint32_t offset) {
  UAllocPlace p;
  const std::uint32_t page = offset / kUAllocBinBytes;
  const std::uint32_t in_bin = offset % kUAllocBinBytes - kUAllocHeaderBytes;  // caller: >= 128
  if (page >= kUAllocSpecialBins) {
    p.bin = page;
    p.rest = in_bin;
  } else {
    p.in_tail = true;
    p.bin = kUAllocSpecialBins + page * kUAllocTailsPerSpecialBin + in_bin / kUAllocTailBytes;
    p.rest = in_bin % kUAllocTailBytes;
  }
  return p;
}
// The slot of a place in a bin of class k, or kUAllocMaxSlots when the offset starts no slot.
ALLOCLAB_HD std::uint32_t ualloc_slot_of(const UAllocPlace& p, std::uint32_t k) {
  const std::uint32_t s = ualloc_class_bytes(k);
  if (p.rest % s != 0) return kUAllocMaxSlots;
  const std::uint32_t j = p.in_tail ? ualloc_body_slots(k) + p.rest / s : p.rest / s;
  if (p.in_tail ? !(s <= kUAllocTailBytes && ualloc_has_tail(p.bin)) : j >= ualloc_body_slots(k))
    return kUAllocMaxSlots;
  return j;
}

// Word w of a fresh bin's bitmap: bits at and past `slots` set (never allocatable: "the allocator
// initializes the bitmap to allow allocating only the number of available blocks").
ALLOCLAB_HD std::uint64_t ualloc_fresh_bitmap_word(std::uint32_t slots, std::uint32_t w) {
  const std::uint32_t lo = w * 64;
  if (slots <= lo) return ~std::uint64_t{0};
  if (slots >= lo + 64) return 0;
  return ~std::uint64_t{0} << (slots - lo);
}

// A bin's free counter (one 32-bit word of its header): the slots free for new allocations in
// bits 0..15, and two flags that the list's writers and the frees agree on:
//   L (listed): the bin is on its arena's free list for its class (set and cleared under the
//     list's mutex);
//   P (pending): a free found the count 0 and the bin off the list, and will link it (set by
//     that free's CAS together with its increment, cleared when it links the bin).
// Takers decrement only by CAS, so the count never goes below zero ("decrement a bin free
// counter without turning it negative", §4.2). A bin is retired (given back to its chunk) only
// from (all slots free, L, not P): a pending link would otherwise put a retired bin on a list.
inline constexpr std::uint32_t kBinCountMask = 0xffffu;
inline constexpr std::uint32_t kBinListed = 1u << 16;
inline constexpr std::uint32_t kBinPending = 1u << 17;
ALLOCLAB_HD std::uint32_t bin_count(std::uint32_t word) {
  return word & kBinCountMask;
}

}  // namespace alloclab::gelado
