// The hash join's time with the seeds' allocators predicted from each allocator's own isolated
// GPU measurement (issue 17; studies/hash-join/README.md, "The seeds' allocators").
//
// The model (the isolated-rate model). The seeds' allocators have no time fit of their steps
// (model/kernel_time.hpp fits paper 000's), so their calibration is their own isolated H200 run
// of 256 B requests (`alloclab workload --workload alloc`, cold: a fresh pool, as every join
// starts): iso_ms for iso_N requests on a pool of iso_pool bytes. For a join row of X with N =
// getpage_calls:
//
//     alloc_ms(X)  = iso_ms x (N / iso_N) x (q_join / q_iso)
//     join_ms(X)   = join_ms(Direct Output, same tuples and skew) + alloc_ms(X)
//
// q_join and q_iso are the simulator's steps per request (TAS) of the join's trace and of the
// isolated run's, both replayed at one scale (join_seed_replay.hpp): the ratio carries what
// differs between the two (the requests in flight, the fill fraction, the pool). The isolated
// point is the allocator's nearest in requests (log scale) among the device's committed runs
// listed in <data_dir>/<device>/join_isolated.json, on a pool at least twice the requests' bytes
// (mostly free, as the join's). The isolated run is another kernel on an otherwise idle GPU: the
// model assumes an allocator's request costs in the probe kernel what it costs there, per step.
// The calibration never reads a join row, so no join row predicts itself.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "alloclab/core/result.hpp"
#include "alloclab/studies/join_seed_replay.hpp"
#include "alloclab/validation/claims.hpp"

namespace alloclab::validation {

// One isolated GPU measurement: the mean alloc_ms of the runs of one (allocator, N, pool).
struct IsolatedPoint {
  std::string allocator;
  std::uint64_t N = 0;
  std::uint64_t pool_bytes = 0;
  double alloc_ms = 0;
  unsigned runs = 0;
  std::string source;  // the file, relative to the device's data directory
};

// The points of the rows of one file: backend gpu, workload alloc, mode gpu (cold), size 256,
// verified, a pool of at least 2 x N x 256 B; runs of one (allocator, N, pool) averaged.
std::vector<IsolatedPoint> isolated_points(const std::vector<Record>& rows,
                                           const std::string& source);
// Every point of the files <data_dir>/<device_id>/join_isolated.json lists ({"sources": [paths
// relative to that directory]}); none, with `why`, where there is no such file.
std::vector<IsolatedPoint> load_isolated_points(const std::string& data_dir,
                                                const std::string& device_id, std::string& why);
// The allocator's point nearest N in log N (the larger on a tie); null where it has none.
const IsolatedPoint* nearest_isolated(const std::vector<IsolatedPoint>& points,
                                      const std::string& allocator, std::uint64_t N);

// The model's arithmetic: iso_ms x (requests / iso_N) x (q_join / q_iso).
double isolated_rate_ms(const IsolatedPoint& iso, std::uint64_t requests, double q_join,
                        double q_iso);

// The isolated run as a trace: iso_N requests of 256 B, its pool, 32 lanes, at most `resident`
// in flight (the join row's resident probe threads: the GPU's occupancy of the isolated kernel
// is not recorded, and the allocator's code is most of both kernels).
JoinTrace isolated_trace(Algorithm a, const IsolatedPoint& iso, std::uint64_t resident);

// Rows judged: from kJudgedFromTuples tuples on, or below that where the measured allocator cost
// is at least kDominantShare x Direct Output's join (the allocator is most of the join, so the
// join's run-to-run noise, about 2% of Direct Output's join, cannot decide it); never where the
// cost is within 2% of Direct Output's join. Judged within kJoinTolerance on the join time.
inline constexpr double kJudgedFromTuples = 1e6;
inline constexpr double kDominantShare = 10;
inline constexpr double kNoiseShare = 0.02;
inline constexpr double kJoinTolerance = 0.15;

struct SeedPrediction {
  std::string allocator;
  std::uint64_t tuples = 0;
  double skew = 0;
  std::uint64_t requests = 0;       // getpage_calls
  double measured_ms = 0;           // the row's join_ms
  std::optional<double> direct_ms;  // Direct Output's join_ms at the same tuples and skew
  double getpage_cycles_per_call = 0;
  std::optional<SeedReplay> replay;       // the join's trace
  std::optional<SeedReplay> calibration;  // the isolated run's trace, at the same scale
  std::optional<IsolatedPoint> isolated;
  std::optional<double> alloc_ms, join_ms;  // predicted
  std::string note;                         // why a replay or a prediction is missing
  std::optional<double> measured_cost() const {
    return direct_ms ? std::optional(measured_ms - *direct_ms) : std::nullopt;
  }
  std::optional<double> join_error() const {
    return join_ms ? std::optional((*join_ms - measured_ms) / measured_ms) : std::nullopt;
  }
  bool judged() const;
};

// One entry per row of an allocator seed_join_trace() takes, or would take had the row been
// verified (those say why not), in the rows' order.
std::vector<SeedPrediction> predict_seed_join(const std::vector<Record>& rows,
                                              const std::vector<IsolatedPoint>& isolated,
                                              const SeedReplayLimits& limits = {});

// The report's row: per allocator, its judged rows within kJoinTolerance on the join.
ClaimCheck seed_prediction_claim(const std::vector<SeedPrediction>& p, const std::string& device,
                                 const std::string& note);

}  // namespace alloclab::validation
