// The GPU backend's host API: plain C++ (no CUDA types), so cli/ and tests compile with g++.
// Built with CUDA, these run the kernels of gpu/src; built without, every entry point that needs
// a device throws NoDevice("built without CUDA").
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
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

// A kernel ran past the watchdog's deadline (WorkloadOptions::watchdog_seconds). It is still
// running: the device cannot be used again in this process (a kernel cannot be stopped without
// destroying its context), so the caller reports it and ends the process (the CLI: a "hung" row,
// exit 5). From the moment it is thrown, device memory is no longer given back (cudaFree would
// wait for the kernel).
class KernelHung : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

bool built_with_cuda();

// The allocators this build can run on a GPU: each one's .cu registers its GPU entry (its pool
// policy, launches and checks; gpu/src/gpu_entry.cuh). Built with CUDA, exactly the registry's
// algorithms_on(BackendKind::gpu); without CUDA, none.
std::vector<Algorithm> algorithms_with_gpu_entry();

// nullopt where the registry declares `a` on the gpu backend; else why not, in one line that says
// where it runs instead ("'corw-lockmap' has no GPU backend; it runs on sim (use ...)").
std::optional<std::string> why_no_gpu_backend(Algorithm a);

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
  std::string pci_bus_id;  // cudaDeviceGetPCIBusId, e.g. "0000:19:00.0": one physical GPU
};
// The current device of the calling thread. Throws NoDevice when there is none.
DeviceInfo device_info();

// The CUDA devices this process sees (CUDA_VISIBLE_DEVICES applies); 0 where there is none or the
// build has no CUDA. Never throws.
int device_count();
// Makes device `ordinal` (0 <= ordinal < device_count()) the calling thread's current device
// (cudaSetDevice: a setting of each host thread, so a thread that runs kernels calls it itself).
// Throws NoDevice for an ordinal that does not exist.
void use_device(int ordinal);
// The PCI bus id of device `ordinal` without making it current ("" where there is none): tells
// apart the GPUs of one host, also across processes that see them under other ordinals.
std::string pci_bus_id(int ordinal);

struct MeasureOptions {
  unsigned per_thread = 1;             // k requests per thread (--per-thread)
  unsigned warmup = 1;                 // untimed runs before the timed ones
  unsigned repeats = 5;                // timed runs; kernel_ms is their median
  bool counters = true;                // per-thread step / collision counters in the timed kernel
  std::uint64_t max_steps = 1u << 20;  // per request; a request that reaches it fails (OOM)
  std::uint32_t queue_capacity = 0;    // Ouroboros: pages one class's queue holds; 0 = 2^20
  // gg-ualloc, gg-malloc: arenas (0 = one per SM of the device, as the paper; a thread uses the
  // arena of its SM modulo the count) and bins per chunk (0 = 64, or 128).
  std::uint32_t arenas = 0, chunk_bins = 0;
  // gg-ualloc, gg-malloc: every grower takes the chunk mutex alone (groups of one), not a warp's
  // waiting growers with one acquisition (§4.2.2; --chunk-mutex single): the comparison.
  bool single_chunk_mutex = false;
  // gg-tbuddy, gg-ualloc, gg-malloc: the previous memory order, relaxed atomics with a seq_cst
  // fence on each side of every read-modify-write (--gg-order fenced), not acquire/release
  // (gpu/src/gg_atomics.cuh): the comparison.
  bool gg_fenced = false;
  // gg-ualloc, gg-malloc: a semaphore wait per thread (--gg-wait thread), not one per warp's
  // lanes of a class (studies/gelado-garland/speed.md): the comparison.
  bool gg_thread_waits = false;
  std::uint64_t page_bytes = 256;  // requests of bytes (cudamalloc): pages * page_bytes each
  unsigned block = 256;            // threads per block of the allocation launch
  std::uint64_t heap_bytes = 0;    // device malloc heap; 0 = sized for this scenario
  // Plug-ins (docs/plugin-allocators.md): the pool of bytes each is built over; 0 = four times
  // the bytes of all requests, at least 1 MiB (a workload: its --pool).
  std::uint64_t pool_bytes = 0;
  bool keep_per_thread = false;  // copy per-request steps/pages back (tests)
  bool keep_free_pages = false;  // copy the pool's free pages back, last repeat (tests)
};

struct MeasureResult {
  // Statistics over the N*k requests of the last timed repeat (all repeats start from the same
  // pool and draw the same streams; with contention the schedules differ between repeats).
  bool has_steps = true;  // false with counters off or where steps are not observable
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
  std::vector<std::int64_t> first_page;  // -1 = failed; requests of bytes: offset from the lowest
  // keep_free_pages, for pools of pages: the pages the pool holds free, in increasing order, after
  // the allocation kernel of the last repeat and after its free kernel; nullopt otherwise.
  std::optional<std::vector<std::uint64_t>> free_after_alloc, free_after_free;
};

// The parameter checks of measure() that need no device: the registry's (no gpu backend,
// lanes = 32 for warp-collective allocators, --pages only where requests take pages, sizes) and,
// built with CUDA, the allocator's and its pool's own (w in {32, 64}, T < 2^32 for the queue,
// pages <= w for RW_malloc...). Throws InputError naming the parameter.
void check_input(Algorithm algo, const Scenario& s, const MeasureOptions& options);

// Device malloc heap bytes a run of `algo` needs (0 for allocators that do not use it). CUDA
// fixes the heap's size before the first kernel that calls malloc, so a process running several
// scenarios sets MeasureOptions::heap_bytes to the largest of these first.
std::uint64_t device_heap_bytes(Algorithm algo, const Scenario& s, const MeasureOptions& options);

// One trial of scenario s (trial_seed(s.seed, trial)) with allocator `algo` (= s.algo). Verifies
// every run (ranges handed out disjoint, inside the pool and initially free, the pool conserves
// pages, the out-of-memory count, the free kernel restores the pool) and throws
// alloclab::VerificationError on a violation; InputError for parameters the GPU cannot run
// (check_input) and for a run that needs more device memory than the device has free.
MeasureResult measure(Algorithm algo, const Scenario& s, const MeasureOptions& options,
                      std::uint64_t trial = 0);

// The hardware floor of the throughput bench: one atomicOr per thread (return value used) on a
// random word of a bitmap of ceil(T/w) w-bit words (w = 32 or 64: the same T/8 bytes, twice the
// threads per word at 64). philox=true draws the word with the probe stream (what the allocators
// pay), false with one mix64 hash. Median kernel ms over `repeats`.
double atomic_floor_ms(std::uint64_t threads, std::uint64_t T, bool philox, unsigned repeats,
                       unsigned w = 32);

}  // namespace alloclab::gpu
