// DynaSOAr's hierarchical bitmaps as `alloclab trace --allocator dynasoar` shows them (Springer &
// Masuhara, "DynaSOAr: A Parallel Memory Allocator for Object-Oriented Programming on GPUs with
// Efficient Memory Access", ECOOP 2019, DOI 10.4230/LIPIcs.ECOOP.2019.16): objects allocated and
// freed by the step machines of core/dynasoar (AllocOp, DeallocOp) with the host atomics policy,
// one operation at a time, and after each the bits of free, allocated[T] and active[T] level by
// level, with the bits each operation changed (the set-first / clear-last propagation).
// Reached by the tests; registered in the trace table by its own file.
#pragma once

#include "alloclab/cli/trace_table.hpp"

namespace alloclab::studies {

// --allocator dynasoar (rotation and coalescing on), dynasoar-norot, dynasoar-nocoal; --T pages
// (64 .. 16384, default 8192: 128 blocks, bitmaps of 2 levels); --ops aN[xK] (K lanes of one
// warp, the a's index, asking an object of N pages, 1 .. 64), fI; --seed: the rotation's seed.
cli::TraceDocument dynasoar_trace(const cli::TraceRequest& r);

}  // namespace alloclab::studies
