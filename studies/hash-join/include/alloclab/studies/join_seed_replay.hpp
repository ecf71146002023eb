// The hash join's page-request trace of the seeds' allocators (issue 17; the allocators the
// simulator runs but paper 000's model does not: Ouroboros, Gallatin, gg-tbuddy, DynaSOAr and its
// variants, BitmapAlloc, UAlloc), replayed in the CPU simulator in each simulator's own units.
// join_seed_prediction.hpp turns the replayed counts into milliseconds.
//
// Why a replay of its own (join_replay.hpp replays paper 000's allocators): these simulators
// count in their own unit (Ouroboros and Gallatin in 16 B, UAlloc in 8 B), some take a pool only
// in whole granules (Gallatin's 16 MiB segments), and their counts grow with the requests in
// flight (a semaphore, a block counter or a tree node that every request of a wave touches), so
// a lockstep replay of a wave costs about R^2 and the scale that join_replay.hpp keeps (the fill
// fraction, N/R waves) would still leave waves of thousands (gg-tbuddy's alone took 50 s).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "alloclab/core/result.hpp"
#include "alloclab/core/scenario.hpp"
#include "alloclab/studies/join_replay.hpp"

namespace alloclab::validation {

// The join's output page.
inline constexpr std::uint64_t kJoinPageBytes = 256;

// The trace of a verified join row of an allocator the simulator runs and join_trace() does not
// take; nullopt otherwise (Direct Output, paper 000's allocators, GPU-only ones, a row that was
// not verified or lacks getpage_calls or pages). Same fields and assumptions as join_trace.
std::optional<JoinTrace> seed_join_trace(const Record& row);

// A trace in the simulator's units: one request of `units` units (256 B / the allocator's fixed
// unit, 1 where its page is the join's) from a pool of pool_units units.
struct SeedUnits {
  std::uint64_t unit_bytes = kJoinPageBytes;
  unsigned units = 1;         // a request
  std::uint64_t granule = 0;  // the pool comes in whole granules of this many units (0: any)
};
SeedUnits seed_units(Algorithm a);

// How a trace is replayed. Every replay is lockstep (SIMT emulation: every request of a wave in
// flight at once), waves one after another on one pool, but scaled: the wave is s x R requests
// with s = min(1, wave_cap / reference_wave), at most waves_cap waves (the trace's N / R waves
// when fewer), on a pool sized so the replayed requests fill the trace's fraction N / T of it.
// reference_wave is the larger of the join's wave and its calibration's (join_seed_prediction.hpp)
// so both replay their waves at one s: counts that grow as a power of the requests in flight keep
// their ratio at any common s. A pool that must be whole granules is rounded up to them, and waves
// are added (up to max_requests in all) until the replayed requests fill the trace's fraction
// again. A pool above max_pool_units (or one granule, when that is larger) is capped there, with
// more of it taken than of the trace's pool: the small tables of Figure 12 take 1/8192 of 2^27
// pages, so keeping their fill would make Ouroboros zero 2^25 units of 16 B for 256 requests
// (most of the section's time). The cap binds only the 16 B-unit simulators (Ouroboros,
// Gallatin) on the tables up to 256K tuples; their steps do not depend on the pool's size there
// (ouro-p-s: 72.02 steps a request at 16K tuples on 2^21 pages and on 2^16 alike; Gallatin: 1),
// whereas DynaSOAr's and BitmapAlloc's do, and their pools stay under it.
struct SeedReplayLimits {
  std::uint64_t wave_cap = 256;
  std::uint64_t waves_cap = 4;
  std::uint64_t max_requests = std::uint64_t{1} << 14;
  std::uint64_t max_pool_units = std::uint64_t{1} << 22;
};

struct SeedReplayPlan {
  double factor = 1;              // s
  std::uint64_t wave = 0;         // requests a wave (one lockstep run)
  std::uint64_t waves = 0;        // waves replayed
  std::uint64_t trace_waves = 0;  // ceil(N / R) of the trace
  std::uint64_t pool_units = 0;   // the replayed pool, in the simulator's units
  bool pool_capped = false;       // at max_pool_units: more of it taken than of the trace's
  double trace_fill = 0;          // N / T of the trace
  SeedUnits units;
  std::uint64_t requests() const { return wave * waves; }
  // "lockstep, 4 waves of 256 (s = 0.00379; the trace: 148 waves) on 13744 pages": what the row
  // says about its replay.
  std::string describe() const;
};
SeedReplayPlan seed_replay_plan(const JoinTrace& t, std::uint64_t reference_wave,
                                const SeedReplayLimits& limits = {});

// The replayed counts per GETPAGE (per request of the replay), each wave verified (sim::verify: no
// unit handed out twice, none lost). tas: steps (the unit of AlgorithmInfo::step_definition), was:
// the slowest lane of a warp, atomics: RunResult::atomics_issued, counts: the allocator's named
// op counts (RunResult::op_counts), all per request.
struct SeedReplay {
  SeedReplayPlan plan;
  double tas = 0, was = 0, atomics = 0;
  std::vector<std::pair<std::string, double>> counts;
  std::uint64_t replayed = 0, failed = 0;
};
// Throws InputError where the simulator takes no such pool (the row then says it is not replayed).
SeedReplay replay_seed_trace(const JoinTrace& t, const SeedReplayPlan& plan);

}  // namespace alloclab::validation
