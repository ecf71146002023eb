// The stateless explorer: every execution starts from the Program's initial state and follows a
// schedule prefix, then extends it. Dynamic partial-order reduction (Flanagan & Godefroid,
// "Dynamic partial-order reduction for model checking software", POPL 2005,
// doi:10.1145/1040305.1040315) with sleep sets (Godefroid, LNCS 1032, 1996): two accesses are
// dependent when they touch the same bytes and one of them may write. An optional preemption
// bound (Musuvathi & Qadeer, "Iterative context bounding for systematic testing of
// multithreaded programs", PLDI 2007, doi:10.1145/1250734.1250785) limits the schedules to those
// that switch away from a runnable thread at most P times.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "alloclab/check/program.hpp"
#include "alloclab/check/scheduler.hpp"

namespace alloclab::check {

struct ExploreOptions {
  std::optional<unsigned> preemptions;  // none: exhaustive
  bool dpor = true;                     // false: sleep sets only (every enabled thread tried)
  ExecutionLimits limits;
  std::uint64_t max_executions = 20'000'000;  // a safety net; reaching it is reported
  // After the first violation, how many more executions to search for a shorter schedule.
  std::uint64_t after_violation = 2000;
};

struct ExploreStats {
  std::uint64_t executions = 0;         // complete executions (every thread finished or deadlock)
  std::uint64_t sleep_blocked = 0;      // prefixes cut because every enabled thread slept
  std::uint64_t pruned_bound = 0;       // schedules cut by a step bound
  std::uint64_t pruned_preemption = 0;  // alternatives not taken: past the preemption bound
  std::uint64_t spin_waits = 0;         // states in which a spinning thread was disabled (each
                                        // cuts the unfair schedules that spin there again)
  std::uint64_t steps = 0;              // accesses executed, replays included
  std::uint64_t max_depth = 0;
  bool complete = true;  // false: stopped at max_executions or after a violation
  double seconds = 0;
};

struct Violation {
  std::string message;
  std::vector<std::size_t> schedule;  // the thread that made each access, from the start
};

struct ExploreResult {
  ExploreStats stats;
  std::optional<Violation> violation;  // the shortest one found
  // The shortest one of each kind (the message up to its first ':'), in the order first found.
  std::vector<Violation> kinds;
};

ExploreResult explore(Program& p, const ExploreOptions& o);

// Runs one schedule from the initial state; on_step(t, access) after each access. Returns the
// violation met, if any ("" otherwise). A schedule that names a thread that cannot run is an
// error (std::invalid_argument).
struct ReplayStep {
  std::size_t thread = 0;
  Access access;
  std::string doing;  // what the thread was doing (before the access)
  std::string state;  // the shared state after it
  std::string where;  // the accessed location's name
};
struct ReplayResult {
  std::vector<ReplayStep> steps;
  std::string violation;
};
ReplayResult replay(Program& p, const std::vector<std::size_t>& schedule,
                    const ExecutionLimits& limits = {});

}  // namespace alloclab::check
