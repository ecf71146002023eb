// Gallatin's path of a request as `alloclab trace --allocator gallatin` shows it (McCoy & Pandey,
// "Gallatin: A General-Purpose GPU Memory Manager", PPoPP'24, DOI 10.1145/3627535.3638499):
// teams of lanes served by Ops::malloc_team and freed by Ops::free_slices (core/gallatin) with
// the host atomics policy, one team at a time. Reached by the tests; registered in the trace
// table by its own file.
#pragma once

#include "alloclab/cli/trace_table.hpp"

namespace alloclab::studies {

// The trace's scaled geometry: segments of 32 KiB and blocks of 8 slices (the paper's 16 MiB and
// 4096), so that class k still has 256 >> k blocks a segment and a block runs out in a few
// requests. --pool: 32 KiB .. 8 MiB of whole segments (default 4 MiB: 128 segments, vEB trees
// of 2 levels).
inline constexpr std::uint64_t kGallatinTraceSegmentBytes = 32 << 10;
inline constexpr std::uint32_t kGallatinTraceSlicesPerBlock = 8;

cli::TraceDocument gallatin_trace(const cli::TraceRequest& r);

}  // namespace alloclab::studies
