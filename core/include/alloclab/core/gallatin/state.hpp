// Gallatin's allocator state (McCoy & Pandey, PPoPP'24 §4-5) as plain words, shared by the CPU
// simulator and the GPU: the segment tree, one block tree per size class, the memory table
// (per segment: its class, its ring queue of blocks with head, tail and an available count; per
// block: the malloc and free counters) and the per-SM block buffers. The operations are in
// allocator.hpp; the host side (storage, the structural check) in state_check.hpp.
#pragma once

#include <cstdint>

#include "alloclab/core/gallatin/layout.hpp"
#include "alloclab/core/gallatin/veb_tree.hpp"
#include "alloclab/core/hd.hpp"

namespace alloclab::gallatin {

// The available count of a segment that is not formatted (free, or closed when its blocks all
// came back): -2^30 as int32, so the gate admits nobody, and the decrements of gates in flight
// (each gives its unit back) keep it negative.
inline constexpr std::uint32_t kClosed = 0xc0000000u;
// The malloc counter keeps its block's class in bits 24.. (the public code's stale-block check:
// a team that read a buffer slot before its block was given back and re-formatted for another
// class sees the class change) and the slices handed out in bits 0..23.
inline constexpr unsigned kClassShift = 24;
inline constexpr std::uint32_t kCountMask = (1u << kClassShift) - 1;
// A segment the application holds (not wholly free at the start): in no tree, never used.
inline constexpr std::uint32_t kAppSegment = 0xfffffffeu;
inline constexpr std::uint64_t kNoBlock = ~std::uint64_t{0};
// The malloc counter of a block in its segment's ring (not handed out): a class no team asks
// for, so a team that bumps it late (it read a slot before the block went back) takes nothing.
inline constexpr std::uint32_t kIdleClass = 0xff;
inline constexpr std::uint32_t kIdle = kIdleClass << kClassShift;

// A large allocation (> one block of the largest class, §4.1 and §5) of m contiguous segments:
// its first segment's class word is kSizeClasses + m (the paper's "numBlockTrees +
// numSegments"), the other m - 1 segments' kLargeTail. Such segments are in no tree.
inline constexpr std::uint32_t kLargeTail = 0xfffffffdu;
ALLOCLAB_HD bool is_large_head(std::uint32_t tree_id) {
  return tree_id > kSizeClasses && tree_id < kLargeTail;
}

struct State {
  Geometry g;
  VebTree segment_tree;                 // 1 = the segment is free (§4.1)
  VebTree block_trees[kSizeClasses];    // 1 = the segment has blocks of this class to hand out
  std::uint32_t* tree_id = nullptr;     // per segment: its class, or kNoTree
  std::uint32_t* available = nullptr;   // per segment: blocks in its ring (int32), or kClosed
  std::uint32_t* head = nullptr;        // per segment: dequeue position
  std::uint32_t* tail = nullptr;        // per segment: enqueue position
  std::uint32_t* ring = nullptr;        // per segment, max_blocks slots: block + 1, 0 = empty
  std::uint32_t* malloc_ctr = nullptr;  // per block (segment * max_blocks + block)
  std::uint32_t* free_ctr = nullptr;    // per block
  std::uint32_t* buffer = nullptr;      // block buffers: global block id + 1, 0 = empty
  // One word: the get_segment calls in flight (claiming or formatting a segment). A get_block
  // that finds no segment free while this is positive waits for the segment being formatted
  // instead of reporting out of memory (allocator.hpp, get_block).
  std::uint32_t* formatting = nullptr;
  std::uint32_t slot_offset[kSizeClasses] = {};  // first slot of each class in `buffer`
  std::uint32_t slots[kSizeClasses] = {};        // slots of each class
  std::uint32_t sms = 0;                         // the SM count the buffers are sized for
  // The paper (§4.2, §5) and the public code (gallatin.cuh, free_block; see
  // studies/gallatin/shared-code.md) give a segment whose blocks have all come back to the
  // segment tree. true: theirs. false: a test variant of alloclab's own that keeps it formatted
  // for its class (only the core tests set it).
  bool return_segments = true;
};

// What Gallatin's operations did (summed per request by the caller). vEB operations are counted
// apart in `veb`; `atomics` and `loads` are those on the memory table and the buffers.
struct Counts {
  std::uint32_t atomics = 0;
  std::uint32_t loads = 0;
  std::uint32_t init_writes = 0;  // set-up writes: a segment's ring and counters, a block's
  VebCounts veb;
  std::uint32_t block_refills = 0;       // blocks taken from a segment (get_block)
  std::uint32_t segments_formatted = 0;  // segments taken from the segment tree (get_segment)
  std::uint32_t segments_returned = 0;   // segments given back to the segment tree
  std::uint32_t segments_claimed = 0;    // segments taken by large allocations (large.hpp)
  std::uint32_t blocks_returned = 0;     // blocks given back to their segment's ring
  std::uint32_t restarts = 0;  // lost races: a gate CAS, a stale tree or block, a lost slot
  std::uint32_t stuck = 0;     // waits that reached their bound (a defect if ever non-zero)
  std::uint32_t attempts = 0;  // iterations of Alg. 3's loop (malloc_team)
  ALLOCLAB_HD void add(const Counts& o) {
    attempts += o.attempts;
    atomics += o.atomics;
    loads += o.loads;
    init_writes += o.init_writes;
    veb.add(o.veb);
    block_refills += o.block_refills;
    segments_formatted += o.segments_formatted;
    segments_returned += o.segments_returned;
    segments_claimed += o.segments_claimed;
    blocks_returned += o.blocks_returned;
    restarts += o.restarts;
    stuck += o.stuck;
  }
  // Every atomic read-modify-write, the vEB trees' included.
  ALLOCLAB_HD std::uint32_t all_atomics() const { return atomics + veb.atomics; }
};

}  // namespace alloclab::gallatin
