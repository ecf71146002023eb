// Figure 5's benchmark on the GPU (alloclab/gpu/semaphore_bench.hpp).
#include <algorithm>

#include "alloclab/core/median.hpp"
#include "alloclab/gpu/semaphore_bench.hpp"
#include "device.cuh"
#include "gg_atomics.cuh"
#include "ouro_atomics.cuh"
#include "ouro_gpu_support.cuh"

namespace alloclab::gpu {
namespace {

// Acquire/release at device scope (gg_atomics.cuh): what the units and nodes handed between
// threads need (studies/gelado-garland/memory-order.md).
using GgBenchAtomics = detail::GgAtomics<detail::NoTally<detail::GgOrder::acq_rel>>;
using detail::DeviceBuffer;
using gelado::SemBenchOutcome;
using gelado::SemBenchThreadResult;
using gelado::SemBenchWords;
using gelado::StepStatus;

constexpr std::uint8_t kUnitBad = 0x80;  // outcome byte: the thread's unit check failed

template <bool kCounters>
__global__ void sem_bench_kernel(SemBenchWords* words, gelado::SemBenchConfig config,
                                 std::uint64_t threads, std::uint64_t max_steps,
                                 std::uint32_t backoff_max_ns, std::uint8_t* outcomes,
                                 SemBenchThreadResult* results, unsigned long long* growing,
                                 unsigned long long* peak_growers) {
  std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= threads) return;
  if (config.units > 1) {  // warp aggregation: lane 0 asks for the warp (threads % 32 == 0)
    if (i % 32 != 0) return;
    i /= 32;
  }
  gelado::SemBenchThread<GgBenchAtomics> t(config);
  std::uint64_t steps = 0;
  std::uint32_t spins = 0;
  for (;;) {
    if constexpr (kCounters) {
      // A growth ends with its signal: count it out before the signal can let the next grower
      // in (the fence orders the two atomics), or two would overlap by a few instructions.
      if (t.phase() == gelado::SemBenchPhase::signal) {
        atomicAdd(growing, ~0ull);  // - 1
        cuda::atomic_thread_fence(cuda::memory_order_seq_cst, cuda::thread_scope_device);
      }
    }
    const bool was_growing = t.growing();
    const StepStatus s = t.step(*words);
    if constexpr (kCounters)
      if (t.growing() && !was_growing) atomicMax(peak_growers, atomicAdd(growing, 1ull) + 1);
    if (s == StepStatus::done) break;
    if (s != StepStatus::spinning) spins = 0;
    // Exponential back-off after a lost CAS or a wait's spin: 32 ns doubling up to the cap.
    if (s == StepStatus::spinning) __nanosleep(min(32u << min(spins++, 20u), backoff_max_ns));
    if (++steps >= max_steps && t.give_up(*words)) break;
  }
  const SemBenchThreadResult& r = t.result();
  outcomes[i] = static_cast<std::uint8_t>(r.outcome) | (r.unit_ok ? 0 : kUnitBad);
  if constexpr (kCounters) results[i] = r;
}

gelado::SemBenchConfig resolved(const SemaphoreBenchGpuOptions& o) {
  gelado::SemBenchConfig c = o.config;
  if (c.batches_available == 0) c.batches_available = (o.threads + c.batch - 1) / c.batch;
  c.units = o.warp ? 32 : 1;
  return c;
}

// One launch from fresh words; its summary from the outcome bytes (and the counts when stored).
struct Launch {
  gelado::SemBenchSummary summary;
  double ms = 0;
  std::uint64_t peak_growers = 0;
};

Launch launch(const SemaphoreBenchGpuOptions& o, std::uint64_t max_steps, bool counters,
              DeviceBuffer<SemBenchWords>& words, DeviceBuffer<std::uint8_t>& outcomes,
              DeviceBuffer<SemBenchThreadResult>& results,
              DeviceBuffer<unsigned long long>& growers) {
  const gelado::SemBenchConfig config = resolved(o);
  ALLOCLAB_CUDA(cudaMemset(words.get(), 0, words.bytes()));
  ALLOCLAB_CUDA(cudaMemset(growers.get(), 0, growers.bytes()));
  const unsigned blocks = detail::blocks_for(o.threads, o.block);
  detail::EventTimer timer;
  timer.start();
  if (counters)
    sem_bench_kernel<true><<<blocks, o.block>>>(words.get(), config, o.threads, max_steps,
                                                o.backoff_max_ns, outcomes.get(), results.get(),
                                                growers.get(), growers.get() + 1);
  else
    sem_bench_kernel<false><<<blocks, o.block>>>(words.get(), config, o.threads, max_steps,
                                                 o.backoff_max_ns, outcomes.get(), nullptr, nullptr,
                                                 nullptr);
  ALLOCLAB_CUDA_LAUNCH();
  Launch l;
  l.ms = timer.stop();
  ALLOCLAB_CUDA(cudaDeviceSynchronize());
  l.summary.config = config;
  l.summary.threads = o.warp ? o.threads / 32 : o.threads;
  std::vector<std::uint8_t> bytes(l.summary.threads);
  ALLOCLAB_CUDA(cudaMemcpy(bytes.data(), outcomes.get(), bytes.size(), cudaMemcpyDeviceToHost));
  if (counters) {
    std::vector<SemBenchThreadResult> r(l.summary.threads);
    ALLOCLAB_CUDA(cudaMemcpy(r.data(), results.get(), r.size() * sizeof(SemBenchThreadResult),
                             cudaMemcpyDeviceToHost));
    for (const SemBenchThreadResult& t : r) gelado::add_thread(l.summary, t);
    l.peak_growers = detail::read_scalar(growers.get() + 1);
  } else {
    for (std::uint8_t b : bytes) {
      SemBenchThreadResult t;
      t.outcome = static_cast<SemBenchOutcome>(b & ~kUnitBad);
      t.unit_ok = (b & kUnitBad) == 0;
      gelado::add_thread(l.summary, t);
    }
  }
  SemBenchWords host{};
  ALLOCLAB_CUDA(cudaMemcpy(&host, words.get(), sizeof host, cudaMemcpyDeviceToHost));
  gelado::take_words(l.summary, host);
  return l;
}

}  // namespace

