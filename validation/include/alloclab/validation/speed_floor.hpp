// The floor of a speed verdict (issue 37, part 4): a speed claim of a paper that alloclab's
// implementation misses is "does not hold" only where the implementation is shown near what its
// design allows on that GPU; further than kFloorFactor above that floor the miss says more about
// alloclab's code than about the paper, and the claim is "not reproduced". The design floor is
// the implementation's atomics per request (its own counters) times the requests, at the GPU's
// measured atomic throughput (gpu_bench's floor row: one uncontended atomicOr a thread), or a
// bump allocator's time on the same workload (the plug-in ext-bump) where one was measured.
// docs/validation-and-reports.md ("Speed verdicts and their floor") gives the reason.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "alloclab/validation/claims.hpp"

namespace alloclab::validation {

// Above this many times its design floor, an implementation's miss is alloclab's, not the
// paper's: a factor of 2 leaves room for the work a request does besides its atomics (loads,
// the kernel's launch) while no engineering can close a larger gap in the GPU's favour.
inline constexpr double kFloorFactor = 2.0;

// The GPU's atomic throughput, as gpu_bench measured it.
struct AtomicThroughput {
  double atomics_per_s = 0;
  std::string source;  // "reports/data/nvidia-h200/bench_2.json, floor: atomicOr, Philox word"
};

// The fastest of the gpu_bench floor rows ("kernel" starting "floor:", one atomic a thread, so
// allocs_per_s is atomics per second) in every bench*.json and gpu_bench*.json under
// <data_dir>/<device_slug>/ (subfolders too). nullopt with `why` set when there is none.
std::optional<AtomicThroughput> load_atomic_throughput(const std::string& data_dir,
                                                       const std::string& device_slug,
                                                       std::string& why);
// The same for a device's name as the rows give it ("NVIDIA H200 (0000:00:06.0)"), from
// model::default_data_dir() ($ALLOCLAB_DATA_DIR, else the source tree's reports/data).
std::optional<AtomicThroughput> device_atomic_throughput(const std::string& device,
                                                         std::string& why);

// The bump allocator plug-in ext-bump's alloc kernel (one relaxed fetch_add a thread,
// docs/plugin-allocators.md) at `requests` requests of `size_bytes`, cold (mode "gpu"), as a
// committed workload run measured it: the first verified row of every workloads/**/alloc.csv
// under <data_dir>/<slug(device)>/ (model::default_data_dir()). nullopt with `why` set where
// none ran that workload.
struct BumpTime {
  double ms = 0;
  std::string source;  // "nvidia-h200/plugins-b042d4c/workloads/gpu/alloc.csv, ext-bump"
};
std::optional<BumpTime> device_bump_time(const std::string& device, double requests,
                                         double size_bytes, std::string& why);

// A design floor: its time and how it was computed (with the rows it came from).
struct DesignFloor {
  double ms = 0;
  std::string how;
};

// atomics_per_request x requests / atomics_per_s, in ms. `rows` names the counted rows.
// Throws std::invalid_argument for a negative count, no requests or no throughput.
DesignFloor atomics_floor(double atomics_per_request, double requests,
                          const AtomicThroughput& throughput, std::string_view rows);
// A bump allocator's measured time on the same workload (one atomic a request, nothing else:
// the plug-in ext-bump, or the hash join's Direct Output); `rows` says which and where.
DesignFloor bump_floor(double bump_ms, std::string_view rows);

// One timed point of a speed claim: what was measured, and its floor (or why there is none).
struct FloorPoint {
  std::string label;  // "8 B", "ouro-p-s, 10000 x 256 B"
  double measured_ms = 0;
  std::optional<DesignFloor> floor;
  std::string no_floor;  // why there is no floor (no counters in the row, ...)
  double factor() const { return floor && floor->ms > 0 ? measured_ms / floor->ms : 0; }
};

// Where `p` has no floor (no counters), the bump allocator's time on the same workload, if one
// ran it (device_bump_time): cold points only (`cold`), as the bump's rows are.
void bump_fallback(FloorPoint& p, const std::string& device, double requests, double size_bytes,
                   bool cold);

// A floor point from a row's counters: a floor where atomics_per_request and throughput are
// given, else `no_floor` says which is missing.
FloorPoint floor_point(std::string label, double measured_ms,
                       std::optional<double> atomics_per_request, double requests,
                       const std::optional<AtomicThroughput>& throughput,
                       std::string_view no_throughput_why, std::string_view rows);

// The verdict of a missed speed claim.
struct FloorVerdict {
  Judgement judgement = Judgement::unset;
  double factor = 0;  // the largest measured / floor over the points with a floor (0: none)
  std::string text;   // the sentence, starting with the judgement's name
};

// Judges a missed speed claim by its points:
//  * a point more than kFloorFactor above its floor: not_reproduced, "not reproduced:
//    implementation N× above its design floor (...)", N the largest factor, its floor shown;
//  * else a point without a floor: not_reproduced, "not reproduced: no design floor for ...";
//  * else (every point within kFloorFactor of its floor): does_not_hold, "does not hold: the
//    implementation is within N× of its design floor (...)".
// No points at all: not_reproduced, the floor cannot be computed.
FloorVerdict judge_speed_miss(const std::vector<FloorPoint>& points);
FloorVerdict judge_speed_miss(const FloorPoint& point);

// "8 B 23.0× (floor 333 ms); 64 B no floor (no counters)": every point's factor, for the
// evidence cell of a claim's row.
std::string floor_cells(const std::vector<FloorPoint>& points);

}  // namespace alloclab::validation
