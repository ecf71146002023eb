// The workload families of `alloclab workload` (workload.hpp) over a heap of typed objects named by
// their byte sizes (`--types 60,64`, types.hpp): DynaSOAr's typed heap, in the simulator
// (cpu_sim/typed_workload.hpp) and on the GPU (gpu/dynasoar_apps.hpp). One driver for both
// backends; each gives it an adaptor of its heap. studies/dynasoar/, "Typed objects in alloclab
// workload", says why each family is what it is.
//
//   * Request i (thread i; oom: request i of the run, c B + j for request j of batch c) is of type
//     (i mod k) + 1, k the number of types: with 60,64 the even threads ask for 60 B, the odd ones
//     for 64 B, so a warp holds both types (two coalesced groups). Churn's threads ask again for
//     their own type.
//   * alloc, scaling, fragmentation: ONE allocation batch of N threads (timed), the point taken,
//     then ONE free batch of all (timed). churn: round 0 fills N threads in ONE batch (the page
//     allocators' runner fills in calls of k); each round frees round(f N) random live objects in
//     one batch, and their threads (and any left empty by an earlier failure) allocate again in
//     one batch. oom: batches of B until a request fails, --batch-free as for page pools.
//     mixed draws sizes from a range, which the types replace: an input error on --workload.
//   * Per point, besides the generic fields: the heap's blocks, those in use, the fewest that could
//     hold the live objects (sum over types of ceil(live_T / N_T)) and F (§6.3). Addresses are the
//     heap's bytes (block b, slot k of type T: 64 size(T_s) b + size(T) k), so
//     address_range_bytes means what it means for page pools.
//   * Verified (VerificationError): the heap's own checks after every batch (a slot twice, a slot
//     in a block of another type, a free of an object not live, the heap at rest), and here: every
//     object of the type asked for, the heap's live count equal to the driver's, at least
//     blocks_min blocks in use, and after the last free no object live and no block in use.
//
// A heap adaptor H offers:
//   std::vector<std::optional<TypedWorkloadObject>> allocate(const std::vector<unsigned>& types)
//       thread i asks for one object of type types[i] (0: it asks nothing); warp = i / 32
//   void free(const std::vector<TypedWorkloadObject>& objects)
//   double last_seconds() const     the last allocate's or free's own time, checks excluded
//   std::uint64_t blocks(), blocks_in_use(), live_objects() const; double fragmentation() const
//   std::vector<std::pair<std::string, std::uint64_t>> counts() const   totals so far (names fixed)
// Host only.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "alloclab/core/dynasoar/types.hpp"
#include "alloclab/core/errors.hpp"
#include "alloclab/core/pool.hpp"
#include "alloclab/core/probe_sequence.hpp"
#include "alloclab/core/random_stream.hpp"
#include "alloclab/core/workload.hpp"
#include "alloclab/core/workload_result.hpp"

