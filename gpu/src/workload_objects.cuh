// The objects of a GPU workload and the device-side checks over them (workload_objects.cu), all
// outside the timed kernels: object i belongs to thread i (or, under oom, to slot i of all the
// batches so far). An object is where the allocator put it - a byte offset into the workload's
// arena for allocators of pages (page p starts at p * page bytes), a device address for
// allocators of bytes - or kFailed while it has none.
#pragma once

#include <cstdint>

#include "common.cuh"

namespace alloclab::gpu::detail {

struct ObjectsView {
  std::uint64_t* where = nullptr;        // offset or address; kFailed: none
  const std::uint64_t* bytes = nullptr;  // bytes requested
  const std::uint32_t* pages = nullptr;  // pages handed out (allocators of pages; else null)
  std::uint64_t count = 0;               // slots
  std::uint64_t page_bytes = 0;          // allocators of pages
  unsigned char* arena = nullptr;        // allocators of pages: the pool's bytes; else null
};

// Allocators of pages hand out page ids (where = id * page bytes); allocators of bytes, addresses.
__host__ __device__ inline bool page_ids(const ObjectsView& v) {
  return v.pages != nullptr;
}

// After an allocation launch over slots [first, first + count): the result of launch slot j
// becomes object first + j where it asked (active null: all). Returns the requests served.
std::uint64_t adopt_results(const ObjectsView& v, const std::uint64_t* result,
                            const std::uint8_t* active, std::uint64_t first, std::uint64_t count);

// The pattern of an object: its first and last min(8, bytes) bytes, a hash of (where, offset),
// written where `active` (null: all) and the object is live, and only where it lies in
// [pool_first, pool_first + pool_bytes) when pool_bytes > 0 (an object elsewhere is left for the
// census to report, not written over whatever is there).
void write_patterns(const ObjectsView& v, const std::uint8_t* active, std::uint64_t pool_bytes = 0,
                    std::uint64_t pool_first = 0);
// Live objects whose pattern is not intact.
std::uint64_t broken_patterns(const ObjectsView& v);

struct Census {
  std::uint64_t live = 0, live_bytes = 0, live_pages = 0;
  std::uint64_t lowest = 0, highest_end = 0;  // requested byte ranges; meaningful when live > 0
  std::uint64_t misplaced = 0;                // outside [0, pool_bytes) or not aligned as promised
};
// Every object must lie in [pool_first, pool_first + pool_bytes) (offsets of allocators of
// pages: pool_first 0; a plug-in's addresses: its pool; pool_bytes 0 = no bound) and start at a
// multiple of `alignment` (0 = none promised).
Census take_census(const ObjectsView& v, std::uint64_t pool_bytes, std::uint64_t alignment,
                   std::uint64_t pool_first = 0);

// Live objects whose range [where, where + extent) overlaps the next one in address order
// (extent: the pages handed out for allocators of pages, the bytes requested otherwise), and the
// first such pair in address order: the slots (threads) and ranges of both objects.
struct Overlaps {
  std::uint64_t count = 0;
  std::uint64_t slot_a = 0, begin_a = 0, end_a = 0;  // the lower of the first pair
  std::uint64_t slot_b = 0, begin_b = 0, end_b = 0;  // the object it runs into
};
Overlaps overlapping_objects(const ObjectsView& v);

// The free list of one free launch: out[i] = the page id or address of object i where `victims`
// (null: all) and live, else kFailed; those objects are forgotten (where = kFailed). Returns the
// objects listed.
std::uint64_t take_for_free(const ObjectsView& v, const std::uint8_t* victims, std::uint64_t* out);

// Churn: marks min(k, live) live objects chosen uniformly at random (keyed by seed) in
// `victims` (count bytes, cleared first).
void choose_victims(const ObjectsView& v, std::uint64_t k, std::uint64_t seed,
                    std::uint8_t* victims);

// Device scratch the functions above allocate for `count` slots, at most.
std::uint64_t objects_scratch_bytes(std::uint64_t count);

}  // namespace alloclab::gpu::detail
