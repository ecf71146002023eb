// Workloads over the simulator's allocators (workload_runner.hpp). Decisions:
//  * The pool starts with A = Workload::pages_free_at_start() free pages (round(f T) for
//    --free f, 1 by default), chosen by the keyed permutation of core/pool.hpp from the trial's
//    seed, as run_once builds it; the workload never frees the others, and every page handed out
//    is checked to be one of the A.
//  * An Allocator serves a fixed number of requests per allocate() call (the scenario's N), so
//    each family builds its allocator with the requests of one call: alloc, mixed and
//    fragmentation N; oom the batch B; churn k = round(f N) (at least 1 when f > 0). Churn's
//    initial fill therefore runs ceil(N / k) calls of k requests and frees the surplus objects
//    of the last call at once (counted in round 0's frees).
//  * Every call draws its probe streams from its own seed, derived from the trial seed and the
//    call's index, so no two calls share random numbers.
//  * Addresses: page p starts at byte p * page_bytes. The verifier checks the extent handed out
//    (whole pages) as each object is handed out and freed (LivePages); address_range_bytes
//    measures the bytes requested (highest end - lowest start).
//  * Written patterns (pattern_store.hpp): each object's first and last min(8, size) bytes are
//    written when it is handed out and checked before it is freed; once everything is freed
//    nothing may be left in the store.
//  * Times: one clock reading around each allocate() call and around each batch of free()
//    calls (the frees of a round, or the surplus of a call); the checks run outside them.
//  * Repeats (WorkloadOptions::repeats): each is a whole Runner, allocator and pool built anew
//    from the trial's seed, so every repeat starts from the same state and is verified like the
//    first; sequential and lockstep runs are deterministic, so their counts must agree.
#include "alloclab/cpu_sim/workload_runner.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <new>
#include <string>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/pool.hpp"
#include "alloclab/core/probe_sequence.hpp"
#include "alloclab/core/workload_repeats.hpp"
#include "alloclab/cpu_sim/pattern_store.hpp"
#include "live_pages.hpp"

namespace alloclab::sim {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Requests per allocate() call (see the decisions above).
std::uint64_t churn_victims(const Workload& w) {
  if (w.free_fraction <= 0) return 0;
  return std::max<std::uint64_t>(
      1, static_cast<std::uint64_t>(std::llround(w.free_fraction * static_cast<double>(w.N))));
}
std::uint64_t requests_per_call(const Workload& w) {
  switch (w.family) {
    case WorkloadFamily::oom:
      return w.batch;
    case WorkloadFamily::churn: {
      const std::uint64_t k = churn_victims(w);
      return k ? k : w.N;
    }
    default:
      return w.N;
  }
}

std::vector<std::uint64_t> request_bytes_of_call(const Workload& w, std::uint64_t seed) {
  std::vector<std::uint64_t> out(requests_per_call(w));
  for (std::uint64_t j = 0; j < out.size(); ++j) out[j] = thread_request_bytes(w, seed, j);
  return out;
}

struct Setup {
  Scenario s;
  SimOptions so;
  std::vector<std::uint64_t> bytes_of;  // requested bytes of call slot j (size: per call)
};

// `seed`: the trial's seed (trial t of a run draws its own mixed sizes).
Setup make_setup(Algorithm algo, const Workload& w, const WorkloadOptions& o, std::uint64_t seed) {
  Setup st;
  const std::uint64_t per_call = requests_per_call(w);
  st.s.algo = algo;
  st.s.N = per_call;
  st.s.T = w.pages_total();
  st.s.A = w.pages_free_at_start();
  st.s.seed = seed;
  st.s.bit_choice = w.bit_choice;
  st.so.mode = o.mode;
  st.so.host_threads = o.host_threads;
  st.so.max_probes_per_request = o.max_probes_per_request;
  st.so.queue_capacity = o.queue_capacity;
  st.so.preboot = o.preboot;
  st.bytes_of = request_bytes_of_call(w, seed);
  if (caps(algo).requests == RequestKind::pages) {
    if (w.size.is_range()) {
      st.so.pages_per_thread.resize(per_call);
      for (std::uint64_t j = 0; j < per_call; ++j)
        st.so.pages_per_thread[j] =
            static_cast<unsigned>(pages_for_request(algo, st.bytes_of[j], w.page_bytes));
    } else {
      st.s.pages = static_cast<unsigned>(pages_for_request(algo, w.size.lo, w.page_bytes));
    }
  }
  return st;
}

struct Object {
  std::int64_t first_page = -1;  // -1: this thread holds nothing
  std::uint64_t pages = 0;
  std::uint64_t bytes = 0;
  std::uint64_t id = 0;  // the run's allocation number: keys the object's written pattern
};

// Objects ahead whose pattern slots are prefetched (PatternStore::prefetch).
constexpr std::uint64_t kPrefetchAhead = 8;

class Runner {
 public:
  Runner(Algorithm algo, const Workload& w, const WorkloadOptions& o, std::uint64_t trial)
      : w_(w), seed_(trial_seed(w.seed, trial)), st_(make_setup(algo, w, o, seed_)) {
    const auto t0 = Clock::now();
    try {
      alloc_ = make_allocator(st_.s, st_.so, seed_);
      live_pages_.emplace(st_.s.T);
    } catch (const std::bad_alloc&) {
      throw InputError("--pool", "the simulator cannot hold the metadata of " +
                                     std::to_string(st_.s.T) + " pages (" +
                                     std::to_string(w.pool_bytes) + " bytes)");
    }
    init_seconds_ = seconds_since(t0);
    initial_free_ = alloc_->free_count();
    // The allocator's pool is built from the run's seed (make_allocator's pool seed): page p is
    // free at the start iff pi(p) < A.
    if (st_.s.A < st_.s.T) prefill_.emplace(st_.s.T, seed_);
    run_.pages_total = st_.s.T;
    run_.step_bound = default_step_bound(st_.s, st_.so);
    run_.device = "cpu simulator";
  }

