// linux-scalability of typed_apps.hpp (DynaSOAr §6.4, Fig. 14A): threads allocate one object each
// per batch until a batch is not served whole, then everything is freed in one batch.
#include <algorithm>
#include <chrono>
#include <vector>

#include "alloclab/core/errors.hpp"
#include "alloclab/cpu_sim/typed_apps.hpp"

namespace alloclab::sim {

void check_linux_scalability(const LinuxScalabilityOptions& o) {
  check_typed_heap(o.heap);
  if (o.heap.types.bytes.size() != 1)
    throw InputError("--types", "linux-scalability allocates one type (the paper's 64 B); got " +
                                    std::to_string(o.heap.types.bytes.size()));
  if (o.threads == 0) throw InputError("--N", "at least one thread");
  // A batch holds one object a thread: more threads than the heap has slots are never served
  // once (n_max = 0), and their batch alone could exhaust the host's memory.
  const std::uint64_t slots =
      o.heap.types.blocks_of("--pool", o.heap.heap_bytes) * o.heap.types.capacity(1);
  if (o.threads > slots)
    throw InputError("--N", "a batch takes one object a thread: at most the heap's " +
                                std::to_string(slots) + " slots, got " + std::to_string(o.threads));
}

LinuxScalabilityRun run_linux_scalability(const LinuxScalabilityOptions& o) {
  check_linux_scalability(o);
  const auto t0 = std::chrono::steady_clock::now();
  TypedHeap heap(o.heap);
  LinuxScalabilityRun r;
  r.capacity = heap.blocks() * o.heap.types.capacity(1);
  std::vector<TypedRequest> batch(o.threads);
  for (std::uint64_t t = 0; t < o.threads; ++t) batch[t] = TypedRequest{1, t / 32};
  std::vector<TypedObject> held;
  held.reserve(r.capacity);
  // One batch per object a thread: the n-th objects of all threads (a thread's loop in one kernel,
  // its iterations in step with the other threads').
  while (o.max_n == 0 || r.n_max < o.max_n) {
    std::uint64_t failed = 0;
    for (const auto& got : heap.allocate(batch)) {
      if (got)
        held.push_back(*got);
      else
        ++failed;
    }
    if (failed != 0) {
      r.failed = failed;
      break;
    }
    ++r.n_max;
  }
  r.allocated = held.size();
  const auto size = static_cast<double>(o.heap.types.bytes[0]);
  r.utilisation =
      static_cast<double>(o.threads * r.n_max) * size / static_cast<double>(o.heap.heap_bytes);
  r.slot_utilisation = static_cast<double>(r.allocated) / static_cast<double>(r.capacity);
  r.slow_path_rate = static_cast<double>(heap.counts().blocks_initialised) /
                     static_cast<double>(std::max<std::uint64_t>(1, r.allocated));
  heap.free(held);
  r.blocks_left = heap.blocks_in_use();
  r.counts = heap.counts();
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace alloclab::sim
