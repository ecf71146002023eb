// Host-only stub of the gpu/ module, built when no CUDA compiler was found: every entry point
// that needs a device reports "built without CUDA".
#include "alloclab/gpu/measure.hpp"

namespace alloclab::gpu {

bool built_with_cuda() {
  return false;
}

DeviceInfo device_info() {
  throw NoDevice("built without CUDA: alloclab was configured without a CUDA compiler");
}

MeasureResult measure(Kernel, const Scenario&, const MeasureOptions&, std::uint64_t) {
  throw NoDevice("built without CUDA: alloclab was configured without a CUDA compiler");
}

double atomic_floor_ms(std::uint64_t, std::uint64_t, bool, unsigned) {
  throw NoDevice("built without CUDA: alloclab was configured without a CUDA compiler");
}

}  // namespace alloclab::gpu
