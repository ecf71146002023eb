// trace_lockstep (trace.hpp): one verified lockstep run with the engine's round record switched on.
#include "alloclab/cpu_sim/trace.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "alloclab/core/errors.hpp"
#include "alloclab/cpu_sim/simulator.hpp"

namespace alloclab::sim {

LockstepTrace trace_lockstep(const Scenario& s, std::uint64_t trial) {
  if (s.algo != Algorithm::rw && s.algo != Algorithm::rwbm)
    throw InputError("--allocator", std::string(name(s.algo)) +
                                        " is not traced yet (a trace follows rw and rwbm, whose "
                                        "threads probe on their own)");
  LockstepTrace t;
  SimOptions o;
  o.mode = Mode::lockstep;
  o.host_threads = 1;
  o.trace = &t;
  check_input(s, o);
  (void)run_once(s, o, trial);
  return t;
}

std::vector<ReplayedRequest> replay_one_at_a_time(const Scenario& s, const LockstepTrace& t) {
  if (s.algo == Algorithm::rwbm && s.bit_choice != BitChoice::lowest)
    throw InputError("--bit-choice", "the replay takes the lowest free bit of a word");
  // Each thread's probes in order, and where it finished: (round, claim order).
  std::vector<std::vector<std::uint64_t>> probes(s.N);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> finished(s.N, {~0ull, ~0ull});
  for (std::uint64_t r = 0; r < t.rounds.size(); ++r)
    for (const auto& p : t.rounds[r].probes) {
      probes[p.thread].push_back(p.target);
      if (p.won >= 0) finished[p.thread] = {r, p.claim_order};
    }
  std::vector<std::uint64_t> order(s.N);
  for (std::uint64_t i = 0; i < s.N; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint64_t a, std::uint64_t b) { return finished[a] < finished[b]; });
  std::vector<bool> used = t.used_before;
  std::vector<ReplayedRequest> out(s.N);
  for (const std::uint64_t i : order) {
    ReplayedRequest& q = out[i];
    for (const std::uint64_t target : probes[i]) {
      ++q.probes;
      if (s.algo == Algorithm::rw) {
        if (!used[target]) q.page = static_cast<std::int64_t>(target);
      } else {  // the word's lowest free bit
        for (std::uint64_t p = target * s.w; p < std::min<std::uint64_t>((target + 1) * s.w, s.T);
             ++p)
          if (!used[p]) {
            q.page = static_cast<std::int64_t>(p);
            break;
          }
      }
      if (q.page >= 0) {
        used[static_cast<std::uint64_t>(q.page)] = true;
        break;
      }
    }
  }
  return out;
}

}  // namespace alloclab::sim
