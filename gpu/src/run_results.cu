// Verification and statistics over the result slots: counted, sorted and reduced on the device
// with CUB.
#include <cub/cub.cuh>
#include <cuda/functional>

#include <algorithm>

#include "run_results.cuh"

namespace alloclab::gpu::detail {
namespace {

// Accumulators of the statistics kernel.
struct Totals {
  unsigned long long steps_sum, warp_max_sum, collisions, taken, groups;
  unsigned int steps_max;
};

// One thread per (request round, warp of `lanes` threads): the group's max and sums, reduced per
// block with cub::BlockReduce, then one atomic per block.
constexpr int kStatsBlock = 256;
__global__ void stats_kernel(const std::uint32_t* steps, const std::uint32_t* collisions,
                             const std::uint64_t* page, std::uint64_t N, unsigned per_thread,
                             unsigned lanes, Totals* out) {
  using Reduce = cub::BlockReduce<unsigned long long, kStatsBlock>;
  using ReduceMax = cub::BlockReduce<unsigned int, kStatsBlock>;
  __shared__ typename Reduce::TempStorage t1, t2, t3, t4;
  __shared__ typename ReduceMax::TempStorage t5;
  const std::uint64_t warps = (N + lanes - 1) / lanes;
  const std::uint64_t g = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  unsigned long long s = 0, c = 0, t = 0, wm = 0;
  unsigned int mx = 0;
  if (g < warps * per_thread) {
    const std::uint64_t r = g / warps, wp = g % warps;
    const std::uint64_t lo = wp * lanes, hi = min(N, lo + lanes);
    for (std::uint64_t i = lo; i < hi; ++i) {
      const std::uint64_t slot = r * N + i;
      s += steps[slot];
      c += collisions[slot];
      t += page[slot] != kFailed;
      mx = max(mx, steps[slot]);
    }
    wm = mx;
  }
  const unsigned long long bs = Reduce(t1).Sum(s);
  const unsigned long long bc = Reduce(t2).Sum(c);
  const unsigned long long bt = Reduce(t3).Sum(t);
  const unsigned long long bw = Reduce(t4).Sum(wm);
  const unsigned int bm = ReduceMax(t5).Reduce(mx, ::cuda::maximum<>{});
  if (threadIdx.x == 0) {
    count_add(&out->steps_sum, bs);
    count_add(&out->collisions, bc);
    count_add(&out->taken, bt);
    count_add(&out->warp_max_sum, bw);
    count_max(&out->steps_max, bm);
  }
}

__global__ void count_taken_kernel(const std::uint64_t* page, std::uint64_t n,
                                   unsigned long long* taken) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i < n && page[i] != kFailed) count_add(taken, 1ull);
}

// Over the sorted first pages (or addresses): ranges [x, x + len) must be disjoint. For page ids
// also: inside the pool and initially free.
__global__ void range_kernel(const std::uint64_t* sorted, std::uint64_t n, std::uint64_t len,
                             bool page_ids, std::uint64_t T, std::uint64_t A, PagePermutation pi,
                             unsigned long long* errors) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= n) return;
  const std::uint64_t x = sorted[i];
  if (x == kFailed) return;
  unsigned long long bad = 0;
  if (i + 1 < n && sorted[i + 1] != kFailed && sorted[i + 1] < x + len) ++bad;
  if (page_ids) {
    if (x + len > T) {
      ++bad;
    } else {
      for (std::uint64_t p = x; p < x + len; ++p)
        if (!initially_free(pi, p, A)) ++bad;
    }
  }
  if (bad) count_add(errors, bad);
}

template <typename Key>
std::size_t sort_temp_bytes(std::uint64_t n) {
  std::size_t temp_bytes = 0;
  ALLOCLAB_CUDA(cub::DeviceRadixSort::SortKeys(
      nullptr, temp_bytes, static_cast<const Key*>(nullptr), static_cast<Key*>(nullptr), n));
  return temp_bytes;
}

}  // namespace

