// Figure 5's benchmark (Gelado & Garland, PPoPP'19 §5.1): "each thread allocates one unit of
// resource from a batch, and batches are allocated as they become empty", a batch "using a
// single atomic operation", so the semaphore alone sets the rate: the upper limit of two-stage
// allocation through a bulk or a counting semaphore. One thread of it as a step machine (at
// most one memory operation per step, through the atomics policy), which the simulator's
// lockstep and threads modes and the GPU kernel all run; summarise_sem_bench and
// verify_sem_bench turn the threads' ends and the shared words into the row every backend prints.
//
// A thread: wait(1, B) on the semaphore (wait(32, B) for a warp's leader, SemBenchConfig::units). A
// taker then holds its unit. A grower claims a batch (the single atomic on `batches`; only the
// first `batches_available` claims succeed, the pool's limit), makes its B units findable
// (`delivered` += B, before the signal, so no unit is taken before it exists) and signals; a grower
// whose claim failed signals its failure and is refused (null). Every thread holding a unit then
// takes a ticket (`taken`) and checks it against `delivered`: a ticket at or past the units
// delivered would be a unit the semaphore handed out before it existed. That check and
// verify_sem_bench's conservation are the verification of every run.
#pragma once

#include <cstdint>
#include <string>

#include "alloclab/core/gelado/bulk_semaphore.hpp"
#include "alloclab/core/gelado/counting_semaphore.hpp"
#include "alloclab/core/hd.hpp"

namespace alloclab::gelado {

enum class SemaphoreKind : std::uint8_t { bulk, counting };

inline const char* semaphore_kind_name(SemaphoreKind k) {
  return k == SemaphoreKind::bulk ? "bulk" : "counting";
}

// The shared words, each on its own 128-byte line: the benchmark measures the semaphore's
// word, not false sharing between its helpers.
struct alignas(128) SemBenchWord {
  std::uint64_t v = 0;
};
struct SemBenchWords {
  SemBenchWord semaphore;  // the bulk word (C, E, R) or the counting S
  SemBenchWord batches;    // batch claims (the single atomic that allocates a batch)
  SemBenchWord delivered;  // units made findable: B per batch that arrived
  SemBenchWord taken;      // tickets: units handed to threads
};

enum class SemBenchPhase : std::uint8_t {
  wait,       // a step of the semaphore's wait
  grow_turn,  // a turn of a growth's latency (no memory operation)
  claim,      // fetch_add(batches, 1): the batch's single atomic
  publish,    // fetch_add(delivered, B)
  signal,     // grow delivered or failed, on the semaphore
  ticket,     // fetch_add(taken, 1)
  check,      // load(delivered): the ticket must be below it
  done,
};

enum class SemBenchOutcome : std::uint8_t {
  pending,
  took,     // the semaphore gave it a unit others grew
  grew,     // it grew a batch and kept one unit of it
  refused,  // it had to grow and the pool had no batch left: null, counted
  gave_up,  // its wait reached the step bound (never a hang): counted
};

struct SemBenchThreadResult {
  SemBenchOutcome outcome = SemBenchOutcome::pending;
  bool unit_ok = true;             // its ticket was below the units delivered
  std::uint32_t steps = 0;         // steps taken (memory operations and growth turns)
  std::uint32_t cas_attempts = 0;  // on the semaphore word
  std::uint32_t cas_failures = 0;
  std::uint32_t spins = 0;       // bulk: reserve spins; counting: reads that found a grower at work
  std::uint32_t reserves = 0;    // bulk: successful R += 1 (0 for counting)
  std::uint32_t memory_ops = 0;  // every load and atomic of the thread
};

struct SemBenchConfig {
  SemaphoreKind kind = SemaphoreKind::bulk;
  std::uint32_t batch = 512;            // B: units a growth brings
  std::uint64_t batches_available = 0;  // K: claims that succeed (the pool's batches)
  std::uint32_t grow_turns = 0;         // steps a growth takes before its claim (latency)
  // Units one request takes: 1 (each thread for itself, as the paper), or 32 when a warp's lanes
  // ask as one (its leader waits for all of them: warp aggregation). At most `batch`.
  std::uint32_t units = 1;
};

template <class Atomics>
class SemBenchThread {
 public:
  ALLOCLAB_HD explicit SemBenchThread(const SemBenchConfig& c)
      : config_(c), bulk_(c.units, c.batch), counting_(c.units) {}

  ALLOCLAB_HD SemBenchPhase phase() const { return phase_; }
  ALLOCLAB_HD const SemBenchThreadResult& result() const { return result_; }
  // Inside its growth: from the wait's grow outcome until its signal.
  ALLOCLAB_HD bool growing() const {
    return phase_ == SemBenchPhase::grow_turn || phase_ == SemBenchPhase::claim ||
           phase_ == SemBenchPhase::publish || phase_ == SemBenchPhase::signal;
  }
  // Its next step delivers a batch (the signal after a successful claim).
  ALLOCLAB_HD bool delivering() const { return phase_ == SemBenchPhase::signal && batch_ok_; }
  // Waiting on the semaphore for units others bring (bulk: reserved and spinning; counting:
  // blocked behind a grower) as of its last step.
  ALLOCLAB_HD bool waiting() const { return waiting_; }