namespace alloclab::dynasoar {

struct TypedWorkloadObject {
  std::uint64_t block = 0;
  unsigned slot = 0;
  unsigned type = 0;  // type id 1..k
};

// The type id of request `i` of a workload with k types.
inline unsigned workload_type_of(std::uint64_t i, std::size_t k) {
  return static_cast<unsigned>(i % k) + 1;
}

// The types of workload w (InputError naming --types: none, more than 64x the smallest, ...).
inline TypeSizes workload_types(const Workload& w) {
  return check_types("--types", w.type_bytes);
}

// The part of a typed run's note both backends give: the heap, r, the type rule and N_T.
inline std::string typed_heap_note(const std::string& who, const TypeSizes& t, std::uint64_t blocks,
                                   unsigned retries) {
  std::string caps;
  for (unsigned n = 1; n <= t.bytes.size(); ++n)
    caps += (n == 1 ? "" : ", ") + std::to_string(t.bytes[n - 1]) +
            " B: " + std::to_string(t.capacity(n));
  return who + ": typed heap of " + std::to_string(blocks) + " blocks of " +
         std::to_string(t.block_bytes()) + " B, r = " + std::to_string(retries) +
         "; request i of type (i mod " + std::to_string(t.bytes.size()) + ") + 1; N_T (" + caps +
         ")";
}

// A typed workload's own checks, the same on every backend (InputError naming the parameter).
inline void check_typed_workload(const Workload& w) {
  const TypeSizes t = workload_types(w);
  if (w.family == WorkloadFamily::mixed)
    throw InputError(
        "--workload",
        "mixed draws each size from a range; with --types the sizes are the types "
        "(alloc, churn, oom, fragmentation, scaling: request i of type (i mod k) + 1)");
  if (w.initial_free < 1.0)
    throw InputError("--free", "the typed heap (--types) starts empty; --free prefills page pools");
  if (w.bit_choice != BitChoice::lowest)
    throw InputError("--bit-choice", "the typed heap (--types) rotates its bitmaps itself");
  t.blocks_of("--pool", w.pool_bytes);  // at least one block
  if (w.N > (std::uint64_t{1} << 32)) throw InputError("--N", "at most 2^32 threads");
  if (w.family == WorkloadFamily::oom && w.batch > (std::uint64_t{1} << 32))
    throw InputError("--batch", "at most 2^32 objects per batch");
  check_workload(w);
}

// Workload w's points (workload_result.hpp) over heap `heap`, built already (its construction
// took `init_seconds`); `seed` is the trial's, for the random frees.
template <class Heap>
class TypedWorkloadDriver {
 public:
  using Object = TypedWorkloadObject;

  TypedWorkloadDriver(Heap& heap, const Workload& w, std::uint64_t seed, double init_seconds)
      : heap_(heap), w_(w), types_(workload_types(w)), seed_(seed), init_seconds_(init_seconds) {}

  WorkloadRun run() {
    WorkloadRun run;
    switch (w_.family) {
      case WorkloadFamily::oom:
        run_oom(run);
        break;
      case WorkloadFamily::churn:
        run_churn(run);
        break;
      case WorkloadFamily::mixed:
        check_typed_workload(w_);  // throws
        break;
      default:
        run_static(run);
        break;
    }
    run.pages_total = heap_.blocks();
    return run;
  }

 private:
  std::size_t k() const { return types_.bytes.size(); }
  std::uint64_t bytes_of(const Object& o) const { return types_.bytes[o.type - 1]; }
  std::uint64_t address(const Object& o) const {
    return o.block * types_.block_bytes() + std::uint64_t{o.slot} * bytes_of(o);
  }

  // One allocation batch: thread i asks for types[i] (0: nothing). Requests, objects and
  // failures counted into p; got[i] is thread i's object.
  std::vector<std::optional<Object>> allocate(WorkloadPoint& p,
                                              const std::vector<unsigned>& types) {
    std::vector<std::optional<Object>> got = heap_.allocate(types);
    p.alloc_seconds += heap_.last_seconds();
    if (got.size() != types.size())
      throw VerificationError("the typed heap answered " + std::to_string(got.size()) + " of " +
                              std::to_string(types.size()) + " threads");
    for (std::size_t i = 0; i < types.size(); ++i) {
      if (types[i] == 0) {
        if (got[i]) throw VerificationError("a thread that asked nothing got an object");
        continue;
      }
      ++p.requests;
      if (!got[i]) {
        ++p.failed;
        continue;
      }
      if (got[i]->type != types[i])
        throw VerificationError("thread " + std::to_string(i) + " asked for type " +
                                std::to_string(types[i]) + " and got one of type " +
                                std::to_string(got[i]->type));
      ++p.allocs;
    }
    return got;
  }

  void free(WorkloadPoint& p, const std::vector<Object>& objects) {
    if (objects.empty()) return;
    heap_.free(objects);
    p.free_seconds += heap_.last_seconds();
    p.freed += objects.size();
  }

