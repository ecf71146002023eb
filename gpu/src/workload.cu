// The GPU workload driver (workload.hpp): one allocator (its GPU entry: pool policy and launches,
// gpu_entry.cuh), one object per thread, and the families of core/workload.hpp as phases of
// allocation and free launches. Decisions:
//  * Every allocation launch is one kernel of the allocator over `count` threads, timed alone
//    with CUDA events; in churn only the threads whose object was freed ask (KernelArgs::active),
//    the others still take part where the allocator is warp-collective. Each launch draws its
//    probe streams from its own seed (trial seed and phase).
//  * Objects of the page allocators live in an arena of the pool's bytes on the device (page p
//    starts at byte p * page bytes), so the patterns are real writes; CUDA's malloc hands out
//    addresses in its heap, whose size is the pool (or --cuda-heap).
//  * oom: batches of B threads; batch b fills slots [bB, bB + B); the objects are verified once,
//    after the batch where a request failed (a sort per batch would make the run quadratic).
//  * After the last free the pool must hold nothing, and a second identical allocation phase
//    must serve as many requests as the first where the first was not cut short by a step bound
//    (the queue's out-of-memory is exact: there the counts must always agree).
//  * Repeats (WorkloadOptions::repeats): the family's phases again on the same buffers from the
//    pristine pool, with the same seeds; the schedule may change the counts, so they are taken
//    from the first repeat (core/workload_repeats.hpp).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/pool.hpp"
#include "alloclab/core/probe_sequence.hpp"
#include "alloclab/core/workload_repeats.hpp"
#include "device.cuh"
#include "gpu_entry.cuh"
#include "workload_input.hpp"
#include "workload_objects.cuh"

namespace alloclab::gpu {
using namespace detail;

namespace {

bool hands_out_pages(Algorithm algo) {
  return caps(algo).requests != RequestKind::bytes;
}

std::uint64_t launch_threads(const Workload& w) {
  return w.family == WorkloadFamily::oom ? w.batch : w.N;
}

// The scenario the allocator's entry (and its pool) is built from.
Scenario workload_scenario(Algorithm algo, const Workload& w, std::uint64_t seed) {
  Scenario s;
  s.algo = algo;
  s.N = launch_threads(w);
  s.T = hands_out_pages(algo) ? w.pages_total() : 1;
  // --free: A of T pages free at the start (core/scenario.hpp's one formula), the others chosen
  // by the pool's keyed permutation as every command chooses them.
  s.A = hands_out_pages(algo) ? w.pages_free_at_start() : 1;
  s.w = kRunWordBits;
  s.lanes = 32;
  s.pages = caps(algo).requests == RequestKind::pages
                ? static_cast<unsigned>(pages_for_request(algo, w.size.hi, w.page_bytes))
                : 1;
  s.seed = seed;
  s.bit_choice = w.bit_choice;
  return s;
}

MeasureOptions workload_measure_options(Algorithm algo, const Workload& w,
                                        const WorkloadOptions& o) {
  MeasureOptions m;
  m.page_bytes = w.page_bytes;
  m.block = w.block;
  m.max_steps = o.max_steps;
  m.queue_capacity = o.queue_capacity;
  m.arenas = o.arenas;
  m.chunk_bins = o.chunk_bins;
  m.single_chunk_mutex = o.single_chunk_mutex;
  m.gg_fenced = o.gg_fenced;
  m.gg_thread_waits = o.gg_thread_waits;
  m.counters = o.counters && !info(algo).step_definition.empty();
  m.heap_bytes = detail::workload_heap_bytes(algo, w, o);
  m.pool_bytes = w.pool_bytes;  // a pool of bytes of its own (plug-ins): the workload's
  return m;
}

// Phase numbers of the warm-up launches (their own probe seeds, never a timed phase's).
constexpr std::uint64_t kWarmupPhase = std::uint64_t{1} << 62;

// What one allocation launch did.
struct Launch {
  std::uint64_t requests = 0, served = 0;
  double ms = 0;
  std::vector<std::uint32_t> steps;  // of the requests that asked (counters on)
  std::uint64_t collisions = 0;
  std::uint64_t failed_claims = 0;  // collisions less the extra lost bits (KernelArgs)
  std::uint64_t atomics = 0;        // issued by every lane of the launch, helpers included
  std::vector<std::pair<std::string, std::uint64_t>> op_counts;  // GpuEntry::op_count_names
};

class WorkloadDriver {
 public:
  WorkloadDriver(Algorithm algo, const Workload& w, const WorkloadOptions& o, std::uint64_t trial)
      : algo_(algo),
        who_(name(algo)),
        w_(w),
        seed_(trial_seed(w.seed, trial)),
        s_(workload_scenario(algo, w, seed_)),
        mo_(workload_measure_options(algo, w, o)),
        entry_(gpu_entry_for(algo)),
        pages_(hands_out_pages(algo)),
        launch_(launch_threads(w)),
        warmup_(o.warmup),
        repeats_(o.repeats),
        warm_(o.warm),
        watchdog_(o.watchdog_seconds) {
    base_ = kernel_args(s_, mo_);  // s_: launch_ threads, 32 lanes, the trial's seed
    slots_ = slot_count();
    allocator_ = entry_.make(s_, mo_, base_);
    pool_ = &allocator_->pool();
    check_device_memory();
  }

