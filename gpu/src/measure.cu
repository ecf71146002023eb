// The measurement driver: builds the pool, times the allocation kernel (warm-up, then the median
// of repeats, each from the same pool), reduces the per-request counters on the device with CUB
// and verifies every repeat. Statistics and checks run outside the timed region.
#include <cub/cub.cuh>
#include <cuda/functional>

#include <algorithm>
#include <string>
#include <vector>

#include "alloclab/core/errors.hpp"
#include "common.cuh"

namespace alloclab::gpu {
using namespace detail;

bool built_with_cuda() {
  return true;
}

namespace {

void require_device() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    cudaGetLastError();
    throw NoDevice(std::string("no CUDA device: ") + cudaGetErrorString(e));
  }
  if (count == 0) throw NoDevice("no CUDA device: cudaGetDeviceCount returned 0");
}

// Event pair timing one region on the default stream.
class EventTimer {
 public:
  EventTimer() {
    ALLOCLAB_CUDA(cudaEventCreate(&start_));
    ALLOCLAB_CUDA(cudaEventCreate(&stop_));
  }
  ~EventTimer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  void start() { ALLOCLAB_CUDA(cudaEventRecord(start_)); }
  double stop() {
    ALLOCLAB_CUDA(cudaEventRecord(stop_));
    ALLOCLAB_CUDA(cudaEventSynchronize(stop_));
    float ms = 0;
    ALLOCLAB_CUDA(cudaEventElapsedTime(&ms, start_, stop_));
    return ms;
  }

 private:
  cudaEvent_t start_{}, stop_{};
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

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
    atomicAdd(&out->steps_sum, bs);
    atomicAdd(&out->collisions, bc);
    atomicAdd(&out->taken, bt);
    atomicAdd(&out->warp_max_sum, bw);
    atomicMax(&out->steps_max, bm);
  }
}

__global__ void count_taken_kernel(const std::uint64_t* page, std::uint64_t n,
                                   unsigned long long* taken) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i < n && page[i] != kFailed) atomicAdd(taken, 1ull);
}

// Over the sorted first pages (or addresses): ranges [x, x + len) must be disjoint. For page ids
// also: inside the pool, initially free, and marked used in the bitmap now.
template <typename Word>
__global__ void verify_kernel(const std::uint64_t* sorted, std::uint64_t n, std::uint64_t len,
                              bool page_ids, const Word* bitmap, std::uint64_t T, std::uint64_t A,
                              PagePermutation pi, unsigned long long* errors) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= n) return;
  const std::uint64_t x = sorted[i];
  if (x == kFailed) return;
  unsigned long long bad = 0;
  if (i + 1 < n && sorted[i + 1] != kFailed && sorted[i + 1] < x + len) ++bad;
  if (page_ids) {
    constexpr unsigned w = sizeof(Word) * 8;
    if (x + len > T) {
      ++bad;
    } else {
      for (std::uint64_t p = x; p < x + len; ++p) {
        if (!initially_free(pi, p, A)) ++bad;
        if (bitmap && !((bitmap[p / w] >> (p % w)) & 1)) ++bad;
      }
    }
  }
  if (bad) atomicAdd(errors, bad);
}

template <typename Word>
__global__ void mismatch_kernel(const Word* a, const Word* b, std::uint64_t n,
                                unsigned long long* count) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i < n && a[i] != b[i]) atomicAdd(count, 1ull);
}

__global__ void atomic_floor_kernel(std::uint32_t* bitmap, std::uint64_t words, std::uint64_t n,
                                    bool philox, std::uint64_t seed, std::uint32_t* out) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= n) return;
  const std::uint64_t p =
      philox ? bitmap_probe_word(seed, i, 0, words) : mul_high_u64(mix64(i ^ seed), words);
  out[i] = atomicOr(&bitmap[p], 1u << (i % 32));
}