  // The live state: the objects held (live_), checked against the heap.
  void checkpoint(WorkloadPoint& p) {
    std::uint64_t lo = ~std::uint64_t{0}, hi = 0;
    std::vector<std::uint64_t> per_type(k(), 0);
    p.live_objects = p.live_bytes = 0;
    for (const auto& o : live_) {
      if (!o) continue;
      lo = std::min(lo, address(*o));
      hi = std::max(hi, address(*o) + bytes_of(*o));
      ++p.live_objects;
      p.live_bytes += bytes_of(*o);
      ++per_type[o->type - 1];
    }
    if (heap_.live_objects() != p.live_objects)
      throw VerificationError("the typed heap holds " + std::to_string(heap_.live_objects()) +
                              " objects, the workload " + std::to_string(p.live_objects));
    p.address_range_bytes = p.live_objects ? std::optional<std::uint64_t>(hi - lo) : std::nullopt;
    WorkloadPoint::TypedBlocks b;
    b.heap_blocks = heap_.blocks();
    b.blocks_in_use = heap_.blocks_in_use();
    for (unsigned n = 1; n <= k(); ++n)
      b.blocks_min += (per_type[n - 1] + types_.capacity(n) - 1) / types_.capacity(n);
    b.slot_fragmentation = heap_.fragmentation();
    if (b.blocks_in_use < b.blocks_min)
      throw VerificationError(std::to_string(p.live_objects) + " live objects in " +
                              std::to_string(b.blocks_in_use) + " blocks; they need at least " +
                              std::to_string(b.blocks_min));
    p.typed_blocks = b;
  }

  void free_everything(WorkloadPoint& p) {
    std::vector<Object> all;
    for (auto& o : live_)
      if (o) all.push_back(*o);
    free(p, all);
    live_.clear();
    if (heap_.live_objects() != 0 || heap_.blocks_in_use() != 0)
      throw VerificationError("after every object was freed the typed heap holds " +
                              std::to_string(heap_.live_objects()) + " objects in " +
                              std::to_string(heap_.blocks_in_use()) + " blocks");
  }

  // The allocator's counts since `from` (counts() at the point's start), into p.
  void count_since(WorkloadPoint& p,
                   const std::vector<std::pair<std::string, std::uint64_t>>& from) {
    p.op_counts = heap_.counts();
    for (std::size_t i = 0; i < p.op_counts.size() && i < from.size(); ++i)
      p.op_counts[i].second -= from[i].second;
  }
  WorkloadPoint start_point(std::uint64_t round) {
    WorkloadPoint p;
    p.round = round;
    if (round == 0) p.init_seconds = init_seconds_;
    p.has_atomic_counts = p.has_claim_counts = false;  // the typed heap counts its own operations
    return p;
  }

  void run_static(WorkloadRun& run) {
    const auto before = heap_.counts();
    WorkloadPoint p = start_point(0);
    std::vector<unsigned> types(w_.N);
    for (std::uint64_t i = 0; i < w_.N; ++i) types[i] = workload_type_of(i, k());
    live_ = allocate(p, types);
    checkpoint(p);
    free_everything(p);
    count_since(p, before);
    run.points.push_back(std::move(p));
  }

  void run_oom(WorkloadRun& run) {
    const auto before = heap_.counts();
    WorkloadPoint p = start_point(0);
    const std::uint64_t B = w_.batch;
    // A batch without a failure keeps at least B - round(f B) objects, and the heap holds at most
    // 64 a block: a failure must come within blocks x 64 / that + 1 batches.
    const std::uint64_t kept = std::max<std::uint64_t>(
        1, B - static_cast<std::uint64_t>(std::llround(w_.batch_free * static_cast<double>(B))));
    const std::uint64_t max_batches = heap_.blocks() * 64 / kept + 2;
    std::vector<unsigned> types(B);
    for (std::uint64_t c = 0;; ++c) {
      if (c == max_batches)
        throw VerificationError("oom: " + std::to_string(c) + " batches of " + std::to_string(B) +
                                " without a failure on " + std::to_string(heap_.blocks()) +
                                " blocks");
      for (std::uint64_t j = 0; j < B; ++j) types[j] = workload_type_of(c * B + j, k());
      const std::size_t from = live_.size();
      for (auto& o : allocate(p, types))
        if (o) live_.push_back(o);
      if (p.failed > 0) {
        p.count_at_failure = p.allocs - p.freed;
        p.batches_at_failure = c + 1;
        break;
      }
      free_part_of_batch(p, from, c);
    }
    checkpoint(p);
    free_everything(p);
    count_since(p, before);
    run.points.push_back(std::move(p));
  }