  WorkloadRun run() {
    set_up();
    pool_->prepare();
    EventTimer timer;
    timer.start();
    pool_->set_up();
    pool_->reset();  // the working pool from the pristine one (set_up builds only the latter)
    const double init_ms = timer.stop_within(watchdog_, who_ + ": the pool's set-up");
    for (unsigned u = 0; u < warmup_; ++u) {
      allocate(0, launch_, nullptr, launch_, kWarmupPhase + u);
      release_all("after a warm-up run");
      if (!warm_) pool_->reset();
    }
    // Every repeat ends with everything freed and checked (release_all), as a warm-up does, so
    // the pristine pool is all the next one needs. The pool is built once: init is one time.
    RepeatedRun repeated(RepeatCounts::may_differ);
    for (unsigned r = 0; r < repeats_; ++r) {
      if (r > 0 && !warm_) pool_->reset();
      WorkloadRun one;
      one.points = family_points();
      one.points.front().init_seconds = init_ms / 1e3;
      repeated.add(std::move(one));
    }
    WorkloadRun run = std::move(repeated).take();
    run.pages_total = pages_ ? s_.T : 0;
    run.step_bound = entry_.out_of_memory == OutOfMemory::step_bound ? mo_.max_steps : 0;
    run.device = device_info().name;
    if (const auto regs = allocator_->registers(base_, mo_.counters)) {
      run.alloc_registers = regs->alloc;
      run.free_registers = regs->free;
    }
    std::vector<std::string> all_notes = notes();
    all_notes.insert(all_notes.end(), run.notes.begin(), run.notes.end());
    run.notes = std::move(all_notes);
    return run;
  }

 private:
  // One repeat: the family's phases from the pristine pool.
  std::vector<WorkloadPoint> family_points() {
    switch (w_.family) {
      case WorkloadFamily::churn:
        return churn();
      case WorkloadFamily::oom:
        return {oom()};
      default:
        return {alloc()};
    }
  }

  // Object slots: one per thread, or under oom every batch's up to a full pool and one more batch
  // (with --batch-free, the batches until each has left its B - round(f B) objects in a full pool).
  std::uint64_t slot_count() const {
    if (w_.family != WorkloadFamily::oom) return w_.N;
    const std::uint64_t capacity_bytes = std::max(w_.pool_bytes, mo_.heap_bytes);
    const std::uint64_t most_objects =
        pages_ ? s_.A / s_.pages : (capacity_bytes + w_.size.lo - 1) / w_.size.lo;
    const std::uint64_t kept = std::max<std::uint64_t>(
        1, w_.batch - static_cast<std::uint64_t>(
                          std::llround(w_.batch_free * static_cast<double>(w_.batch))));
    return (most_objects / kept + 2) * w_.batch;
  }

