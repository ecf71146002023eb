// How many RCU barriers the conditional barrier (Gelado & Garland, PPoPP'19 §4.2.1) avoids, and
// what that does to the time the writers spend in barriers (Figure 6). Derived from §4.2.1's
// rule alone, not from alloclab's code: a barrier holds the RCU mutex for D rounds (flip the
// epoch, drain the readers, run the callbacks); one barrier at most waits to take it over; a
// conditional barrier that finds one waiting returns at once (its callback goes to the waiter).
//
// Event model (writers arriving at their barrier at given rounds, in order):
//   nobody holds the mutex (the last hold ended at or before the arrival, no waiter): it holds,
//     until arrival + D;
//   the mutex is held and nobody waits: it waits, and holds from the current hold's end for D;
//   somebody waits: it delegates (conditional), or queues behind everybody (plain: every writer
//     holds once, one after the other: end = max(previous end, arrival) + D).
// Evenly spaced arrivals (every g rounds, W writers, g < D): every D-round hold admits one
// waiter and the others delegate, so the full barriers are
//     2 + floor((W - 1) g / D)   (at most W; W when g >= D: no two barriers overlap),
// the avoided fraction is 1 - barriers / W -> 1 - g / D, and the writers' barrier time falls
// from W D (plain) to about (barriers - 1) D: a speed-up of about c = D / g, the writers that
// arrive during one hold ("concurrent writers"). Hence Figure 6's shape: near 1 when writers are
// few against the readers or the threads are few (g >= D), growing with the writers.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace alloclab::model {

struct RcuBarrierModel {
  std::uint64_t barriers = 0;     // full barriers run
  std::uint64_t delegations = 0;  // conditional barriers that returned at once
  double finish = 0;              // the round the last barrier ends
  double avoided_fraction() const {
    const std::uint64_t w = barriers + delegations;
    return w ? static_cast<double>(delegations) / static_cast<double>(w) : 0.0;
  }
};

// `arrivals` in any order (sorted here); `hold` D > 0 rounds.
inline RcuBarrierModel conditional_barriers(std::vector<double> arrivals, double hold) {
  std::sort(arrivals.begin(), arrivals.end());
  RcuBarrierModel m;
  double hold_end = -1e300;
  bool waiter = false;
  for (double t : arrivals) {
    if (waiter && hold_end <= t) {  // the waiter took over when the hold ended
      hold_end += hold;
      waiter = false;
    }
    if (hold_end <= t) {
      hold_end = t + hold;
      ++m.barriers;
    } else if (!waiter) {
      waiter = true;
      ++m.barriers;
    } else {
      ++m.delegations;
    }
  }
  m.finish = waiter ? hold_end + hold : std::max(hold_end, 0.0);
  return m;
}

inline RcuBarrierModel plain_barriers(std::vector<double> arrivals, double hold) {
  std::sort(arrivals.begin(), arrivals.end());
  RcuBarrierModel m;
  double end = -1e300;
  for (double t : arrivals) {
    end = std::max(end, t) + hold;
    ++m.barriers;
  }
  m.finish = std::max(end, 0.0);
  return m;
}

// The closed form for W writers arriving every g rounds (g > 0, D > 0).
inline std::uint64_t evenly_spaced_conditional_barriers(std::uint64_t writers, double gap,
                                                        double hold) {
  if (writers <= 1 || gap >= hold) return writers;
  const auto extra = static_cast<std::uint64_t>(static_cast<double>(writers - 1) * gap / hold);
  return std::min<std::uint64_t>(writers, 2 + extra);
}

// The barrier time's speed-up, plain over conditional, for the same evenly spaced arrivals:
// (the plain chain's end) / (the conditional chain's end), both from the first arrival.
inline double evenly_spaced_speedup(std::uint64_t writers, double gap, double hold) {
  std::vector<double> a(writers);
  for (std::uint64_t k = 0; k < writers; ++k) a[k] = static_cast<double>(k) * gap;
  const double plain = plain_barriers(a, hold).finish;
  const double cond = conditional_barriers(a, hold).finish;
  return cond > 0 ? plain / cond : 1.0;
}

}  // namespace alloclab::model