template <typename T>
T read_scalar(const T* d) {
  T h{};
  ALLOCLAB_CUDA(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
  return h;
}

void sort_u64(DeviceBuffer<std::uint64_t>& in, DeviceBuffer<std::uint64_t>& out) {
  std::size_t temp_bytes = 0;
  ALLOCLAB_CUDA(
      cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, in.get(), out.get(), in.size()));
  DeviceBuffer<unsigned char> temp(temp_bytes);
  ALLOCLAB_CUDA(
      cub::DeviceRadixSort::SortKeys(temp.get(), temp_bytes, in.get(), out.get(), in.size()));
}

struct Stats {
  double tas = 0, was = 0;
  std::uint32_t p50 = 0, p99 = 0, max = 0;
  std::uint64_t collisions = 0, taken = 0;
};

Stats reduce_stats(const KernelArgs& a, DeviceBuffer<std::uint32_t>& steps,
                   DeviceBuffer<std::uint32_t>& collisions, DeviceBuffer<std::uint64_t>& page) {
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

void launch_alloc(Kernel kernel, const KernelArgs& a, bool counters) {
  switch (kernel) {
    case Kernel::queue:
      return launch_queue_alloc(a, counters);
    case Kernel::rw:
      return launch_rw_alloc(a, counters);
    case Kernel::rwbm:
      return launch_rwbm_alloc(a, counters);
    case Kernel::corw:
      return launch_corw_alloc(a, counters);
    case Kernel::rwmalloc:
      return launch_rwmalloc_alloc(a, counters);
    case Kernel::cudamalloc:
      return launch_cudamalloc_alloc(a);
  }
}

void launch_free(Kernel kernel, const KernelArgs& a) {
  switch (kernel) {
    case Kernel::queue:
      return launch_queue_free(a);
    case Kernel::rw:
      return launch_rw_free(a);
    case Kernel::rwbm:
    case Kernel::corw:
      return launch_rwbm_free(a);
    case Kernel::rwmalloc:
      return launch_rwmalloc_free(a);
    case Kernel::cudamalloc:
      return launch_cudamalloc_free(a);
  }
}

std::size_t g_heap_set = 0;  // device malloc heap size this process asked for

void set_heap(std::size_t bytes) {
  std::size_t current = 0;
  ALLOCLAB_CUDA(cudaDeviceGetLimit(&current, cudaLimitMallocHeapSize));
  if (current >= bytes) return;
  const cudaError_t e = cudaDeviceSetLimit(cudaLimitMallocHeapSize, bytes);
  if (e != cudaSuccess) {
    cudaGetLastError();
    throw InputError("--heap-bytes",
                     "cannot raise the device malloc heap to " + std::to_string(bytes) +
                         " bytes after the first malloc "
                         "kernel (" +
                         cudaGetErrorString(e) + "); give --heap-bytes for the largest grid point");
  }
  g_heap_set = bytes;
}

}  // namespace

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
  return d;
}