  // Before anything is allocated: the arena, the pool and the per-object arrays must fit in the
  // free device memory (an input error naming what sized the larger part otherwise).
  void check_device_memory() const {
    const std::uint64_t arena = pages_ ? w_.pool_bytes : 0;
    const std::uint64_t pool = pool_->device_bytes();
    const std::uint64_t per_slot = 8 + 8 + 4 + 8 + 1;  // where, bytes, pages, free list, active
    // result, steps, collisions, atomics, extra lost bits
    const std::uint64_t per_launch = 8 + 4 + 4 + 4 + 4;
    const std::uint64_t objects =
        slots_ * per_slot + launch_ * per_launch + objects_scratch_bytes(slots_);
    const bool pool_sized = arena + pool >= objects || w_.family == WorkloadFamily::oom;
    require_device_bytes(
        pool_sized ? "--pool" : "--N", who_,
        {{"arena", arena}, {"allocator", pool}, {"objects and verification", objects}});
  }

  void set_up() {
    where_.resize(slots_);
    ALLOCLAB_CUDA(cudaMemset(where_.get(), 0xff, where_.bytes()));
    bytes_.resize(slots_);
    std::vector<std::uint64_t> bytes(slots_);
    for (std::uint64_t i = 0; i < slots_; ++i)
      bytes[i] = thread_request_bytes(w_, seed_, i % launch_);
    ALLOCLAB_CUDA(cudaMemcpy(bytes_.get(), bytes.data(), bytes_.bytes(), cudaMemcpyHostToDevice));
    uniform_ = !w_.size.is_range();
    if (pages_) {
      std::vector<std::uint32_t> pages(slots_);
      for (std::uint64_t i = 0; i < slots_; ++i)
        pages[i] = static_cast<std::uint32_t>(pages_for_request(algo_, bytes[i], w_.page_bytes));
      pages_of_.resize(slots_);
      ALLOCLAB_CUDA(
          cudaMemcpy(pages_of_.get(), pages.data(), pages_of_.bytes(), cudaMemcpyHostToDevice));
      arena_.resize(w_.pool_bytes);
    }
    free_list_.resize(slots_);
    active_.resize(slots_);
    result_.resize(launch_);
    steps_.resize(launch_);
    collisions_.resize(launch_);
    atomics_.resize(launch_);
    extra_lost_bits_.resize(launch_);
    op_counts_.resize(std::max<std::size_t>(entry_.op_count_names.size(), 1));
    view_.where = where_.get();
    view_.bytes = bytes_.get();
    view_.pages = pages_ ? pages_of_.get() : nullptr;
    view_.count = slots_;
    view_.page_bytes = w_.page_bytes;
    view_.arena = pages_ ? arena_.get() : nullptr;
  }

  // The view of slots [first, first + count).
  ObjectsView slice(std::uint64_t first, std::uint64_t count) const {
    ObjectsView v = view_;
    v.where += first;
    v.bytes += first;
    if (v.pages) v.pages += first;
    v.count = count;
    return v;
  }

