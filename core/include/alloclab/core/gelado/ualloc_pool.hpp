// UAlloc's pool as the simulator and the GPU build it (gg-ualloc, gg-malloc;
// studies/gelado-garland/, "UAlloc"), host side: the unit, the tree's height, the chunk order, the
// input checks both backends make, and the initial tree.
//
// Units: a scenario's page is 8 B, UAlloc's smallest object. The pool is TBuddy's: a 4 KB page
// whose 512 units are all free is a free page of the tree (height ceil(log2(T / 512))); chunks
// are TBuddy blocks of 64 (or 128) pages. A request of n units asks for 8 x 2^ceil(log2 n) bytes:
// UAlloc serves up to 1 KB; with malloc, 2 KB and up are TBuddy blocks of ceil(bytes / 4 KB)
// pages.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/gelado/bulk_semaphore.hpp"
#include "alloclab/core/gelado/tbuddy_pool.hpp"
#include "alloclab/core/gelado/ualloc_layout.hpp"
#include "alloclab/core/hd.hpp"
#include "alloclab/core/scenario.hpp"

namespace alloclab::gelado {

inline constexpr std::uint32_t kUAllocUnitBytes = 8;
inline constexpr std::uint32_t kUAllocUnitsPerPage = kUAllocBinBytes / kUAllocUnitBytes;  // 512
// One arena per SM: at most an H100's or H200's SMs (132), on both backends.
inline constexpr std::uint32_t kUAllocMostArenas = 132;

// Figure 7's workload on a pool of `pool` bytes, every unit free: pool / bytes requests of
// `bytes` each (in 8 B units), just enough to exhaust it. The simulator's and the GPU's tests
// and the report's claims run this shape.
inline Scenario ualloc_exhaustion_scenario(Algorithm a, std::uint64_t pool, std::uint64_t bytes,
                                           std::uint64_t seed = 5) {
  Scenario s;
  s.algo = a;
  s.T = s.A = pool / kUAllocUnitBytes;
  s.pages = static_cast<unsigned>(bytes / kUAllocUnitBytes);
  s.N = pool / bytes;
  s.seed = seed;
  return s;
}

// The tree's height for a pool of T units.
inline std::uint32_t ualloc_height_of(std::uint64_t T) {
  return tbuddy_height_of(std::max<std::uint64_t>(T / kUAllocUnitsPerPage, 1));
}
// log2(bins per chunk): 0 (the default) or 64 -> 6, 128 -> 7.
inline std::uint32_t ualloc_chunk_order(std::uint32_t chunk_bins) {
  return static_cast<std::uint32_t>(
      std::countr_zero(chunk_bins ? chunk_bins : kUAllocDefaultChunkBins));
}
// The bytes a request of `units` asks for: 8 x 2^ceil(log2 units).
ALLOCLAB_HD std::uint64_t ualloc_request_bytes(std::uint32_t units) {
  return std::uint64_t{kUAllocUnitBytes} << tbuddy_order_of(units);
}
// The TBuddy order of a malloc request of more than 1 KB: a block of ceil(bytes / 4 KB) pages.
ALLOCLAB_HD std::uint32_t ualloc_big_order(std::uint32_t units) {
  const std::uint64_t bytes = ualloc_request_bytes(units);
  return tbuddy_order_of(
      static_cast<std::uint32_t>((bytes + kUAllocBinBytes - 1) / kUAllocBinBytes));
}

// The input checks of gg-ualloc (with_malloc false) and gg-malloc on both backends: --arenas
// (0 = the backend's default), --chunk-bins, --T (whole chunks, a tree TBuddy holds), --pages
// (and `more` per thread), and the requests in flight at once (their waits hold E and R units of
// a semaphore), reported on --N. InputError naming the parameter.
inline void check_ualloc_input(const Scenario& s, std::uint32_t arenas, std::uint32_t chunk_bins,
                               const std::vector<unsigned>& more, std::uint64_t in_flight,
                               bool with_malloc) {
  const std::string who = with_malloc ? "gg-malloc" : "gg-ualloc";
  if (arenas > kUAllocMostArenas)
    throw InputError("--arenas", who + " has one arena per SM, at most " +
                                     std::to_string(kUAllocMostArenas) + " (an H100/H200); got " +
                                     std::to_string(arenas));
  if (chunk_bins != 0 && chunk_bins != 64 && chunk_bins != 128)
    throw InputError("--chunk-bins",
                     who + "'s chunks hold 64 bins (256 KB, the default) or 128 (512 KB); got " +
                         std::to_string(chunk_bins));
  const std::uint64_t chunk_units = std::uint64_t{kUAllocUnitsPerPage}
                                    << ualloc_chunk_order(chunk_bins);
  if (s.T == 0 || s.T % chunk_units != 0)
    throw InputError("--T", who + "'s pool is whole chunks of " + std::to_string(chunk_units) +
                                " units of 8 B; got T = " + std::to_string(s.T));
  if (const std::string e = tbuddy_height_error("--T", ualloc_height_of(s.T)); !e.empty())
    throw InputError("--T", e);
  const std::uint64_t most = with_malloc ? s.T : kUAllocMaxBytes / kUAllocUnitBytes;
  auto check = [&](unsigned n) {
    if (n < 1 || n > most)
      throw InputError("--pages", who + " serves 1 to " + std::to_string(most) + " units of 8 B" +
                                      (with_malloc ? " (the pool)" : " (1 KB; larger: gg-malloc)") +
                                      "; got " + std::to_string(n));
  };
  check(s.pages);
  for (const unsigned n : more) check(n);
  if (const std::string e = bulk_semaphore_request_error("--N", in_flight, 1, 512); !e.empty())
    throw InputError("--N", e);
}

// The initial pool of T units whose free ones are those with unit_busy_page[p] == 0 for their
// page p (2^H entries: a page is free when all its 512 units are; pages T / 512 .. 2^H - 1 do not
// exist and are never free): writes the tree into t and returns the application's blocks.
inline std::vector<std::uint32_t> ualloc_build_tree(const TBuddyTree& t, std::uint64_t T,
                                                    const std::vector<std::uint8_t>& busy_page) {
  std::vector<std::uint8_t> free_page(std::size_t{1} << t.height, 0);
  const std::uint64_t pages = T / kUAllocUnitsPerPage;
  for (std::uint64_t p = 0; p < pages && p < free_page.size(); ++p)
    free_page[p] = busy_page.empty() || !busy_page[p] ? 1 : 0;
  return tbuddy_build(t, free_page);
}

}  // namespace alloclab::gelado
