// Gallatin's requests above the largest slice (4096 B), shared by the CPU simulator and the GPU:
// how a size is routed and the three paths the public code has for them (studies/gallatin/,
// "Requests above 4096 B"). The paper names only the segment path (§4.1: "When an allocation
// requires more than 16 MB or one segment of memory, it is pulled from the end of this
// contiguous region in a first-fit strategy using the predecessor search"; Alg. 1 and 4); the
// others are read from the public code (saltsystemslab/gallatin, `malloc_offset`).
//
// Routing (route_of), with the default geometry (16 MiB segments, 4096 slices per block):
//  * <= 4096 B: one slice of the class 16 B << k >= size (allocator.hpp, warp teams).
//  * 4 KiB < size, next power of two below the smallest block (64 KiB): 2^j contiguous 4096 B
//    slices of one class-8 block (2, 4 or 8: 8 KiB, 16 KiB, 32 KiB), taken from the class-8
//    buffer slot with ONE atomicAdd(2^j) on the block's malloc counter, as the public code's
//    multi-size slice path. A request that would straddle the block's end takes nothing there:
//    the slices it passed count as freed and the slot is swapped for a new block.
//  * up to one block of the largest class (16 MiB): a whole block of the smallest class whose
//    block holds it (64 KiB ... 16 MiB: 32 KiB < size <= 64 KiB is a 64 KiB block, since 16
//    slices would fill one anyway), taken with get_block (Alg. 2) and its malloc counter filled
//    with one atomicAdd(4096).
//  * larger: ceil(size / 16 MiB) contiguous segments from the back of the segment tree: the
//    highest run of free segments found with predecessor searches (first fit from the end),
//    claimed one segment at a time from its top (a lost claim gives back what it took and
//    searches again); the first segment's class word says how many (kSizeClasses + m).
//
// Frees. Every slice or block allocation is freed by ONE increment of its block's free counter
// (Alg. 4 as printed: `myBlock->free(...)`), whatever its size: a request of 2^j slices counts
// 2^j - 1 of them as freed when it is served, a whole block 4095 (the public code's
// `block_correct_frees`), so free(ptr) needs no size. A free whose segment's class word is a
// large head gives its segments back to the segment tree (Alg. 4's `segmentTree.insert(segment,
// numSegments)`).
//
// One request per call (one thread each on the GPU, as the public code: only slices of <= 4096 B
// form warp teams). Every loop is bounded; out of memory returns kNoBlock after a bounded search
// (the segment search looks at each segment at most once per attempt).
#pragma once

#include <cstdint>

#include "alloclab/core/gallatin/allocator.hpp"
#include "alloclab/core/gallatin/layout.hpp"
#include "alloclab/core/gallatin/state.hpp"
#include "alloclab/core/gallatin/veb_tree.hpp"
#include "alloclab/core/hd.hpp"

namespace alloclab::gallatin {

enum class RouteKind : std::uint8_t { slice, slices, block, segments };
struct Route {
  RouteKind kind = RouteKind::slice;
  unsigned k = 0;           // the size class (slice, slices: 8, block)
  std::uint32_t count = 1;  // slices (slices), segments (segments), else 1
};

inline constexpr unsigned kLargestClass = kSizeClasses - 1;

// Where a request of `bytes` (>= 1) goes.
ALLOCLAB_HD Route route_of(std::uint64_t bytes, const Geometry& g) {
  if (bytes <= kMaxSliceBytes) return {RouteKind::slice, size_class_of(bytes), 1};
  std::uint64_t p = kMaxSliceBytes;
  while (p < bytes) p <<= 1;
  if (p < g.block_bytes(0))
    return {RouteKind::slices, kLargestClass, static_cast<std::uint32_t>(p / kMaxSliceBytes)};
  if (bytes <= g.block_bytes(kLargestClass)) {
    unsigned k = 0;
    while (g.block_bytes(k) < bytes) ++k;
    return {RouteKind::block, k, 1};
  }
  return {RouteKind::segments, 0,
          static_cast<std::uint32_t>((bytes + g.segment_bytes - 1) / g.segment_bytes)};
}

// The class whose buffer slots a small pool pre-boots for a run whose largest request takes
// route r (Ops::preboot_pool): a slice's class, class 8 for 2^j slices (their slot's), and none
// (kSizeClasses) for whole blocks and segments, which use no slot: pre-booting class 8 there
// would hold a segment per slot that the run's requests can never use.
ALLOCLAB_HD unsigned preboot_class(const Route& r) {
  return r.kind == RouteKind::slice || r.kind == RouteKind::slices ? r.k : kSizeClasses;
}

// The bytes a route takes from the pool.
ALLOCLAB_HD std::uint64_t route_bytes(const Route& r, const Geometry& g) {
  switch (r.kind) {
    case RouteKind::slice:
      return g.slice_bytes(r.k);
    case RouteKind::slices:
      return std::uint64_t{r.count} * g.slice_bytes(r.k);
    case RouteKind::block:
      return g.block_bytes(r.k);
    default:
      return std::uint64_t{r.count} * g.segment_bytes;
  }
}

template <class Atomics>
struct Large {
  using O = Ops<Atomics>;
  using V = Veb<Atomics>;

