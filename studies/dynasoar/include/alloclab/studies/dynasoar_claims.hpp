// The claims of seed 004 (Springer & Masuhara, ECOOP'19: DynaSOAr; digest B.6 and the figures of
// B.8) that alloclab can check, as ClaimCheck rows (validation/claims.hpp): the models of
// model/dynasoar.hpp and the simulator (the typed heap, its Wa-Tor and linux-scalability, the four
// allocators' lockstep runs) evaluated when the report is made (about two seconds), and the
// hardware read from the GPU rows of the alloc workload the report is given (DIR/dynasoar/**.csv,
// copied by scripts/main-job.sh from reports/data/<gpu>/dynasoar-*/alloc.csv) and of the
// linux-scalability runs at the paper's size (`alloclab measure` rows, linux_scalability_*.csv of
// the newest dynasoar-* that has them). Claims without evidence say "not measured" and why.
// studies/dynasoar/ discusses each verdict.
#pragma once

#include <string>
#include <vector>

#include "alloclab/core/result.hpp"
#include "alloclab/validation/claims.hpp"

namespace alloclab::validation {

// The directory under a report's DIR that holds the GPU's `alloclab workload` rows of the four
// and their `alloclab measure` rows of linux-scalability (told apart by their columns).
inline constexpr const char* kDynasoarDir = "dynasoar";

// Every record of every DIR/dynasoar/**.csv (none when the directory is missing).
std::vector<Record> read_dynasoar_dir(const std::string& dir);

// Ratios of alloc kernel times on the GPU rows (verified, workload alloc): `slow` over
// `dynasoar`, per (size, row order); empty when the rows lack either.
struct TimeRatios {
  double lo = 0, hi = 0;
  std::size_t pairs = 0;
  std::string device;
};
TimeRatios alloc_time_ratios(const std::vector<Record>& rows, const std::string& slow);

std::vector<ClaimCheck> dynasoar_claims(const std::vector<Record>& dir_rows);

// Fig. 14B (dynasoar_heap_claim.cpp): the model's bitmap levels, the simulator's memory operations
// an allocation and the GPU's alloc kernel at a fixed n over the heaps of the rows that
// is_heap_sweep_row picks (linux-scalability stopped by --max-n, no failing n).
bool is_heap_sweep_row(const Record& r);
ClaimCheck dynasoar_heap_size_claim(const std::vector<Record>& dir_rows);

}  // namespace alloclab::validation