  // One allocation launch over slots [first, first + count); `active` (device, indexed like the
  // slice; null: all) says which threads ask.
  Launch allocate(std::uint64_t first, std::uint64_t count, const std::uint8_t* active,
                  std::uint64_t requests, std::uint64_t phase) {
    KernelArgs a = base_;
    a.N = count;
    a.seed = mix64(seed_ ^ mix64(phase + 1));
    a.page = result_.get();
    a.active = active;
    if (pages_ && !uniform_) a.pages_of = pages_of_.get() + first;
    if (!pages_) a.bytes_of = bytes_.get() + first;
    if (mo_.counters) {
      a.steps = steps_.get();
      a.collisions = collisions_.get();
      a.atomics = atomics_.get();
      a.extra_lost_bits = extra_lost_bits_.get();
      ALLOCLAB_CUDA(cudaMemset(extra_lost_bits_.get(), 0, count * sizeof(std::uint32_t)));
      ALLOCLAB_CUDA(cudaMemset(steps_.get(), 0, count * sizeof(std::uint32_t)));
      ALLOCLAB_CUDA(cudaMemset(collisions_.get(), 0, count * sizeof(std::uint32_t)));
      ALLOCLAB_CUDA(cudaMemset(atomics_.get(), 0, count * sizeof(std::uint32_t)));
      if (!entry_.op_count_names.empty()) {
        a.op_counts = op_counts_.get();
        ALLOCLAB_CUDA(cudaMemset(op_counts_.get(), 0, op_counts_.bytes()));
      }
    }
    pool_->begin_allocations();
    ALLOCLAB_CUDA(cudaDeviceSynchronize());
    Launch l;
    l.requests = requests;
    EventTimer timer;
    timer.start();
    allocator_->alloc(a, mo_.counters);
    l.ms = timer.stop_within(watchdog_, who_ + ": the allocation kernel");
    ALLOCLAB_CUDA(cudaGetLastError());
    const ObjectsView batch = slice(first, count);
    l.served = adopt_results(view_, result_.get(), active, first, count);
    // Only inside the pool (the arena, or a pool that says where it is): a stray object is the
    // census's to report, not written.
    if (pages_)
      write_patterns(batch, active, w_.pool_bytes);
    else if (const auto bounds = pool_->object_bounds())
      write_patterns(batch, active, bounds->bytes, bounds->first);
    else
      write_patterns(batch, active);
    if (mo_.counters) collect_counters(count, active, l);
    return l;
  }

  void collect_counters(std::uint64_t count, const std::uint8_t* active, Launch& l) const {
    std::vector<std::uint32_t> steps(count), collisions(count), atomics(count), extra(count);
    std::vector<std::uint8_t> asked;
    ALLOCLAB_CUDA(cudaMemcpy(steps.data(), steps_.get(), count * 4, cudaMemcpyDeviceToHost));
    ALLOCLAB_CUDA(cudaMemcpy(atomics.data(), atomics_.get(), count * 4, cudaMemcpyDeviceToHost));
    ALLOCLAB_CUDA(
        cudaMemcpy(collisions.data(), collisions_.get(), count * 4, cudaMemcpyDeviceToHost));
    ALLOCLAB_CUDA(
        cudaMemcpy(extra.data(), extra_lost_bits_.get(), count * 4, cudaMemcpyDeviceToHost));
    if (active) {
      asked.resize(count);
      ALLOCLAB_CUDA(cudaMemcpy(asked.data(), active, count, cudaMemcpyDeviceToHost));
    }
    if (!entry_.op_count_names.empty()) {
      std::vector<unsigned long long> totals(entry_.op_count_names.size());
      ALLOCLAB_CUDA(cudaMemcpy(totals.data(), op_counts_.get(), totals.size() * sizeof totals[0],
                               cudaMemcpyDeviceToHost));
      for (std::size_t c = 0; c < totals.size(); ++c)
        l.op_counts.emplace_back(entry_.op_count_names[c], totals[c]);
    }
    for (std::uint64_t j = 0; j < count; ++j) {
      l.atomics += atomics[j];
      if (active && !asked[j]) continue;
      l.steps.push_back(steps[j]);
      l.collisions += collisions[j];
      l.failed_claims += collisions[j] - extra[j];
    }
  }

  // One free launch over the live objects marked in `victims` (null: all). Returns the objects
  // freed and the kernel's milliseconds.
  std::pair<std::uint64_t, double> release(const std::uint8_t* victims) {
    const std::uint64_t listed = take_for_free(view_, victims, free_list_.get());
    KernelArgs a = base_;
    a.N = slots_;
    a.page = free_list_.get();
    if (pages_ && !uniform_) a.pages_of = pages_of_.get();
    ALLOCLAB_CUDA(cudaDeviceSynchronize());
    EventTimer timer;
    timer.start();
    allocator_->free(a);
    const double ms = timer.stop_within(watchdog_, who_ + ": the free kernel");
    ALLOCLAB_CUDA(cudaGetLastError());
    return {listed, ms};
  }