MeasureResult measure(Kernel kernel, const Scenario& s, const MeasureOptions& o,
                      std::uint64_t trial) {
  require_device();
  const bool malloc_baseline = kernel == Kernel::cudamalloc;
  const bool warp_algo = kernel == Kernel::corw || kernel == Kernel::rwmalloc;
  if (s.w != 32 && s.w != 64) throw InputError("--w", "the GPU kernels use w = 32 or 64");
  if (warp_algo && s.lanes != 32)
    throw InputError("--lanes", "CoRW and RW_malloc run on hardware warps: lanes must be 32");
  if (kernel == Kernel::rwmalloc && s.pages > s.w)
    throw InputError("--pages", "GPU RW_malloc finds runs inside one word: pages <= w");
  if (kernel != Kernel::rwmalloc && kernel != Kernel::cudamalloc && s.pages != 1)
    throw InputError("--pages", "only rwmalloc and cudamalloc take --pages");
  if (o.per_thread < 1) throw InputError("--per-thread", "must be >= 1");
  if (o.repeats < 1) throw InputError("--repeats", "must be >= 1");
  if (kernel == Kernel::queue && s.T > 0xffffffffull)
    throw InputError("--T", "the queue stores 32-bit page ids: T < 2^32");
  if (s.N * o.per_thread > (1ull << 31)) throw InputError("--N", "N * per-thread must be <= 2^31");

  KernelArgs a;
  a.N = s.N;
  a.A = s.A;
  a.T = s.T;
  a.w = kernel == Kernel::rw ? 32 : s.w;  // RW keeps one bit per page in 32-bit words
  a.words = word_count(s.T, a.w);
  a.lanes = s.lanes;
  a.pages = s.pages;
  a.bit_choice = s.bit_choice;
  a.per_thread = o.per_thread;
  a.seed = trial_seed(s.seed, trial);
  a.max_steps = o.max_steps;
  a.page_bytes = o.page_bytes;
  const std::uint64_t R = s.N * o.per_thread;
  const std::size_t word_bytes = a.w / 8;

  MeasureResult res;
  EventTimer timer;
  DeviceBuffer<unsigned char> bitmap, pristine;
  DeviceBuffer<std::uint32_t> queue, queue_pristine;
  DeviceBuffer<unsigned long long> head(2);
  DeviceBuffer<std::uint64_t> page(R), sorted(R);
  DeviceBuffer<std::uint32_t> steps(R), collisions(R);
  DeviceBuffer<void*> ptrs;
  DeviceBuffer<unsigned long long> scratch(1);

  // Pool set-up (timed separately).
  timer.start();
  if (kernel == Kernel::queue) {
    queue.resize(std::max<std::uint64_t>(s.A, 1));
    queue_pristine.resize(queue.size());
    a.queue = queue_pristine.get();
    const std::uint64_t listed = build_queue(a);
    if (listed != s.A)
      throw VerificationError("queue set-up listed " + std::to_string(listed) +
                              " free pages, expected A=" + std::to_string(s.A));
    a.queue = queue.get();
    a.queue_head = head.get();
  } else if (!malloc_baseline) {
    bitmap.resize(a.words * word_bytes);
    pristine.resize(a.words * word_bytes);
    a.bitmap = pristine.get();
    build_bitmap(a);
    const std::uint64_t used = count_used_bits(a);
    if (used != a.words * a.w - s.A)
      throw VerificationError("pool set-up: " + std::to_string(a.words * a.w - used) +
                              " free bits, expected A=" + std::to_string(s.A));
    a.bitmap = bitmap.get();
  } else {
    ptrs.resize(R);
    a.ptrs = ptrs.get();
    const std::size_t need = static_cast<std::size_t>(R * s.pages * o.page_bytes);
    set_heap(o.heap_bytes ? o.heap_bytes : std::max<std::size_t>(2 * need, 1ull << 31));
  }
  res.setup_ms = timer.stop();
  a.page = page.get();
  a.steps = steps.get();
  a.collisions = collisions.get();

  const bool page_ids = !malloc_baseline;
  const std::uint64_t len = page_ids ? s.pages : s.pages * o.page_bytes;
  const std::uint64_t initially_used = a.words * a.w - s.A;
  const unsigned runs = o.warmup + o.repeats;
  const bool counters = o.counters && !malloc_baseline;
  const PagePermutation pi(s.T, a.seed);

  for (unsigned run = 0; run < runs; ++run) {
    // Reset to the same pool.
    if (kernel == Kernel::queue) {
      ALLOCLAB_CUDA(
          cudaMemcpy(queue.get(), queue_pristine.get(), queue.bytes(), cudaMemcpyDeviceToDevice));
      const unsigned long long h[2] = {0, s.A};
      ALLOCLAB_CUDA(cudaMemcpy(head.get(), h, sizeof h, cudaMemcpyHostToDevice));
    } else if (!malloc_baseline) {
      ALLOCLAB_CUDA(
          cudaMemcpy(bitmap.get(), pristine.get(), bitmap.bytes(), cudaMemcpyDeviceToDevice));
    }
    ALLOCLAB_CUDA(cudaMemset(page.get(), 0xff, page.bytes()));
    ALLOCLAB_CUDA(cudaMemset(steps.get(), 0, steps.bytes()));
    ALLOCLAB_CUDA(cudaMemset(collisions.get(), 0, collisions.bytes()));
    KernelArgs timed = a;
    if (!counters) timed.steps = timed.collisions = nullptr;
    ALLOCLAB_CUDA(cudaDeviceSynchronize());
    timer.start();
    launch_alloc(kernel, timed, counters);
    const double ms = timer.stop();
    ALLOCLAB_CUDA(cudaGetLastError());
    if (run >= o.warmup) res.kernel_ms_all.push_back(ms);

    // Verify this run: disjoint ranges, pages initially free and now used, conservation.
    ALLOCLAB_CUDA(cudaMemset(scratch.get(), 0, sizeof(unsigned long long)));
    count_taken_kernel<<<blocks_for(R, 256), 256>>>(page.get(), R, scratch.get());
    ALLOCLAB_CUDA_LAUNCH();
    const std::uint64_t taken = read_scalar(scratch.get());
    sort_u64(page, sorted);
    ALLOCLAB_CUDA(cudaMemset(scratch.get(), 0, sizeof(unsigned long long)));
    const void* bm = (page_ids && kernel != Kernel::queue) ? a.bitmap : nullptr;
    if (a.w == 32)
      verify_kernel<std::uint32_t><<<blocks_for(R, 256), 256>>>(
          sorted.get(), R, len, page_ids, static_cast<const std::uint32_t*>(bm), s.T, s.A, pi,
          scratch.get());
    else
      verify_kernel<std::uint64_t><<<blocks_for(R, 256), 256>>>(
          sorted.get(), R, len, page_ids, static_cast<const std::uint64_t*>(bm), s.T, s.A, pi,
          scratch.get());
    ALLOCLAB_CUDA_LAUNCH();
    const std::uint64_t errors = read_scalar(scratch.get());
    if (errors)
      throw VerificationError(std::string(kernel_name(kernel)) + ": " + std::to_string(errors) +
                              " violations (pages handed out twice, overlapping ranges, or pages "
                              "that were not free)");
    if (bm) {
      const std::uint64_t used = count_used_bits(a);
      if (used != initially_used + taken * s.pages)
        throw VerificationError(std::string(kernel_name(kernel)) + ": bitmap has " +
                                std::to_string(used - initially_used) + " newly used pages, " +
                                std::to_string(taken) + " requests taken");
    }
    if (kernel == Kernel::queue && taken != std::min<std::uint64_t>(R, s.A))
      throw VerificationError("queue: taken " + std::to_string(taken) + ", expected min(N*k, A)");
    if (page_ids && taken * s.pages > s.A)
      throw VerificationError(std::string(kernel_name(kernel)) + ": more pages taken than free");
    res.taken = taken;
    res.failed = R - taken;

    if (run + 1 == runs) {
      if (counters) {
        const Stats st = reduce_stats(a, steps, collisions, page);
        if (st.taken != taken) throw VerificationError("statistics disagree on taken");
        res.tas = st.tas;
        res.was = st.was;
        res.steps_p50 = st.p50;
        res.steps_p99 = st.p99;
        res.steps_max = st.max;
        res.collisions = st.collisions;
        if (kernel != Kernel::queue && res.failed > 0 && st.max < o.max_steps)
          throw VerificationError(std::string(kernel_name(kernel)) +
                                  ": a request failed before the step bound");
      } else {
        res.has_steps = false;
      }
      if (res.failed > 0 && kernel != Kernel::queue && !malloc_baseline)
        res.notes.push_back("failed: " + std::to_string(res.failed) +
                            " requests reached the step bound --max-steps=" +
                            std::to_string(o.max_steps) + " (out of memory)");
      if (o.keep_per_thread) {
        std::vector<std::uint64_t> h(R);
        ALLOCLAB_CUDA(cudaMemcpy(h.data(), page.get(), page.bytes(), cudaMemcpyDeviceToHost));
        res.first_page.resize(R);
        std::uint64_t lowest = kFailed;
        for (auto x : h) lowest = std::min(lowest, x);
        for (std::uint64_t r = 0; r < R; ++r)
          res.first_page[r] =
              h[r] == kFailed ? -1 : static_cast<std::int64_t>(page_ids ? h[r] : h[r] - lowest);
        res.steps.resize(R);
        if (counters)
          ALLOCLAB_CUDA(
              cudaMemcpy(res.steps.data(), steps.get(), steps.bytes(), cudaMemcpyDeviceToHost));
      }
      // The free kernel, timed once, must restore the pool.
      timer.start();
      launch_free(kernel, a);
      res.free_ms = timer.stop();
      ALLOCLAB_CUDA(cudaGetLastError());
      if (bm) {
        ALLOCLAB_CUDA(cudaMemset(scratch.get(), 0, sizeof(unsigned long long)));
        if (a.w == 32)
          mismatch_kernel<<<blocks_for(a.words, 256), 256>>>(
              static_cast<const std::uint32_t*>(a.bitmap),
              reinterpret_cast<const std::uint32_t*>(pristine.get()), a.words, scratch.get());
        else
          mismatch_kernel<<<blocks_for(a.words, 256), 256>>>(
              static_cast<const std::uint64_t*>(a.bitmap),
              reinterpret_cast<const std::uint64_t*>(pristine.get()), a.words, scratch.get());
        ALLOCLAB_CUDA_LAUNCH();
        if (const auto m = read_scalar(scratch.get()))
          throw VerificationError(std::string(kernel_name(kernel)) + ": free left " +
                                  std::to_string(m) + " bitmap words different from the pool");
      }
      if (kernel == Kernel::queue) {
        const unsigned long long tail = read_scalar(head.get() + 1);
        if (tail != s.A + taken)
          throw VerificationError("queue: free pushed " + std::to_string(tail - s.A) +
                                  " pages, expected " + std::to_string(taken));
      }
    } else if (malloc_baseline) {
      launch_free(kernel, a);  // the heap must be empty again before the next repeat
      ALLOCLAB_CUDA(cudaDeviceSynchronize());
    }
  }
  ALLOCLAB_CUDA(cudaDeviceSynchronize());
  res.kernel_ms = median(res.kernel_ms_all);
  if (malloc_baseline) {
    res.has_steps = false;
    res.notes.push_back("cudamalloc: A and T do not apply; steps are not observable");
  }
  return res;
}

double atomic_floor_ms(std::uint64_t threads, std::uint64_t T, bool philox, unsigned repeats) {
  require_device();
  const std::uint64_t words = word_count(T, 32);
  DeviceBuffer<std::uint32_t> bitmap(words), out(threads);
  EventTimer timer;
  std::vector<double> times;
  for (unsigned r = 0; r < repeats + 1; ++r) {
    ALLOCLAB_CUDA(cudaMemset(bitmap.get(), 0, bitmap.bytes()));
    ALLOCLAB_CUDA(cudaDeviceSynchronize());
    timer.start();
    atomic_floor_kernel<<<blocks_for(threads, 256), 256>>>(bitmap.get(), words, threads, philox,
                                                           12345 + r, out.get());
    const double ms = timer.stop();
    ALLOCLAB_CUDA_LAUNCH();
    if (r > 0) times.push_back(ms);
  }
  return median(times);
}

}  // namespace alloclab::gpu
