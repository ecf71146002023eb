// gallatin's pool and launches driven directly (gallatin_cases.hpp).
#include <algorithm>
#include <vector>

#include "gallatin_cases.hpp"
#include "gallatin_pool.cuh"
#include "gpu_entry.cuh"

namespace alloclab::gpu::test {
namespace {

using detail::Allocation;
using detail::DeviceBuffer;
using detail::GallatinPool;
using detail::KernelArgs;
using detail::kFailed;

// One verified phase: `requests` of `units` units allocated in one launch, then all freed.
std::uint64_t phase(GallatinPool& pool, KernelArgs a, std::uint64_t requests, unsigned units,
                    DeviceBuffer<std::uint64_t>& results) {
  ALLOCLAB_CUDA(cudaMemset(results.get(), 0xff, results.bytes()));
  a.N = requests;
  a.pages = units;
  a.page = results.get();
  detail::launch_gallatin_alloc(a, pool.view(), false);
  ALLOCLAB_CUDA(cudaDeviceSynchronize());
  std::vector<std::uint64_t> h(requests);
  ALLOCLAB_CUDA(cudaMemcpy(h.data(), results.get(), requests * 8, cudaMemcpyDeviceToHost));
  const auto served = static_cast<std::uint64_t>(
      std::count_if(h.begin(), h.end(), [](std::uint64_t u) { return u != kFailed; }));
  const Allocation run{results.get(), requests, units, served};
  pool.verify_allocated(run);
  detail::launch_gallatin_free(a, pool.view());
  ALLOCLAB_CUDA(cudaDeviceSynchronize());
  pool.verify_freed(run);
  return served;
}

}  // namespace

GallatinSwitchRun gallatin_exhaust_free_switch(std::uint32_t segments, std::uint64_t first_requests,
                                               unsigned first_units, std::uint64_t second_requests,
                                               unsigned second_units) {
  Scenario s;
  s.algo = Algorithm::gallatin;
  s.N = first_requests;
  s.T = s.A = std::uint64_t{segments} * detail::kGallatinUnitsPerSegment;
  s.pages = first_units;  // the class pre-booted
  s.seed = 5;
  const MeasureOptions o;
  const KernelArgs a = detail::kernel_args(s, o);
  GallatinPool::check(s, o);
  GallatinPool pool(s, o, a);
  pool.set_up();
  pool.reset();
  DeviceBuffer<std::uint64_t> results(std::max(first_requests, second_requests));
  GallatinSwitchRun r;
  r.first_served = phase(pool, a, first_requests, first_units, results);
  r.second_served = phase(pool, a, second_requests, second_units, results);
  return r;
}

}  // namespace alloclab::gpu::test