  // An object of a failed check: "the object of thread 12 at [4096, 4352)" (offsets into the arena
  // for allocators of pages, hexadecimal addresses otherwise).
  std::string range_text(std::uint64_t slot, std::uint64_t begin, std::uint64_t end) const {
    const std::string thread =
        w_.family == WorkloadFamily::oom
            ? "slot " + std::to_string(slot) + " (batch " + std::to_string(slot / launch_ + 1) + ")"
            : "thread " + std::to_string(slot);
    if (pages_)
      return "the object of " + thread + " at [" + std::to_string(begin) + ", " +
             std::to_string(end) + ")";
    char text[64];
    std::snprintf(text, sizeof text, "[0x%llx, 0x%llx)", static_cast<unsigned long long>(begin),
                  static_cast<unsigned long long>(end));
    return "the object of " + thread + " at " + text;
  }

  // The checks after a phase (workload.hpp); fills the point's live state.
  void verify(WorkloadPoint& p, const std::string& when) const {
    const std::uint64_t alignment = pages_ ? w_.page_bytes : caps(algo_).alignment_bytes;
    // Allocators of bytes: inside their pool where it says where that is (a plug-in's).
    const auto bounds = pages_ ? std::nullopt : pool_->object_bounds();
    const Census c = bounds ? take_census(view_, bounds->bytes, alignment, bounds->first)
                            : take_census(view_, pages_ ? w_.pool_bytes : 0, alignment);
    if (c.misplaced)
      throw VerificationError(who_ + ": " + std::to_string(c.misplaced) +
                              " objects outside the pool or not aligned to " +
                              std::to_string(alignment) + " bytes " + when);
    if (const Overlaps o = overlapping_objects(view_); o.count)
      throw VerificationError(
          who_ + ": " + std::to_string(o.count) + " objects overlap another " + when +
          "; the first pair in address order: " + range_text(o.slot_a, o.begin_a, o.end_a) +
          " and " + range_text(o.slot_b, o.begin_b, o.end_b));
    if (const std::uint64_t bad = broken_patterns(view_))
      throw VerificationError(who_ + ": the pattern of " + std::to_string(bad) +
                              " objects was overwritten " + when);
    if (const auto used = pool_->pages_in_use(); used && *used != c.live_pages)
      throw VerificationError(who_ + ": the pool holds " + std::to_string(*used) +
                              " pages in use, the live objects " + std::to_string(c.live_pages) +
                              " " + when);
    p.live_objects = c.live;
    p.live_bytes = c.live_bytes;
    if (c.live > 0)
      p.address_range_bytes = c.highest_end - c.lowest;
    else
      p.address_range_bytes.reset();
  }

  // Frees everything left and checks that the pool holds nothing.
  double release_all(const std::string& when) {
    const double ms = release(nullptr).second;
    WorkloadPoint empty;
    verify(empty, when);
    if (empty.live_objects != 0) throw VerificationError(who_ + ": objects still live " + when);
    return ms;
  }

  // The second identical run (see the decisions above): `first` served by the first run.
  void check_second_run(std::uint64_t first, std::uint64_t second, std::uint64_t requests) {
    const bool exact = entry_.out_of_memory == OutOfMemory::counted_by_pool;
    if (first == second) return;
    if (exact || first == requests)
      throw VerificationError(who_ +
                              ": a second identical run after everything was freed "
                              "served " +
                              std::to_string(second) + " requests, the first " +
                              std::to_string(first));
    second_run_note_ = "a second identical run after everything was freed served " +
                       std::to_string(second) + " of " + std::to_string(requests) +
                       " requests (the first " + std::to_string(first) +
                       "; requests that reach the step bound depend on the schedule)";
  }

