// The semaphore benchmark's input checks (alloclab/gpu/semaphore_bench.hpp): plain C++, built
// with or without CUDA, so a bad option is refused before any device is looked for.
#include <string>

#include "alloclab/core/errors.hpp"
#include "alloclab/gpu/semaphore_bench.hpp"

namespace alloclab::gpu {

void check_semaphore_bench_gpu(const SemaphoreBenchGpuOptions& o) {
  if (o.threads == 0) throw InputError("--N", "0 threads");
  if (o.config.batch == 0) throw InputError("--batch", "a batch size of 0");
  if (o.block == 0 || o.block % 32 != 0 || o.block > 1024)
    throw InputError("--block",
                     std::to_string(o.block) + " threads a block: a multiple of 32, at most 1024");
  if (o.warp && o.threads % 32 != 0)
    throw InputError("--N", std::to_string(o.threads) + " threads: with --warp, a multiple of 32");
  if (o.warp && o.config.batch < 32)
    throw InputError("--batch", std::to_string(o.config.batch) +
                                    ": with --warp a batch must hold a warp's 32 units");
  if (o.config.kind == gelado::SemaphoreKind::bulk) {
    const std::string e = gelado::bulk_semaphore_request_error(
        "--N", o.warp ? o.threads / 32 : o.threads, o.warp ? 32 : 1, o.config.batch);
    if (!e.empty()) throw InputError("--N", e.substr(e.find(": ") + 2));
  }
  if (o.repeats == 0) throw InputError("--repeats", "0 timed launches");
}

}  // namespace alloclab::gpu
