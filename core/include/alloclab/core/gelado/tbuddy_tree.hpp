// TBuddy's static binary tree (Gelado & Garland, PPoPP'19 §4.1, Fig. 2): a pool of 2^H pages,
// one node per buddy block, in a heap layout shared by the CPU simulator and the GPU:
//   node 1 is the root (height H, the whole pool), node i has children 2i and 2i + 1, parent
//   i / 2 and sibling (its buddy) i ^ 1; the nodes of height h are [2^(H-h), 2^(H-h+1)), and
//   node i of height h is the block of 2^h pages at page offset (i - 2^(H-h)) * 2^h.
// Index 0 is unused, so the tree is 2^(H+1) words. Also one bulk semaphore word per order
// 0..H (bulk_semaphore.hpp), batch 2, counting the Available nodes of that height.
//
// A node's word (alloclab's representation; the paper gives none):
//   bits 0-1  state: Busy (0), Available (1), Partial (2)
//   bit  2    lock: set while a thread transitions this node or propagates through it
// Busy is 0, so a zeroed tree is all Busy. The state and the lock share one word so that a taker
// claims a node with one CAS, (Available, unlocked) -> (Available, locked), and a merger takes
// its buddy with one CAS, (Available, unlocked) -> (Busy, unlocked): neither succeeds while
// another thread holds the node's lock. Locks are try-locks (a load, then a CAS of the unlocked
// word it saw): a step that finds the lock held reports spinning, never waits in a loop.
//
// The states (§4.1): Available, the block can be allocated; Busy, neither the block nor anything
// in its subtree can (an allocated block, or a node whose subtree is all allocated); Partial, the
// block cannot but its subtree holds an Available node. The invariants the paper states:
//   I1  two siblings are never both Available;
//   I2  an Available node's whole subtree is Busy.
// tbuddy_check (host) checks them and the rest of what holds at rest.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "alloclab/core/gelado/bulk_semaphore.hpp"
#include "alloclab/core/hd.hpp"

