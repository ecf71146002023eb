// gallatin's pristine state on the host (gallatin_host_state.cpp, plain C++: the shared
// operations over host atomics), which the GPU pool (gallatin_pool.cuh) copies to the device.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "alloclab/core/gallatin/allocator.hpp"
#include "alloclab/core/gallatin/state.hpp"
#include "alloclab/core/gallatin/state_check.hpp"

namespace alloclab::gpu::detail {

// The paper's pre-boot fills every class's buffer slots: 13 segments with 132 SMs (studies/
// gallatin/). A pool of at least this many segments (1 GiB) gets it; a smaller one, where it
// would take a fifth of the pool or more, gets the slots of the run's class only (as far as the
// pool goes).
inline constexpr std::uint32_t kGallatinFullPrebootSegments = gallatin::kFullPrebootSegments;

// Every segment free except those app_segment marks (the application's: in no tree, never used),
// the block buffers pre-booted (see above; `run_class` the class of the run's largest request);
// `preboot` receives what the pre-boot did.
std::unique_ptr<gallatin::StateStorage> gallatin_pristine_state(
    const gallatin::Geometry& g, std::uint32_t sms, const std::vector<std::uint8_t>& app_segment,
    unsigned run_class, gallatin::Counts& preboot);

}  // namespace alloclab::gpu::detail
