// The backends a sweep can run: the analytic model, the CPU simulator (one backend per mode) and
// the GPU. Each turns a Scenario into a Record with the shared keys (tas, was, ...).
#pragma once

#include <cstdint>
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
  // Device malloc heap for every gpu point (0: each point sizes its own, which CUDA refuses to
  // grow after the first malloc kernel): gpu_sweep_heap_bytes of the sweep's points.
  std::uint64_t gpu_heap_bytes = 0;
  // The CUDA device the gpu backend measures on, made current before each point (cudaSetDevice
  // holds per host thread, and a sweep may evaluate on any thread); -1: the thread's current one.
  int gpu_device = -1;
  // false: this process has no GPU of its own (an MPI rank beside the GPUs): the gpu backend is
  // built unchecked, so that every rank lists the same backends, and is never given a point.
  bool gpu_here = true;
};

// Builds the requested backends. A requested gpu backend on a machine without CUDA or without a
// device throws std::runtime_error with one clear line (the sweep then does not start).
std::vector<Backend> make_backends(const BackendSettings& settings);

// Whether the gpu backend measures point s in a sweep: only allocators the registry declares on
// the gpu backend, and, like the simulator, N up to what the pool allows (N * pages <= A; an
// out-of-memory run is `measure`'s business). An allocator of bytes (the device heap) has no
// pool of A pages, so every N applies. Needs no device.
bool gpu_applies(const Scenario& s);

// The device malloc heap a gpu sweep over `points` needs: the largest any point the gpu backend
// measures asks for (gpu::device_heap_bytes with the backend's options; 0 where none draws on the
// heap, or without CUDA). CUDA fixes the heap before the first kernel that calls malloc, so the
// sweep sets it once, before its first gpu point. Needs no device.
std::uint64_t gpu_sweep_heap_bytes(const std::vector<Scenario>& points);

// Whether this build has CUDA and a device is present; `why` says what is missing.
bool gpu_available(std::string& why);

// Device name, driver, runtime and clocks, for the sweep's metadata (empty object if none).
nlohmann::json gpu_metadata();

// "NAME (PCI bus id)" of the thread's current device, as rows name it ("" if none).
std::string gpu_device_label();

}  // namespace alloclab::validation