  // The byte offset of a request routed `r` (not a slice: those go through Ops::malloc_team),
  // `slot` its class-8 buffer slot (the slices route), or kNoBlock.
  ALLOCLAB_HD static std::uint64_t malloc(const State& st, const Route& r, std::uint32_t slot,
                                          Counts& c) {
    if (r.kind == RouteKind::slices) return malloc_slices(st, slot, r.count, c);
    if (r.kind == RouteKind::block) return malloc_block(st, r.k, c);
    return malloc_segments(st, r.count, c);
  }

  // m contiguous slices of the largest class from buffer slot `slot`.
  ALLOCLAB_HD static std::uint64_t malloc_slices(const State& st, std::uint32_t slot,
                                                 std::uint32_t m, Counts& c) {
    const unsigned k = kLargestClass;
    const std::uint32_t spb = st.g.slices_per_block;
    std::uint32_t& cell = st.buffer[st.slot_offset[k] + slot];
    for (std::uint32_t attempt = 0; attempt < kRaceBound; ++attempt) {
      ++c.attempts;
      std::uint32_t b = O::load(cell, c);
      if (b == 0) {  // an empty slot: fetch a block (Alg. 3's path; none: out of memory)
        const std::uint64_t id = O::get_block(st, k, c);
        if (id == kNoBlock) {
          if (O::load(cell, c) != 0) continue;
          return kNoBlock;
        }
        const auto fresh = static_cast<std::uint32_t>(id + 1);
        if (O::cas(cell, 0, fresh, c) != 0) {
          ++c.restarts;
          O::release_fresh(st, id, k, c);
          continue;
        }
        b = fresh;
      }
      const std::uint64_t id = b - 1;
      Atomics::fence_acquire();  // as Ops::malloc_team: the block's counters before its use
      const std::uint32_t old = O::add(st.malloc_ctr[id], m, c);  // the request's one atomic
      const std::uint32_t at = old & kCountMask;
      if ((old >> kClassShift) != k) {  // the block went back since the read (Ops::malloc_team)
        ++c.restarts;
        if ((old >> kClassShift) != kIdleClass && at < spb)
          O::add_frees(st, id, old >> kClassShift, spb - at < m ? spb - at : m, c);
        O::await_swap(cell, b, c);
        continue;
      }
      if (at + m <= spb) {
        // Freed by one increment later: the other m - 1 slices count as freed now.
        if (m > 1) O::add_frees(st, id, k, m - 1, c);
        if (at + m == spb) swap_slot(st, cell, b, c);  // took the last slice
        return st.g.block_offset(id, k) + std::uint64_t{at} * st.g.slice_bytes(k);
      }
      ++c.restarts;
      if (at < spb) {
        // Straddles the block's end: this request took its last slices, so it swaps the slot,
        // then those slices (nobody's) count as freed. Swapping first keeps the slot from
        // holding a block that the frees may give back.
        swap_slot(st, cell, b, c);
        O::add_frees(st, id, k, spb - at, c);
      } else {
        O::await_swap(cell, b, c);  // used up by others: their last taker swaps it
      }
    }
    ++c.stuck;
    return kNoBlock;
  }

  // A whole block of class k.
  ALLOCLAB_HD static std::uint64_t malloc_block(const State& st, unsigned k, Counts& c) {
    const std::uint32_t spb = st.g.slices_per_block;
    for (std::uint32_t attempt = 0; attempt < kRaceBound; ++attempt) {
      ++c.attempts;
      const std::uint64_t id = O::get_block(st, k, c);
      if (id == kNoBlock) return kNoBlock;
      // Fill the counter with one atomic (not a store): a team that read a buffer slot holding
      // this block before it went back may bump it late (allocator.hpp), and its slices are its.
      const std::uint32_t at = O::add(st.malloc_ctr[id], spb, c) & kCountMask;
      if (at == 0) {
        O::add_frees(st, id, k, spb - 1, c);  // freed by one increment later
        return st.g.block_offset(id, k);
      }
      ++c.restarts;  // a late team took slices first: the rest are nobody's
      if (at < spb) O::add_frees(st, id, k, spb - at, c);
    }
    ++c.stuck;
    return kNoBlock;
  }