  WorkloadRun run() {
    switch (w_.family) {
      case WorkloadFamily::oom:
        run_oom();
        break;
      case WorkloadFamily::churn:
        run_churn();
        break;
      default:
        run_static();
        break;
    }
    if (patterns_.bytes_held() != 0)
      throw VerificationError(std::to_string(patterns_.bytes_held()) +
                              " bytes of written patterns are left after every object was freed");
    run_.pattern_bytes_checked = pattern_bytes_checked_;
    return std::move(run_);
  }

 private:
  // One allocate() call: got_ holds one Object per request (first_page -1 = failed), each
  // verified and its pattern written (accept).
  const std::vector<Object>& call(WorkloadPoint& p) {
    const std::uint64_t call_seed = mix64(seed_ ^ mix64(++calls_));
    const auto t0 = Clock::now();
    RunResult r = alloc_->allocate(call_seed);
    p.alloc_seconds += seconds_since(t0);
    got_.assign(st_.s.N, Object{});
    p.requests += st_.s.N;
    for (std::uint64_t j = 0; j < st_.s.N; ++j) {
      if (j + kPrefetchAhead < st_.s.N && r.first_page[j + kPrefetchAhead] >= 0)
        patterns_.prefetch(
            static_cast<std::uint64_t>(r.first_page[j + kPrefetchAhead]) * w_.page_bytes,
            st_.bytes_of[j + kPrefetchAhead]);
      const std::int64_t fp = r.first_page[j];
      if (fp < 0) {
        ++p.failed;
        continue;
      }
      const std::uint64_t pages =
          st_.so.pages_per_thread.empty() ? st_.s.pages : st_.so.pages_per_thread[j];
      got_[j] = {fp, pages, st_.bytes_of[j], next_id_++};
      accept(got_[j]);
      ++p.allocs;
    }
    p.steps.insert(p.steps.end(), r.steps.begin(), r.steps.end());
    p.collisions += r.collisions;
    p.atomics_issued += r.atomics_issued;
    p.failed_claims += r.failed_claims;
    p.retries += r.retries;
    p.add_op_counts(r.op_counts);
    return got_;
  }

  // The checks of one object handed out, then its pattern is written.
  void accept(const Object& ob) {
    const auto first = static_cast<std::uint64_t>(ob.first_page);
    auto fail = [&](const std::string& why) {
      throw VerificationError(std::string(name(st_.s.algo)) + " handed out pages " +
                              std::to_string(first) + "+" + std::to_string(ob.pages) + " " + why);
    };
    if (first + ob.pages > st_.s.T)
      fail("outside the pool of " + std::to_string(st_.s.T) + " pages");
    if (!live_pages_->claim(first, ob.pages)) fail("of which a live object holds one");
    if (prefill_)
      for (std::uint64_t q = first; q < first + ob.pages; ++q)
        if (!initially_free(*prefill_, q, st_.s.A))
          fail("including page " + std::to_string(q) + ", used before the workload (--free)");
    patterns_.write(ob.id, first * w_.page_bytes, ob.bytes);
  }