  // The first allocation phase again (same seed) on the emptied pool, verified, freed, and
  // compared with the first run's `served`.
  void rerun_first_phase(std::uint64_t served) {
    // An allocator that never serves freed memory again (a bump allocator) runs it on a new pool.
    if (!caps(algo_).frees) pool_->reset();
    const Launch again = allocate(0, w_.N, nullptr, w_.N, 0);
    WorkloadPoint second;
    verify(second, "in the second run");
    release_all("after the second run's frees");
    check_second_run(served, again.served, w_.N);
  }

  static void add_launch(WorkloadPoint& p, const Launch& l) {
    p.requests += l.requests;
    p.allocs += l.served;
    p.failed += l.requests - l.served;
    p.alloc_seconds += l.ms / 1e3;
    p.steps.insert(p.steps.end(), l.steps.begin(), l.steps.end());
    p.collisions += l.collisions;
    p.failed_claims += l.failed_claims;
    p.atomics_issued += l.atomics;
    p.add_op_counts(l.op_counts);
  }

  WorkloadPoint counted_point() const {
    WorkloadPoint p;
    p.has_atomic_counts = mo_.counters;  // CUDA's malloc: no counters (steps not observable)
    p.has_claim_counts = mo_.counters;
    return p;
  }

  // The free kernels of the pools of pages issue one atomic per object (the bitmap: one AND on
  // the object's word, runs lying inside one word; the queue: one add on the tail).
  std::uint64_t free_atomics(std::uint64_t freed) const { return pages_ ? freed : 0; }

  static void finish_counts(WorkloadPoint& p) {
    p.retries = 0;
    for (auto s : p.steps) p.retries += s > 0 ? s - 1 : 0;
  }

  WorkloadPoint alloc() {
    WorkloadPoint p = counted_point();
    const Launch l = allocate(0, w_.N, nullptr, w_.N, 0);
    add_launch(p, l);
    finish_counts(p);
    verify(p, "after the allocations");
    const auto [freed, ms] = release(nullptr);
    p.freed = freed;
    p.free_atomics_issued = free_atomics(freed);
    p.free_seconds = ms / 1e3;
    WorkloadPoint after;
    verify(after, "after the frees");
    if (after.live_objects != 0) throw VerificationError(who_ + ": objects live after the frees");
    rerun_first_phase(l.served);
    return p;
  }

  std::vector<WorkloadPoint> churn() {
    std::vector<WorkloadPoint> points;
    WorkloadPoint fill = counted_point();
    const Launch l = allocate(0, w_.N, nullptr, w_.N, 0);
    add_launch(fill, l);
    finish_counts(fill);
    verify(fill, "after the initial fill");
    points.push_back(fill);
    const std::uint64_t k =
        w_.free_fraction <= 0
            ? 0
            : std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::llround(
                                             w_.free_fraction * static_cast<double>(w_.N))));
    for (std::uint64_t r = 1; r <= w_.rounds; ++r) {
      WorkloadPoint p = counted_point();
      p.round = r;
      choose_victims(view_, k, mix64(seed_ + r), active_.get());
      const auto [freed, free_ms] = release(active_.get());
      p.freed = freed;
      p.free_atomics_issued = free_atomics(freed);
      p.free_seconds = free_ms / 1e3;
      add_launch(p, allocate(0, w_.N, active_.get(), freed, r));
      finish_counts(p);
      verify(p, "after round " + std::to_string(r));
      points.push_back(p);
    }
    release_all("after the final frees");
    rerun_first_phase(l.served);
    return points;
  }

