// The GPU backend's host API: plain C++ (no CUDA types), so cli/ and tests compile with g++.
// Built with CUDA, these run the kernels of gpu/src; built without, every entry point that needs
// a device throws NoDevice("built without CUDA").
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "alloclab/core/scenario.hpp"

namespace alloclab::gpu {

// No usable device (built without CUDA, no driver, or no GPU). The CLI prints what() as one line.
class NoDevice : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A failed CUDA call: "file:line: call: cudaGetErrorString(...)".
class CudaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What `measure --algo` accepts: the registry's algorithms plus the CUDA device-malloc baseline.
enum class Kernel { queue, rw, rwbm, corw, rwmalloc, cudamalloc };
std::optional<Kernel> parse_kernel(std::string_view text);
std::string_view kernel_name(Kernel k);
std::optional<Algorithm> kernel_algorithm(Kernel k);  // nullopt for cudamalloc

bool built_with_cuda();

struct DeviceInfo {
  std::string name;  // e.g. "NVIDIA H200"
  int device = 0;
  int driver_version = 0;   // cudaDriverGetVersion, e.g. 13000
  int runtime_version = 0;  // cudaRuntimeGetVersion
  int sm_count = 0;
  int sm_clock_mhz = 0;  // maximum clocks the device reports (cudaDevAttrClockRate)
  int mem_clock_mhz = 0;
  std::uint64_t global_mem_bytes = 0;
  std::uint64_t l2_bytes = 0;
};
// Throws NoDevice when there is none.
DeviceInfo device_info();

struct MeasureOptions {
  unsigned per_thread = 1;             // k requests per thread (--per-thread)
  unsigned warmup = 1;                 // untimed runs before the timed ones
  unsigned repeats = 5;                // timed runs; kernel_ms is their median
  bool counters = true;                // per-thread step / collision counters in the timed kernel
  std::uint64_t max_steps = 1u << 20;  // per request; a request that reaches it fails (OOM)
  std::uint64_t page_bytes = 256;      // cudamalloc: bytes per request (pages * page_bytes)
  std::uint64_t heap_bytes = 0;        // cudamalloc: device heap; 0 = sized for this scenario
  bool keep_per_thread = false;        // copy per-request steps/pages back (tests)
};

struct MeasureResult {
  // Statistics over the N*k requests of the last timed repeat (all repeats start from the same
  // pool and draw the same streams; with contention the schedules differ between repeats).
  bool has_steps = true;  // false for cudamalloc (no steps to count)
  double tas = 0;         // mean steps per request
  double was = 0;         // mean over (request round, warp of `lanes` threads) of the max
  std::uint32_t steps_p50 = 0, steps_p99 = 0, steps_max = 0;
  std::uint64_t collisions = 0;  // failed atomic claims
  std::uint64_t taken = 0;       // requests served
  std::uint64_t failed = 0;      // requests that gave up (out of memory / step bound)
  double kernel_ms = 0;          // median allocation-kernel time over the repeats
  std::vector<double> kernel_ms_all;
  double free_ms = 0;   // the free kernel, once, after the last repeat
  double setup_ms = 0;  // pool construction on the device
  std::vector<std::string> notes;
  // keep_per_thread: index r*N + i = request r of thread i.
  std::vector<std::uint32_t> steps;
  std::vector<std::int64_t> first_page;  // -1 = failed; cudamalloc: byte offset from the lowest
};

// One trial of one scenario (trial_seed(s.seed, trial)). Verifies every run (no page handed out
// twice, pages taken were free, the bitmap conserves pages, taken == N or the documented OOM
// count, RW_malloc ranges disjoint, the free kernel restores the pool) and throws
// alloclab::VerificationError on a violation; InputError for parameters the GPU cannot run.
MeasureResult measure(Kernel kernel, const Scenario& s, const MeasureOptions& options,
                      std::uint64_t trial = 0);

// The hardware floor of the throughput bench: one atomicOr per thread (return value used) on a
// random word of a bitmap of T/32 32-bit words. philox=true draws the word with the probe stream
// (what the allocators pay), false with one mix64 hash. Median kernel ms over `repeats`.
double atomic_floor_ms(std::uint64_t threads, std::uint64_t T, bool philox, unsigned repeats);

}  // namespace alloclab::gpu
