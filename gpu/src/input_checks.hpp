// The input checks every GPU run gets from the registry (core/algorithm.hpp), built with or
// without CUDA: they need no device and no GPU entry.
#pragma once

#include "alloclab/gpu/measure.hpp"

namespace alloclab::gpu::detail {

// InputError for a parameter the registry says the GPU cannot run with `algo`: no gpu backend
// (--allocator), lanes != 32 for a warp-collective allocator (--lanes), pages != 1 for one that
// serves one page per request (--pages), and the run's size limits. std::invalid_argument where
// s.algo is not `algo` (a caller's mistake, not the user's).
void check_registry_input(Algorithm algo, const Scenario& s, const MeasureOptions& o);

}  // namespace alloclab::gpu::detail
