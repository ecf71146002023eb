// The device itself: is there one, how much memory is free, and CUDA-event timing.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "alloclab/core/median.hpp"
#include "cuda_check.cuh"

namespace alloclab::gpu::detail {

// Throws NoDevice when there is no usable device.
void require_device();

// cudaMemGetInfo's free bytes.
std::uint64_t free_device_bytes();

// One part of what a run allocates on the device, named for the message.
struct DevicePart {
  const char* what;
  std::uint64_t bytes;
};
// Before anything is allocated: the parts (summed without overflow) must fit in the free device
// memory; otherwise an InputError on `parameter` (the option that sized the larger part, chosen
// by the caller) says what `who` needs, what is free, and each part.
void require_device_bytes(const std::string& parameter, const std::string& who,
                          std::initializer_list<DevicePart> parts);

// Event pair timing one region on the default stream.
class EventTimer {
 public:
  EventTimer() {
    ALLOCLAB_CUDA(cudaEventCreate(&start_));
    ALLOCLAB_CUDA(cudaEventCreate(&stop_));
  }
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  ~EventTimer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  void start() { ALLOCLAB_CUDA(cudaEventRecord(start_)); }
  double stop() {
    ALLOCLAB_CUDA(cudaEventRecord(stop_));
    ALLOCLAB_CUDA(cudaEventSynchronize(stop_));
    return elapsed_ms();
  }
  // As stop(), but the watchdog: waits for the region at most `seconds` (0: for ever), polling the
  // stop event, and otherwise marks the device stuck and throws KernelHung("<what> ran past the
  // watchdog's <seconds> s"). The timing itself is the events', unaffected by the polling.
  double stop_within(double seconds, const std::string& what);

 private:
  double elapsed_ms() const {
    float ms = 0;
    ALLOCLAB_CUDA(cudaEventElapsedTime(&ms, start_, stop_));
    return ms;
  }

  cudaEvent_t start_{}, stop_{};
};

}  // namespace alloclab::gpu::detail
