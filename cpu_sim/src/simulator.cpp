// run_once and make_allocator: build the pool, run one allocation, verify it.
#include <chrono>
#include <string>

#include "alloclab/core/errors.hpp"
#include "detail.hpp"

namespace alloclab::sim {

std::unique_ptr<Allocator> make_allocator(const Scenario& s, const SimOptions& options,
                                          std::uint64_t pool_seed) {
  if (s.N < 1) throw InputError("--N", "need at least one thread");
  if (s.T < 1) throw InputError("--T", "need at least one page");
  if (s.A > s.T) throw InputError("--A", "more free pages than pages");
  if (s.w < 1 || s.w > 64) throw InputError("--w", "word width must be in 1..64");
  if (s.lanes < 1 || s.lanes > 64) throw InputError("--lanes", "lanes must be in 1..64");
  if (!options.pages_per_thread.empty() && options.pages_per_thread.size() != s.N)
    throw InputError("--pages", "pages_per_thread must have N entries");
  if (s.algo != Algorithm::rwmalloc && (s.pages != 1 || !options.pages_per_thread.empty()))
    throw InputError("--pages", "only rwmalloc serves requests of more than one page");
  if (s.algo == Algorithm::rwmalloc) {
    const unsigned longest = s.lanes * s.w;
    auto check = [&](unsigned n) {
      if (n < 1 || n > longest)
        throw InputError("--pages", "pages per request must be in 1..lanes*w (" +
                                        std::to_string(longest) + ", one window)");
    };
    check(s.pages);
    for (auto n : options.pages_per_thread) check(n);
  }
  switch (s.algo) {
    case Algorithm::queue:
      return detail::make_queue(s, options, pool_seed);
    case Algorithm::rw:
      return detail::make_rw(s, options, pool_seed);
    case Algorithm::rwbm:
      return detail::make_rwbm(s, options, pool_seed);
    case Algorithm::corw:
      return detail::make_corw(s, options, pool_seed);
    case Algorithm::rwmalloc:
      return detail::make_rwmalloc(s, options, pool_seed);
    case Algorithm::corw_lockmap:
      return detail::make_corw_lockmap(s, options, pool_seed);
    case Algorithm::cudamalloc:
      break;
  }
  throw InputError("--algo", std::string(name(s.algo)) + " has no simulator backend");
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
