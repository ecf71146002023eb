// Gelado & Garland's mechanisms as `alloclab trace` shows them (PPoPP'19; DOI
// 10.1145/3293883.3295727): Figure 1 (the counting and the bulk semaphore) and UAlloc's bins,
// each run on the step machines of core/gelado with the host atomics policy, one thread's step
// at a time. Reached by the tests; registered in the trace table by their own files.
#pragma once

#include "alloclab/cli/trace_table.hpp"

namespace alloclab::studies {

// --figure 1a | 1b: 8 threads wait for 1 unit each from an empty semaphore, batches of 4, in
// the order of the paper's prose (§3.2, §3.3); one event per step or batch delivered, with C, E
// and R (S for the counting semaphore) after it. `bulk`: 1(b), else 1(a).
cli::TraceDocument semaphore_figure1_trace(bool bulk);

// --allocator gg-ualloc: the --ops (aBYTES[xK], fI) one request at a time on a pool of --pool
// bytes (default 1 MiB, chunks of 64 bins), one arena; after each, the chunks' bins and each used
// class's free list and semaphore.
cli::TraceDocument ualloc_trace(const cli::TraceRequest& r);

}  // namespace alloclab::studies
