// A DynaSOAr heap of typed objects named by their byte sizes (core/dynasoar/types.hpp) driven by
// the shared step machines (core/dynasoar/alloc.hpp, free.hpp) in batches, as a GPU kernel
// issues them: the application workloads (wator.hpp, linux_scalability.hpp) run on it.
//
//   allocate(batch)  every request of the batch at once. Lockstep: the requests of a warp (their
//                    `warp` field) that ask for one type form a group served by one machine
//                    (§4.2's coalescing; without it each request is its own); every unfinished
//                    machine makes one step per round, in a random order per round (Philox,
//                    StreamDomain::order). Sequential: one request at a time to its end.
//                    Threads: host threads (std::thread, `host_threads`) run the machines
//                    concurrently on std::atomic_ref words, each machine (a warp's requests of one
//                    type when coalescing, as in lockstep) on one host thread to its end; not
//                    deterministic. A machine whose last round found no free block waits, before
//                    its next round, until no machine is between a free-block lookup and its
//                    block's activation, nor in a rollback: a host thread descheduled there for
//                    milliseconds (a GPU warp is not) would make the others give up out of memory
//                    on a heap with room (see the .cpp).
//   free(batch)      the same for the frees (Alg. 2, 7, 9): all at once in lockstep, concurrently
//                    in threads mode.
// Verified every batch: an independent record of the live objects, per block the slots held and
// their type (a slot handed out twice, or in a block that holds live objects of another type, whose
// bytes it would share; a free of something not live: VerificationError), and the heap at rest
// after each batch (HeapStorage::check_slots: Def. 1 in every block bitmap, each block's
// state against the objects the map holds). Out of memory: alloc.hpp's give-up, the request gets
// nothing and is counted. A machine still running after 2^32 steps is a defect (VerificationError);
// in threads mode 2^22 steps past the out-of-memory bound (a free: 2^22 steps), or 2^22 waits.
//
// Which allocators run here: those with an entry in TypedHeapTable (registered from their own
// file, cpu_sim/src/dynasoar.cpp), which says whether they coalesce and rotate.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "alloclab/core/backend_table.hpp"
#include "alloclab/core/dynasoar/heap.hpp"
#include "alloclab/core/dynasoar/heap_storage.hpp"
#include "alloclab/core/dynasoar/types.hpp"

namespace alloclab::sim {

struct TypedHeapEntry {
  bool coalesce = true;  // a warp's lanes of one type served by one machine (§4.2)
  bool rotate = true;    // bitmap rotation by (seed + warp) mod 64 (§4.2)
};
using TypedHeapTable = BackendTable<TypedHeapEntry>;

enum class TypedMode { sequential, lockstep, threads };

struct TypedHeapOptions {
  dynasoar::TypeSizes types{{64}};
  std::uint64_t heap_bytes = std::uint64_t{1} << 20;  // whole blocks of 64 x the smallest type
  unsigned retries = 5;                               // r: active lookups before the slow path
  TypedHeapEntry variant;
  TypedMode mode = TypedMode::lockstep;
  unsigned host_threads = 0;  // threads mode: host threads (0: all cores); ignored otherwise
  // Threads mode, for tests: a host thread sleeps this long (µs) after its machine claimed a free
  // block, as a thread descheduled there would (0: never).
  unsigned claim_pause_us = 0;
  std::uint64_t seed = 1;
};

inline constexpr unsigned kMaxTypedHostThreads = 1024;

// InputError naming the parameter: --pool below one block, --retries 0 or above 64,
// --threads above kMaxTypedHostThreads.
void check_typed_heap(const TypedHeapOptions& o);
// The host threads a batch runs on: threads mode's host_threads (0: all cores), else 1.
unsigned typed_host_threads(const TypedHeapOptions& o);

struct TypedObject {
  std::uint64_t block = 0;
  unsigned slot = 0;
  unsigned type = 0;  // type id, 1..k
};
struct TypedRequest {
  unsigned type = 1;
  std::uint64_t warp = 0;  // lanes of one warp and type coalesce
};

class TypedHeap {
 public:
  explicit TypedHeap(const TypedHeapOptions& o);
  // One object per request, or none (out of memory).
  std::vector<std::optional<TypedObject>> allocate(const std::vector<TypedRequest>& batch);
  void free(const std::vector<TypedObject>& batch);

  // §6.3: F = sum over allocated blocks of (N_type(b) - used(b)) / sum of N_type(b); 0 with none.
  double fragmentation() const;
  std::uint64_t blocks_in_use() const;  // blocks not free
  std::uint64_t live_objects() const { return live_count_; }
  std::uint64_t live_bytes() const { return live_bytes_; }
  // parallel_do's enumeration (§3.7): R = allocated[T].indices(), then each block's iteration
  // bitmap (its allocation bitmap without the preset bits) in slot order; thread tid of the
  // do-all gets the tid-th object (N_T consecutive threads a block).
  std::vector<TypedObject> enumerate(unsigned type) const;
  std::uint64_t address(const TypedObject& o) const;  // bytes from the heap's start

  std::uint64_t blocks() const { return storage_.heap.blocks; }
  const dynasoar::DsCounts& counts() const { return counts_; }
  std::uint64_t steps() const { return steps_; }    // memory operations of all machines
  std::uint64_t rounds() const { return rounds_; }  // lockstep only
  std::uint64_t failed() const { return failed_; }
  std::uint64_t allocations() const { return allocations_; }
  // Wall time of the last allocate() or free(), its check at rest excluded.
  double last_seconds() const { return last_seconds_; }
  const dynasoar::Heap& heap() const { return storage_.heap; }

 private:
  void check_at_rest(const char* when) const;
  void take(const TypedObject& o);

  TypedHeapOptions opt_;
  dynasoar::HeapStorage storage_;
  // The reference: per block, the slots held and their type (0: none held).
  std::vector<std::uint64_t> ref_slots_;
  std::vector<unsigned> ref_type_;
  std::uint64_t live_count_ = 0, live_bytes_ = 0;
  dynasoar::DsCounts counts_;
  std::uint64_t steps_ = 0, rounds_ = 0, failed_ = 0, allocations_ = 0, batches_ = 0;
  double last_seconds_ = 0;
};

}  // namespace alloclab::sim
