#include "alloclab/cli/resource_limits.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <iterator>

#include "alloclab/core/errors.hpp"
#include "alloclab/cpu_sim/memory_estimate.hpp"

namespace alloclab::cli {

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
  const sim::MemoryEstimate m = sim::memory_estimate(s, options, trials);
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