  ALLOCLAB_HD StepStatus step(SemBenchWords& w) {
    if (phase_ == SemBenchPhase::done) return StepStatus::done;
    ++result_.steps;
    switch (phase_) {
      case SemBenchPhase::wait:
        return wait_step(w);
      case SemBenchPhase::grow_turn:
        if (--turns_left_ == 0) phase_ = SemBenchPhase::claim;
        return StepStatus::running;
      case SemBenchPhase::claim:
        ++result_.memory_ops;
        batch_ok_ = Atomics::fetch_add(w.batches.v, std::uint64_t{1}) < config_.batches_available;
        phase_ = batch_ok_ ? SemBenchPhase::publish : SemBenchPhase::signal;
        return StepStatus::running;
      case SemBenchPhase::publish:
        ++result_.memory_ops;
        Atomics::fetch_add(w.delivered.v, std::uint64_t{config_.batch});
        phase_ = SemBenchPhase::signal;
        return StepStatus::running;
      case SemBenchPhase::signal:
        ++result_.memory_ops;
        signal_growth(w.semaphore.v);
        if (!batch_ok_) return finish(SemBenchOutcome::refused);
        phase_ = SemBenchPhase::ticket;
        return StepStatus::running;
      case SemBenchPhase::ticket:
        ++result_.memory_ops;
        ticket_ = Atomics::fetch_add(w.taken.v, std::uint64_t{config_.units});
        phase_ = SemBenchPhase::check;
        return StepStatus::running;
      case SemBenchPhase::check:
        ++result_.memory_ops;
        result_.unit_ok = ticket_ + config_.units <= Atomics::load(w.delivered.v);
        return finish(grew_ ? SemBenchOutcome::grew : SemBenchOutcome::took);
      case SemBenchPhase::done:
        break;
    }
    return StepStatus::done;
  }

  // The step bound: a thread still in its wait leaves it (bulk: its reservation dropped) and
  // gives up. Past the wait every phase is finite and runs to its end (a growth's promise is
  // kept or withdrawn, never left open). Returns whether it gave up.
  ALLOCLAB_HD bool give_up(SemBenchWords& w) {
    if (phase_ != SemBenchPhase::wait) return false;
    if (config_.kind == SemaphoreKind::bulk) {
      bulk_.abandon(w.semaphore.v);
      absorb_bulk();
    } else {
      counting_.abandon();
      absorb_counting();
    }
    waiting_ = false;
    finish(SemBenchOutcome::gave_up);
    return true;
  }

 private:
  ALLOCLAB_HD StepStatus wait_step(SemBenchWords& w) {
    if (config_.kind == SemaphoreKind::bulk) {
      const StepStatus s = bulk_.step(w.semaphore.v);
      waiting_ = bulk_.phase() == BulkWaitPhase::spin && s == StepStatus::spinning;
      if (s != StepStatus::done) return s;
      absorb_bulk();
      return after_wait(bulk_.result().outcome == BulkWaitOutcome::took,
                        bulk_.result().outcome == BulkWaitOutcome::grow);
    }
    const StepStatus s = counting_.step(w.semaphore.v);
    waiting_ = s == StepStatus::spinning && counting_.result().blocked_reads > blocked_seen_;
    blocked_seen_ = counting_.result().blocked_reads;
    if (s != StepStatus::done) return s;
    absorb_counting();
    held_ = static_cast<std::uint32_t>(counting_.result().returned);
    return after_wait(counting_.result().outcome == CountingWaitOutcome::took,
                      counting_.result().outcome == CountingWaitOutcome::grow);
  }
  ALLOCLAB_HD StepStatus after_wait(bool took, bool grow) {
    waiting_ = false;
    if (took) {
      phase_ = SemBenchPhase::ticket;
      return StepStatus::running;
    }
    if (!grow) return finish(SemBenchOutcome::gave_up);  // counter_overflow: refused by checks
    grew_ = true;
    turns_left_ = config_.grow_turns;
    phase_ = turns_left_ > 0 ? SemBenchPhase::grow_turn : SemBenchPhase::claim;
    return StepStatus::running;
  }
  ALLOCLAB_HD void signal_growth(std::uint64_t& word) {
    if (config_.kind == SemaphoreKind::bulk) {
      if (batch_ok_)
        bulk_grow_delivered<Atomics>(word, config_.units, config_.batch);
      else
        bulk_grow_failed<Atomics>(word, config_.units, config_.batch);
    } else {
      if (batch_ok_)
        counting_grow_delivered<Atomics>(word, config_.units, config_.batch, held_);
      else
        counting_grow_failed<Atomics>(word, held_);
    }
  }
  ALLOCLAB_HD void absorb_bulk() {
    const BulkWaitResult& r = bulk_.result();
    result_.cas_attempts = r.cas_attempts;
    result_.cas_failures = r.cas_failures;
    result_.spins = r.reserve_spins;
    result_.reserves = r.reserves;
    wait_ops_ = r.memory_ops;
  }
  ALLOCLAB_HD void absorb_counting() {
    const CountingWaitResult& r = counting_.result();
    result_.cas_attempts = r.cas_attempts;
    result_.cas_failures = r.cas_failures;
    result_.spins = r.blocked_reads;
    wait_ops_ = r.memory_ops;
  }
  ALLOCLAB_HD StepStatus finish(SemBenchOutcome o) {
    result_.memory_ops += wait_ops_;
    wait_ops_ = 0;
    result_.outcome = o;
    phase_ = SemBenchPhase::done;
    return StepStatus::done;
  }

  SemBenchConfig config_;
  BulkWait<Atomics> bulk_;
  CountingWait<Atomics> counting_;
  SemBenchPhase phase_ = SemBenchPhase::wait;
  SemBenchThreadResult result_;
  std::uint32_t wait_ops_ = 0;  // the wait's memory operations, added when it ends
  std::uint32_t turns_left_ = 0;
  std::uint32_t held_ = 0;  // counting: units the grower's wait returned (r)
  std::uint32_t blocked_seen_ = 0;
  std::uint64_t ticket_ = 0;
  bool batch_ok_ = false;
  bool grew_ = false;
  bool waiting_ = false;
};

}  // namespace alloclab::gelado