  // Frees the objects of to_free_ (in order): each one's pattern is checked and its pages
  // released from the live map, then the allocator's frees run, timed as one batch.
  void flush_frees(WorkloadPoint& p) {
    for (std::size_t i = 0; i < to_free_.size(); ++i) {
      if (i + kPrefetchAhead < to_free_.size()) {
        const Object& next = to_free_[i + kPrefetchAhead];
        patterns_.prefetch(static_cast<std::uint64_t>(next.first_page) * w_.page_bytes, next.bytes);
      }
      const Object& ob = to_free_[i];
      const auto first = static_cast<std::uint64_t>(ob.first_page);
      pattern_bytes_checked_ += patterns_.check_and_forget(ob.id, first * w_.page_bytes, ob.bytes);
      if (!live_pages_->release(first, ob.pages))
        throw VerificationError("the workload frees pages " + std::to_string(first) + "+" +
                                std::to_string(ob.pages) + " that no live object holds");
    }
    std::uint64_t atomics = 0;
    const auto t0 = Clock::now();
    for (const Object& ob : to_free_)
      atomics +=
          alloc_->free(static_cast<std::uint64_t>(ob.first_page), static_cast<unsigned>(ob.pages));
    p.free_seconds += seconds_since(t0);
    p.freed += to_free_.size();
    p.free_atomics_issued += atomics;
    to_free_.clear();
  }
  void schedule_free(Object& ob) {
    to_free_.push_back(ob);
    ob = Object{};
  }

  // Checks the allocator's free count against the live pages and fills the point's live-state
  // fields (the live objects' disjointness was checked as each was handed out).
  void checkpoint(WorkloadPoint& p) {
    std::uint64_t pages = 0, lo = ~std::uint64_t{0}, hi = 0;
    p.live_objects = p.live_bytes = 0;
    for (const auto& ob : live_) {
      if (ob.first_page < 0) continue;
      const std::uint64_t begin = static_cast<std::uint64_t>(ob.first_page) * w_.page_bytes;
      pages += ob.pages;
      lo = std::min(lo, begin);
      hi = std::max(hi, begin + ob.bytes);
      ++p.live_objects;
      p.live_bytes += ob.bytes;
    }
    if (alloc_->free_count() + pages != initial_free_)
      throw VerificationError("free count " + std::to_string(alloc_->free_count()) + " + " +
                              std::to_string(pages) + " live pages != initial free count " +
                              std::to_string(initial_free_));
    p.address_range_bytes = p.live_objects ? std::optional<std::uint64_t>(hi - lo) : std::nullopt;
  }

  void free_everything(WorkloadPoint& p) {
    for (auto& ob : live_)
      if (ob.first_page >= 0) schedule_free(ob);
    flush_frees(p);
    if (alloc_->free_count() != initial_free_)
      throw VerificationError("after every object was freed the free count is " +
                              std::to_string(alloc_->free_count()) + ", not the initial " +
                              std::to_string(initial_free_));
  }

  void run_static() {
    WorkloadPoint p;
    p.init_seconds = init_seconds_;
    live_ = call(p);
    checkpoint(p);
    free_everything(p);
    run_.points.push_back(std::move(p));
  }

  void run_oom() {
    WorkloadPoint p;
    p.init_seconds = init_seconds_;
    // Every batch without a failure keeps at least B - round(f B) pages (--batch-free f), so
    // after T / that + 1 batches one must fail; more means the allocator handed out pages it
    // does not have.
    const std::uint64_t kept = std::max<std::uint64_t>(
        1, st_.s.N - static_cast<std::uint64_t>(
                         std::llround(w_.batch_free * static_cast<double>(st_.s.N))));
    const std::uint64_t max_calls = st_.s.T / kept + 2;
    for (std::uint64_t c = 0;; ++c) {
      if (c == max_calls)
        throw VerificationError("oom: " + std::to_string(c) + " batches of " +
                                std::to_string(st_.s.N) + " without a failure on " +
                                std::to_string(st_.s.T) + " pages");
      const std::size_t batch_start = live_.size();
      for (const auto& ob : call(p))
        if (ob.first_page >= 0) live_.push_back(ob);
      if (p.failed > 0) {
        p.count_at_failure = p.allocs - p.freed;  // live (all allocated, without --batch-free)
        p.batches_at_failure = c + 1;
        break;
      }
      free_part_of_batch(p, batch_start, c);
    }
    checkpoint(p);
    free_everything(p);
    run_.points.push_back(std::move(p));
  }