  // --batch-free f: round(f B) random objects of the batch just served (live_[from..]), as the
  // page allocators' runner picks them (partial Fisher-Yates on the workload stream of batch c).
  void free_part_of_batch(WorkloadPoint& p, std::size_t from, std::uint64_t c) {
    if (w_.batch_free <= 0) return;
    const std::uint64_t got = live_.size() - from;
    const std::uint64_t n = std::min<std::uint64_t>(
        got,
        static_cast<std::uint64_t>(std::llround(w_.batch_free * static_cast<double>(w_.batch))));
    const PhiloxStream pick(mix64(seed_ + c + 1), StreamDomain::workload, 1);
    std::vector<Object> victims;
    for (std::uint64_t j = 0; j < n; ++j) {
      std::swap(live_[from + j], live_[from + j + pick.below(j, got - j)]);
      victims.push_back(*live_[from + j]);
    }
    live_.erase(live_.begin() + static_cast<std::ptrdiff_t>(from),
                live_.begin() + static_cast<std::ptrdiff_t>(from + n));
    free(p, victims);
  }

  void run_churn(WorkloadRun& run) {
    const std::uint64_t N = w_.N;
    const std::uint64_t victims_per_round =
        w_.free_fraction <= 0
            ? 0
            : std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::llround(
                                             w_.free_fraction * static_cast<double>(N))));
    std::vector<unsigned> types(N);
    {  // round 0: every thread, one batch
      const auto before = heap_.counts();
      WorkloadPoint p = start_point(0);
      for (std::uint64_t i = 0; i < N; ++i) types[i] = workload_type_of(i, k());
      live_ = allocate(p, types);
      checkpoint(p);
      count_since(p, before);
      run.points.push_back(std::move(p));
    }
    std::vector<std::uint64_t> holding, empty, again;
    for (std::uint64_t r = 1; r <= w_.rounds; ++r) {
      const auto before = heap_.counts();
      WorkloadPoint p = start_point(r);
      holding.clear();
      empty.clear();
      again.clear();
      for (std::uint64_t i = 0; i < N; ++i) (live_[i] ? holding : empty).push_back(i);
      // The victims among the live objects, uniformly at random (the page allocators' runner's
      // partial Fisher-Yates on the workload stream of this round).
      const std::uint64_t victims = std::min<std::uint64_t>(victims_per_round, holding.size());
      const PhiloxStream pick(mix64(seed_ + r), StreamDomain::workload, 0);
      std::vector<Object> freed;
      for (std::uint64_t j = 0; j < victims; ++j) {
        std::swap(holding[j], holding[j + pick.below(j, holding.size() - j)]);
        again.push_back(holding[j]);
        freed.push_back(*live_[holding[j]]);
        live_[holding[j]].reset();
      }
      free(p, freed);
      if (victims_per_round > 0) {
        // The same threads allocate again, with their own types (then any left empty before).
        again.insert(again.end(), empty.begin(), empty.end());
        std::fill(types.begin(), types.end(), 0u);
        for (const std::uint64_t i : again) types[i] = workload_type_of(i, k());
        const auto got = allocate(p, types);
        for (const std::uint64_t i : again) live_[i] = got[i];
      }
      checkpoint(p);
      if (r == w_.rounds) {
        const auto objects = p.live_objects;
        const auto bytes = p.live_bytes;
        free_everything(p);  // the final frees count in the last round's free time
        p.live_objects = objects;
        p.live_bytes = bytes;
      }
      count_since(p, before);
      run.points.push_back(std::move(p));
    }
    if (w_.rounds == 0) free_everything(run.points.back());
  }

  Heap& heap_;
  const Workload& w_;
  TypeSizes types_;
  std::uint64_t seed_;
  double init_seconds_;
  std::vector<std::optional<Object>> live_;  // per thread (oom: per object held)
};

}  // namespace alloclab::dynasoar