SemaphoreBenchGpuRun run_semaphore_bench_gpu(const SemaphoreBenchGpuOptions& o) {
  check_semaphore_bench_gpu(o);
  detail::require_device();
  detail::require_device_bytes("--N", "the semaphore benchmark",
                               {{"outcome bytes", o.threads},
                                {"per-thread counts", o.threads * sizeof(SemBenchThreadResult)}});
  SemaphoreBenchGpuRun run;
  run.max_steps = o.max_steps ? o.max_steps : kSemBenchGpuSteps;
  DeviceBuffer<SemBenchWords> words(1);
  DeviceBuffer<std::uint8_t> outcomes(o.threads);
  DeviceBuffer<SemBenchThreadResult> results(o.threads);
  DeviceBuffer<unsigned long long> growers(2);  // now, peak
  auto verified = [&](const Launch& l, const char* which) {
    const std::string e = gelado::verify_sem_bench(l.summary);
    if (!e.empty() && run.verification.empty()) run.verification = std::string(which) + ": " + e;
  };
  for (unsigned w = 0; w < o.warmup; ++w)
    verified(launch(o, run.max_steps, false, words, outcomes, results, growers), "warm-up");
  for (unsigned r = 0; r < o.repeats; ++r) {
    const Launch l = launch(o, run.max_steps, false, words, outcomes, results, growers);
    verified(l, "timed launch");
    run.kernel_ms.push_back(l.ms);
  }
  const Launch c = launch(o, run.max_steps, true, words, outcomes, results, growers);
  verified(c, "counters launch");
  run.summary = c.summary;
  run.peak_growers = c.peak_growers;
  run.median_ms = median_of(run.kernel_ms);
  return run;
}

}  // namespace alloclab::gpu