  // --batch-free f: round(f B) objects of the batch just allocated (live_[from..]), chosen
  // uniformly at random (partial Fisher-Yates on the workload stream of batch c), are freed.
  void free_part_of_batch(WorkloadPoint& p, std::size_t from, std::uint64_t c) {
    if (w_.batch_free <= 0) return;
    const std::uint64_t got = live_.size() - from;
    const std::uint64_t k = std::min<std::uint64_t>(
        got,
        static_cast<std::uint64_t>(std::llround(w_.batch_free * static_cast<double>(w_.batch))));
    const PhiloxStream pick(mix64(seed_ + c + 1), StreamDomain::workload, 1);
    for (std::uint64_t j = 0; j < k; ++j)
      std::swap(live_[from + j], live_[from + j + pick.below(j, got - j)]);
    for (std::uint64_t j = 0; j < k; ++j) schedule_free(live_[from + j]);
    live_.erase(live_.begin() + static_cast<std::ptrdiff_t>(from),
                live_.begin() + static_cast<std::ptrdiff_t>(from + k));
    flush_frees(p);
  }

  void run_churn() {
    const std::uint64_t k = churn_victims(w_);
    live_.assign(w_.N, Object{});
    {  // round 0: fill N threads, ceil(N / per-call) calls; the surplus of the last is freed
      WorkloadPoint p;
      p.init_seconds = init_seconds_;
      std::uint64_t next = 0;
      while (next < w_.N) {
        for (const auto& ob : call(p)) {
          if (next < w_.N)
            live_[next++] = ob;
          else if (ob.first_page >= 0)
            to_free_.push_back(ob);
        }
        flush_frees(p);
      }
      checkpoint(p);
      run_.points.push_back(std::move(p));
    }
    std::vector<std::uint64_t> holding, empty, freed;
    for (std::uint64_t r = 1; r <= w_.rounds; ++r) {
      WorkloadPoint p;
      p.round = r;
      holding.clear();
      empty.clear();
      freed.clear();
      for (std::uint64_t i = 0; i < w_.N; ++i)
        (live_[i].first_page >= 0 ? holding : empty).push_back(i);
      // k victims among the live objects, uniformly at random (partial Fisher-Yates on the
      // workload stream of this round).
      const std::uint64_t victims = std::min<std::uint64_t>(k, holding.size());
      const PhiloxStream pick(mix64(seed_ + r), StreamDomain::workload, 0);
      for (std::uint64_t j = 0; j < victims; ++j) {
        std::swap(holding[j], holding[j + pick.below(j, holding.size() - j)]);
        freed.push_back(holding[j]);
        schedule_free(live_[holding[j]]);
      }
      flush_frees(p);
      if (k > 0) {
        // The same threads allocate again (then any thread left empty by an earlier failure).
        freed.insert(freed.end(), empty.begin(), empty.end());
        const auto& got = call(p);
        for (std::uint64_t j = 0; j < got.size(); ++j) {
          if (j < freed.size())
            live_[freed[j]] = got[j];
          else if (got[j].first_page >= 0)
            to_free_.push_back(got[j]);
        }
        flush_frees(p);
      }
      checkpoint(p);
      run_.points.push_back(std::move(p));
    }
    WorkloadPoint& last = run_.points.back();
    const auto live_objects = last.live_objects;
    const auto live_bytes = last.live_bytes;
    free_everything(last);  // the final frees count in the last round's free time
    last.live_objects = live_objects;
    last.live_bytes = live_bytes;
  }

  const Workload& w_;
  std::uint64_t seed_;
  Setup st_;
  std::unique_ptr<Allocator> alloc_;
  std::optional<detail::LivePages> live_pages_;
  std::optional<PagePermutation> prefill_;  // the pool's permutation when A < T
  PatternStore patterns_;
  std::uint64_t pattern_bytes_checked_ = 0;
  double init_seconds_ = 0;
  std::uint64_t initial_free_ = 0;
  std::uint64_t calls_ = 0;
  std::uint64_t next_id_ = 0;
  std::vector<Object> live_;
  std::vector<Object> got_;      // the last call's objects
  std::vector<Object> to_free_;  // objects to free at the next flush_frees
  WorkloadRun run_;
};

}  // namespace

