// Gelado & Garland's malloc/free (PPoPP'19 §4) in the simulator: UAllocSim (gg_ualloc_sim.hpp)
// with TBuddy's pages for 2 KB and up, and free dispatched by the address's alignment.
#include "gg_ualloc_sim.hpp"

namespace alloclab::sim::detail {
namespace {
std::unique_ptr<Allocator> make_malloc(const Scenario& s, const SimOptions& o, std::uint64_t seed) {
  return std::make_unique<UAllocSim>(s, o, seed, true);
}
}  // namespace

ALLOCLAB_REGISTER_ENTRY(SimTable, Algorithm::gg_malloc,
                        (SimEntry{
                            .make = &make_malloc,
                            .check = [](const Scenario& s,
                                        const SimOptions& o) { check_ualloc_scenario(s, o, true); },
                            .pool_bytes = &ualloc_pool_bytes,
                            .lane_bytes_per_thread = 512,
                            .step_bound = &ualloc_step_bound}))

}  // namespace alloclab::sim::detail
