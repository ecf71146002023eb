// What an Ouroboros operation did, counted as it goes (both variants' step machines,
// page_queue.hpp and chunk_queue.hpp): the counts, the status of a step, a counted memory
// operation through the atomics policy, and the counts of a semaphore wait's steps.
#pragma once

#include <cstdint>

#include "alloclab/core/hd.hpp"
#include "alloclab/core/ouroboros/bulk_semaphore.hpp"
#include "alloclab/core/ouroboros/index_queue.hpp"

namespace alloclab::ouro {

// What one operation did (summed by the caller per request, per warp or per run).
struct OpCounts {
  std::uint32_t memory_ops = 0;      // loads, stores and atomics on shared allocator state
  std::uint32_t atomics = 0;         // the read-modify-writes among them
  std::uint32_t failed = 0;          // RMWs that lost a race: a failed CAS on the semaphore, a
                                     // slot exchange that found the marker, a slot CAS that found
                                     // the slot full
  std::uint32_t sem_cas = 0;         // CAS attempts on the semaphore word (Alg. 2 l.8-16)
  std::uint32_t reserve_spins = 0;   // reads of Alg. 2 l.17 that kept a reserver waiting
  std::uint32_t slot_spins = 0;      // deletion-marker waits (Alg. 1 l.6 and l.13)
  std::uint32_t chunks = 0;          // chunks this operation allocated (grows that succeeded)
  std::uint32_t queue_chunks = 0;    // VA, VL: Queue-Chunks drawn fresh from the pool
  std::uint32_t queue_recycled = 0;  // VA, VL: Queue-Chunks taken again (given back before)
  ALLOCLAB_HD void add(const OpCounts& o) {
    memory_ops += o.memory_ops;
    atomics += o.atomics;
    failed += o.failed;
    sem_cas += o.sem_cas;
    reserve_spins += o.reserve_spins;
    slot_spins += o.slot_spins;
    chunks += o.chunks;
    queue_chunks += o.queue_chunks;
    queue_recycled += o.queue_recycled;
  }
};

// The counts an Ouroboros run reports beside its steps, in this order and under these names
// (the simulator's RunResult::op_counts and the GPU's workload rows: `<name>_per_request`).
// Variant P reports these; variant C these and more (kChunkCountNames, chunk_queue.hpp).
inline constexpr unsigned kOpCountValues = 6;
inline constexpr const char* kOpCountNames[kOpCountValues] = {
    "sem_cas", "reserve_spins", "slot_spins", "chunks", "queue_chunks", "queue_recycled"};
ALLOCLAB_HD void op_count_values(const OpCounts& c, std::uint32_t* out) {
  out[0] = c.sem_cas;
  out[1] = c.reserve_spins;
  out[2] = c.slot_spins;
  out[3] = c.chunks;
  out[4] = c.queue_chunks;
  out[5] = c.queue_recycled;
}

enum class OpStatus : std::uint8_t {
  running,   // made progress; step again
  spinning,  // waiting for another thread (reserver or slot); the caller may back off
  done,
};

// Counted memory operations (every step issues at most one).
template <class Atomics>
struct CountedOps {
  template <class T>
  ALLOCLAB_HD static T load(T& w, OpCounts& c) {
    ++c.memory_ops;
    return Atomics::load(w);
  }
  template <class T>
  ALLOCLAB_HD static T add(T& w, T v, OpCounts& c) {
    ++c.memory_ops;
    ++c.atomics;
    return Atomics::fetch_add(w, v);
  }
  template <class T>
  ALLOCLAB_HD static T cas(T& w, T expected, T desired, OpCounts& c) {
    ++c.memory_ops;
    ++c.atomics;
    return Atomics::cas(w, expected, desired);
  }
  template <class T>
  ALLOCLAB_HD static T exchange(T& w, T v, OpCounts& c) {
    ++c.memory_ops;
    ++c.atomics;
    return Atomics::exchange(w, v);
  }
  template <class T>
  ALLOCLAB_HD static T fetch_or(T& w, T v, OpCounts& c) {
    ++c.memory_ops;
    ++c.atomics;
    return Atomics::fetch_or(w, v);
  }
  template <class T>
  ALLOCLAB_HD static T fetch_and(T& w, T v, OpCounts& c) {
    ++c.memory_ops;
    ++c.atomics;
    return Atomics::fetch_and(w, v);
  }
  template <class T>
  ALLOCLAB_HD static T fetch_max(T& w, T v, OpCounts& c) {
    ++c.memory_ops;
    ++c.atomics;
    return Atomics::fetch_max(w, v);
  }
};

// A step that waited for another thread (a slot, a link, a chunk given back): counted as a lost
// race and a slot spin.
ALLOCLAB_HD OpStatus count_spin(OpCounts& c) {
  ++c.failed;
  ++c.slot_spins;
  return OpStatus::spinning;
}

// Steps a queue operation of index_queue.hpp (a reuse queue), counting its memory operations.
template <class QueueOp>
ALLOCLAB_HD OpStatus step_index_queue(QueueOp& op, IndexQueueRef q, OpCounts& c) {
  const std::uint32_t before = op.memory_ops();
  const QueueStatus s = op.step(q);
  c.memory_ops += op.memory_ops() - before;
  c.atomics += op.memory_ops() - before;
  return s == QueueStatus::done       ? OpStatus::done
         : s == QueueStatus::spinning ? count_spin(c)
                                      : OpStatus::running;
}

// Adds what a semaphore wait did between `before` and `after` (its results) to `c`.
ALLOCLAB_HD void account_wait(const WaitResult& before, const WaitResult& after, OpCounts& c) {
  const std::uint32_t ops = after.memory_ops - before.memory_ops;
  c.memory_ops += ops;
  c.atomics += ops - (after.loads - before.loads);
  c.sem_cas += after.cas_attempts - before.cas_attempts;
  // A fast-path subtraction that finds too little is the printed protocol on an empty
  // semaphore, not a lost race: only failed CASes count.
  c.failed += after.cas_failures - before.cas_failures;
  c.reserve_spins += after.reserve_spins - before.reserve_spins;
}

}  // namespace alloclab::ouro
