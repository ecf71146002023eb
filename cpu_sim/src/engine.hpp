// The three execution modes, written once: a per-thread engine (RW, RW-BM: every simulated
// thread probes on its own) and a per-warp engine (CoRW, RW_malloc: a warp runs rounds of its
// outer loop together). Each allocator file supplies a small policy.
#pragma once

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

#include "alloclab/cpu_sim/trace.hpp"
#include "detail.hpp"

namespace alloclab::sim::detail {

// One worker's counts (one per host thread in threads mode, so that nothing shared is
// incremented on the hot path; merged by finish()). atomics / failed_claims: see
// RunResult::atomics_issued and ::failed_claims; each policy adds one to `atomics` per RMW it
// issues on the pool state and one to `failed_claims` per such RMW that found its target taken.
struct alignas(64) Counters {
  std::uint64_t collisions = 0, taken = 0, failed = 0, probes = 0;
  std::uint64_t atomics = 0, failed_claims = 0;
  // An allocator's own counts (RunResult::op_counts; the allocator names them).
  static constexpr std::size_t kExtra = 24;
  std::array<std::uint64_t, kExtra> extra{};
  void add(const Counters& o) {
    collisions += o.collisions;
    taken += o.taken;
    failed += o.failed;
    probes += o.probes;
    atomics += o.atomics;
    failed_claims += o.failed_claims;
    for (std::size_t i = 0; i < kExtra; ++i) extra[i] += o.extra[i];
  }
};

// The three modes of an allocator whose requests are step machines (dynasoar's groups;
// run_step_machines below for one machine a request): threads mode serves request i to its end on
// host worker wk (serve(i, c[wk]), c one Counters per worker), sequential mode one request at a
// time in the random service order (recorded in r.service_order), lockstep by the allocator's own
// rounds (lockstep(c[0])).
template <class Serve, class Lockstep>
void run_modes(const Scenario& s, const SimOptions& opt, std::uint64_t seed, RunResult& r,
               std::vector<Counters>& c, Serve&& serve, Lockstep&& lockstep) {
  if (opt.mode == Mode::threads) {
    const unsigned workers = resolve_host_threads(opt.host_threads);
    c.assign(workers, Counters{});
    parallel_for(
        s.N, workers, [&](std::uint64_t i, unsigned wk) { serve(i, c[wk]); }, 16);
  } else if (opt.mode == Mode::sequential) {
    r.service_order = service_order(seed, s.N);
    for (const std::uint64_t i : r.service_order) serve(i, c[0]);
  } else {
    lockstep(c[0]);
  }
}

// Lockstep mode for requests 0..n-1 that each take one step a round: every round the unfinished
// ones step once, in round-priority order; step(i) returns true when request i is done.
template <class Step>
void lockstep_rounds(std::uint64_t seed, std::uint64_t n, Step&& step) {
  std::vector<std::uint64_t> active(n);
  for (std::uint64_t i = 0; i < n; ++i) active[i] = i;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> order;
  for (std::uint64_t round = 0; !active.empty(); ++round) {
    order.clear();
    for (const std::uint64_t i : active) order.emplace_back(round_priority(seed, i, round), i);
    std::sort(order.begin(), order.end());
    active.clear();
    for (const auto& [priority, i] : order)
      if (!step(i)) active.push_back(i);
    std::sort(active.begin(), active.end());
  }
}

// run_modes for requests that are one step machine each (gg-tbuddy, gg-ualloc, bitmap-alloc):
// make(i) builds request i's machine, advance(q) takes one step (true when it is done),
// complete(q, c) records it. Threads and sequential modes run each to its end alone; lockstep
// steps every unfinished one once a round (lockstep_rounds).
template <class Make, class Advance, class Complete>
void run_step_machines(const Scenario& s, const SimOptions& opt, std::uint64_t seed, RunResult& r,
                       std::vector<Counters>& c, Make&& make, Advance&& advance,
                       Complete&& complete) {
  run_modes(
      s, opt, seed, r, c,
      [&](std::uint64_t i, Counters& ci) {
        auto q = make(i);
        while (!advance(q)) {
        }
        complete(q, ci);
      },
      [&](Counters& c0) {
        std::vector<decltype(make(std::uint64_t{0}))> reqs;
        reqs.reserve(s.N);
        for (std::uint64_t i = 0; i < s.N; ++i) reqs.push_back(make(i));
        lockstep_rounds(seed, s.N, [&](std::uint64_t i) {
          if (!advance(reqs[i])) return false;
          complete(reqs[i], c0);
          return true;
        });
      });
}

// Merges the workers' counts into r and derives the retries from the finished r.steps.
// `extra_names`: the allocator's names of its first Counters::extra counts (RunResult::op_counts).
inline void finish(RunResult& r, const std::vector<Counters>& per_worker,
                   const std::vector<const char*>& extra_names = {}) {
  Counters c;
  for (const auto& w : per_worker) c.add(w);
  for (std::size_t i = 0; i < extra_names.size() && i < Counters::kExtra; ++i)
    r.op_counts.emplace_back(extra_names[i], c.extra[i]);
  r.collisions = c.collisions;
  r.taken = c.taken;
  r.failed = c.failed;
  r.probes = c.probes;
  r.atomics_issued = c.atomics;
  r.failed_claims = c.failed_claims;
  std::uint64_t retries = 0;
  for (const std::uint32_t s : r.steps) retries += s > 0 ? s - 1 : 0;
  r.retries = retries;
}

// ---- Per-thread engine --------------------------------------------------------------------
// Policy P:  std::uint64_t targets() const;                  W, probe k maps onto [0, W)
//            int inspect(std::uint64_t target, const Probe&) const;  candidate (bit) or -1: a
//                read; Probe = the thread and its 64-bit probe number (RW-BM's bit choice)
//            int acquire(std::uint64_t target, int cand, const Probe&, Counters&);
//                the atomic claim(s) of one step: returns the candidate won, or -1 when the
//                target has nothing left; adds one to `atomics` per RMW and one to
//                `collisions` and `failed_claims` per failed atomic claim. RW: one test-and-set.
//                RW-BM: retries the next free bit of the word the atomic returned, within the same
//                step (gpu/src/rwbm.cu).
//            std::int64_t page(std::uint64_t target, int cand) const;
//            bool page_used(std::uint64_t page) const;   (for SimOptions::trace)
// A thread's step = one probe. Shortcut (exact for allocation-only runs): once the free-page
// counter is 0 every further probe fails, so the request fails with steps = bound at once.

// One probe of one thread: what a policy may use besides the target (RW-BM: the bit choice).
struct Probe {
  std::uint64_t thread;
  std::uint64_t bits;  // probe_bits(seed, thread, k)
};

template <class P>
void serve_one(P& pol, const Run& run, std::atomic<std::uint64_t>& free, std::uint64_t i,
               Counters& c) {
  const std::uint64_t W = pol.targets();
  const std::uint64_t bound = run.bound;
  std::uint64_t buf[kProbeBatch];
  std::uint64_t k = 0;
  while (k < bound) {
    if (free.load(std::memory_order_relaxed) == 0) {
      k = bound;
      break;
    }
    // The first two probes come from one Philox block: on a pool with room most requests need
    // only the first, and 16 probes cost 8 blocks (the workloads' churn ran at 7e6 requests/s
    // with them). Later probes come 16 at a time; k stays even, as probe_bits_batch needs.
    unsigned batch = kProbeBatch;
    if (k == 0) {
      PhiloxStream(run.seed, StreamDomain::probe, i).bits2(0, buf);
      batch = 2;
    } else {
      probe_bits_batch(run.seed, i, k, buf);
    }
    const unsigned n = static_cast<unsigned>(std::min<std::uint64_t>(batch, bound - k));
    for (unsigned j = 0; j < n; ++j) {
      const std::uint64_t target = mul_high_u64(buf[j], W);
      const Probe probe{i, buf[j]};
      const int cand = pol.inspect(target, probe);
      if (cand >= 0) [[unlikely]] {
        const int got = pol.acquire(target, cand, probe, c);
        if (got >= 0) {
          free.fetch_sub(1, std::memory_order_relaxed);
          run.out.steps[i] = static_cast<std::uint32_t>(k + j + 1);
          run.out.first_page[i] = pol.page(target, got);
          c.probes += k + j + 1;
          c.taken += 1;
          return;
        }
      }
    }
    k += n;
  }
  run.out.steps[i] = static_cast<std::uint32_t>(bound);
  c.probes += bound;
  c.failed += 1;
}

template <class P>
void run_per_thread(P& pol, const Run& run, std::atomic<std::uint64_t>& free) {
  const Scenario& s = run.s;
  if (run.opt.mode == Mode::sequential) {
    std::vector<Counters> c(1);
    run.out.service_order = service_order(run.seed, s.N);
    for (std::uint64_t i : run.out.service_order) serve_one(pol, run, free, i, c[0]);
    finish(run.out, c);
  } else if (run.opt.mode == Mode::threads) {
    std::vector<Counters> c(run.workers);
    parallel_for(
        s.N, run.workers,
        [&](std::uint64_t i, unsigned wk) { serve_one(pol, run, free, i, c[wk]); }, 16);
    finish(run.out, c);
  } else {
    // Lockstep: every unfinished thread makes one probe per round against the state at the
    // start of the round; threads that saw a free candidate then claim it in the order of
    // their round priority (random), so of two claims on one page the first wins and the
    // second is a collision. RW-BM: threads that read the same word are resolved in priority
    // order, each taking the next free bit still left in the word (one collision per lost
    // claim); only a thread that finds the word exhausted fails this round.
    const std::uint64_t W = pol.targets();
    std::vector<Counters> c(1);
    std::vector<std::uint64_t> active(s.N), spare(s.N);
    for (std::uint64_t i = 0; i < s.N; ++i) active[i] = i;
    struct Cand {
      std::uint64_t prio, thread, target, bits;
      int cand;
    };
    std::vector<Cand> cands;
    LockstepTrace* const trace = run.opt.trace;
    auto pool_now = [&] {
      std::vector<bool> used(s.T);
      for (std::uint64_t p = 0; p < s.T; ++p) used[p] = pol.page_used(p);
      return used;
    };
    if (trace) trace->used_before = pool_now();
    for (std::uint64_t r = 0; !active.empty(); ++r) {
      if (free.load() == 0) {
        for (auto i : active) {
          c[0].probes += run.bound - r;
          run.out.steps[i] = static_cast<std::uint32_t>(run.bound);
          ++c[0].failed;
        }
        break;
      }
      cands.clear();
      std::vector<std::uint64_t> round_targets;  // trace: each active thread's target
      for (auto i : active) {
        std::uint64_t bits;
        if ((r & 1) == 0) {
          std::uint64_t two[2];
          PhiloxStream(run.seed, StreamDomain::probe, i).bits2(r >> 1, two);
          bits = two[0];
          spare[i] = two[1];
        } else {
          bits = spare[i];
        }
        const std::uint64_t target = mul_high_u64(bits, W);
        if (trace) round_targets.push_back(target);
        const int cand = pol.inspect(target, Probe{i, bits});
        run.out.steps[i] = static_cast<std::uint32_t>(r + 1);
        ++c[0].probes;
        if (cand >= 0) cands.push_back({round_priority(run.seed, i, r), i, target, bits, cand});
      }
      std::sort(cands.begin(), cands.end(), [](const Cand& a, const Cand& b) {
        return a.prio != b.prio ? a.prio < b.prio : a.thread < b.thread;
      });
      for (const auto& x : cands) {
        const int got = pol.acquire(x.target, x.cand, Probe{x.thread, x.bits}, c[0]);
        if (got >= 0) {
          free.fetch_sub(1);
          run.out.first_page[x.thread] = pol.page(x.target, got);
          ++c[0].taken;
        }
      }
      if (trace) {  // this round's probes, by thread id, and the pool after its claims
        TraceRound tr;
        for (std::size_t k = 0; k < active.size(); ++k) {
          TraceProbe p;
          p.thread = active[k];
          p.target = round_targets[k];
          p.won = run.out.first_page[active[k]];
          tr.probes.push_back(p);
        }
        for (std::size_t k = 0; k < cands.size(); ++k)
          for (auto& p : tr.probes)
            if (p.thread == cands[k].thread) {
              p.saw_free = true;
              p.claim_order = k;
            }
        tr.used_after = pool_now();
        trace->rounds.push_back(std::move(tr));
      }
      std::size_t keep = 0;
      for (auto i : active) {
        if (run.out.first_page[i] >= 0) continue;
        if (r + 1 >= run.bound) {
          ++c[0].failed;
          continue;
        }
        active[keep++] = i;
      }
      active.resize(keep);
    }
    finish(run.out, c);
  }
}

// Warps are consecutive groups of `lanes` thread ids; the last one may be partial.
inline unsigned lanes_in_warp(const Run& run, std::uint64_t warp) {
  const std::uint64_t first = warp * run.s.lanes;
  return static_cast<unsigned>(std::min<std::uint64_t>(run.s.lanes, run.s.N - first));
}

// Lane i of a per-warp allocator got `pages` pages from `first_page` on in round r (0-based):
// its steps are r + 1.
inline void serve_lane(const Run& run, std::uint64_t i, std::int64_t first_page, std::uint64_t r,
                       Counters& c, unsigned pages = 1) {
  run.out.first_page[i] = first_page;
  run.out.steps[i] = static_cast<std::uint32_t>(r + 1);
  c.taken += pages;
}

// A warp that gives up (give_up below): its lanes still waiting fail with steps = bound.
inline void fail_waiting_lanes(const Run& run, std::uint64_t warp, Counters& c) {
  const std::uint64_t first = warp * run.s.lanes;
  const unsigned m = lanes_in_warp(run, warp);
  for (unsigned t = 0; t < m; ++t)
    if (run.out.first_page[first + t] < 0) {
      run.out.steps[first + t] = static_cast<std::uint32_t>(run.bound);
      ++c.failed;
    }
}

// ---- Per-warp engine ----------------------------------------------------------------------
// Policy P:  void prepare(std::uint64_t warp, std::uint64_t r, Counters&);  what the lanes do
//                "at once" at the start of round r (lock attempts, reads)
//            bool resolve(std::uint64_t warp, std::uint64_t r, Counters&);  sharing and
//                claims; returns true when no lane of the warp needs a page any more
//            bool hopeless(std::uint64_t warp) const;  no page can be found any more (exact
//                shortcut for allocation-only runs)
//            void give_up(std::uint64_t warp, std::uint64_t rounds_done, Counters&);  the
//                remaining lanes fail with steps = bound (probes for the rounds skipped)
// A step = one round of the warp's outer loop. Sequential: warps one at a time in a random
// order. Lockstep: every unfinished warp prepares in round r (in round-priority order of its
// lane-0 thread), then every warp resolves in that order. Threads: one host thread per warp.

template <class P>
void run_warp(P& pol, const Run& run, std::uint64_t warp, Counters& c) {
  for (std::uint64_t r = 0;; ++r) {
    if (pol.hopeless(warp)) {
      pol.give_up(warp, r, c);
      return;
    }
    pol.prepare(warp, r, c);
    if (pol.resolve(warp, r, c)) return;
    if (r + 1 >= run.bound) {
      pol.give_up(warp, r + 1, c);
      return;
    }
  }
}

template <class P>
void run_per_warp(P& pol, const Run& run) {
  const Scenario& s = run.s;
  const std::uint64_t warps = warp_count(s);
  if (run.opt.mode == Mode::sequential) {
    std::vector<Counters> c(1);
    run.out.service_order.reserve(s.N);
    for (std::uint64_t wp : service_order(run.seed, warps)) {
      for (std::uint64_t i = wp * s.lanes; i < std::min<std::uint64_t>(s.N, (wp + 1) * s.lanes);
           ++i)
        run.out.service_order.push_back(i);
      run_warp(pol, run, wp, c[0]);
    }
    finish(run.out, c);
  } else if (run.opt.mode == Mode::threads) {
    std::vector<Counters> c(run.workers);
    parallel_for(warps, run.workers,
                 [&](std::uint64_t wp, unsigned wk) { run_warp(pol, run, wp, c[wk]); });
    finish(run.out, c);
  } else {
    std::vector<Counters> c(1);
    std::vector<std::uint64_t> active(warps);
    for (std::uint64_t i = 0; i < warps; ++i) active[i] = i;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> order;
    for (std::uint64_t r = 0; !active.empty(); ++r) {
      order.clear();
      for (auto wp : active) order.emplace_back(round_priority(run.seed, wp * s.lanes, r), wp);
      std::sort(order.begin(), order.end());
      std::vector<std::uint64_t> next;
      std::vector<std::uint64_t> live;
      for (auto& [prio, wp] : order) {
        if (pol.hopeless(wp)) {
          pol.give_up(wp, r, c[0]);
          continue;
        }
        pol.prepare(wp, r, c[0]);
        live.push_back(wp);
      }
      for (auto wp : live) {
        if (pol.resolve(wp, r, c[0])) continue;
        if (r + 1 >= run.bound) {
          pol.give_up(wp, r + 1, c[0]);
          continue;
        }
        next.push_back(wp);
      }
      std::sort(next.begin(), next.end());
      active.swap(next);
    }
    finish(run.out, c);
  }
}

}  // namespace alloclab::sim::detail
