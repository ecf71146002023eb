// The explorer page's parts beyond paper 000 (issue 39), one file a study: each function runs the
// core's step machines (the very code the simulator and the GPU run, over the single-threaded
// atomics policy in WebAssembly: core/ouroboros/single_thread_atomics.hpp) on a small case and
// returns JSON text, one snapshot a step, which the page animates. {"error": ...} on bad input.
#pragma once

#include <charconv>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>

namespace alloclab::explorer {

// A whole number a student typed into a part's script, at most `max`: the whole text, digits
// only (std::stoul would take "12abc" as 12, and its error reads "stoul"). The message says which
// token, for the page's {"error": ...}.
inline std::uint64_t parse_number(std::string_view text,
                                  std::uint64_t max = std::numeric_limits<std::uint64_t>::max()) {
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v > max)
    throw std::invalid_argument("'" + std::string(text) + "' is not a whole number from 0 to " +
                                std::to_string(max));
  return v;
}

// Gelado & Garland (gelado_part.cpp).
// Fig. 1: `threads` waits of n units with batches of `batch`, driven by `script`, a comma list
// of tN (one step of thread N), dN (grower N's batch arrives), xN (grower N's growth fails),
// gN (holder N gives its units back: signal). kind: "bulk" or "counting".
std::string semaphore_run(const std::string& kind, int threads, int n, int batch,
                          const std::string& script);
// TBuddy: sim::trace_tbuddy, the trace `alloclab trace --allocator gg-tbuddy` draws.
std::string tbuddy_run(int height, const std::string& requests);
// UAlloc (ualloc_part.cpp): requests of `bytes` (comma list; -i frees request i) in one arena of
// a pool of 2^height pages of 4 KB, its chunks, bins and per-class semaphores after each.
std::string ualloc_run(int height, const std::string& requests);

// Ouroboros (ouroboros_part.cpp): the index queue under `ops` (sim::trace_index_queue, as
// `alloclab trace --allocator ouro-p-s`), and the model's walk lengths.
std::string queue_run(int slots, const std::string& ops, bool printed_check);
std::string ouro_walk(int lanes, int free_per_chunk, int dead_ahead);
// Variants P and C side by side (ouroboros_queues_part.cpp) on the same requests (comma list of
// bytes; -i frees request i) over a pool of `chunks` chunks of 8 KiB.
std::string ouro_queues_run(int chunks, const std::string& requests);

// Gallatin (gallatin_part.cpp): requests of `bytes` by teams (comma list bytes[xlanes]; a
// negative number frees the k-th request) on a pool of `segments` small segments.
std::string gallatin_run(int segments, const std::string& requests);

// DynaSOAr (dynasoar_part.cpp): a hierarchical bitmap of `bits` free slots, `ops` a comma list
// of a (claim a set bit: allocate) and fN (set bit N again: free), each memory operation a
// snapshot; rotate: §4.2's bitmap rotation.
std::string bitmap_run(int bits, const std::string& ops, bool rotate, int seed);
// DynaSOAr's heap (dynasoar_heap_part.cpp): `blocks` free blocks of 64 slots, warps (comma list
// nxL: L lanes asking objects of n pages) allocating with warp coalescing on or off.
std::string heap_run(int blocks, const std::string& warps, bool coalesce, bool rotate);

}  // namespace alloclab::explorer
