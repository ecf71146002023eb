// TBuddy (Gelado & Garland, §4.1) on a small pool, one operation at a time, for `alloclab trace`
// (teaching): requests of n pages allocated in order (n pages take a block of order
// ceil(log2 n)), then freed in reverse order, the tree and the semaphores recorded after each
// operation. The core's step machines run alone (core/gelado/tbuddy.hpp), so each operation's
// splits and merges are the algorithm's, and the tree is checked (I1, I2, the semaphores against
// the Available nodes, the blocks held tiling the pool) after every one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace alloclab::sim {

struct TBuddyTraceStep {
  std::string what;        // "alloc 3 pages (order 2)", "free the block at page 4"
  std::int64_t node = -1;  // the block taken or freed (tree index; -1: none, out of memory)
  std::uint64_t first_page = 0, pages = 0;  // its pages
  std::uint32_t splits = 0, merges = 0;     // what the operation did
  std::uint32_t grows = 0;                  // its waits that returned "grow"
  std::vector<std::string> levels;          // the tree after it, root first: one letter a node
  std::vector<int> sem_counts;              // each order's semaphore count, order 0 first
};

struct TBuddyTrace {
  std::uint32_t height = 0;  // the pool is 2^height pages, one free block at the start
  std::vector<std::string> levels_before;
  std::vector<TBuddyTraceStep> steps;
};

// The requests `pages` (each 1 .. 2^height) on a pool of 2^height pages (height 1 .. 6).
// InputError "--T" / "--requests" for sizes out of range; VerificationError if a check fails.
TBuddyTrace trace_tbuddy(std::uint32_t height, const std::vector<std::uint64_t>& pages);

}  // namespace alloclab::sim