std::uint64_t count_taken(const DeviceBuffer<std::uint64_t>& page) {
  DeviceBuffer<unsigned long long> taken(1);
  ALLOCLAB_CUDA(cudaMemset(taken.get(), 0, sizeof(unsigned long long)));
  count_taken_kernel<<<blocks_for(page.size(), 256), 256>>>(page.get(), page.size(), taken.get());
  ALLOCLAB_CUDA_LAUNCH();
  return read_scalar(taken.get());
}

void sort_results(const DeviceBuffer<std::uint64_t>& page, DeviceBuffer<std::uint64_t>& sorted) {
  std::size_t temp_bytes = 0;
  ALLOCLAB_CUDA(
      cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, page.get(), sorted.get(), page.size()));
  DeviceBuffer<unsigned char> temp(temp_bytes);
  ALLOCLAB_CUDA(cub::DeviceRadixSort::SortKeys(temp.get(), temp_bytes, page.get(), sorted.get(),
                                               page.size()));
}

std::uint64_t range_violations(const DeviceBuffer<std::uint64_t>& sorted, std::uint64_t len,
                               bool page_ids, std::uint64_t T, std::uint64_t A,
                               std::uint64_t seed) {
  DeviceCounter errors;
  // Addresses have no pool: T may be anything then, so no permutation of [0, T) is built.
  const PagePermutation pi(page_ids ? T : 1, seed);
  range_kernel<<<blocks_for(sorted.size(), 256), 256>>>(sorted.get(), sorted.size(), len, page_ids,
                                                        T, A, pi, errors.get());
  ALLOCLAB_CUDA_LAUNCH();
  return errors.read();
}

Stats reduce_stats(const KernelArgs& a, const DeviceBuffer<std::uint32_t>& steps,
                   const DeviceBuffer<std::uint32_t>& collisions,
                   const DeviceBuffer<std::uint64_t>& page) {
  const std::uint64_t R = a.N * a.per_thread;
  DeviceBuffer<Totals> totals(1);
  ALLOCLAB_CUDA(cudaMemset(totals.get(), 0, sizeof(Totals)));
  const std::uint64_t groups = (a.N + a.lanes - 1) / a.lanes * a.per_thread;
  stats_kernel<<<blocks_for(groups, kStatsBlock), kStatsBlock>>>(
      steps.get(), collisions.get(), page.get(), a.N, a.per_thread, a.lanes, totals.get());
  ALLOCLAB_CUDA_LAUNCH();
  const Totals t = read_scalar(totals.get());
  // Nearest-rank percentiles from the sorted steps.
  DeviceBuffer<std::uint32_t> sorted(R);
  std::size_t temp_bytes = 0;
  ALLOCLAB_CUDA(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, steps.get(), sorted.get(), R));
  DeviceBuffer<unsigned char> temp(temp_bytes);
  ALLOCLAB_CUDA(
      cub::DeviceRadixSort::SortKeys(temp.get(), temp_bytes, steps.get(), sorted.get(), R));
  auto rank = [&](double q) {
    std::uint64_t r = static_cast<std::uint64_t>(q * static_cast<double>(R) + 0.999999999);
    r = std::clamp<std::uint64_t>(r, 1, R);
    return read_scalar(sorted.get() + (r - 1));
  };
  Stats s;
  s.tas = static_cast<double>(t.steps_sum) / static_cast<double>(R);
  s.was = static_cast<double>(t.warp_max_sum) / static_cast<double>(groups);
  s.p50 = rank(0.5);
  s.p99 = rank(0.99);
  s.max = t.steps_max;
  s.collisions = t.collisions;
  s.taken = t.taken;
  return s;
}

std::uint64_t result_scratch_bytes(std::uint64_t R) {
  // Sorting the slots (verification), or the sorted steps and their sort (statistics); one
  // counter each.
  const std::uint64_t verify = sort_temp_bytes<std::uint64_t>(R);
  const std::uint64_t stats =
      R * sizeof(std::uint32_t) + sort_temp_bytes<std::uint32_t>(R) + sizeof(Totals);
  return std::max(verify, stats) + sizeof(unsigned long long);
}

}  // namespace alloclab::gpu::detail
