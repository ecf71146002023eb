#include "alloclab/cli/resource_limits.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <thread>

#include "alloclab/core/errors.hpp"

namespace alloclab::cli {

SimulatorMemory simulator_memory(const Scenario& s, const sim::SimOptions& options,
                                 std::uint64_t trials) {
  const bool per_warp = s.algo == Algorithm::corw || s.algo == Algorithm::corw_lockmap ||
                        s.algo == Algorithm::rwmalloc;
  const bool page_bitmap = s.algo == Algorithm::rw || s.algo == Algorithm::queue;
  const double T = static_cast<double>(s.T), N = static_cast<double>(s.N);
  const double words = std::ceil(T / (page_bitmap ? 64.0 : std::max(1u, s.w)));
  const double page_set = 8 * std::ceil(T / 64);  // one bit per page, packed

  SimulatorMemory m;
  // The bitmap, plus either the initial free set (while the pool is built) or the used-page
  // sets before and after the run (for the verification): at most two page sets at once.
  m.pool = 8 * words + 2 * page_set;
  if (s.algo == Algorithm::queue) m.pool += 8 * T + 8 * static_cast<double>(s.A);
  if (s.algo == Algorithm::corw_lockmap) m.pool += 8 * std::ceil(words / 64);  // the LockMap

  // Working vectors per simulated thread (bytes): sequential: the service order's sort keys
  // (16) and copy (8); lockstep: the active list and spare probe (16) and a claim candidate (40).
  double per_thread = 0;
  if (options.mode == sim::Mode::sequential) per_thread = 24;
  if (options.mode == sim::Mode::lockstep) per_thread = 56;
  if (per_warp) per_thread += 17;  // each lane's word and snapshot (and LockMap flag)
  m.per_thread = per_thread * N;

  // Every trial's steps (4 B), first page (8 B) and service order (8 B) per thread.
  m.results = static_cast<double>(trials) * 20 * N;

  const unsigned threads = options.host_threads ? options.host_threads
                                                : std::max(1u, std::thread::hardware_concurrency());
  m.running_trials = options.mode == sim::Mode::threads
                         ? 1
                         : static_cast<double>(std::clamp<std::uint64_t>(trials, 1, threads));
  return m;
}

std::uint64_t physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return 0;
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_size);
}

std::string format_bytes(double bytes) {
  static constexpr const char* kUnits[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"};
  std::size_t u = 0;
  while (bytes >= 1000 && u + 1 < std::size(kUnits)) {
    bytes /= 1000;
    ++u;
  }
  return fmt::format("{:.3g} {}", bytes, kUnits[u]);
}

void check_simulator_memory(const Scenario& s, const sim::SimOptions& options, std::uint64_t trials,
                            std::uint64_t available) {
  const SimulatorMemory m = simulator_memory(s, options, trials);
  if (available == 0 || m.total() <= static_cast<double>(available)) return;
  // Name the parameter behind the largest term: lowering it helps most.
  const double pool = m.running_trials * m.pool;
  const double threads = m.running_trials * m.per_thread;
  const std::string parameter = pool >= threads && pool >= m.results ? "--T"
                                : m.results >= threads && trials > 1 ? "--trials"
                                                                     : "--N";
  throw InputError(
      parameter,
      fmt::format("simulating N={} A={} T={} needs {} of memory ({} for the pool of T pages{}, "
                  "{} per-thread data, {} for the results of {} trial{}) but this machine has {} "
                  "of physical memory",
                  s.N, s.A, s.T, format_bytes(m.total()), format_bytes(pool),
                  m.running_trials > 1 ? fmt::format(" x {} trials at once", m.running_trials)
                                       : std::string(),
                  format_bytes(threads), format_bytes(m.results), trials, trials == 1 ? "" : "s",
                  format_bytes(static_cast<double>(available))));
}

}  // namespace alloclab::cli
