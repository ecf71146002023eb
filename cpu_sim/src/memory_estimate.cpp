#include "alloclab/cpu_sim/memory_estimate.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <thread>

#include "alloclab/core/errors.hpp"
#include "alloclab/cpu_sim/sim_table.hpp"

namespace alloclab::sim {

MemoryEstimate memory_estimate(const Scenario& s, const SimOptions& options, std::uint64_t trials) {
  const SimEntry* entry = SimTable::instance().find(s.algo);
  if (entry == nullptr)
    throw InputError("--allocator", std::string(name(s.algo)) + " has no simulator backend");
  if (entry->pool_bytes == nullptr)  // sim_table_test checks that every entry has one
    throw std::logic_error(std::string(name(s.algo)) + ": simulator entry without pool_bytes");
  const double page_set = 8 * std::ceil(static_cast<double>(s.T) / 64);  // one bit per page

  MemoryEstimate m;
  // The allocator's own structures, plus either the initial free set (while the pool is built)
  // or the used-page sets before and after the run (for the verification): at most two page
  // sets at once.
  m.pool = entry->pool_bytes(s) + 2 * page_set;

  // Working vectors per simulated thread (bytes): sequential: the service order's sort keys
  // (16) and copy (8); lockstep: the active list and spare probe (16) and a claim candidate (40).
  double per_thread = 0;
  if (options.mode == Mode::sequential) per_thread = 24;
  if (options.mode == Mode::lockstep) per_thread = 56;
  per_thread += entry->lane_bytes_per_thread;
  m.per_thread = per_thread * static_cast<double>(s.N);

  // Every trial's steps (4 B), first page (8 B) and service order (8 B) per thread.
  m.results = static_cast<double>(trials) * 20 * static_cast<double>(s.N);

  const unsigned threads = options.host_threads ? options.host_threads
                                                : std::max(1u, std::thread::hardware_concurrency());
  m.running_trials = options.mode == Mode::threads
                         ? 1
                         : static_cast<double>(std::clamp<std::uint64_t>(trials, 1, threads));
  return m;
}

}  // namespace alloclab::sim
