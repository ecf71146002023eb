// The simulator's side of the Ouroboros configuration (core/ouroboros/config.hpp): its input
// check per mode and its default step bound.
#pragma once

#include <algorithm>
#include <cstdint>

#include "alloclab/core/ouroboros/config.hpp"
#include "alloclab/core/scenario.hpp"
#include "alloclab/cpu_sim/simulator.hpp"
#include "detail.hpp"

namespace alloclab::sim::detail {

// Requests in flight at once: one in sequential mode, one per host thread in threads mode, every
// thread in lockstep mode.
inline std::uint64_t ouro_waiters(const Scenario& s, const SimOptions& o) {
  switch (o.mode) {
    case Mode::sequential:
      return 1;
    case Mode::threads:
      return std::min<std::uint64_t>(s.N, resolve_host_threads(o.host_threads));
    case Mode::lockstep:
      break;
  }
  return s.N;
}

inline void check_ouro_scenario(const Scenario& s, const SimOptions& o) {
  ouro::check_scenario(std::string(name(s.algo)), s, ouro_waiters(s, o));
  ouro::check_queue_capacity(std::string(name(s.algo)), s, o.queue_capacity,
                             o.pages_per_thread.empty() ? s.N : 0, s.pages);
  for (const unsigned n : o.pages_per_thread)
    if (n < 1 || n > ouro::kUnitsPerChunk)
      throw InputError("--pages", std::string(name(s.algo)) + " serves requests of 1.." +
                                      std::to_string(ouro::kUnitsPerChunk) + " units of 16 B");
}

inline std::uint32_t ring_capacity(const Scenario& s, unsigned page_class,
                                   std::uint32_t configured = 0) {
  return ouro::ring_capacity(s.T, page_class, ouro::queue_capacity_of(configured));
}

// A request never searches; the bound only ends a reserver's wait. In lockstep the semaphore's
// CAS loop admits one group per round and a grower writes one slot per round, so a wait can last
// about (groups + pages per chunk) rounds while others are served: the default leaves 16 times
// that.
inline std::uint64_t ouro_default_step_bound(const Scenario& s) {
  const std::uint64_t rounds = 16 * (s.N + 2 * ouro::kUnitsPerChunk) + 64;
  return std::min<std::uint64_t>(rounds, 4294967294ull);
}

}  // namespace alloclab::sim::detail
