// Names of the GPU kernels (CUDA or not).
#include <array>

#include "alloclab/gpu/measure.hpp"

namespace alloclab::gpu {
namespace {
// kernel_algorithm casts: the kernels of an algorithm share its enum value. Algorithms without
// a kernel (corw-lockmap: simulator only) have no name here, so parse_kernel says nullopt.
static_assert(static_cast<int>(Kernel::queue) == static_cast<int>(Algorithm::queue) &&
              static_cast<int>(Kernel::rw) == static_cast<int>(Algorithm::rw) &&
              static_cast<int>(Kernel::rwbm) == static_cast<int>(Algorithm::rwbm) &&
              static_cast<int>(Kernel::corw) == static_cast<int>(Algorithm::corw) &&
              static_cast<int>(Kernel::rwmalloc) == static_cast<int>(Algorithm::rwmalloc));
constexpr std::array<std::string_view, 6> kNames{"queue", "rw",       "rwbm",
                                                 "corw",  "rwmalloc", "cudamalloc"};
}  // namespace

std::optional<Kernel> parse_kernel(std::string_view text) {
  for (std::size_t i = 0; i < kNames.size(); ++i)
    if (kNames[i] == text) return static_cast<Kernel>(i);
  return std::nullopt;
}

std::string_view kernel_name(Kernel k) {
  return kNames[static_cast<std::size_t>(k)];
}

std::optional<Algorithm> kernel_algorithm(Kernel k) {
  if (k == Kernel::cudamalloc) return std::nullopt;
  return static_cast<Algorithm>(static_cast<int>(k));
}

}  // namespace alloclab::gpu
