// linux-scalability on the GPU (alloclab/gpu/dynasoar_apps.hpp; DynaSOAr §6.4, Fig. 14A): for
// each n, on a fresh heap, ONE kernel in which every thread allocates n objects, then ONE kernel
// that frees them all; the largest n with every request served, found by doubling and bisection.
// On the typed heap (dynasoar_typed.cuh) the record is checked after each kernel and every block
// must be free after the frees; other allocators run through measure() (one object a page), which
// verifies its own runs.
#include <string>
#include <vector>

#include "alloclab/core/errors.hpp"
#include "alloclab/gpu/measure.hpp"
#include "dynasoar_typed.cuh"

namespace alloclab::gpu {
namespace detail {
namespace {

__global__ void fill_kernel(std::uint32_t* out, std::uint64_t n, std::uint32_t v) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i < n) out[i] = v;
}

struct Trial {
  std::uint64_t failed = 0;
  double alloc_ms = 0, free_ms = 0;
  DsCountTotals counts{};
};

// n objects a thread on the typed heap: the allocation kernel, the record and the check; the free
// kernel over every object served, the record and the check (every block free).
class TypedTrials {
 public:
  TypedTrials(Algorithm algo, const LinuxScalabilityGpuOptions& o)
      : o_(o), heap_(algo, heap_options(o)), types_(o.threads) {
    fill_kernel<<<blocks_for(o.threads, 256), 256>>>(types_.get(), o.threads, 1);
    ALLOCLAB_CUDA_LAUNCH();
  }
  static TypedHeapGpuOptions heap_options(const LinuxScalabilityGpuOptions& o) {
    TypedHeapGpuOptions h;
    h.types = dynasoar::check_types("--object-bytes", {o.object_bytes});
    h.heap_bytes = o.heap_bytes;
    h.retries = o.retries;
    h.seed = o.seed;
    return h;
  }
  std::uint64_t capacity() const { return heap_.M * heap_.opt.types.capacity(1); }

  Trial run(std::uint64_t n) {
    heap_.reset();
    const DsCountTotals before = heap_.totals;
    const std::uint64_t failed_before = heap_.failed;
    const std::uint64_t R = o_.threads * n;
    out_.resize(R);
    one_.resize(R);
    fill_kernel<<<blocks_for(R, 256), 256>>>(one_.get(), R, 1);
    ALLOCLAB_CUDA_LAUNCH();
    Trial t;
    t.alloc_ms =
        heap_.launch_allocate(types_.get(), o_.threads, static_cast<unsigned>(n), out_.get());
    std::vector<std::uint64_t> keys(R);
    ALLOCLAB_CUDA(cudaMemcpy(keys.data(), out_.get(), R * 8, cudaMemcpyDeviceToHost));
    heap_.record_allocated(std::vector<std::uint32_t>(o_.threads, 1), static_cast<unsigned>(n),
                           keys, "after the linux-scalability allocation kernel");
    t.failed = heap_.failed - failed_before;
    t.free_ms = heap_.launch_free(out_.get(), one_.get(), R);
    heap_.record_freed(keys, std::vector<std::uint32_t>(R, 1),
                       "after the linux-scalability free kernel");
    if (heap_.mirror.blocks_in_use() != 0)
      throw VerificationError(heap_.name + ": blocks in use after every object was freed");
    for (unsigned k = 0; k < t.counts.size(); ++k) t.counts[k] = heap_.totals[k] - before[k];
    return t;
  }

