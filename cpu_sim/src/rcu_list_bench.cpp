// Figure 6's benchmark in the simulator's lockstep and sequential modes (rcu_list_bench.hpp).
#include "alloclab/cpu_sim/rcu_list_bench.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/ouroboros/host_atomics.hpp"

namespace alloclab::sim {
namespace {

using gelado::RcuListPhase;
using gelado::SrcuBarrierPhase;
using gelado::StepStatus;
using Thread = gelado::RcuListThread<ouro::HostAtomics>;

bool holding(const Thread& t) {  // between taking the barrier's mutex and releasing it
  if (t.phase() == RcuListPhase::callback) return true;
  if (t.phase() != RcuListPhase::barrier) return false;
  const SrcuBarrierPhase p = t.barrier_phase();
  return p == SrcuBarrierPhase::grab || p == SrcuBarrierPhase::flip ||
         p == SrcuBarrierPhase::drain || p == SrcuBarrierPhase::cb_next ||
         p == SrcuBarrierPhase::release;
}
bool in_barrier(const Thread& t) {
  return t.phase() == RcuListPhase::barrier || t.phase() == RcuListPhase::callback;
}

void lockstep(const RcuBenchOptions& o, gelado::RcuListStorage& st, std::vector<Thread>& threads,
              RcuBenchRun& run) {
  const std::uint64_t n = threads.size();
  const std::uint64_t resident = o.resident ? o.resident : n;
  std::vector<std::uint64_t> active, hold_start(n, 0), trace_of(n, 0);
  std::uint64_t started = 0, in_barrier_now = 0, holds = 0, hold_rounds = 0;
  while (started < n || !active.empty()) {
    while (started < n && active.size() < resident) active.push_back(started++);
    ++run.rounds;
    std::size_t kept = 0;
    for (std::size_t a = 0; a < active.size(); ++a) {
      const std::uint64_t i = active[a];
      Thread& t = threads[i];
      const bool was_in = in_barrier(t), was_holding = holding(t);
      StepStatus s = t.step(st.view);
      if (s != StepStatus::done && t.stats().steps >= run.max_steps && t.give_up(st.view))
        s = StepStatus::done;
      const bool now_in = in_barrier(t), now_holding = holding(t);
      if (now_in && !was_in) {  // its push is done: its barrier starts next round
        trace_of[i] = run.barriers.size();
        run.barriers.push_back({run.rounds, 0, false});
        ++in_barrier_now;
      }
      if (!now_in && was_in) --in_barrier_now;
      run.peak_in_barrier = std::max(run.peak_in_barrier, in_barrier_now);
      if (now_holding && !was_holding) hold_start[i] = run.rounds;
      if (!now_holding && was_holding) {
        ++holds;
        hold_rounds += run.rounds - hold_start[i] + 1;
      }
      if (s == StepStatus::done) {
        if (t.stats().barrier_steps > 0) {
          run.barriers[trace_of[i]].end = run.rounds;
          run.barriers[trace_of[i]].delegated = t.stats().delegations > 0;
        }
        continue;
      }
      active[kept++] = i;
    }
    active.resize(kept);
  }
  run.mean_hold = holds ? static_cast<double>(hold_rounds) / static_cast<double>(holds) : 0;
}

void sequential(gelado::RcuListStorage& st, std::vector<Thread>& threads, RcuBenchRun& run) {
  for (Thread& t : threads) {
    for (;;) {
      StepStatus s = t.step(st.view);
      ++run.rounds;
      if (s != StepStatus::done && t.stats().steps >= run.max_steps && t.give_up(st.view))
        s = StepStatus::done;
      if (s == StepStatus::done) break;
    }
  }
}

}  // namespace

std::uint64_t default_rcu_bench_steps(const RcuBenchOptions& o) {
  const std::uint64_t w = o.config.nodes;
  return 8 * ((w + 4) * (w + 64) + 4 * std::uint64_t{o.config.threads}) + 4096;
}

void check_rcu_bench(const RcuBenchOptions& o) {
  const gelado::RcuListConfig& c = o.config;
  if (c.threads == 0) throw InputError("--N", "0 threads");
  if (c.threads > kRcuBenchMaxThreads)
    throw InputError("--N", std::to_string(c.threads) + " threads: the simulator runs at most " +
                                std::to_string(kRcuBenchMaxThreads) + "; use --backend gpu");
  if (c.nodes > c.threads)
    throw InputError("--ratio", std::to_string(c.nodes) + " list elements for " +
                                    std::to_string(c.threads) +
                                    " threads: every list tag is one thread's");
}

RcuBenchRun run_rcu_bench(const RcuBenchOptions& o) {
  check_rcu_bench(o);
  RcuBenchRun run;
  run.summary.config = o.config;
  run.max_steps = o.max_steps ? o.max_steps : default_rcu_bench_steps(o);
  gelado::RcuListStorage st(o.config.nodes);
  const std::vector<std::uint32_t> tags = gelado::rcu_list_tags(o.config.threads, o.seed);
  std::vector<Thread> threads;
  threads.reserve(tags.size());
  for (std::uint32_t t : tags) threads.emplace_back(t, o.config.conditional);
  if (o.mode == RcuBenchMode::lockstep)
    lockstep(o, st, threads, run);
  else
    sequential(st, threads, run);
  for (const Thread& t : threads) gelado::add_thread(run.summary, t.role(), t.tag(), t.stats());
  gelado::take_words(run.summary, st);
  run.verification = gelado::verify_rcu_list(run.summary);
  return run;
}

}  // namespace alloclab::sim
