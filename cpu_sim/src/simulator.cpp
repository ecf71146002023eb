// run_once and make_allocator: check the input, look the allocator up in the simulator's
// table (sim_table.hpp), build the pool, run one allocation, verify it.
#include <chrono>
#include <string>

#include "alloclab/core/errors.hpp"
#include "alloclab/cpu_sim/sim_table.hpp"
#include "detail.hpp"

namespace alloclab::sim {

void check_host_threads(const std::string& parameter, unsigned requested) {
  if (requested > kMaxHostThreads)
    throw InputError(parameter, "host threads: 0 (all cores) to " +
                                    std::to_string(kMaxHostThreads) + ", got " +
                                    std::to_string(requested));
}

void check_input(const Scenario& s, const SimOptions& options) {
  const SimEntry* entry = SimTable::instance().find(s.algo);
  if (!entry)
    throw InputError("--allocator", std::string(name(s.algo)) + " has no simulator backend");
  if (s.N < 1) throw InputError("--N", "need at least one thread");
  if (s.T < 1) throw InputError("--T", "need at least one page");
  if (s.A > s.T) throw InputError("--A", "more free pages than pages");
  if (s.w < 1 || s.w > 64) throw InputError("--w", "word width must be in 1..64");
  if (s.lanes < 1 || s.lanes > 64) throw InputError("--lanes", "lanes must be in 1..64");
  check_host_threads("--threads", options.host_threads);
  if (!options.pages_per_thread.empty() && options.pages_per_thread.size() != s.N)
    throw InputError("--pages", "pages_per_thread must have N entries");
  if (caps(s.algo).requests != RequestKind::pages &&
      (s.pages != 1 || !options.pages_per_thread.empty()))
    throw InputError("--pages", std::string(name(s.algo)) +
                                    " serves one page per request; requests of several pages: " +
                                    algorithm_names(algorithms_where(
                                        algorithms_on(BackendKind::sim), [](const Capabilities& c) {
                                          return c.requests == RequestKind::pages;
                                        })));
  if (const auto why = why_no_bit_choice(s.algo, s.bit_choice))
    throw InputError("--bit-choice", *why);
  if (entry->check) entry->check(s, options);
}

std::unique_ptr<Allocator> make_allocator(const Scenario& s, const SimOptions& options,
                                          std::uint64_t pool_seed) {
  check_input(s, options);
  return SimTable::instance().find(s.algo)->make(s, options, pool_seed);
}

RunResult run_once(const Scenario& s, const SimOptions& options, std::uint64_t trial) {
  const std::uint64_t seed = trial_seed(s.seed, trial);
  auto alloc = make_allocator(s, options, seed);
  const auto before = alloc->used_pages();
  const auto t0 = std::chrono::steady_clock::now();
  RunResult r = alloc->allocate(seed);
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const auto after = alloc->used_pages();
  verify(s, options, r, before, after);
  std::uint64_t free_after = 0;
  for (std::uint64_t p = 0; p < s.T; ++p) free_after += !((after[p / 64] >> (p % 64)) & 1u);
  if (alloc->free_count() != free_after)
    throw VerificationError("free-page counter " + std::to_string(alloc->free_count()) +
                            " disagrees with the pool (" + std::to_string(free_after) + ")");
  return r;
}

}  // namespace alloclab::sim