  // Batches until a request fails (or the slots, a full pool and one batch, run out); with
  // --batch-free f, round(f B) random objects of each batch are freed after it.
  WorkloadPoint oom_batches(std::uint64_t& batches) {
    WorkloadPoint p = counted_point();
    batches = 0;
    const auto k =
        static_cast<std::uint64_t>(std::llround(w_.batch_free * static_cast<double>(w_.batch)));
    for (std::uint64_t first = 0; first + w_.batch <= slots_; first += w_.batch) {
      const Launch l = allocate(first, w_.batch, nullptr, w_.batch, batches++);
      add_launch(p, l);
      if (l.served < l.requests) {
        p.count_at_failure = p.allocs - p.freed;  // live
        p.batches_at_failure = batches;
        break;
      }
      if (k == 0) continue;
      ALLOCLAB_CUDA(cudaMemset(active_.get(), 0, slots_));
      choose_victims(slice(first, w_.batch), k, mix64(seed_ + batches), active_.get() + first);
      const auto [freed, ms] = release(active_.get());
      p.freed += freed;
      p.free_atomics_issued += free_atomics(freed);
      p.free_seconds += ms / 1e3;
    }
    finish_counts(p);
    return p;
  }

  WorkloadPoint oom() {
    std::uint64_t batches = 0;
    WorkloadPoint p = oom_batches(batches);
    verify(p, "when the first request failed");
    const double ms = release_all("after the frees");
    p.freed = p.allocs;
    p.free_atomics_issued = free_atomics(p.freed);
    p.free_seconds += ms / 1e3;
    std::uint64_t again_batches = 0;
    if (!caps(algo_).frees) pool_->reset();  // as rerun_first_phase
    const WorkloadPoint again = oom_batches(again_batches);
    WorkloadPoint second;
    verify(second, "in the second run");
    release_all("after the second run's frees");
    check_second_run(p.allocs, again.allocs, p.requests);
    const std::string no_failure =
        "no request failed before the slots (a full pool and one batch) ran out";
    if (!p.count_at_failure &&
        std::find(extra_notes_.begin(), extra_notes_.end(), no_failure) == extra_notes_.end())
      extra_notes_.push_back(no_failure);
    return p;
  }

  std::vector<std::string> notes() const {
    std::vector<std::string> out;
    out.push_back(who_ +
                  ": gpu times are the allocation and free kernels alone (CUDA events); the "
                  "verification, the pattern writes and the counters' copies run outside them" +
                  std::string(mo_.counters ? "; the timed kernels store per-request steps and "
                                             "collisions (--counters off to time without)"
                                           : ""));
    if (mo_.counters)
      out.push_back(who_ +
                    ": atomics_per_op = the atomic RMWs the kernels counted (lanes that serve "
                    "others included), failed_claims_per_op = the atomic claims that lost "
                    "at least one bit, as the simulator counts them (the kernels' collisions "
                    "count lost bits: more where one atomic claims several bits), retries_per_op = "
                    "steps beyond the first; atomics_per_free = 1 (one "
                    "atomic per object in the free kernels)");
    else
      out.push_back(who_ + ": no per-request counters (" +
                    (info(algo_).step_definition.empty() ? std::string("steps not observable")
                                                         : std::string("--counters off")) +
                    ")");
    if (!pages_)
      out.push_back(who_ + ": objects come from CUDA's malloc heap of " +
                    std::to_string(mo_.heap_bytes) +
                    " bytes (the pool; set before the first malloc kernel)");
    if (repeats_ > 1)
      out.push_back(who_ + ": alloc_ms and free_ms are medians over " + std::to_string(repeats_) +
                    " repeats of each trial; init_ms is the trial's one pool set-up (the repeats "
                    "start from its pristine copy)");
    if (!second_run_note_.empty()) out.push_back(who_ + ": " + second_run_note_);
    for (const auto& n : extra_notes_) out.push_back(who_ + ": " + n);
    for (auto n : pool_->notes()) out.push_back(std::move(n));
    return out;
  }

  Algorithm algo_;
  std::string who_;
  Workload w_;
  std::uint64_t seed_;
  Scenario s_;
  MeasureOptions mo_;
  const GpuEntry& entry_;
  bool pages_;
  std::uint64_t launch_;
  unsigned warmup_;
  unsigned repeats_;
  bool warm_;
  double watchdog_;
  std::uint64_t slots_ = 0;
  bool uniform_ = true;
  KernelArgs base_;
  std::unique_ptr<GpuAllocator> allocator_;
  PoolPolicy* pool_ = nullptr;
  DeviceBuffer<std::uint64_t> where_, bytes_, free_list_, result_;
  DeviceBuffer<std::uint32_t> pages_of_, steps_, collisions_, atomics_, extra_lost_bits_;
  DeviceBuffer<unsigned long long> op_counts_;  // the allocator's own counts (KernelArgs)
  DeviceBuffer<std::uint8_t> active_;
  DeviceBuffer<unsigned char> arena_;
  ObjectsView view_;
  std::string second_run_note_;
  std::vector<std::string> extra_notes_;
};

}  // namespace

