// The device: presence, properties, free memory, CUDA error reports; and the hardware floor of
// the throughput bench (one atomicOr per thread).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <thread>

#include "alloclab/core/errors.hpp"
#include "common.cuh"
#include "device.cuh"

namespace alloclab::gpu {
namespace detail {

void throw_cuda(cudaError_t e, const char* call, const char* file, int line) {
  throw CudaError(std::string(file) + ":" + std::to_string(line) + ": " + call + ": " +
                  cudaGetErrorString(e));
}

void require_device() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    cudaGetLastError();
    throw NoDevice(std::string("no CUDA device: ") + cudaGetErrorString(e));
  }
  if (count == 0) throw NoDevice("no CUDA device: cudaGetDeviceCount returned 0");
}

std::uint64_t free_device_bytes() {
  std::size_t free_bytes = 0, total = 0;
  ALLOCLAB_CUDA(cudaMemGetInfo(&free_bytes, &total));
  return free_bytes;
}

void require_device_bytes(const std::string& parameter, const std::string& who,
                          std::initializer_list<DevicePart> parts) {
  std::uint64_t need = 0;
  std::string each;
  for (const DevicePart& p : parts) {
    need = need > ~std::uint64_t{0} - p.bytes ? ~std::uint64_t{0} : need + p.bytes;
    each += (each.empty() ? "" : ", ") + std::string(p.what) + " " + std::to_string(p.bytes);
  }
  const std::uint64_t free_bytes = free_device_bytes();
  if (need <= free_bytes) return;
  throw InputError(parameter, who + " needs " + std::to_string(need) +
                                  " bytes of device memory, the device has " +
                                  std::to_string(free_bytes) + " free (" + each + ")");
}

double EventTimer::stop_within(double seconds, const std::string& what) {
  ALLOCLAB_CUDA(cudaEventRecord(stop_));
  if (seconds <= 0) {
    ALLOCLAB_CUDA(cudaEventSynchronize(stop_));
    return elapsed_ms();
  }
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::duration<double>(seconds);
  for (;;) {
    const cudaError_t e = cudaEventQuery(stop_);
    if (e == cudaSuccess) return elapsed_ms();
    if (e != cudaErrorNotReady) ALLOCLAB_CUDA(e);
    const auto now = Clock::now();
    if (now >= deadline) break;
    // Spin briefly (most kernels end within a millisecond), then poll every 100 us: the host's
    // waiting costs the kernel nothing, the events time it.
    if (now - start > std::chrono::milliseconds(2))
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    else
      std::this_thread::yield();
  }
  device_stuck() = true;
  char limit[32];
  std::snprintf(limit, sizeof limit, "%g", seconds);
  throw KernelHung(what + " ran past the watchdog's " + limit +
                   " s (--watchdog); it is still running, so the device cannot be used again in "
                   "this process");
}

namespace {

template <typename Word>
__global__ void atomic_floor_kernel(Word* bitmap, std::uint64_t words, std::uint64_t n, bool philox,
                                    std::uint64_t seed, Word* out) {
  constexpr unsigned w = sizeof(Word) * 8;
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= n) return;
  const std::uint64_t p =
      philox ? bitmap_probe_word(seed, i, 0, words) : mul_high_u64(mix64(i ^ seed), words);
  out[i] = atomic_or_word(&bitmap[p], static_cast<Word>(Word{1} << (i % w)));
}

template <typename Word>
double floor_ms_of(std::uint64_t threads, std::uint64_t T, bool philox, unsigned repeats) {
  const std::uint64_t words = word_count(T, sizeof(Word) * 8);
  DeviceBuffer<Word> bitmap(words), out(threads);
  EventTimer timer;
  std::vector<double> times;
  for (unsigned r = 0; r < repeats + 1; ++r) {
    ALLOCLAB_CUDA(cudaMemset(bitmap.get(), 0, bitmap.bytes()));
    ALLOCLAB_CUDA(cudaDeviceSynchronize());
    timer.start();
    atomic_floor_kernel<Word><<<blocks_for(threads, 256), 256>>>(bitmap.get(), words, threads,
                                                                 philox, 12345 + r, out.get());
    const double ms = timer.stop();
    ALLOCLAB_CUDA_LAUNCH();
    if (r > 0) times.push_back(ms);
  }
  return median_of(times);
}

}  // namespace
}  // namespace detail

using namespace detail;

bool built_with_cuda() {
  return true;
}

DeviceInfo device_info() {
  require_device();
  DeviceInfo d;
  ALLOCLAB_CUDA(cudaGetDevice(&d.device));
  cudaDeviceProp prop{};
  ALLOCLAB_CUDA(cudaGetDeviceProperties(&prop, d.device));
  d.name = prop.name;
  ALLOCLAB_CUDA(cudaDriverGetVersion(&d.driver_version));
  ALLOCLAB_CUDA(cudaRuntimeGetVersion(&d.runtime_version));
  d.sm_count = prop.multiProcessorCount;
  int khz = 0;
  ALLOCLAB_CUDA(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, d.device));
  d.sm_clock_mhz = khz / 1000;
  ALLOCLAB_CUDA(cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, d.device));
  d.mem_clock_mhz = khz / 1000;
  d.global_mem_bytes = prop.totalGlobalMem;
  d.l2_bytes = static_cast<std::uint64_t>(prop.l2CacheSize);
  d.pci_bus_id = pci_bus_id(d.device);
  return d;
}

int device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // no driver or no device: not sticky, but leave no error behind
    return 0;
  }
  return count;
}

void use_device(int ordinal) {
  const int count = device_count();
  if (ordinal < 0 || ordinal >= count)
    throw NoDevice("no CUDA device " + std::to_string(ordinal) + " (this process sees " +
                   std::to_string(count) + ")");
  ALLOCLAB_CUDA(cudaSetDevice(ordinal));
}

std::string pci_bus_id(int ordinal) {
  if (ordinal < 0 || ordinal >= device_count()) return {};
  char id[32] = {};
  ALLOCLAB_CUDA(cudaDeviceGetPCIBusId(id, sizeof id, ordinal));
  return id;
}

double atomic_floor_ms(std::uint64_t threads, std::uint64_t T, bool philox, unsigned repeats,
                       unsigned w) {
  if (w != 32 && w != 64) throw std::invalid_argument("atomic_floor_ms: w must be 32 or 64");
  require_device();
  return w == 32 ? floor_ms_of<std::uint32_t>(threads, T, philox, repeats)
                 : floor_ms_of<std::uint64_t>(threads, T, philox, repeats);
}

}  // namespace alloclab::gpu
