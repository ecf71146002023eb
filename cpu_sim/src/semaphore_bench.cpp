// Figure 5's benchmark in the simulator's lockstep and threads modes (semaphore_bench.hpp).
#include "alloclab/cpu_sim/semaphore_bench.hpp"

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/ouroboros/host_atomics.hpp"
#include "alloclab/cpu_sim/simulator.hpp"

namespace alloclab::sim {
namespace {

using gelado::SemaphoreKind;
using gelado::SemBenchThread;
using gelado::SemBenchWords;
using gelado::StepStatus;
using Atom = ouro::HostAtomics;
using Thread = SemBenchThread<Atom>;

gelado::SemBenchConfig resolved(const SemaphoreBenchOptions& o) {
  gelado::SemBenchConfig c = o.config;
  if (c.batches_available == 0) c.batches_available = (o.threads + c.batch - 1) / c.batch;
  c.units = o.warp ? 32 : 1;
  return c;
}

std::uint64_t requesters(const SemaphoreBenchOptions& o) {
  return o.warp ? o.threads / 32 : o.threads;
}

void lockstep(const SemaphoreBenchOptions& o, SemaphoreBenchRun& run) {
  const gelado::SemBenchConfig config = resolved(o);
  SemBenchWords words;
  std::vector<Thread> threads(requesters(o), Thread(config));
  std::vector<std::uint64_t> steps(threads.size(), 0);
  std::uint64_t unfinished = threads.size(), waiting = 0, growing = 0, waiters_sum = 0;
  run.min_waiters_at_delivery = threads.size();
  while (unfinished > 0) {
    ++run.rounds;
    for (std::size_t i = 0; i < threads.size(); ++i) {
      Thread& t = threads[i];
      if (t.phase() == gelado::SemBenchPhase::done) continue;
      const bool was_waiting = t.waiting(), was_growing = t.growing();
      if (t.delivering()) {  // the batch arrives with this step: who is waiting for it
        ++run.deliveries;
        waiters_sum += waiting;
        run.min_waiters_at_delivery = std::min(run.min_waiters_at_delivery, waiting);
      }
      StepStatus s = t.step(words);
      if (s != StepStatus::done && ++steps[i] >= run.max_steps && t.give_up(words))
        s = StepStatus::done;
      waiting += std::uint64_t{t.waiting()} - std::uint64_t{was_waiting};
      growing += std::uint64_t{t.growing()} - std::uint64_t{was_growing};
      run.peak_growers = std::max(run.peak_growers, growing);
      if (s == StepStatus::done) --unfinished;
    }
    if (config.kind == SemaphoreKind::bulk) {
      const SemCounters c = gelado::BulkWord::unpack(words.semaphore.v);
      run.peak_reserved = std::max<std::uint64_t>(run.peak_reserved, c.reserved);
      run.peak_expected = std::max<std::uint64_t>(run.peak_expected, c.expected);
    }
  }
  if (run.deliveries == 0) run.min_waiters_at_delivery = 0;
  run.waiters_at_delivery =
      run.deliveries ? static_cast<double>(waiters_sum) / static_cast<double>(run.deliveries) : 0;
  for (const Thread& t : threads) gelado::add_thread(run.summary, t.result());
  gelado::take_words(run.summary, words);
}

// Each host thread steps its own simulated threads in turn, until all of them are done.
void host_threads(const SemaphoreBenchOptions& o, SemaphoreBenchRun& run) {
  const gelado::SemBenchConfig config = resolved(o);
  SemBenchWords words;
  std::vector<Thread> threads(requesters(o), Thread(config));
  unsigned hosts =
      o.host_threads ? o.host_threads : std::max(1u, std::thread::hardware_concurrency());
  hosts = static_cast<unsigned>(std::min<std::uint64_t>(hosts, threads.size()));
  const auto start = std::chrono::steady_clock::now();
  {
    std::vector<std::jthread> pool;
    for (unsigned h = 0; h < hosts; ++h)
      pool.emplace_back([&, h] {
        std::vector<std::uint64_t> mine, steps;
        for (std::uint64_t i = h; i < threads.size(); i += hosts) mine.push_back(i);
        steps.assign(mine.size(), 0);
        std::size_t left = mine.size();
        while (left > 0)
          for (std::size_t k = 0; k < mine.size(); ++k) {
            Thread& t = threads[mine[k]];
            if (t.phase() == gelado::SemBenchPhase::done) continue;
            StepStatus s = t.step(words);
            if (s != StepStatus::done && ++steps[k] >= run.max_steps && t.give_up(words))
              s = StepStatus::done;
            if (s == StepStatus::done) --left;
          }
      });
  }
  run.wall_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  for (const Thread& t : threads) gelado::add_thread(run.summary, t.result());
  gelado::take_words(run.summary, words);
}

}  // namespace

std::uint64_t default_sem_bench_steps(const SemaphoreBenchOptions& o) {
  const std::uint64_t batches = o.threads / std::max<std::uint32_t>(o.config.batch, 1) + 1;
  return 8 * (o.threads + batches * (o.config.grow_turns + 8)) + 1024;
}

void check_semaphore_bench(const SemaphoreBenchOptions& o) {
  if (o.threads == 0) throw InputError("--N", "0 threads");
  if (o.mode == SemBenchMode::lockstep && o.threads > kSemBenchLockstepMaxThreads)
    throw InputError("--N", std::to_string(o.threads) + " threads: lockstep runs at most " +
                                std::to_string(kSemBenchLockstepMaxThreads) +
                                " (its time grows as threads squared); use --mode threads or "
                                "--backend gpu for more");
  if (o.config.batch == 0) throw InputError("--batch", "a batch size of 0");
  check_host_threads("--threads", o.host_threads);
  if (o.warp && o.threads % 32 != 0)
    throw InputError("--N", std::to_string(o.threads) + " threads: with --warp, a multiple of 32");
  if (o.warp && o.config.batch < 32)
    throw InputError("--batch", std::to_string(o.config.batch) +
                                    ": with --warp a batch must hold a warp's 32 units");
  if (o.config.kind == SemaphoreKind::bulk) {
    const std::string e =
        gelado::bulk_semaphore_request_error("--N", requesters(o), o.warp ? 32 : 1, o.config.batch);
    if (!e.empty()) throw InputError("--N", e.substr(e.find(": ") + 2));
  }
}

SemaphoreBenchRun run_semaphore_bench(const SemaphoreBenchOptions& o) {
  check_semaphore_bench(o);
  SemaphoreBenchRun run;
  run.summary.config = resolved(o);
  run.summary.threads = requesters(o);
  run.max_steps = o.max_steps ? o.max_steps : default_sem_bench_steps(o);
  if (o.mode == SemBenchMode::lockstep)
    lockstep(o, run);
  else
    host_threads(o, run);
  run.verification = gelado::verify_sem_bench(run.summary);
  return run;
}

}  // namespace alloclab::sim