 private:
  LinuxScalabilityGpuOptions o_;
  TypedDeviceHeap heap_;
  DeviceBuffer<std::uint32_t> types_, one_;
  DeviceBuffer<std::uint64_t> out_;
};

// n requests a thread of one page through measure() (its own verification every run).
Trial measured_trial(Algorithm algo, const LinuxScalabilityGpuOptions& o, std::uint64_t n) {
  Scenario s;
  s.algo = algo;
  s.N = o.threads;
  s.T = s.A = o.heap_bytes / o.object_bytes;
  s.pages = 1;
  s.seed = o.seed;
  MeasureOptions m;
  m.per_thread = static_cast<unsigned>(n);
  m.warmup = 0;
  m.repeats = 1;
  m.counters = false;
  m.page_bytes = o.object_bytes;
  const MeasureResult r = measure(algo, s, m);
  Trial t;
  t.failed = r.failed;
  t.alloc_ms = r.kernel_ms;
  t.free_ms = r.free_ms;
  return t;
}

bool has_typed_heap(Algorithm algo) {
  for (const Algorithm a : typed_heap_algorithms())
    if (a == algo) return true;
  return false;
}

}  // namespace
}  // namespace detail

LinuxScalabilityGpuRun run_linux_scalability_gpu(Algorithm algo,
                                                 const LinuxScalabilityGpuOptions& o) {
  if (o.threads == 0) throw InputError("--N", "at least one thread");
  if (o.object_bytes == 0 || o.heap_bytes < o.object_bytes)
    throw InputError("--pool", "a heap of at least one object");
  LinuxScalabilityGpuRun out;
  out.typed_heap = detail::has_typed_heap(algo);
  std::unique_ptr<detail::TypedTrials> typed;
  if (out.typed_heap) {
    typed = std::make_unique<detail::TypedTrials>(algo, o);
    out.capacity = typed->capacity();
  } else {
    Scenario s;
    s.algo = algo;
    s.N = o.threads;
    s.T = s.A = o.heap_bytes / o.object_bytes;
    s.pages = 1;
    MeasureOptions m;
    m.page_bytes = o.object_bytes;
    check_input(algo, s, m);
    out.capacity = s.T;
  }
  out.device = device_info().name;
  auto trial = [&](std::uint64_t n) {
    ++out.kernels;
    return typed ? typed->run(n) : detail::measured_trial(algo, o, n);
  };
  // Doubling until a kernel fails (or max_n), then bisection between the last n that succeeded
  // and the first that failed. Beyond the capacity every kernel must fail (a heap that served more
  // than it holds fails its checks first), so the doubling ends.
  std::uint64_t good = 0, bad = 0;
  detail::Trial at_good, at_bad;
  for (std::uint64_t n = 1;; n *= 2) {
    if (o.max_n != 0 && n > o.max_n) n = o.max_n;
    const detail::Trial t = trial(n);
    if (t.failed != 0) {
      bad = n;
      at_bad = t;
      break;
    }
    good = n;
    at_good = t;
    if (n == o.max_n) break;
  }
  // The failing kernel served what the heap held: floor(served / threads) and one more are the
  // likely answer, tried first (two kernels where the heap is full at a power of two); bisection
  // confirms or narrows it whatever they give.
  // (Two words and an index, not a vector: GCC 13 warns of a bound on the vector's erase.)
  std::uint64_t guesses[2] = {0, 0};
  unsigned next_guess = 2;  // none
  if (bad != 0) {
    const std::uint64_t fit = (o.threads * bad - at_bad.failed) / o.threads;
    guesses[0] = fit;
    guesses[1] = fit + 1;
    next_guess = 0;
  }
  while (bad != 0 && bad - good > 1) {
    std::uint64_t mid = good + (bad - good) / 2;
    while (next_guess < 2) {
      const std::uint64_t g = guesses[next_guess++];
      if (g > good && g < bad) {
        mid = g;
        break;
      }
    }
    const detail::Trial t = trial(mid);
    if (t.failed != 0) {
      bad = mid;
      at_bad = t;
    } else {
      good = mid;
      at_good = t;
    }
  }
  out.n_max = good;
  out.next_n = bad;
  out.next_failed = at_bad.failed;
  out.utilisation =
      static_cast<double>(o.threads * good * o.object_bytes) / static_cast<double>(o.heap_bytes);
  out.alloc_ms = at_good.alloc_ms;
  out.free_ms = at_good.free_ms;
  out.counts = at_good.counts;
  return out;
}

}  // namespace alloclab::gpu
