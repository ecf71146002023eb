// Names of the GPU kernels (CUDA or not).
#include <array>

#include "alloclab/gpu/measure.hpp"

namespace alloclab::gpu {
namespace {
constexpr std::array<std::string_view, 6> kNames{"queue", "rw",       "rwbm",
                                                 "corw",  "rwmalloc", "cudamalloc"};
}

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
