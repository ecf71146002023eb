// `validate` on workload rows (workload_rows.hpp). Each check is a quantity the workload alone
// fixes, so it must hold exactly on every backend: a simulator row and a GPU row of the same
// point meet the same reference, and the verdict tables list them together (their backend column
// says which). Times, steps and the searching allocators' utilisation at out-of-memory depend on
// the backend and are shown by the report, not checked.
//
// The checks are Verdicts (verdict.hpp), so `validate`'s exit status, the report's summary and
// its verdict tables cover them with the sweep's checks. The workload's point goes into the
// verdict's PointKey as far as it fits (N, T = pool / page, A = T: the pool starts empty, pages
// per object); the rest (family, size, file and line, device) is in the explanation.
#pragma once

#include <vector>

#include "alloclab/validation/verdict.hpp"
#include "alloclab/validation/workload_rows.hpp"

namespace alloclab::validation {

// The checks, as the verdicts name them (claims of the report's summary).
inline constexpr const char* kWorkloadVerifiedCheck = "workload: verified";
// alloc, mixed, fragmentation: each of N threads asks once.
inline constexpr const char* kWorkloadRequestsCheck = "workload: requests = N";
// alloc, mixed, fragmentation of page allocators on an ample pool (kAmplePoolShare).
inline constexpr const char* kWorkloadNoFailureCheck =
    "workload: no failed request on an ample pool";
// alloc, fragmentation, oom with one object size: the definition of utilisation.
inline constexpr const char* kWorkloadUtilisationCheck =
    "workload: utilisation = allocs x size / pool";
// oom of an allocator that hands out every free page before a request fails (the queue).
inline constexpr const char* kWorkloadFillsPoolCheck = "workload oom: every page handed out";

// A pool is ample for N objects when their pages are at most this share of it. Then a random
// probe finds a free page (word bit) with probability at least 3/4, and a request gives up only
// after the simulator's step bound (at least 64 steps: docs/simulator.md) of misses, probability
// below 4^-64; a failed request there is a bug, not bad luck.
inline constexpr double kAmplePoolShare = 0.25;

// Relative tolerance of the exact checks: the rows hold means over trials, printed exactly
// (shortest round-trip), so only the mean's own rounding can differ.
inline constexpr double kWorkloadExactTolerance = 1e-9;

std::vector<Verdict> workload_verdicts(const std::vector<WorkloadRow>& rows);

}  // namespace alloclab::validation