  // m contiguous segments from the back of the segment tree. One large claim at a time (the
  // public code takes a global lock bit for the same reason): two claims racing for one run each
  // give back what they took, and a third search meanwhile sees no run, a false out of memory
  // (on the H200, 2 of 6 requests of 2 segments served on 8 free segments). The claim holds
  // kLargeClaim in `formatting`, counted in flight as a get_segment is (allocator.hpp,
  // get_block: a small request that finds no free segment waits for it). A search that finds no
  // run waits for the formats in flight and searches once more.
  ALLOCLAB_HD static std::uint64_t malloc_segments(const State& st, std::uint32_t m, Counts& c) {
    for (int round = 0; round < 2; ++round) {
      ++c.attempts;
      if (!begin_claim(st, c)) return kNoBlock;
      const std::uint64_t first = claim_run(st, m, c);
      O::add(*st.formatting, 0u - kLargeClaim, c);
      if (first != kVebFail) {
        c.segments_claimed += m;
        return first * st.g.segment_bytes;
      }
      if (round == 0 && !O::awaited_formats(st, c)) break;
    }
    return kNoBlock;
  }

  // Alg. 4 for one allocation at `offset`: one increment of its block's free counter, or its
  // segments back to the segment tree.
  ALLOCLAB_HD static void free_one(const State& st, std::uint64_t offset, Counts& c) {
    const auto s = static_cast<std::uint32_t>(offset / st.g.segment_bytes);
    const std::uint32_t k = O::load(st.tree_id[s], c);
    if (k < kSizeClasses) {
      const auto b =
          static_cast<std::uint32_t>((offset % st.g.segment_bytes) / st.g.block_bytes(k));
      O::add_frees(st, st.g.block_id(s, b), k, 1, c);
    } else {
      free_segments(st, s, k, c);
    }
  }

  // The segments of the large allocation starting at segment s (its class word `head`).
  ALLOCLAB_HD static void free_segments(const State& st, std::uint32_t s, std::uint32_t head,
                                        Counts& c) {
    const std::uint32_t m = head - kSizeClasses;
    for (std::uint32_t j = 0; j < m; ++j) O::store(st.tree_id[s + j], kNoTree, c);
    Atomics::fence_release();  // the owner's bytes and the class words before the tree says free
    for (std::uint32_t j = 0; j < m; ++j) V::insert(st.segment_tree, s + j, c.veb);
    c.segments_returned += m;
  }

 private:
  // Swaps buffer slot `cell` (holding block b + 1) for a new block of the largest class, or
  // empties it when none is left.
  ALLOCLAB_HD static void swap_slot(const State& st, std::uint32_t& cell, std::uint32_t b,
                                    Counts& c) {
    const std::uint64_t next = O::get_block(st, kLargestClass, c);
    const std::uint32_t want = next == kNoBlock ? 0u : static_cast<std::uint32_t>(next + 1);
    if (O::cas(cell, b, want, c) != b && next != kNoBlock)
      O::release_fresh(st, next, kLargestClass, c);
  }

  // A large claim in `formatting`: above every count of formats in flight.
  static constexpr std::uint32_t kLargeClaim = std::uint32_t{1} << 24;

  // Waits (bounded) until no other large claim is in flight, then adds kLargeClaim.
  ALLOCLAB_HD static bool begin_claim(const State& st, Counts& c) {
    for (std::uint32_t w = 0; w < kWaitBound; ++w) {
      const std::uint32_t v = O::load(*st.formatting, c);
      if (v < kLargeClaim && O::cas(*st.formatting, v, v + kLargeClaim, c) == v) return true;
      O::pause(w);
    }
    ++c.stuck;
    return false;
  }

  // Finds the highest run of m free segments and claims it; its first segment, or kVebFail.
  ALLOCLAB_HD static std::uint64_t claim_run(const State& st, std::uint32_t m, Counts& c) {
    const VebTree& t = st.segment_tree;
    for (std::uint32_t attempt = 0; attempt < kRaceBound; ++attempt) {
      // First fit from the back: each segment is looked at once per search.
      std::uint64_t top = kVebFail;
      std::uint64_t x = t.universe;  // search from U - 1
      for (;;) {
        const std::uint64_t e = V::predecessor(t, x, c.veb);
        if (e == kVebFail || e + 1 < m) return kVebFail;
        std::uint32_t run = 1;
        while (run < m && V::query(t, e - run, c.veb)) ++run;
        if (run == m) {
          top = e;
          break;
        }
        if (e == run) return kVebFail;  // segment e - run (not free) is segment 0
        x = e - run - 1;
      }
      // Claim from the top down; a lost claim gives back what this one took.
      std::uint32_t got = 0;
      while (got < m && V::remove(t, top - got, c.veb)) ++got;
      if (got == m) {
        Atomics::fence_acquire();  // the run's previous owners (free_segments' release)
        const auto first = static_cast<std::uint32_t>(top + 1 - m);
        for (std::uint32_t j = 1; j < m; ++j) O::store(st.tree_id[first + j], kLargeTail, c);
        O::store(st.tree_id[first], kSizeClasses + m, c);
        return first;
      }
      ++c.restarts;
      for (std::uint32_t j = 0; j < got; ++j) V::insert(t, top - j, c.veb);
    }
    ++c.stuck;
    return kVebFail;
  }
};

}  // namespace alloclab::gallatin
