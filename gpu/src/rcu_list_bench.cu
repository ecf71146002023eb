// Figure 6's benchmark on the GPU (alloclab/gpu/rcu_list_bench.hpp).
#include <algorithm>
#include <vector>

#include "alloclab/core/median.hpp"
#include "alloclab/gpu/rcu_list_bench.hpp"
#include "device.cuh"
#include "gg_atomics.cuh"
#include "ouro_atomics.cuh"

namespace alloclab::gpu {
namespace {

// Acquire/release at device scope (gg_atomics.cuh): what the units and nodes handed between
// threads need (studies/gelado-garland/memory-order.md).
using GgBenchAtomics = detail::GgAtomics<detail::NoTally<detail::GgOrder::acq_rel>>;
using detail::DeviceBuffer;
using gelado::RcuListRole;
using gelado::RcuListStats;
using gelado::RcuListStorage;
using gelado::RcuListView;
using gelado::StepStatus;

__global__ void rcu_list_kernel(RcuListView v, const std::uint32_t* tags, std::uint32_t threads,
                                bool conditional, std::uint64_t max_steps,
                                std::uint32_t backoff_max_ns, std::uint8_t* roles,
                                RcuListStats* stats) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= threads) return;
  gelado::RcuListThread<GgBenchAtomics> t(tags[i], conditional);
  std::uint32_t spins = 0;
  for (;;) {
    const StepStatus s = t.step(v);
    if (s == StepStatus::done) break;
    if (s != StepStatus::spinning) spins = 0;
    // Exponential back-off after a lost CAS or a wait's spin: 32 ns doubling up to the cap.
    if (s == StepStatus::spinning) __nanosleep(min(32u << min(spins++, 20u), backoff_max_ns));
    if (t.stats().steps >= max_steps && t.give_up(v)) break;
  }
  roles[i] = static_cast<std::uint8_t>(t.role());
  stats[i] = t.stats();
}

// The device's copy of the words: filled from a fresh host list before each launch, read back
// into it after.
struct DeviceList {
  DeviceBuffer<std::uint32_t> words, prev, rcu_next;
  DeviceBuffer<std::uint64_t> node;
  explicit DeviceList(std::uint32_t nodes)
      : words(8),
        prev(std::max(nodes, 1u)),
        rcu_next(std::max(nodes, 1u)),
        node(std::max(nodes, 1u)) {}

  RcuListView upload(const RcuListStorage& h) {
    ALLOCLAB_CUDA(cudaMemcpy(words.get(), h.words.data(), words.bytes(), cudaMemcpyHostToDevice));
    ALLOCLAB_CUDA(cudaMemcpy(node.get(), h.node.data(), h.node.size() * sizeof(std::uint64_t),
                             cudaMemcpyHostToDevice));
    ALLOCLAB_CUDA(cudaMemcpy(prev.get(), h.prev.data(), h.prev.size() * sizeof(std::uint32_t),
                             cudaMemcpyHostToDevice));
    ALLOCLAB_CUDA(cudaMemcpy(rcu_next.get(), h.rcu_next.data(),
                             h.rcu_next.size() * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
    RcuListView v;
    std::uint32_t* w = words.get();
    v.head = w;
    v.tail = w + 1;
    v.mutex = w + 2;
    v.srcu = {w + 3, w + 4, w + 6, w + 7, rcu_next.get()};
    v.node = node.get();
    v.prev = prev.get();
    return v;
  }
  void download(RcuListStorage& h) const {
    ALLOCLAB_CUDA(cudaMemcpy(h.words.data(), words.get(), words.bytes(), cudaMemcpyDeviceToHost));
    ALLOCLAB_CUDA(cudaMemcpy(h.node.data(), node.get(), h.node.size() * sizeof(std::uint64_t),
                             cudaMemcpyDeviceToHost));
  }
};

struct Launch {
  gelado::RcuListSummary summary;
  double ms = 0;
};

Launch launch(const RcuBenchGpuOptions& o, std::uint64_t max_steps, DeviceList& list,
              const std::vector<std::uint32_t>& tags, const DeviceBuffer<std::uint32_t>& d_tags,
              DeviceBuffer<std::uint8_t>& roles, DeviceBuffer<RcuListStats>& stats) {
  RcuListStorage host(o.config.nodes);
  const RcuListView v = list.upload(host);
  const unsigned blocks = detail::blocks_for(o.config.threads, o.block);
  detail::EventTimer timer;
  timer.start();
  rcu_list_kernel<<<blocks, o.block>>>(v, d_tags.get(), o.config.threads, o.config.conditional,
                                       max_steps, o.backoff_max_ns, roles.get(), stats.get());
  ALLOCLAB_CUDA_LAUNCH();
  Launch l;
  l.ms = timer.stop();
  ALLOCLAB_CUDA(cudaDeviceSynchronize());
  std::vector<std::uint8_t> r(o.config.threads);
  std::vector<RcuListStats> s(o.config.threads);
  ALLOCLAB_CUDA(cudaMemcpy(r.data(), roles.get(), r.size(), cudaMemcpyDeviceToHost));
  ALLOCLAB_CUDA(
      cudaMemcpy(s.data(), stats.get(), s.size() * sizeof(RcuListStats), cudaMemcpyDeviceToHost));
  l.summary.config = o.config;
  for (std::size_t i = 0; i < r.size(); ++i)
    gelado::add_thread(l.summary, static_cast<RcuListRole>(r[i]), tags[i], s[i]);
  list.download(host);
  gelado::take_words(l.summary, host);
  return l;
}

}  // namespace

RcuBenchGpuRun run_rcu_bench_gpu(const RcuBenchGpuOptions& o) {
  check_rcu_bench_gpu(o);
  detail::require_device();
  const std::uint64_t n = o.config.threads;
  detail::require_device_bytes("--N", "the RCU list benchmark",
                               {{"tags", n * 4},
                                {"per-thread counts", n * (sizeof(RcuListStats) + 1)},
                                {"list nodes", std::uint64_t{o.config.nodes} * 16}});
  RcuBenchGpuRun run;
  run.max_steps = o.max_steps ? o.max_steps : kRcuBenchGpuSteps;
  const std::vector<std::uint32_t> tags = gelado::rcu_list_tags(o.config.threads, o.seed);
  DeviceBuffer<std::uint32_t> d_tags(n);
  ALLOCLAB_CUDA(cudaMemcpy(d_tags.get(), tags.data(), n * 4, cudaMemcpyHostToDevice));
  DeviceBuffer<std::uint8_t> roles(n);
  DeviceBuffer<RcuListStats> stats(n);
  DeviceList list(o.config.nodes);
  auto verified = [&](const Launch& l, const char* which) {
    const std::string e = gelado::verify_rcu_list(l.summary);
    if (!e.empty() && run.verification.empty()) run.verification = std::string(which) + ": " + e;
  };
  for (unsigned w = 0; w < o.warmup; ++w)
    verified(launch(o, run.max_steps, list, tags, d_tags, roles, stats), "warm-up");
  for (unsigned r = 0; r < o.repeats; ++r) {
    Launch l = launch(o, run.max_steps, list, tags, d_tags, roles, stats);
    verified(l, "timed launch");
    run.kernel_ms.push_back(l.ms);
    run.summary = l.summary;
  }
  run.median_ms = median_of(run.kernel_ms);
  return run;
}

}  // namespace alloclab::gpu
