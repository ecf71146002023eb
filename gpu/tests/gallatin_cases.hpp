// GPU cases of gallatin that drive its pool and launches directly (gallatin_kernels.cu), behind a
// plain C++ interface: phases the workload families cannot express (one size class, then
// another, on the same pool).
#pragma once

#include <cstdint>

namespace alloclab::gpu::test {

struct GallatinSwitchRun {
  std::uint64_t first_served = 0, second_served = 0;
};

// On a pool of `segments` 16 MiB segments (all free): one launch of `first_requests` requests of
// `first_units` units of 16 B each, all of them freed, then one launch of `second_requests` of
// `second_units`, freed too. Every phase is verified by the pool (the state copied back and
// checked at rest, each block's live slices counted from the results); a failure throws
// VerificationError.
GallatinSwitchRun gallatin_exhaust_free_switch(std::uint32_t segments, std::uint64_t first_requests,
                                               unsigned first_units, std::uint64_t second_requests,
                                               unsigned second_units);

}  // namespace alloclab::gpu::test
