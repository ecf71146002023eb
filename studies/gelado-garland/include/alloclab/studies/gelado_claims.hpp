// The claims of seed 001 (Gelado & Garland, PPoPP'19) that alloclab can check so far, each with
// its evidence from the model, the simulator and the hardware, and a verdict (ClaimCheck, as
// Ouroboros' in ouroboros_claims.hpp). The model and simulator evidence is computed each time
// from the step machines (lockstep runs of a few thousand threads, about a second together); the
// hardware evidence is read from the GPU rows of `alloclab semaphore --backend gpu` the report is
// given (DIR/semaphore/**.csv). The claims of UAlloc and `malloc` (Figure 7's failures at
// exhaustion) come from the layout model and the simulator, their GPU cells from Figure 7's GPU
// rows (DIR/ualloc/**.csv).
// studies/gelado-garland/ discusses each verdict.
#pragma once

#include <string>
#include <vector>

#include "alloclab/core/result.hpp"
#include "alloclab/validation/claims.hpp"

namespace alloclab::validation {

// The directory under a report's DIR that holds `alloclab semaphore --format csv` files.
inline constexpr const char* kSemaphoreDir = "semaphore";

// The directory under a report's DIR that holds Figure 7's GPU rows (`alloclab workload --backend
// gpu --workload alloc` of gg-malloc and cudamalloc: scripts/gpu.sh gelado-garland ualloc), every
// committed run's, copied by scripts/main-job.sh with the run's date first in each file's name.
inline constexpr const char* kUAllocDir = "ualloc";

// Every record of every DIR/semaphore/**.csv (none when the directory is missing).
std::vector<Record> read_semaphore_dir(const std::string& dir);
// Every record of every DIR/ualloc/**.csv, the files in name order (none when it is missing).
std::vector<Record> read_ualloc_dir(const std::string& dir);

// The directory under a report's DIR that holds `alloclab rcu --format csv` files (Figure 6).
inline constexpr const char* kRcuDir = "rcu";
std::vector<Record> read_rcu_dir(const std::string& dir);

// The checks, in the paper's order. `rows`: semaphore rows; only the GPU ones at the default
// back-off are used. `ualloc_rows`: Figure 7's GPU rows (read_ualloc_dir); `rcu_rows`: `alloclab
// rcu` rows (the GPU ones are used).
std::vector<ClaimCheck> gelado_claims(const std::vector<Record>& rows,
                                      const std::vector<Record>& ualloc_rows = {},
                                      const std::vector<Record>& rcu_rows = {});

// The claims of UAlloc and malloc (§3.1, §5.2, §5.3), part of gelado_claims: Figure 7's failures
// at exhaustion from model::gg_malloc_exhaustion and gg-ualloc / gg-malloc on a 1 MiB pool, and
// its throughput and failures on the GPU from `ualloc_rows`; §5.2's Figure 6
// (gelado_rcu_claim.cpp) among them, from `rcu_rows`.
std::vector<ClaimCheck> gelado_malloc_claims(const std::vector<Record>& ualloc_rows = {},
                                             const std::vector<Record>& rcu_rows = {});

// Figure 6: the delegation model, the simulator's list benchmark with both barriers, and the
// GPU rows of `alloclab rcu --backend gpu` among `rows`.
ClaimCheck rcu_delegation_claim(const std::vector<Record>& rows);

}  // namespace alloclab::validation
