// What a run of Figure 5's benchmark (semaphore_bench.hpp) adds up to, and its verification:
// the same sums and checks for the simulator and the GPU, host side.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "alloclab/core/gelado/semaphore_bench.hpp"

namespace alloclab::gelado {

struct SemBenchSummary {
  SemBenchConfig config;
  std::uint64_t threads = 0;  // requesters: threads, or warp leaders taking 32 units each
  std::uint64_t took = 0, grew = 0, refused = 0, gave_up = 0;
  std::uint64_t bad_units = 0;  // tickets at or past the units delivered when checked
  // The shared words at the end.
  std::uint64_t batches_claimed = 0, delivered = 0, taken = 0;
  std::int64_t final_count = 0;                          // bulk: C; counting: S
  std::uint64_t final_expected = 0, final_reserved = 0;  // bulk only
  // Sums over the threads (SemBenchThreadResult), and the longest thread.
  std::uint64_t cas_attempts = 0, cas_failures = 0, spins = 0, reserves = 0, memory_ops = 0;
  std::uint64_t steps = 0;
  std::uint32_t max_steps = 0;
};

inline void add_thread(SemBenchSummary& s, const SemBenchThreadResult& r) {
  switch (r.outcome) {
    case SemBenchOutcome::took:
      ++s.took;
      break;
    case SemBenchOutcome::grew:
      ++s.grew;
      break;
    case SemBenchOutcome::refused:
      ++s.refused;
      break;
    case SemBenchOutcome::gave_up:
    case SemBenchOutcome::pending:
      ++s.gave_up;
      break;
  }
  if (!r.unit_ok) ++s.bad_units;
  s.cas_attempts += r.cas_attempts;
  s.cas_failures += r.cas_failures;
  s.spins += r.spins;
  s.reserves += r.reserves;
  s.memory_ops += r.memory_ops;
  s.steps += r.steps;
  s.max_steps = std::max(s.max_steps, r.steps);
}

inline void take_words(SemBenchSummary& s, const SemBenchWords& w) {
  s.batches_claimed = w.batches.v;
  s.delivered = w.delivered.v;
  s.taken = w.taken.v;
  if (s.config.kind == SemaphoreKind::bulk) {
    const SemCounters c = BulkWord::unpack(w.semaphore.v);
    s.final_count = c.count;
    s.final_expected = c.expected;
    s.final_reserved = c.reserved;
  } else {
    s.final_count = counting_unpack(w.semaphore.v);
  }
}

// "" when the run is consistent, else the first broken property, one line.
inline std::string verify_sem_bench(const SemBenchSummary& s) {
  const auto n = [](std::uint64_t v) { return std::to_string(v); };
  const std::uint64_t b = s.config.batch, units = s.config.units;
  if (s.took + s.grew + s.refused + s.gave_up != s.threads)
    return "threads: took " + n(s.took) + " + grew " + n(s.grew) + " + refused " + n(s.refused) +
           " + gave up " + n(s.gave_up) + " != " + n(s.threads);
  if (s.bad_units != 0)
    return n(s.bad_units) + " threads were handed a unit before its batch was delivered";
  if (s.taken != (s.took + s.grew) * units)
    return "units handed out " + n(s.taken) + " != " + n(s.took + s.grew) + " requests x " +
           n(units) + " units";
  const std::uint64_t granted = std::min(s.batches_claimed, s.config.batches_available);
  if (s.grew != granted || s.refused != s.batches_claimed - granted)
    return "growers: " + n(s.grew) + " delivered and " + n(s.refused) + " refused of " +
           n(s.batches_claimed) + " claims with " + n(s.config.batches_available) + " batches";
  if (s.delivered != s.grew * b)
    return "units delivered " + n(s.delivered) + " != " + n(s.grew) + " batches x " + n(b);
  if (s.final_expected != 0 || s.final_reserved != 0)
    return "the semaphore ended with promises or reservations open: E " + n(s.final_expected) +
           ", R " + n(s.final_reserved);
  if (s.final_count != static_cast<std::int64_t>(s.delivered - s.taken))
    return "the semaphore's count " + std::to_string(s.final_count) + " != units delivered " +
           n(s.delivered) + " - taken " + n(s.taken);
  if (s.gave_up == 0 && s.refused == 0 && b % units == 0 &&
      s.grew != (s.threads * units + b - 1) / b)
    // A growth starts only when every unit grown or promised is spoken for (C + E - R < n;
    // S < n; with B a multiple of n what is left is a multiple of n, so 0), so the batches are
    // exactly ceil(units asked / B).
    return "batches grown " + n(s.grew) + " != ceil(" + n(s.threads * units) + " / " + n(b) + ")";
  if (s.gave_up == 0 && s.refused > 0 && s.final_count >= static_cast<std::int64_t>(units))
    return n(s.refused) + " threads were refused while " + std::to_string(s.final_count) +
           " units stayed free";
  return {};
}

}  // namespace alloclab::gelado
