// Lockstep models of Figure 5's benchmark (Gelado & Garland, PPoPP'19 §5.1; `alloclab semaphore`):
// N threads each take one unit, a growth of B units takes L turns before its one atomic, and in
// lockstep every thread steps once a round, in thread order. Derived by hand, confirmed against
// the simulator point by point (validation/tests/semaphore_model_test.cpp).
//
// One CAS on the semaphore's word succeeds per round: the first thread in order whose CAS carries
// the current word wins, and every other CAS of that round was computed from a word it changed.
//
// Counting semaphore: a grower sets S = -1 and everybody blocks until its signal; a growth holds
// the word for its L turns plus its claim, publish and signal (3 steps). So the N decisions take
// N rounds and the ceil(N / B) growths L + 3 each, in turn:
//   rounds ~= N + ceil(N / B) (L + 3)   (plus a few rounds of the first read and the last ticket).
//
// Bulk semaphore: a grower promises B - 1 units, which the next B - 1 deciders reserve, one per
// round; the B-th decider finds C + E - R < 1 and grows. So a growth starts every B rounds and
// lasts L + 3 rounds, and at most ceil((L + 3) / B) of them overlap, never more than the
// ceil(N / B) batches there are:
//   peak concurrent growers = min(ceil((L + 3) / B), ceil(N / B)).
// The paper's "theoretical maximum", requests / batch, is reached once a growth outlasts the
// others' decisions (L + 3 >= about N): on a GPU the atomics' throughput stops it first (§5.1).
#pragma once

#include <algorithm>
#include <cstdint>

namespace alloclab::model {

namespace semaphore_detail {
inline std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) {
  return (a + b - 1) / b;
}
}  // namespace semaphore_detail

inline std::uint64_t counting_lockstep_rounds(std::uint64_t n, std::uint64_t batch,
                                              std::uint64_t grow_turns) {
  return n + semaphore_detail::ceil_div(n, batch) * (grow_turns + 3);
}

inline std::uint64_t bulk_lockstep_peak_growers(std::uint64_t n, std::uint64_t batch,
                                                std::uint64_t grow_turns) {
  using semaphore_detail::ceil_div;
  return std::min(ceil_div(grow_turns + 3, batch), ceil_div(n, batch));
}

}  // namespace alloclab::model