namespace alloclab::gelado {

enum class NodeState : std::uint32_t { busy = 0, available = 1, partial = 2 };

inline constexpr std::uint32_t kNodeStateMask = 3u;
inline constexpr std::uint32_t kNodeLock = 4u;
// The batch of every order's semaphore (§4.1: "One batch semaphore per order, with batch size of
// two"); a request is one block, so wait(sem[n], 1, 2) and a grower signals (1, 1).
inline constexpr std::uint32_t kTBuddyBatch = 2;
// The tallest tree: the order-0 semaphore counts at most 2^(H-1) Available leaves (I1), within
// the 22-bit count; node indices stay below 2^(H+1) <= 2^23.
inline constexpr std::uint32_t kMaxTBuddyHeight = 22;

ALLOCLAB_HD NodeState node_state(std::uint32_t word) {
  return static_cast<NodeState>(word & kNodeStateMask);
}
ALLOCLAB_HD bool node_locked(std::uint32_t word) {
  return (word & kNodeLock) != 0;
}
ALLOCLAB_HD std::uint32_t node_word(NodeState s, bool locked) {
  return static_cast<std::uint32_t>(s) | (locked ? kNodeLock : 0u);
}

// ---- Index arithmetic (heap layout) ----

ALLOCLAB_HD std::uint32_t tb_parent(std::uint32_t i) {
  return i >> 1;
}
ALLOCLAB_HD std::uint32_t tb_sibling(std::uint32_t i) {
  return i ^ 1u;
}
ALLOCLAB_HD std::uint32_t tb_left(std::uint32_t i) {
  return i << 1;
}
ALLOCLAB_HD std::uint32_t tb_right(std::uint32_t i) {
  return (i << 1) | 1u;
}
// floor(log2(i)) for i >= 1: the node's depth below the root.
ALLOCLAB_HD std::uint32_t tb_depth(std::uint32_t i) {
#if defined(__CUDA_ARCH__)
  return 31u - static_cast<std::uint32_t>(__clz(i));
#else
  return 31u - static_cast<std::uint32_t>(__builtin_clz(i));
#endif
}
ALLOCLAB_HD std::uint32_t tb_height(std::uint32_t tree_height, std::uint32_t i) {
  return tree_height - tb_depth(i);
}
// The first node of height h.
ALLOCLAB_HD std::uint32_t tb_first(std::uint32_t tree_height, std::uint32_t h) {
  return 1u << (tree_height - h);
}
// The block's first page.
ALLOCLAB_HD std::uint32_t tb_offset(std::uint32_t tree_height, std::uint32_t i) {
  const std::uint32_t h = tb_height(tree_height, i);
  return (i - tb_first(tree_height, h)) << h;
}
// The node of the block of order `order` at page `offset` (a multiple of 2^order).
ALLOCLAB_HD std::uint32_t tb_node(std::uint32_t tree_height, std::uint32_t offset,
                                  std::uint32_t order) {
  return tb_first(tree_height, order) + (offset >> order);
}
ALLOCLAB_HD std::uint32_t tb_node_count(std::uint32_t tree_height) {
  return (2u << tree_height) - 1u;  // nodes 1 .. 2^(H+1) - 1
}

// A parent's state recomputed from its children (the propagation of §4.1): Partial when either
// child is Available or Partial (its subtree holds an Available node), else Busy. Applied only
// to a node that is not Available itself (an Available node's children are Busy and nobody
// transitions them, I2), and not to a node some thread owns as an allocated block (its children
// are Busy, so this gives Busy, its state).
ALLOCLAB_HD NodeState tb_summary(NodeState a, NodeState b) {
  return a != NodeState::busy || b != NodeState::busy ? NodeState::partial : NodeState::busy;
}

// The frees-in-flight word (alloclab's rule against the spurious null, tbuddy.hpp): bits 0-20
// count the frees in flight (at most kMaxBulkReserved requests are in flight, as for the
// semaphores), bits 21-31 the frees finished, mod 2^11. A free adds 1 on entry and
// kTBuddyFreeLeave after its last signal (one less in flight, one more finished).
inline constexpr std::uint32_t kTBuddyFreesInFlight = (1u << 21) - 1u;
inline constexpr std::uint32_t kTBuddyFreeLeave = (1u << 21) - 1u;
ALLOCLAB_HD std::uint32_t tb_frees_in_flight(std::uint32_t word) {
  return word & kTBuddyFreesInFlight;
}

// A view of one TBuddy: H, the node words (2^(H+1), index 0 unused), the H + 1 semaphores and
// the frees-in-flight word. frees == nullptr is the paper's rule: an alloc's failure at order H
// is final (the spurious null of tbuddy.hpp); the host storage and the GPU pool give one.
struct TBuddyTree {
  std::uint32_t height = 0;
  std::uint32_t* nodes = nullptr;
  std::uint64_t* sems = nullptr;
  std::uint32_t* frees = nullptr;
};

// ---- Host side: storage, the initial state, the checker ----

// The pool as one free block: the root Available, every other node Busy, sem[H] = 1.
struct TBuddyStorage {
  std::vector<std::uint32_t> nodes;
  std::vector<std::uint64_t> sems;
  std::uint32_t frees = 0;  // the frees-in-flight word
  TBuddyTree tree;
  explicit TBuddyStorage(std::uint32_t height)
      : nodes(std::size_t{2} << height, 0u), sems(height + 1, 0u) {
    tree.height = height;
    tree.nodes = nodes.data();
    tree.sems = sems.data();
    tree.frees = &frees;
    nodes[1] = node_word(NodeState::available, false);
    SemCounters one;
    one.count = 1;
    sems[height] = BulkWord::pack(one);
  }
  TBuddyStorage(const TBuddyStorage&) = delete;
  TBuddyStorage& operator=(const TBuddyStorage&) = delete;
};

// "" when H fits, else one line naming `parameter`.
inline std::string tbuddy_height_error(const std::string& parameter, std::uint32_t height) {
  if (height <= kMaxTBuddyHeight) return {};
  return parameter + ": a pool of 2^" + std::to_string(height) + " pages exceeds TBuddy's 2^" +
         std::to_string(kMaxTBuddyHeight) + " (the order-0 semaphore's count has 22 bits)";
}

// What holds at rest (no operation in flight), given the blocks the callers hold (node indices).
// Returns "" or the first violation found, in words:
//   I1, I2 (§4.1); the summary (a node that is not Available is Partial exactly when a child is
//   Available or Partial); no lock held; every held block Busy, no held block inside or above an
//   Available node or another held block; the Available blocks and the held blocks tile the
//   pool (their pages sum to 2^H); sem[h] = (Available nodes of height h, E = 0, R = 0); no free
//   in flight.
inline std::string tbuddy_check(const TBuddyTree& t, const std::vector<std::uint32_t>& held) {
  if (t.frees != nullptr && tb_frees_in_flight(*t.frees) != 0)
    return std::to_string(tb_frees_in_flight(*t.frees)) + " frees in flight at rest";
  const std::uint32_t n = tb_node_count(t.height);
  auto st = [&](std::uint32_t i) { return node_state(t.nodes[i]); };
  auto name = [](std::uint32_t i) { return "node " + std::to_string(i); };
  std::vector<std::uint32_t> available(t.height + 1, 0);
  // cover[i]: 1 when node i lies in (or is) an Available or held block.
  std::vector<std::uint8_t> cover(n + 1, 0);
  std::uint64_t pages = 0;
  for (std::uint32_t i = 1; i <= n; ++i) {
    if (node_locked(t.nodes[i])) return name(i) + " is locked at rest";
    if (t.nodes[i] > (kNodeStateMask | kNodeLock) || (t.nodes[i] & kNodeStateMask) == 3)
      return name(i) + " holds an invalid word";
    if (st(i) == NodeState::available) {
      ++available[tb_height(t.height, i)];
      pages += std::uint64_t{1} << tb_height(t.height, i);
      if (i > 1 && st(tb_sibling(i)) == NodeState::available)
        return "I1: " + name(i) + " and its sibling are both Available";
    }
    const bool leaf = tb_height(t.height, i) == 0;
    if (!leaf && st(i) != NodeState::available) {
      const NodeState want = tb_summary(st(tb_left(i)), st(tb_right(i)));
      if (st(i) != want)
        return name(i) + " is " + (st(i) == NodeState::busy ? "Busy" : "Partial") +
               " but its children say " + (want == NodeState::busy ? "Busy" : "Partial");
    }
  }
  for (const std::uint32_t b : held) {
    if (b < 1 || b > n) return "held block " + std::to_string(b) + " is not a node";
    if (st(b) != NodeState::busy) return "held " + name(b) + " is not Busy";
    pages += std::uint64_t{1} << tb_height(t.height, b);
  }
  // Mark each Available or held block's subtree; a node marked twice is an overlap. Ancestors
  // come first in index order, so marking from each block root downwards finds every overlap.
  auto mark = [&](std::uint32_t root, bool is_available) -> std::string {
    std::uint32_t lo = root, hi = root;
    for (;;) {
      for (std::uint32_t i = lo; i <= hi; ++i) {
        if (cover[i]) return name(root) + " overlaps another free or held block at " + name(i);
        cover[i] = 1;
        if (is_available && i != root && st(i) != NodeState::busy)
          return "I2: " + name(i) + " below Available " + name(root) + " is not Busy";
      }
      if (tb_height(t.height, lo) == 0) break;
      lo = tb_left(lo);
      hi = tb_right(hi);
    }
    for (std::uint32_t a = tb_parent(root); a >= 1; a = tb_parent(a))
      if (cover[a]) return name(root) + " lies inside another free or held block";
    return {};
  };
  for (std::uint32_t i = 1; i <= n; ++i)
    if (st(i) == NodeState::available) {
      const std::string e = mark(i, true);
      if (!e.empty()) return e;
    }
  for (const std::uint32_t b : held) {
    const std::string e = mark(b, false);
    if (!e.empty()) return e;
  }
  if (pages != (std::uint64_t{1} << t.height))
    return "Available and held pages sum to " + std::to_string(pages) + ", not " +
           std::to_string(std::uint64_t{1} << t.height);
  for (std::uint32_t h = 0; h <= t.height; ++h) {
    const SemCounters c = BulkWord::unpack(t.sems[h]);
    if (c.count != static_cast<std::int32_t>(available[h]) || c.expected != 0 || c.reserved != 0)
      return "sem[" + std::to_string(h) + "] = (" + std::to_string(c.count) + ", " +
             std::to_string(c.expected) + ", " + std::to_string(c.reserved) + ") but " +
             std::to_string(available[h]) + " nodes of height " + std::to_string(h) +
             " are Available";
  }
  return {};
}

}  // namespace alloclab::gelado