void check_workload_input(Algorithm algo, const Workload& given, const WorkloadOptions& o) {
  const Workload w = workload_for(algo, given);  // the allocator's own page size, if it has one
  check_workload_registry_input(algo, w, o);
  const Scenario s = workload_scenario(algo, w, w.seed);
  try {
    gpu_entry_for(algo).check(s, workload_measure_options(algo, w, o));
  } catch (const InputError& e) {
    // The scenario's parameters under the names a workload gives them (as the simulator does).
    if (e.parameter() == "--T")  // the pool in the allocator's pages
      throw InputError("--pool", std::string(name(algo)) + ": " + w.size.text() + " B objects in " +
                                     std::to_string(w.pool_bytes) + " bytes: " + e.what());
    if (e.parameter() == "--pages")
      throw InputError("--size", std::string(name(algo)) + " cannot serve " + w.size.text() +
                                     " bytes as pages of " + std::to_string(w.page_bytes) + " B (" +
                                     e.what() + ")");
    throw;
  }
}

std::uint64_t workload_heap_bytes(Algorithm algo, const Workload& w, const WorkloadOptions& o) {
  return detail::workload_heap_bytes(algo, w, o);
}

WorkloadRun run_workload(Algorithm algo, const Workload& given, const WorkloadOptions& o,
                         std::uint64_t trial) {
  const Workload w = workload_for(algo, given);
  check_workload_input(algo, w, o);
  require_device();
  if (!o.block_sweep) {
    WorkloadDriver driver(algo, w, o, trial);
    return driver.run();
  }
  // Figure 7's paper setting: blocks of 1 .. 1024 (below a warp: only allocators without warp
  // collectives, whose kernels take any block), the times averaged, the rest from block 256.
  const std::string who(name(algo));
  if (who.rfind("gg-", 0) != 0 && who != "cudamalloc")
    throw InputError("--block-sweep", who +
                                          ": its kernels need whole warps (gg-* and cudamalloc "
                                          "take blocks of 1 .. 1024)");
  WorkloadRun out;
  std::vector<double> alloc_s, free_s;
  std::string per_block;
  for (unsigned block = 1; block <= 1024; block *= 2) {
    Workload wb = w;
    wb.block = block;
    WorkloadDriver driver(algo, wb, o, trial);
    WorkloadRun r = driver.run();
    if (alloc_s.empty()) {
      alloc_s.assign(r.points.size(), 0);
      free_s.assign(r.points.size(), 0);
    }
    std::string ms;
    for (std::size_t p = 0; p < r.points.size() && p < alloc_s.size(); ++p) {
      alloc_s[p] += r.points[p].alloc_seconds;
      free_s[p] += r.points[p].free_seconds;
      if (p == 0) ms = std::to_string(r.points[p].alloc_seconds * 1e3);
    }
    per_block += (per_block.empty() ? "" : ", ") + std::to_string(block) + ": " + ms;
    if (block == 256) out = std::move(r);
  }
  for (std::size_t p = 0; p < out.points.size() && p < alloc_s.size(); ++p) {
    out.points[p].alloc_seconds = alloc_s[p] / 11;
    out.points[p].free_seconds = free_s[p] / 11;
  }
  out.notes.push_back(
      "block sweep (Gelado & Garland Fig. 7): alloc times are the mean over "
      "blocks of 1 .. 1024 threads; ms by block: " +
      per_block + "; the other columns are the run with blocks of 256");
  return out;
}

}  // namespace alloclab::gpu
