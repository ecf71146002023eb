// The hash join's page-request trace (issue 17, paper 000 §5.2.3): what the probe kernel of one
// `alloclab join` row asked its allocator for, replayed in the CPU simulator and put through
// paper 000's model (steps per GETPAGE). join_prediction.hpp turns the steps into milliseconds.
//
// The trace of a row of allocator X: `getpage_calls` requests of one page each from a pool of
// `pages` pages, all free at the start and never freed; the lanes of a warp that ask together
// are getpage_calls / getpage_warp_calls; at most `resident_probe_threads` requests are in flight
// at once. Rows written before those two columns existed (the H200 run at 3bb5bfb) lack them:
// the trace then assumes 32 lanes (in Figure 12's setting every S tuple matches once, so every
// lane of a full warp asks at its first match) and every probe thread resident (one wave), and
// says so in `assumed`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "alloclab/core/algorithm.hpp"
#include "alloclab/core/result.hpp"
#include "alloclab/core/scenario.hpp"

namespace alloclab::validation {

// Bits per bitmap word of the GPU join's page heaps (gpu/src/page_heap_entry.cuh: 32-bit words).
inline constexpr unsigned kJoinWordBits = 32;

struct JoinTrace {
  Algorithm algo = Algorithm::rw;
  std::uint64_t tuples = 0;
  double skew = 0;
  std::uint64_t requests = 0;        // getpage_calls: one page each
  std::uint64_t pages = 0;           // the pool, all free at the start
  unsigned lanes = 32;               // lanes of a warp asking together, in [1, 32]
  std::uint64_t resident = 0;        // requests in flight at most (resident probe threads)
  std::vector<std::string> assumed;  // what the row lacked and the trace assumed instead
};

// The trace of a verified join row whose allocator the simulator runs with one-page requests;
// nullopt for Direct Output (no allocator), an allocator without a simulator, a row without
// getpage_calls or pages, or one that was not verified.
std::optional<JoinTrace> join_trace(const Record& row);

// The model's and the simulator's point of a trace: N = requests, A = T = pages, w = 32, lanes.
Scenario join_scenario(const JoinTrace& t);

// The scaled replay. A replay of N requests on T pages costs O(N) steps and O(T) memory; the
// report replays every row, so large traces are scaled by s = min(1, max_requests / N,
// max_pages / T): N' = round(s N), T' = round(s T), the wave size R' = round(s R) (at least one
// warp). That keeps the fill fraction N/T, the number of waves N/R and the density of requests
// in flight R/T, which is what a search's steps depend on: a request's chance to hit a free page
// is the pool's free fraction when it asks, and a collision needs two requests in flight on one
// page (or word) of T. The lanes are kept. Steps that count positions in a serialisation (the
// queue: the request served k-th in its wave takes k steps) depend on R itself and are not kept;
// the queue's kernel-time fit counts requests, not steps, so its prediction does not use them.
struct ReplayLimits {
  std::uint64_t max_requests = std::uint64_t{1} << 15;
  std::uint64_t max_pages = std::uint64_t{1} << 20;
  // Trials (seeds, each on a fresh pool) are added until this many requests are replayed in all
  // (small traces).
  std::uint64_t min_requests_replayed = std::uint64_t{1} << 13;
};

struct ReplayScale {
  double factor = 1;           // s
  std::uint64_t requests = 0;  // N' = waves x wave
  std::uint64_t pages = 0;     // T'
  std::uint64_t wave = 0;      // requests a wave (one lockstep run)
  std::uint64_t waves = 0;     // ceil(N / R), kept
};
ReplayScale replay_scale(const JoinTrace& t, const ReplayLimits& limits);

// Steps per GETPAGE of the replay: lockstep mode (every request of a wave in flight at once, the
// SIMT emulation), waves one after another on one pool, each wave a run of `wave` threads that
// finds the pool as the waves before left it. Every wave is verified (sim::verify: no page handed
// out twice, none lost). TAS: mean steps of a request; WAS: mean over warps (lanes consecutive
// threads) of the slowest lane's steps; both averaged over waves and trials, weighted by requests
// and warps.
struct ReplaySteps {
  double tas = 0, was = 0;
  std::uint64_t replayed = 0;  // requests replayed, all trials
  std::uint64_t failed = 0;    // requests that found no page (out of memory)
  std::uint64_t trials = 0;
  ReplayScale scale;
};
ReplaySteps replay_join_trace(const JoinTrace& t, const ReplayLimits& limits = {});

// The scaled point itself: join_scenario(t) with N = the scale's requests and A = T = its pages.
Scenario scaled_scenario(const JoinTrace& t, const ReplayScale& scale);

// The model's steps per GETPAGE (model::evaluate, the sequential schedule) at a point: nullopt
// where the allocator has no model or the model has no tas/was there. The report evaluates it at
// the replay's scaled point, for the same reason the replay is scaled (CoRW's warp chain takes
// about 2 s at 10^7 requests) and so that model and simulation are compared at one point: the
// sequential model's steps depend on the fill fraction too (the queue's count positions, (N+1)/2,
// and its fit uses N alone).
struct ModelSteps {
  double tas = 0, was = 0;
  Scenario at;
};
std::optional<ModelSteps> join_model_steps(const Scenario& s);

}  // namespace alloclab::validation
