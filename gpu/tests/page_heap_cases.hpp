// The PageHeap tests' device side (page_heap_kernels.cu, compiled where CUDA is) behind a plain
// C++ interface, so that the Catch2 tests (page_heap_test.cpp) stay host code.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace alloclab::gpu::test {

enum class HeapAllocator {
  rw,
  rwbm32,
  rwbm64,
  queue,
  rwmalloc32,
  rwmalloc64,
  corw32,
  corw64,
  corw_rotated32
};

// What the threads of one kernel ask for: thread i calls malloc calls[i] times (0: never), call r
// for bytes[i * calls_per_thread + r] bytes. The kernel makes the callers diverge: each call sits
// in one of two branches, the one entered first after a sleep of i % 7 steps, and the loop's trip
// count varies per thread.
struct HeapPlan {
  HeapAllocator allocator = HeapAllocator::rw;
  std::uint64_t pages = 0, page_bytes = 0, max_steps = 1u << 20, seed = 1;
  unsigned block = 128;  // threads per block (need not be a multiple of 32)
  std::uint64_t threads = 0;
  unsigned calls_per_thread = 1;
  std::vector<std::uint8_t> calls;   // threads entries
  std::vector<std::uint64_t> bytes;  // threads * calls_per_thread entries
};

// What the run saw: the heap's arena, every call's pointer (0: null), the pool's free pages after
// the allocation kernel and after a free kernel that frees every pointer (nulls included, in
// reverse call order), and the objects whose pattern (written over all their bytes by the
// allocating thread) a later kernel found broken.
struct HeapRun {
  std::uint64_t arena = 0, arena_bytes = 0, max_bytes = 0;
  std::vector<std::uint64_t> address;
  std::vector<std::uint64_t> free_after_alloc, free_after_free;
  std::uint64_t broken_patterns = 0;
  double init_ms = 0;
};

HeapRun run_heap(const HeapPlan& plan);

// Makes a heap with these parameters and returns the InputError's parameter ("" if none was
// thrown); bad parameters are rejected before the device is touched.
std::string heap_input_error(HeapAllocator allocator, std::uint64_t pages, std::uint64_t page_bytes,
                             std::uint64_t max_steps);

}  // namespace alloclab::gpu::test
