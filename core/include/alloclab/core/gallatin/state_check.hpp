// Gallatin's state on the host: storage for a pool of whole segments (every segment free, in
// the segment tree) and the structural check at rest (no operation in flight).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "alloclab/core/gallatin/layout.hpp"
#include "alloclab/core/gallatin/state.hpp"
#include "alloclab/core/gallatin/veb_tree.hpp"

namespace alloclab::gallatin {

struct StateStorage {
  std::vector<std::uint64_t> segment_words;
  std::vector<std::uint64_t> block_words[kSizeClasses];
  std::vector<std::uint32_t> tree_id, available, head, tail, ring, malloc_ctr, free_ctr, buffer;
  std::vector<std::uint32_t> formatting = {0};  // one word
  State st;

  // `sms`: the SM count the block buffers are sized for (§4.3); `levels`: the vEB trees' level
  // count (0: the paper's ceil(log64 segments)).
  StateStorage(const Geometry& g, std::uint32_t sms, bool return_segments = true,
               unsigned levels = 0) {
    const std::uint64_t u = g.segments;
    const unsigned l = levels ? levels : veb_levels_paper(u);
    st.g = g;
    segment_words.assign(veb_total_words(u, l), 0);
    st.segment_tree = veb_layout(segment_words.data(), u, l);
    veb_fill(st.segment_tree);
    for (unsigned k = 0; k < kSizeClasses; ++k) {
      block_words[k].assign(veb_total_words(u, l), 0);
      st.block_trees[k] = veb_layout(block_words[k].data(), u, l);
    }
    const std::uint64_t blocks = u * g.max_blocks();
    tree_id.assign(u, kNoTree);
    available.assign(u, kClosed);  // not formatted
    head.assign(u, 0);
    tail.assign(u, 0);
    ring.assign(blocks, 0);
    malloc_ctr.assign(blocks, kIdle);
    free_ctr.assign(blocks, 0);
    std::uint32_t at = 0;
    for (unsigned k = 0; k < kSizeClasses; ++k) {
      st.slot_offset[k] = at;
      st.slots[k] = buffer_slots(sms, k);
      at += st.slots[k];
    }
    buffer.assign(at, 0);
    st.sms = sms;
    st.return_segments = return_segments;
    st.tree_id = tree_id.data();
    st.available = available.data();
    st.head = head.data();
    st.tail = tail.data();
    st.ring = ring.data();
    st.malloc_ctr = malloc_ctr.data();
    st.free_ctr = free_ctr.data();
    st.buffer = buffer.data();
    st.formatting = formatting.data();
  }
  StateStorage(const StateStorage&) = delete;
  StateStorage& operator=(const StateStorage&) = delete;
};

inline bool veb_has(const VebTree& t, std::uint64_t x) {
  return (t.words[t.offset[t.levels - 1] + (x >> 6)] >> (x & 63)) & 1u;
}

// "" or the first violation, in words. `live[id]`: allocations the callers hold in block id (a
// slice, 2^j slices or the whole block: each freed by one increment, large.hpp). At rest:
//  * every vEB tree consistent (veb_check: each upper bit the OR of its child word);
//  * a segment of no class is in the segment tree and in no block tree, its count kClosed (every
//    gate's unit given back); a formatted one is in
//    no tree but its class's, and there exactly when its available count is positive;
//  * a formatted segment's ring holds exactly `available` blocks, each idle (the class
//    kIdleClass in its counter), each once; every other of its blocks is handed out: its malloc
//    counter has its class, and the slices it handed out (min(count, slices per block)) are the
//    slices freed plus those live (the block counters consistent with the slices handed out);
//  * a large allocation of m segments (large.hpp): its first segment's class word kSizeClasses +
//    m, the next m - 1 segments' kLargeTail, all within the pool, in no tree, closed; no
//    kLargeTail segment outside such a run;
//  * every block-buffer slot holds a handed-out block of its class, or nothing;
//  * no get_segment in flight (the `formatting` word is 0).
inline std::string state_check(const State& st, const std::vector<std::uint32_t>& live) {
  if (st.formatting && *st.formatting != 0)
    return std::to_string(*st.formatting) + " segment formats still counted in flight";
  if (const std::string e = veb_check(st.segment_tree); !e.empty()) return "segment tree: " + e;
  for (unsigned k = 0; k < kSizeClasses; ++k)
    if (const std::string e = veb_check(st.block_trees[k]); !e.empty())
      return "block tree " + std::to_string(k) + ": " + e;
  const Geometry& g = st.g;
  const std::uint32_t spb = g.slices_per_block;
  std::vector<std::uint8_t> in_ring(std::uint64_t{g.segments} * g.max_blocks(), 0);
  std::vector<std::uint8_t> large_tail(g.segments, 0);  // covered by a large head before it
  for (std::uint32_t s = 0; s < g.segments; ++s) {
    const std::string seg = "segment " + std::to_string(s);
    const std::uint32_t k = st.tree_id[s];
    for (unsigned j = 0; j < kSizeClasses; ++j)
      if (veb_has(st.block_trees[j], s) && j != k)
        return seg + " is in block tree " + std::to_string(j) + " but not of that class";
    if (k == kAppSegment) {
      if (veb_has(st.segment_tree, s)) return seg + " is the application's but in the segment tree";
      continue;
    }
    if (k == kNoTree) {
      if (!veb_has(st.segment_tree, s)) return seg + " has no class and is not in the segment tree";
      if (st.available[s] != kClosed) return seg + " has no class but an open count";
      continue;
    }
    if (k == kLargeTail) {
      if (!large_tail[s]) return seg + " is inside a large allocation that does not cover it";
      if (veb_has(st.segment_tree, s)) return seg + " is held by a large allocation but free";
      continue;
    }
    if (is_large_head(k)) {
      const std::uint64_t m = k - kSizeClasses;
      if (s + m > g.segments)
        return seg + " starts a large allocation of " + std::to_string(m) +
               " segments past the pool's end";
      if (veb_has(st.segment_tree, s)) return seg + " starts a large allocation but is free";
      if (st.available[s] != kClosed) return seg + " starts a large allocation but is open";
      for (std::uint32_t j = 1; j < m; ++j) {
        if (st.tree_id[s + j] != kLargeTail)
          return seg + " starts a large allocation of " + std::to_string(m) +
                 " segments but segment " + std::to_string(s + j) + " is not part of it";
        large_tail[s + j] = 1;
      }
      continue;
    }
    if (k >= kSizeClasses) return seg + " has class " + std::to_string(k);
    if (veb_has(st.segment_tree, s)) return seg + " is formatted but in the segment tree";
    const std::uint32_t n = g.blocks_per_segment(k);
    const auto avail = static_cast<std::int32_t>(st.available[s]);
    if (avail < 0 || avail > static_cast<std::int32_t>(n))
      return seg + " has an available count of " + std::to_string(avail);
    if (veb_has(st.block_trees[k], s) != (avail > 0))
      return seg + " is " + (avail > 0 ? "not " : "") + "in its block tree with " +
             std::to_string(avail) + " blocks available";
    std::int32_t ringed = 0;
    for (std::uint32_t p = 0; p < g.max_blocks(); ++p) {
      const std::uint32_t e = st.ring[std::uint64_t{s} * g.max_blocks() + p];
      if (e == 0) continue;
      if (p >= n || e > n) return seg + " has a ring entry outside its " + std::to_string(n);
      const std::uint64_t id = g.block_id(s, e - 1);
      if (in_ring[id]++) return seg + " has block " + std::to_string(e - 1) + " twice in its ring";
      // (A team that read a buffer slot before the block went back may have bumped its count.)
      if ((st.malloc_ctr[id] >> kClassShift) != kIdleClass)
        return seg + " has a non-idle block in its ring";
      ++ringed;
    }
    if (ringed != avail)
      return seg + " has " + std::to_string(ringed) + " blocks in its ring but counts " +
             std::to_string(avail);
    for (std::uint32_t b = 0; b < n; ++b) {
      const std::uint64_t id = g.block_id(s, b);
      if (in_ring[id]) continue;
      const std::uint32_t m = st.malloc_ctr[id];
      if ((m >> kClassShift) != k)
        return seg + " block " + std::to_string(b) + " is handed out with the wrong class";
      const std::uint32_t handed = (m & kCountMask) < spb ? (m & kCountMask) : spb;
      const std::uint64_t accounted = std::uint64_t{st.free_ctr[id]} + live[id];
      if (handed != accounted)
        return seg + " block " + std::to_string(b) + " handed out " + std::to_string(handed) +
               " slices but " + std::to_string(st.free_ctr[id]) + " are freed and " +
               std::to_string(live[id]) + " live";
    }
  }
  for (unsigned k = 0; k < kSizeClasses; ++k)
    for (std::uint32_t i = 0; i < st.slots[k]; ++i) {
      const std::uint32_t e = st.buffer[st.slot_offset[k] + i];
      if (e == 0) continue;
      const std::uint64_t id = e - 1;
      if (id >= in_ring.size() || in_ring[id] || st.tree_id[id / g.max_blocks()] != k)
        return "buffer slot " + std::to_string(i) + " of class " + std::to_string(k) +
               " holds a block that is not a handed-out block of that class";
    }
  return {};
}

}  // namespace alloclab::gallatin
