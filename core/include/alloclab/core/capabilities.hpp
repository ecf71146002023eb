// What the registry says an allocator can do (core/algorithm.hpp's Capabilities) and where it
// runs: the flags the rest of the code reads instead of an allocator's name.
#pragma once

#include <cstdint>
#include <string_view>

#include "alloclab/core/bit_choice.hpp"

namespace alloclab {

// The backends an allocator can run on (a bit set).
enum class BackendKind : unsigned { model = 1u, sim = 2u, gpu = 4u };
constexpr unsigned operator|(BackendKind a, BackendKind b) {
  return static_cast<unsigned>(a) | static_cast<unsigned>(b);
}
constexpr unsigned operator|(unsigned a, BackendKind b) {
  return a | static_cast<unsigned>(b);
}
inline constexpr unsigned kAllBackends = BackendKind::model | BackendKind::sim | BackendKind::gpu;
std::string_view backend_kind_name(BackendKind b);

// What one request may ask for.
enum class RequestKind {
  one_page,  // exactly one page (a request up to one page takes one page)
  pages,     // n consecutive pages (--pages n)
  bytes,     // any number of bytes (the page size is only the unit of the workload)
};

// What the code reads about an allocator instead of its name. Keep the flags few: one per
// question some code must ask ("does --w matter?"), never one per allocator.
struct Capabilities {
  RequestKind requests = RequestKind::one_page;
  // Address alignment every successful request is promised, in bytes; 0 = one page.
  std::uint64_t alignment_bytes = 0;
  bool frees = true;  // it has a free operation (pages or objects can come back)
  // Its steps read w-bit bitmap words, so --w (bits per bitmap word) matters; false: a step
  // probes one page (RW) or is no probe at all (queue).
  bool bitmap_words = true;
  // A warp serves its lanes together (the lanes are a hardware warp): the GPU needs lanes = 32.
  bool warp_collective = false;
  // The bit choices (--bit-choice, core/bit_choice.hpp: which free bit of a read word a thread
  // claims) it implements, a set of bit_choice_bit(c); lowest (the paper's) is always in it.
  unsigned bit_choices = kOnlyLowest;
  unsigned backends = kAllBackends;  // BackendKind bits
  // Its page has this many bytes whatever a workload's --page-bytes says (0: the workload's).
  // Ouroboros counts in its smallest page, 16 B, and serves size classes of 2^k of them.
  std::uint64_t fixed_page_bytes = 0;
  // A request of n pages takes a size class, the next power of two of pages (Ouroboros): what a
  // workload counts as held, internal fragmentation included.
  bool size_classes = false;
  // Its queues keep their items on chunks of the pool (Ouroboros' virtualized queues), and the
  // pool keeps chunks back for them: fewer pages are served before it runs out of memory.
  bool queue_in_pool = false;
  // Used-up Queue-Chunks a queue keeps before it gives them back (VL's trail t), kept in the pool
  // too.
  unsigned queue_trail = 0;
  // With queue_in_pool: its Queue-Chunks are drawn when a queue needs one, and the pool keeps
  // none back (variant C, which gives wholly free chunks back); otherwise the pool keeps a
  // reserve per class (variant P, queue_chunk.hpp).
  bool queue_on_demand = false;
  // Its requests of n > 1 pages come from blocks that hold objects of one size only (DynaSOAr's
  // typed blocks): the pages a partly used pool leaves free in shared blocks serve one-page
  // requests only, so larger ones need wholly free blocks.
  bool typed_blocks = false;
  // Its pool is a whole number of these bytes (Gallatin's segments); a smaller pool or a remainder
  // is an input error. 0: any pool. Tests and sweeps size their pools by it.
  std::uint64_t pool_granule_bytes = 0;
  // Allocators of bytes: the largest request served, bytes (a plug-in's declaration); a larger
  // one is an input error. 0: no limit.
  std::uint64_t max_request_bytes = 0;
  bool has(BackendKind b) const { return (backends & static_cast<unsigned>(b)) != 0; }
  bool chooses(BitChoice c) const { return (bit_choices & bit_choice_bit(c)) != 0; }
  // More than the lowest: --bit-choice is an axis of this allocator.
  bool has_bit_choice() const { return bit_choices != kOnlyLowest; }
};

}  // namespace alloclab
