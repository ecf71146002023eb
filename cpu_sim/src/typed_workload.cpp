// Typed workloads in the simulator (typed_workload.hpp): the shared driver over an adaptor of the
// typed heap. Times: the typed heap's own per-batch wall time, its check at rest excluded; the
// heap's construction is init_ms.
#include "alloclab/cpu_sim/typed_workload.hpp"

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "alloclab/core/dynasoar/op_counts.hpp"
#include "alloclab/core/dynasoar/typed_workload.hpp"
#include "alloclab/core/errors.hpp"
#include "alloclab/core/workload_repeats.hpp"
#include "alloclab/cpu_sim/typed_heap.hpp"

namespace alloclab::sim {
namespace {

using dynasoar::TypedWorkloadObject;

class TypedHeapAdaptor {
 public:
  explicit TypedHeapAdaptor(const TypedHeapOptions& o) : heap_(o) {}

  std::vector<std::optional<TypedWorkloadObject>> allocate(const std::vector<unsigned>& types) {
    std::vector<TypedRequest> batch;
    std::vector<std::size_t> thread_of;
    for (std::size_t i = 0; i < types.size(); ++i)
      if (types[i] != 0) {
        batch.push_back(TypedRequest{types[i], i / 32});
        thread_of.push_back(i);
      }
    std::vector<std::optional<TypedWorkloadObject>> out(types.size());
    if (batch.empty()) {
      last_ = 0;
      return out;
    }
    const auto got = heap_.allocate(batch);
    last_ = heap_.last_seconds();
    for (std::size_t j = 0; j < got.size(); ++j)
      if (got[j])
        out[thread_of[j]] = TypedWorkloadObject{got[j]->block, got[j]->slot, got[j]->type};
    return out;
  }
  void free(const std::vector<TypedWorkloadObject>& objects) {
    std::vector<TypedObject> batch;
    batch.reserve(objects.size());
    for (const auto& o : objects) batch.push_back(TypedObject{o.block, o.slot, o.type});
    heap_.free(batch);
    last_ = heap_.last_seconds();
  }
  double last_seconds() const { return last_; }
  std::uint64_t blocks() const { return heap_.blocks(); }
  std::uint64_t blocks_in_use() const { return heap_.blocks_in_use(); }
  std::uint64_t live_objects() const { return heap_.live_objects(); }
  double fragmentation() const { return heap_.fragmentation(); }
  std::vector<std::pair<std::string, std::uint64_t>> counts() const {
    std::uint32_t v[dynasoar::ds_count::kCounts];
    dynasoar::alloc_count_values(heap_.counts(), v);
    std::vector<std::pair<std::string, std::uint64_t>> out;
    for (unsigned i = 0; i < dynasoar::ds_count::kCounts; ++i)
      out.emplace_back(dynasoar::kDsCountNames[i], v[i]);
    return out;
  }

 private:
  TypedHeap heap_;
  double last_ = 0;
};

TypedMode typed_mode(Mode m) {
  return m == Mode::lockstep  ? TypedMode::lockstep
         : m == Mode::threads ? TypedMode::threads
                              : TypedMode::sequential;
}

TypedHeapOptions heap_options(Algorithm algo, const Workload& w, const TypedWorkloadOptions& o,
                              std::uint64_t seed) {
  const TypedHeapEntry* e = TypedHeapTable::instance().find(algo);
  if (!e)
    throw InputError("--allocator", std::string(name(algo)) +
                                        " has no typed heap in the simulator; --types needs one (" +
                                        algorithm_names(TypedHeapTable::instance().registered()) +
                                        ")");
  TypedHeapOptions h;
  h.types = dynasoar::workload_types(w);
  h.heap_bytes = w.pool_bytes;
  h.retries = o.retries;
  h.variant = *e;
  h.mode = typed_mode(o.mode);
  h.host_threads = o.host_threads;
  h.seed = seed;
  return h;
}

}  // namespace

void check_typed_workload_input(Algorithm algo, const Workload& w, const TypedWorkloadOptions& o) {
  const TypedHeapOptions h = heap_options(algo, w, o, w.seed);
  dynasoar::check_typed_workload(w);
  check_typed_heap(h);
  if (o.repeats < 1) throw InputError("--repeats", "need at least one repeat");
}

WorkloadRun run_typed_workload(Algorithm algo, const Workload& w, const TypedWorkloadOptions& o,
                               std::uint64_t trial) {
  check_typed_workload_input(algo, w, o);
  const std::uint64_t seed = trial_seed(w.seed, trial);
  // Sequential and lockstep are deterministic; host threads interleave as they will.
  RepeatedRun repeated(o.mode == Mode::threads ? RepeatCounts::may_differ
                                               : RepeatCounts::identical);
  for (unsigned r = 0; r < o.repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    TypedHeapAdaptor heap(heap_options(algo, w, o, seed));
    const double init =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    WorkloadRun run = dynasoar::TypedWorkloadDriver<TypedHeapAdaptor>(heap, w, seed, init).run();
    run.device = "cpu simulator";
    repeated.add(std::move(run));
  }
  WorkloadRun run = std::move(repeated).take();
  const std::string who(name(algo));
  run.notes.push_back(
      dynasoar::typed_heap_note(who, dynasoar::workload_types(w), run.pages_total, o.retries) +
      "; atomics and steps are not counted per request, the allocator's "
      "counts are <count>_per_request");
  if (o.repeats > 1)
    run.notes.push_back(who + ": init_ms, alloc_ms and free_ms are medians over " +
                        std::to_string(o.repeats) +
                        " repeats of each trial; every repeat counted the same");
  return run;
}

}  // namespace alloclab::sim
