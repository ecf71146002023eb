// Typed workloads on the GPU (alloclab/gpu/dynasoar_typed_workload.hpp): the shared driver over an
// adaptor of TypedHeapGpu. Host code only, over the typed heap's public API, so it builds with or
// without CUDA (without, TypedHeapGpu throws NoDevice).
#include "alloclab/gpu/dynasoar_typed_workload.hpp"

#include <algorithm>
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "alloclab/core/dynasoar/op_counts.hpp"
#include "alloclab/core/dynasoar/typed_workload.hpp"
#include "alloclab/core/errors.hpp"
#include "alloclab/core/workload_repeats.hpp"
#include "alloclab/gpu/dynasoar_apps.hpp"
#include "alloclab/gpu/measure.hpp"

namespace alloclab::gpu {
namespace {

using dynasoar::TypedWorkloadObject;

class TypedHeapGpuAdaptor {
 public:
  TypedHeapGpuAdaptor(Algorithm algo, const TypedHeapGpuOptions& o) : heap_(algo, o) {}

  std::vector<std::optional<TypedWorkloadObject>> allocate(const std::vector<unsigned>& types) {
    // One kernel of types.size() threads (0: the thread asks nothing); result i is thread i's.
    const auto got = heap_.allocate(types, 1);
    last_ = heap_.last_kernel_ms() / 1e3;
    std::vector<std::optional<TypedWorkloadObject>> out(types.size());
    for (std::size_t i = 0; i < got.size() && i < out.size(); ++i)
      if (got[i]) out[i] = TypedWorkloadObject{got[i]->block, got[i]->slot, got[i]->type};
    return out;
  }
  void free(const std::vector<TypedWorkloadObject>& objects) {
    std::vector<TypedSlot> batch;
    batch.reserve(objects.size());
    for (const auto& o : objects) batch.push_back(TypedSlot{o.block, o.slot, o.type});
    heap_.free(batch);
    last_ = heap_.last_kernel_ms() / 1e3;
  }
  double last_seconds() const { return last_; }
  std::uint64_t blocks() const { return heap_.blocks(); }
  std::uint64_t blocks_in_use() const { return heap_.blocks_in_use(); }
  std::uint64_t live_objects() const { return heap_.live_objects(); }
  double fragmentation() const { return heap_.fragmentation(); }
  std::vector<std::pair<std::string, std::uint64_t>> counts() const {
    std::vector<std::pair<std::string, std::uint64_t>> out;
    const DsCountTotals& t = heap_.counts();
    for (unsigned i = 0; i < dynasoar::ds_count::kCounts; ++i)
      out.emplace_back(dynasoar::kDsCountNames[i], t[i]);
    return out;
  }
  TypedHeapGpu& heap() { return heap_; }

 private:
  TypedHeapGpu heap_;
  double last_ = 0;
};

TypedHeapGpuOptions heap_options(const Workload& w, const TypedWorkloadGpuOptions& o,
                                 std::uint64_t seed) {
  TypedHeapGpuOptions h;
  h.types = dynasoar::workload_types(w);
  h.heap_bytes = w.pool_bytes;
  h.retries = o.retries;
  h.seed = seed;
  return h;
}

}  // namespace

void check_typed_workload_input_gpu(Algorithm algo, const Workload& w,
                                    const TypedWorkloadGpuOptions& o) {
  const std::vector<Algorithm> typed = typed_heap_algorithms();
  if (std::find(typed.begin(), typed.end(), algo) == typed.end())
    throw InputError(
        "--allocator",
        std::string(name(algo)) + " has no typed heap on the GPU; --types needs one (" +
            (typed.empty() ? std::string("none: built without CUDA") : algorithm_names(typed)) +
            ")");
  dynasoar::check_typed_workload(w);
  if (o.retries < 1 || o.retries > 64)
    throw InputError("--retries", "active lookups before the slow path: 1 to 64, got " +
                                      std::to_string(o.retries));
  if (o.repeats < 1) throw InputError("--repeats", "need at least one repeat");
}

WorkloadRun run_typed_workload_gpu(Algorithm algo, const Workload& w,
                                   const TypedWorkloadGpuOptions& o, std::uint64_t trial) {
  check_typed_workload_input_gpu(algo, w, o);
  const std::uint64_t seed = trial_seed(w.seed, trial);
  const dynasoar::TypeSizes t = dynasoar::workload_types(w);
  // Warm-up: the first allocation batch (N threads, oom: one batch) and its frees, untimed.
  for (unsigned u = 0; u < o.warmup; ++u) {
    TypedHeapGpu warm(algo, heap_options(w, o, seed));
    const std::uint64_t n = w.family == WorkloadFamily::oom ? w.batch : w.N;
    std::vector<unsigned> types(n);
    for (std::uint64_t i = 0; i < n; ++i) types[i] = dynasoar::workload_type_of(i, t.bytes.size());
    std::vector<TypedSlot> held;
    for (const auto& s : warm.allocate(types, 1))
      if (s) held.push_back(*s);
    warm.free(held);
  }
  RepeatedRun repeated(RepeatCounts::may_differ);
  for (unsigned r = 0; r < o.repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    TypedHeapGpuAdaptor heap(algo, heap_options(w, o, seed));
    const double init =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    WorkloadRun run = dynasoar::TypedWorkloadDriver<TypedHeapGpuAdaptor>(heap, w, seed, init).run();
    run.device = device_info().name;
    repeated.add(std::move(run));
  }
  WorkloadRun run = std::move(repeated).take();
  const std::string who(name(algo));
  run.notes.push_back(dynasoar::typed_heap_note(who, t, run.pages_total, o.retries) +
                      "; alloc_ms and free_ms are the kernels; init_ms builds the heap (host "
                      "and device); the allocator's counts are <count>_per_request");
  if (o.repeats > 1)
    run.notes.push_back(who + ": alloc_ms, free_ms and init_ms are medians over " +
                        std::to_string(o.repeats) + " repeats, each on a heap built anew");
  return run;
}

}  // namespace alloclab::gpu
