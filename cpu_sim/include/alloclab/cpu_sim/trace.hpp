// A lockstep run recorded round by round, for `alloclab trace` (teaching): every unfinished
// thread's probe of the round, who won a contested page, and the pool after the round. Recorded
// by the per-thread engine (RW, RW-BM) when SimOptions::trace points at one; meant for small
// cases (it keeps a copy of the pool per round).
#pragma once

#include <cstdint>
#include <vector>

#include "alloclab/core/scenario.hpp"

namespace alloclab::sim {

struct TraceProbe {
  std::uint64_t thread = 0;
  std::uint64_t target = 0;  // the page (RW) or the word (RW-BM) the thread read
  bool saw_free = false;     // the read found a free page (a free bit)
  std::int64_t won = -1;     // the page the thread claimed this round; -1: none
  // Among the round's claimants (threads that saw a free page), the order in which their atomic
  // claims landed (0 first: the lowest round priority); meaningful where saw_free.
  std::uint64_t claim_order = 0;
};

struct TraceRound {
  std::vector<TraceProbe> probes;  // one per thread unfinished at the start, by thread id
  std::vector<bool> used_after;    // page -> used, after the round's claims
};

struct LockstepTrace {
  std::vector<bool> used_before;  // the pool before the first round
  std::vector<TraceRound> rounds;
};

// The same requests served one at a time (paper 000 §3.2.2's sequential treatment): threads in
// the order their claims landed in the lockstep run (round, then claim order), each walking the
// probes it made there (its own random stream) against the pool left by those before it, taking
// the first free page it reads (RW-BM: the word's lowest free bit). For each thread: the page it
// takes and the probes it needs; -1 / its probe count where it took none.
struct ReplayedRequest {
  std::int64_t page = -1;
  std::uint64_t probes = 0;
};
std::vector<ReplayedRequest> replay_one_at_a_time(const Scenario& s, const LockstepTrace& t);

// One lockstep trial of s (trial_seed(s.seed, trial), verified as `simulate` verifies it),
// recorded. RW and RW-BM only (InputError "--allocator" otherwise).
LockstepTrace trace_lockstep(const Scenario& s, std::uint64_t trial = 0);

}  // namespace alloclab::sim
