// The backends a sweep can run: the analytic model, the CPU simulator (one backend per mode) and
// the GPU. Each turns a Scenario into a Record with the shared keys (tas, was, ...).
#pragma once

#include <string>
#include <vector>

#include "alloclab/validation/sweep.hpp"

namespace alloclab::validation {

struct BackendSettings {
  bool model = true, sim = true, gpu = false;
  std::vector<std::string> sim_modes = {"sequential"};
  std::uint64_t trials = 20;
  unsigned host_threads = 0;  // simulator: 0 = all cores
  unsigned gpu_repeats = 5;   // timed kernel runs per trial (median)
};

// Builds the requested backends. A requested gpu backend on a machine without CUDA or without a
// device throws std::runtime_error with one clear line (the sweep then does not start).
std::vector<Backend> make_backends(const BackendSettings& settings);

// Whether the gpu backend measures point s in a sweep: only allocators the registry declares on
// the gpu backend, and, like the simulator, N up to what the pool allows (N * pages <= A; an
// out-of-memory run is `measure`'s business). An allocator of bytes (the device heap) has no
// pool of A pages, so every N applies. Needs no device.
bool gpu_applies(const Scenario& s);

// Whether this build has CUDA and a device is present; `why` says what is missing.
bool gpu_available(std::string& why);

// Device name, driver, runtime and clocks, for the sweep's metadata (empty object if none).
nlohmann::json gpu_metadata();

}  // namespace alloclab::validation
