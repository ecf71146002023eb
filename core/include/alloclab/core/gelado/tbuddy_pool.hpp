// TBuddy's pool as the simulator and the GPU build it (alloclab's reading; the paper's pool is one
// free block), host side:
//  * The tree has height H = ceil(log2 T): 2^H >= T leaves, one per page. Pages T .. 2^H - 1 do
//    not exist; they are never free (Busy for ever, like the application's pages), so any T works
//    and a power of two wastes nothing. H <= 22 (the order-0 semaphore's count): T <= 2^22.
//  * The initial pool's free pages are the tree's free blocks, merged as far as the buddy rule
//    allows: a node is Available when its pages are all free and its parent's are not; nodes
//    inside it are Busy (I2), the others Partial or Busy from their children (the summary);
//    sem[h] counts the Available nodes of height h. What the application holds is a set of Busy
//    blocks too (the largest aligned blocks of pages not free), which the checker counts as held.
//  * A request of n pages asks for order k = ceil(log2 n): a block of 2^k pages whose first n
//    pages are the request's (the rest is internal fragmentation, as in Ouroboros' size classes:
//    neither used nor free to anyone else).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/gelado/bulk_semaphore.hpp"
#include "alloclab/core/gelado/tbuddy_tree.hpp"
#include "alloclab/core/scenario.hpp"

namespace alloclab::gelado {

// H = ceil(log2 T).
inline std::uint32_t tbuddy_height_of(std::uint64_t T) {
  std::uint32_t h = 0;
  while ((std::uint64_t{1} << h) < T) ++h;
  return h;
}
// The order of a request of n pages: ceil(log2 n).
ALLOCLAB_HD std::uint32_t tbuddy_order_of(std::uint32_t pages) {
  std::uint32_t k = 0;
  while ((std::uint64_t{1} << k) < pages) ++k;
  return k;
}

// Writes the initial tree and semaphores of a pool whose free pages are those with
// free_page[p] != 0 (2^H entries) into t, and returns the application's blocks (the largest
// aligned blocks with no free page), which the checker counts as held.
inline std::vector<std::uint32_t> tbuddy_build(const TBuddyTree& t,
                                               const std::vector<std::uint8_t>& free_page) {
  const std::uint32_t n = tb_node_count(t.height);
  // all_free[i], none_free[i]: node i's pages are all free, none free.
  std::vector<std::uint8_t> all_free(n + 1, 0), none_free(n + 1, 0);
  const std::uint32_t first_leaf = tb_first(t.height, 0);
  for (std::uint32_t i = n; i >= 1; --i) {
    if (i >= first_leaf) {
      all_free[i] = free_page[i - first_leaf];
      none_free[i] = !free_page[i - first_leaf];
    } else {
      all_free[i] = all_free[2 * i] && all_free[2 * i + 1];
      none_free[i] = none_free[2 * i] && none_free[2 * i + 1];
    }
  }
  std::vector<std::uint32_t> available(t.height + 1, 0), application;
  // Bottom-up: a node's state from its own pages, or its children's.
  for (std::uint32_t i = n; i >= 1; --i) {
    NodeState st = NodeState::busy;
    if (all_free[i] && (i == 1 || !all_free[i / 2])) {
      st = NodeState::available;
      ++available[tb_height(t.height, i)];
    } else if (!all_free[i] && i < first_leaf) {
      st = tb_summary(node_state(t.nodes[2 * i]), node_state(t.nodes[2 * i + 1]));
    }
    t.nodes[i] = node_word(st, false);
    if (none_free[i] && (i == 1 || !none_free[i / 2])) application.push_back(i);
  }
  for (std::uint32_t h = 0; h <= t.height; ++h) {
    SemCounters c;
    c.count = static_cast<std::int32_t>(available[h]);
    t.sems[h] = BulkWord::pack(c);
  }
  if (t.frees != nullptr) *t.frees = 0;
  return application;
}

// The input checks of a TBuddy run on T pages, requests of `pages` (and `more` pages per thread
// where they differ), `in_flight` requests at once (their waits hold E and R units): InputError
// naming --T, --pages or --N.
inline void check_tbuddy_scenario(const Scenario& s, const std::vector<unsigned>& more,
                                  std::uint64_t in_flight) {
  const std::uint32_t h = tbuddy_height_of(s.T);
  if (const std::string e = tbuddy_height_error("--T", h); !e.empty())
    throw InputError("--T", "gg-tbuddy's tree has 2^ceil(log2 T) leaves: a pool of 2^" +
                                std::to_string(h) + " pages exceeds TBuddy's 2^" +
                                std::to_string(kMaxTBuddyHeight) +
                                " (the order-0 semaphore's count has 22 bits)");
  auto check = [&](unsigned n) {
    if (n < 1 || (std::uint64_t{1} << tbuddy_order_of(n)) > s.T)
      throw InputError("--pages",
                       "gg-tbuddy rounds a request of n pages up to a block of 2^k >= "
                       "n pages, at least 1 and at most T (" +
                           std::to_string(s.T) + "); got n = " + std::to_string(n));
  };
  check(s.pages);
  for (const unsigned n : more) check(n);
  if (in_flight > kMaxBulkReserved)
    throw InputError(
        "--N", "gg-tbuddy's semaphores count at most " + std::to_string(kMaxBulkReserved) +
                   " requests in flight (E and R have 21 bits); got " + std::to_string(in_flight));
}

}  // namespace alloclab::gelado
