// What an Ouroboros allocator needs from a scenario, and the input checks every backend makes
// (host only). A scenario's pages are 16 B units (layout.hpp); T units are T / 512 chunks.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/ouroboros/bulk_semaphore.hpp"
#include "alloclab/core/ouroboros/index_queue.hpp"
#include "alloclab/core/ouroboros/layout.hpp"
#include "alloclab/core/scenario.hpp"

namespace alloclab::ouro {

// The ring of class k over a pool of `units`: the configured capacity, but no larger than the
// power of two at or above every page of the class the pool could hold (positions beyond are
// never live at once, so a larger ring behaves the same and only costs memory).
inline std::uint32_t ring_capacity(std::uint64_t units, unsigned page_class,
                                   std::uint32_t configured = kDefaultQueueCapacity) {
  const std::uint64_t most = chunk_count_of_units(units) * pages_per_chunk(page_class);
  std::uint64_t pow2 = 1;
  while (pow2 < most) pow2 <<= 1;
  return static_cast<std::uint32_t>(std::min<std::uint64_t>(configured, pow2));
}

// The ring of every class of variant C: a chunk has at most one entry in its class's queue
// (chunk_queue.hpp), and the holes flashers leave behind front take positions too, so twice the
// pool's chunks, rounded up to a power of two.
inline std::uint32_t chunk_ring_capacity(std::uint64_t chunks) {
  std::uint64_t pow2 = 1;
  while (pow2 < 2 * chunks) pow2 <<= 1;
  return static_cast<std::uint32_t>(pow2);
}

// The pages one class's queue holds: --queue-capacity, 0 meaning the default.
inline std::uint32_t queue_capacity_of(std::uint32_t configured) {
  return configured ? configured : kDefaultQueueCapacity;
}

// --queue-capacity: at most what the semaphore can count, and at least the pages `requests`
// requests of `units` units each take in their class on an empty pool of `s.T` units (their
// class's chunks, as far as the pool has them): a smaller queue would fail requests the pool can
// serve. `requests` = 0 skips the second check (mixed sizes: the classes share nothing).
inline void check_queue_capacity(const std::string& who, const Scenario& s,
                                 std::uint32_t configured, std::uint64_t requests, unsigned units) {
  if (configured == 0) return;
  if (configured > static_cast<std::uint32_t>(kMaxUnits))
    throw InputError("--queue-capacity",
                     who + ": " + std::to_string(configured) +
                         " pages exceed what a class's bulk semaphore counts (" +
                         std::to_string(kMaxUnits) + ": 21 bits with a 2^19 bias)");
  if (requests == 0 || units < 1 || units > kUnitsPerChunk) return;
  const unsigned k = page_class_of_units(units);
  const std::uint64_t p = pages_per_chunk(k);
  const std::uint64_t chunks =
      std::min<std::uint64_t>((requests + p - 1) / p, chunk_count_of_units(s.T));
  if (chunks * p > configured)
    throw InputError("--queue-capacity", who + ": " + std::to_string(requests) + " requests of " +
                                             std::to_string(units) + " units take " +
                                             std::to_string(chunks) + " chunks of " +
                                             std::to_string(p) + " pages of their class, " +
                                             std::to_string(chunks * p) + " pages; a queue of " +
                                             std::to_string(configured) + " cannot hold them");
}

// --help of --queue-capacity (simulate, measure, workload).
inline std::string queue_capacity_help() {
  return "Ouroboros (ouro-*): pages one size class's queue holds (variant P: its ring, over VA "
         "the positions its references cover, over VL the pages it admits; variant C: the pages "
         "on its chunks); 0 = " +
         std::to_string(kDefaultQueueCapacity) + ". At most " + std::to_string(kMaxUnits) +
         " (the semaphore's count), and at least the pages the requests take in their class";
}

// The limits a user of an Ouroboros allocator meets, for --help (the input checks say the same).
inline std::string limits_help() {
  return "Ouroboros (ouro-*): pages are 16 B units, a request of 1.." +
         std::to_string(kUnitsPerChunk) +
         " units is served by its size class (the next power of two); a class's queue holds " +
         std::to_string(kDefaultQueueCapacity) +
         " pages (--queue-capacity changes it), and its bulk semaphore counts at most " +
         std::to_string(kMaxUnits) + " free pages (21 bits) with at most " +
         std::to_string(kSemCountBias) +
         " requests waiting at once (lockstep: --N); a virtualized queue keeps pool chunks for its "
         "Queue-Chunks: variant P ceil(pages/2048) + 2 (ouro-p-va; ouro-p-vl 10 more, its trail), "
         "so at 16 B about a fifth of the pool serves no request; variant C, from its class's "
         "first grow, ceil(ring / 1024) + 2, the ring being ouro-c-s's (twice the pool's chunks, "
         "a power of two: ouro-c-va; ouro-c-vl 10 more)";
}

// The checks of every backend (InputError naming the parameter). `who`: the allocator's name.
//  * the pool: at least one chunk of 512 units (units past the last whole chunk are never used),
//    and page indices below the deletion marker;
//  * a request of at most one chunk (8 KiB = 512 units);
//  * the semaphore's range for `waiters` requests in flight at once.
// A pool with used units (A < T) is served from the chunks none of whose units is in use: the
// used units belong to the application, and Ouroboros hands out whole chunks.
inline void check_scenario(const std::string& who, const Scenario& s, std::uint64_t waiters) {
  if (s.T < kUnitsPerChunk)
    throw InputError("--T", who + " manages chunks of " + std::to_string(kUnitsPerChunk) +
                                " pages of 16 B (8 KiB); a pool of " + std::to_string(s.T) +
                                " pages is smaller than one chunk");
  if (s.T > std::uint64_t{kDeletionMarker})
    throw InputError("--T", who +
                                ": pools of 2^32 units (64 GiB) or more do not fit 32-bit page "
                                "indices");
  if (s.pages < 1 || s.pages > kUnitsPerChunk)
    throw InputError("--pages", who + " serves requests of 1.." + std::to_string(kUnitsPerChunk) +
                                    " units of 16 B (at most one 8 KiB chunk); asked for " +
                                    std::to_string(s.pages));
  const std::string e =
      bulk_semaphore_concurrency_error("--N", waiters, 1, pages_per_chunk(page_class_of_units(1)));
  if (!e.empty()) throw InputError("--N", e.substr(5));
}

}  // namespace alloclab::ouro
