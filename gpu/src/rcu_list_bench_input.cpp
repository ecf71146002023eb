// Figure 6's benchmark's input checks (alloclab/gpu/rcu_list_bench.hpp): plain C++, built with
// or without CUDA, so a bad option is refused before any device is looked for.
#include <string>

#include "alloclab/core/errors.hpp"
#include "alloclab/gpu/rcu_list_bench.hpp"

namespace alloclab::gpu {

void check_rcu_bench_gpu(const RcuBenchGpuOptions& o) {
  const gelado::RcuListConfig& c = o.config;
  if (c.threads == 0) throw InputError("--N", "0 threads");
  if (c.threads > kRcuBenchGpuMaxThreads)
    throw InputError("--N", std::to_string(c.threads) + " threads: at most " +
                                std::to_string(kRcuBenchGpuMaxThreads));
  if (c.nodes > c.threads)
    throw InputError("--ratio", std::to_string(c.nodes) + " list elements for " +
                                    std::to_string(c.threads) +
                                    " threads: every list tag is one thread's");
  if (o.block == 0 || o.block % 32 != 0 || o.block > 1024)
    throw InputError("--block",
                     std::to_string(o.block) + " threads a block: a multiple of 32, at most 1024");
  if (o.repeats == 0) throw InputError("--repeats", "0 timed launches");
}

}  // namespace alloclab::gpu