void verify_ranges(std::vector<ByteRange> ranges, std::uint64_t pool_bytes) {
  for (const auto& r : ranges)
    if (r.begin >= r.end || r.end > pool_bytes)
      throw VerificationError("object [" + std::to_string(r.begin) + ", " + std::to_string(r.end) +
                              ") is empty or outside the pool of " + std::to_string(pool_bytes) +
                              " bytes");
  std::sort(ranges.begin(), ranges.end(),
            [](const ByteRange& a, const ByteRange& b) { return a.begin < b.begin; });
  for (std::size_t i = 1; i < ranges.size(); ++i)
    if (ranges[i].begin < ranges[i - 1].end)
      throw VerificationError("objects [" + std::to_string(ranges[i - 1].begin) + ", " +
                              std::to_string(ranges[i - 1].end) + ") and [" +
                              std::to_string(ranges[i].begin) + ", " +
                              std::to_string(ranges[i].end) + ") overlap");
}

void check_workload_input(Algorithm algo, const Workload& given, const WorkloadOptions& o) {
  const Workload w = workload_for(algo, given);  // the allocator's own page size, if it has one
  if (!caps(algo).has(BackendKind::sim))
    throw InputError("--allocator",
                     std::string(name(algo)) +
                         " does not run in the simulator (it runs on: " + backends_of(algo) + ")");
  check_workload_for(algo, w);
  const std::uint64_t pages = pages_for_request(algo, w.size.hi, w.page_bytes);
  if (pages > w.pages_total())
    throw InputError("--pool", "one object of " + std::to_string(w.size.hi) + " bytes takes " +
                                   std::to_string(pages) + " pages; the pool has " +
                                   std::to_string(w.pages_total()));
  if (w.family == WorkloadFamily::oom && w.batch > (std::uint64_t{1} << 32))
    throw InputError("--batch", "at most 2^32 objects per batch");
  if (w.N > (std::uint64_t{1} << 32)) throw InputError("--N", "at most 2^32 threads");
  if (o.repeats < 1) throw InputError("--repeats", "need at least one repeat");
  check_host_threads("--threads", o.host_threads);
  Setup st = make_setup(algo, w, o, w.seed);
  // Every trial draws its own sizes: check the largest for every request.
  if (!st.so.pages_per_thread.empty())
    std::fill(st.so.pages_per_thread.begin(), st.so.pages_per_thread.end(),
              static_cast<unsigned>(pages));
  try {
    check_input(st.s, st.so);
  } catch (const InputError& e) {
    if (e.parameter() == "--T")  // the pool in the allocator's pages
      throw InputError("--pool", std::string(name(algo)) + ": " + w.size.text() + " B objects in " +
                                     std::to_string(w.pool_bytes) + " bytes: " + e.what());
    if (e.parameter() != "--pages") throw;
    throw InputError("--size", std::string(name(algo)) + " cannot serve " + w.size.text() +
                                   " bytes as pages of " + std::to_string(w.page_bytes) + " B (" +
                                   e.what() + ")");
  }
}

std::vector<std::uint64_t> call_request_bytes(const Workload& w, std::uint64_t trial) {
  return request_bytes_of_call(w, trial_seed(w.seed, trial));
}

WorkloadRun run_workload(Algorithm algo, const Workload& given, const WorkloadOptions& o,
                         std::uint64_t trial) {
  const Workload w = workload_for(algo, given);
  check_workload_input(algo, w, o);
  RepeatedRun repeated(o.mode == Mode::threads ? RepeatCounts::may_differ
                                               : RepeatCounts::identical);
  for (unsigned r = 0; r < o.repeats; ++r) repeated.add(Runner(algo, w, o, trial).run());
  WorkloadRun run = std::move(repeated).take();
  if (o.repeats > 1)
    run.notes.insert(
        run.notes.begin(),
        std::string(name(algo)) + ": init_ms, alloc_ms and free_ms are medians over " +
            std::to_string(o.repeats) +
            " repeats of each trial, each on an allocator built anew from the "
            "trial's seed" +
            (o.mode == Mode::threads ? std::string() : "; every repeat counted the same"));
  return run;
}

}  // namespace alloclab::sim
