// ouro-p-s, ouro-p-va and ouro-p-vl on the GPU: Ouroboros variant P (Winter et al., ICS'20,
// Alg. 3) over standard rings or virtualized array or linked queues (§5.1-5.2), driving the step
// machines of core/ouroboros/page_queue.hpp and virtual_*_queue.hpp (the simulator drives the
// same ones) with device atomics. Warp aggregation as in the public code: the lanes of a warp that
// ask for one size class (`__match_any_sync`) elect their lowest lane, which waits on the semaphore
// for all of them and takes their front (or back) positions with one atomic; each lane then
// reads (or writes) its own slot.
//
// Bounds, so that no kernel can hang:
//  * a semaphore wait that reaches --max-steps memory operations is abandoned (its reservation
//    undone) and the request fails (counted);
//  * a grower whose chunk allocation fails withdraws its promise, releasing the reservers;
//  * a group that runs out of memory as a whole retries lane by lane (a chunk of large pages may
//    hold fewer pages than a warp asks for);
//  * a slot wait (the deletion marker, Alg. 1 l.6/13) waits for an operation that is running; one
//    that exceeds kOuroStuckSpins gives up and is counted in `stuck`, which fails verification.
#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/ouroboros/config.hpp"
#include "alloclab/core/ouroboros/page_queue.hpp"
#include "alloclab/core/ouroboros/queue_chunk_check.hpp"
#include "alloclab/core/ouroboros/virtual_array_queue.hpp"
#include "alloclab/core/ouroboros/virtual_linked_queue.hpp"
#include "alloclab/core/pool.hpp"
#include "gpu_entry.cuh"
#include "ouro_atomics.cuh"
#include "ouro_gpu_support.cuh"
#include "pool_page_heap.cuh"
#include "warp.cuh"

namespace alloclab::gpu::detail {
namespace {

using ouro::kPageClasses;
using ouro::OpCounts;
using ouro::OpStatus;
using ouro::PageQueueRef;
using ouro::PageQueueWords;
using ouro::ReserveOutcome;

// The words beside the queues: the chunk source, the count of slot waits given up, and (VA, VL)
// the queue of Queue-Chunks given back, each in a line of its own.
struct PoolWords {
  alignas(128) ouro::ChunkSourceWords chunks;
  alignas(128) unsigned long long stuck = 0;
  alignas(128) ouro::IndexQueueWords reuse;
};

// `Layout`: ouro::StaticRing (S), ouro::VirtualArray (VA) or ouro::VirtualLinked (VL), of
// DeviceAtomics.
template <class Layout>
struct OuroPageView {
  PageQueueWords* queues = nullptr;         // one per class
  std::uint32_t* slots[kPageClasses] = {};  // S: the class's ring; VA, VL: its static words
  std::uint32_t capacity[kPageClasses] = {};
  ouro::ChunkSourceWords* chunks = nullptr;
  const std::uint32_t* available = nullptr;
  std::uint32_t chunk_count = 0;
  std::uint8_t* chunk_class = nullptr;
  unsigned long long* stuck = nullptr;     // slot waits given up (a defect: verification fails)
  ouro::QueueChunkStore* store = nullptr;  // VA, VL: in device memory

  __host__ __device__ PageQueueRef ref(unsigned k) const {
    PageQueueRef q{queues + k,  Layout::kVirtual ? nullptr : slots[k],
                   capacity[k], k,
                   chunks,      available,
                   chunk_count, chunk_class};
    if (Layout::kVirtual) {
      q.refs = slots[k];
      q.ref_count = Layout::static_words(capacity[k]);
      q.store = store;
    }
    return q;
  }
};

// A request's end: its steps (its lane's memory operations and `others`, those its group's
// leader made for it), failures and atomics into `out`, and with kCounters its own counts added
// to the launch's (record_op_counts).
template <bool kCounters>
__device__ Served counted(Served out, const OpCounts& own, std::uint32_t others,
                          const KernelArgs& a) {
  out.steps = others + own.memory_ops;
  out.failed = own.failed;
  out.atomics = own.atomics;
  if constexpr (kCounters) {
    std::uint32_t values[ouro::kOpCountValues];
    ouro::op_count_values(own, values);
    record_op_counts<kCounters>(a, values);
  }
  return out;
}

// VA: a warp group's n items from `first`, all on one Queue-Chunk (ouro::va_group_aggregates):
// the leader locates the chunk, each lane moves its item (a read's index comes back in `index`),
// the leader counts the n of them with one atomic. Returns whether the lane's item moved; every
// lane but the leader gets the leader's memory operations in `leader_ops` (its steps).
template <bool kWrite>
__device__ bool va_group_items(const PageQueueRef& q, unsigned group, unsigned leader,
                               std::uint64_t first, unsigned n, std::uint64_t position,
                               std::uint32_t& index, OpCounts& own, unsigned long long* stuck,
                               std::uint32_t& leader_ops) {
  OpCounts lead;
  std::uint32_t chunk = ouro::kDeletionMarker;
  if (lane_id() == leader) {
    auto locate = ouro::va_locate_only<DeviceAtomics>(first);
    if (ouro::run_slot(locate, q, lead, BackOffOrGiveUp{stuck})) chunk = locate.chunk();
  }
  chunk = __shfl_sync(group, chunk, leader);
  bool moved = false;
  if (chunk != ouro::kDeletionMarker) {  // else the leader's wait gave up (counted in `stuck`)
    auto item = ouro::va_item_only<DeviceAtomics, kWrite>(index, position, chunk);
    moved = ouro::run_slot(item, q, own, BackOffOrGiveUp{stuck});
    if (!kWrite) index = item.index();
    __syncwarp(group);  // every item moved before the count says so
    if (lane_id() == leader) {
      auto count = ouro::va_count_only<DeviceAtomics, kWrite>(first, chunk, n);
      ouro::run_slot(count, q, lead, BackOffOrGiveUp{stuck});
    }
  }
  leader_ops = __shfl_sync(group, lead.memory_ops, leader);
  if (lane_id() == leader) {
    own.add(lead);
    leader_ops = 0;
  }
  return moved;
}

// VL: a warp group's n positions from `first`: the leader walks to the chunk of `first` once,
// each lane walks on from there to its own and does its operation (ouro::VirtualLinked). Returns
// whether the lane's item moved; `leader_ops` as va_group_items.
template <class Layout, bool kWrite>
__device__ bool vl_group_walk(const PageQueueRef& q, unsigned group, unsigned leader,
                              std::uint64_t first, std::uint64_t position, std::uint32_t& index,
                              OpCounts& own, unsigned long long* stuck, std::uint32_t& leader_ops) {
  OpCounts lead;
  std::uint32_t hint = ouro::kDeletionMarker;
  if (lane_id() == leader) {
    auto locate = Layout::template locate<kWrite>(first);
    if (ouro::run_slot(locate, q, lead, BackOffOrGiveUp{stuck})) hint = locate.chunk();
  }
  hint = __shfl_sync(group, hint, leader);  // none: each lane walks from the pointer
  leader_ops = __shfl_sync(group, lead.memory_ops, leader);
  if (lane_id() == leader) {
    own.add(lead);
    leader_ops = 0;
  }
  auto op = Layout::template from_hint<kWrite>(index, position, hint);
  const bool moved = ouro::run_slot(op, q, own, BackOffOrGiveUp{stuck});
  if (!kWrite) index = op.index();
  return moved;
}

// malloc of `units` units by the calling lane, aggregated with the lanes of its warp that call
// it together for the same class (`group`: __match_any_sync of the class): the step machines run
// to their end. `subtracted`: the group's leader has issued its reservation's first step itself,
// the fast-path subtraction of the group's units, which returned `old` (ouro_malloc, where it
// missed).
// With kCounters, adds the request's own counts to the launch's (record_op_counts).
template <bool kCounters, class Layout>
__device__ Served malloc_steps(const OuroPageView<Layout>& v, std::uint32_t units,
                               const KernelArgs& a, unsigned group, bool subtracted,
                               std::uint64_t old) {
  const std::uint64_t max_steps = a.max_steps;
  const unsigned k = ouro::page_class_of_units(units);
  const PageQueueRef q = v.ref(k);
  const unsigned leader = __ffs(group) - 1;
  const unsigned g = __popc(group);
  const unsigned rank = __popc(group & lanemask_lt());
  OpCounts own;
  unsigned outcome = 0;
  unsigned long long position = 0;
  if (lane_id() == leader) {
    ouro::PageReserveOp<DeviceAtomics, Layout> op(g, k);
    if (subtracted) op.fast_sub_issued(old, own);
    ouro::run_reserve(op, q, own, max_steps, BackOff{});
    outcome = static_cast<unsigned>(op.outcome());
    position = op.position();
  }
  outcome = __shfl_sync(group, outcome, leader);
  position = __shfl_sync(group, position, leader);
  const std::uint32_t leader_ops = __shfl_sync(group, own.memory_ops, leader);
  Served out;
  auto result = static_cast<ReserveOutcome>(outcome);
  const bool split =
      g > 1 && (result == ReserveOutcome::out_of_memory || result == ReserveOutcome::queue_full);
  if (split) {
    // Not enough for the group: each lane asks alone.
    ouro::PageReserveOp<DeviceAtomics, Layout> op(1, k);
    ouro::run_reserve(op, q, own, max_steps, BackOff{});
    result = op.outcome();
    position = op.position();
  } else {
    position += rank;
  }
  std::uint32_t item_leader_ops = 0;
  bool aggregated = false;
  if constexpr (Layout::kGroupItems) {
    const std::uint64_t first = position - rank;
    aggregated = result == ReserveOutcome::ok && !split && ouro::va_group_aggregates(first, g);
    if (aggregated) {
      std::uint32_t index = ouro::kDeletionMarker;
      if (va_group_items<false>(q, group, leader, first, g, position, index, own, v.stuck,
                                item_leader_ops))
        out.unit = ouro::unit_of_page_index(index, k);
    }
  }
  if constexpr (Layout::kGroupWalk) {
    aggregated = result == ReserveOutcome::ok && !split && g > 1;
    if (aggregated) {
      std::uint32_t index = ouro::kDeletionMarker;
      if (vl_group_walk<Layout, false>(q, group, leader, position - rank, position, index, own,
                                       v.stuck, item_leader_ops))
        out.unit = ouro::unit_of_page_index(index, k);
    }
  }
  if (result == ReserveOutcome::ok && !aggregated) {
    typename Layout::Read read(position);
    if (ouro::run_slot(read, q, own, BackOffOrGiveUp{v.stuck}))
      out.unit = ouro::unit_of_page_index(read.index(), k);
  }
  return counted<kCounters>(out, own, (lane_id() == leader ? 0 : leader_ops) + item_leader_ops, a);
}

// malloc_steps out of line: the state of the whole step machines would otherwise take registers
// (and spill) on the common path of ouro_malloc.
template <bool kCounters, class Layout>
__device__ __noinline__ Served malloc_rest(const OuroPageView<Layout>& v, std::uint32_t units,
                                           const KernelArgs& a, unsigned group, bool subtracted,
                                           std::uint64_t old) {
  return malloc_steps<kCounters, Layout>(v, units, a, group, subtracted, old);
}

// S: a lane's slot read whose first exchange (ouro_malloc's) found the deletion marker (the index
// not written yet: a grower or a free on its way), run to its end as ouro::run_slot runs
// ouro::SlotRead, with the same bound, and counted as the whole request would be (`lead`: the
// lane is its group's leader, whose reservation took 2 memory operations).
template <bool kCounters, class Layout>
__device__ __noinline__ Served slot_rest(const OuroPageView<Layout>& v, const KernelArgs& a,
                                         unsigned k, std::uint64_t position, bool lead) {
  const PageQueueRef q = v.ref(k);
  OpCounts own;
  own.memory_ops = own.atomics = lead ? 3 : 1;  // the leader's reservation, the exchange
  ++own.failed;                                 // as SlotRead::step counts a marker found
  ++own.slot_spins;
  const BackOffOrGiveUp on_spin{v.stuck};
  Served out;
  if (on_spin(1)) {
    ouro::SlotRead<DeviceAtomics> read(position);
    if (ouro::run_slot(read, q, own, on_spin, 1))
      out.unit = ouro::unit_of_page_index(read.index(), k);
  }
  return counted<kCounters>(out, own, lead ? 0 : 2, a);
}

// malloc of `units` units by the calling lane (malloc_steps). Over standard rings (S) the common
// case inline, as the step machines do it and count it: the group leader's fast-path subtraction
// on the semaphore that finds the group's units (Alg. 2 l.2-5), its front += n (Alg. 3 l.12), and
// each lane's exchange of its slot that finds an index (l.13): 3 memory operations a request,
// the leader's 2 counted to every lane's steps. Where any of them finds otherwise, the request
// goes on out of line from where it stands (malloc_rest, slot_rest), so that the few registers
// the common case needs are all it holds.
template <bool kCounters, class Layout>
__device__ __forceinline__ Served ouro_malloc(const OuroPageView<Layout>& v, std::uint32_t units,
                                              const KernelArgs& a) {
  constexpr bool kRing = std::is_same_v<typename Layout::Read, ouro::SlotRead<DeviceAtomics>>;
  const unsigned k = ouro::page_class_of_units(units);
  const unsigned group = __match_any_sync(__activemask(), k);
  if constexpr (!kRing) {
    return malloc_steps<kCounters, Layout>(v, units, a, group, false, 0);
  } else {
    const unsigned leader = __ffs(group) - 1;
    const unsigned g = __popc(group);
    const bool lead = lane_id() == leader;
    const bool stepping = a.max_steps > 0;  // else the step bound abandons before the first step
    std::uint64_t old = 0;
    unsigned long long position = 0;
    int hit = 0;
    if (lead && stepping) {
      PageQueueWords& w = v.queues[k];
      old = DeviceAtomics::fetch_add(w.semaphore,
                                     ouro::sem_count_delta(-static_cast<std::int32_t>(g)));
      hit = ouro::sem_unpack(old).count >= std::int64_t{g};
      if (hit) position = DeviceAtomics::fetch_add(w.front, std::uint64_t{g});
    }
    if (!__shfl_sync(group, hit, leader))
      return malloc_rest<kCounters>(v, units, a, group, stepping, old);
    position = __shfl_sync(group, position, leader) + __popc(group & lanemask_lt());
    const std::uint32_t index = DeviceAtomics::exchange(
        v.slots[k][ouro::ring_slot(position, v.capacity[k])], ouro::kDeletionMarker);
    if (index == ouro::kDeletionMarker) return slot_rest<kCounters>(v, a, k, position, lead);
    // Nothing for record_op_counts: every count it adds up is 0 here.
    Served out;
    out.unit = ouro::unit_of_page_index(index, k);
    out.steps = 3;
    out.atomics = lead ? 3 : 1;
    return out;
  }
}

template <class Layout>
__device__ std::uint32_t ouro_free(const OuroPageView<Layout>& v, std::uint64_t unit) {
  const unsigned k = v.chunk_class[unit / ouro::kUnitsPerChunk];
  const PageQueueRef q = v.ref(k);
  const unsigned group = __match_any_sync(__activemask(), k);
  const unsigned leader = __ffs(group) - 1;
  const unsigned n = __popc(group);
  OpCounts own;
  unsigned long long first = 0;
  if (lane_id() == leader) first = ouro::run_release<DeviceAtomics>(q, n, own);
  first = __shfl_sync(group, first, leader);
  const std::uint64_t position = first + __popc(group & lanemask_lt());
  if constexpr (Layout::kGroupItems) {
    if (ouro::va_group_aggregates(first, n)) {
      std::uint32_t index = ouro::page_index_of_unit(unit, k), leader_ops = 0;
      va_group_items<true>(q, group, leader, first, n, position, index, own, v.stuck, leader_ops);
      return own.atomics;
    }
  }
  if constexpr (Layout::kGroupWalk) {
    if (n > 1 && first != 0) {  // position 0's write makes the first chunk: it walks nowhere
      std::uint32_t index = ouro::page_index_of_unit(unit, k), leader_ops = 0;
      vl_group_walk<Layout, true>(q, group, leader, first, position, index, own, v.stuck,
                                  leader_ops);
      return own.atomics;
    }
  }
  typename Layout::Write write(ouro::page_index_of_unit(unit, k), position);
  ouro::run_slot(write, q, own, BackOffOrGiveUp{v.stuck});
  return own.atomics;
}

// At most 32 registers (2048 resident threads per SM): each request is a chain of dependent L2
// round trips, so the more warps in flight the better; the 62 registers the kernel would take
// otherwise halve that. Over S the common case needs fewer (ouro_malloc: a few values that must
// outlive its out-of-line calls still spill); the step machines' state spills in malloc_rest.
// The parameters are __grid_constant__ so that the out-of-line paths take the view by
// reference, not by a copy.
template <bool kCounters, class Layout>
__global__ void __launch_bounds__(1024, 2)
    ouro_page_alloc_kernel(const __grid_constant__ KernelArgs a,
                           const __grid_constant__ OuroPageView<Layout> v) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= a.N || !asks(a, i)) return;
  const std::uint32_t units = a.pages_of ? a.pages_of[i] : a.pages;
  for (unsigned r = 0; r < a.per_thread; ++r) {
    const Served got = ouro_malloc<kCounters, Layout>(v, units, a);
    record_request<kCounters>(a, r, i, got.unit, got.steps, got.failed, got.atomics);
  }
}

template <class Layout>
__global__ void ouro_page_free_kernel(KernelArgs a, OuroPageView<Layout> v) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= a.N * a.per_thread || a.page[i] == kFailed) return;
  ouro_free(v, a.page[i]);
}

template <class Layout>
class OuroPagePool final : public PoolPolicy {
 public:
  using View = OuroPageView<Layout>;
  static void check(const Scenario& s, const MeasureOptions& o) {
    ouro::check_scenario(std::string(name(s.algo)), s,
                         std::min<std::uint64_t>(s.N * o.per_thread, kMostResidentThreads));
    ouro::check_queue_capacity(std::string(name(s.algo)), s, o.queue_capacity, s.N * o.per_thread,
                               s.pages);
  }
  OuroPagePool(const Scenario& s, const MeasureOptions& o, const KernelArgs& a)
      : name_(name(s.algo)), T_(a.T), A_(a.A), seed_(a.seed) {
    chunks_ = ouro::chunk_count_of_units(T_);
    for (unsigned k = 0; k < kPageClasses; ++k) {
      capacity_[k] = ouro::ring_capacity(T_, k, ouro::queue_capacity_of(o.queue_capacity));
      slot_total_ += Layout::static_words(capacity_[k]);
    }
  }
  View view() const {
    View v;
    v.queues = queues_.get();
    std::uint64_t offset = 0;
    for (unsigned k = 0; k < kPageClasses; ++k) {
      v.slots[k] = slots_.get() + offset;
      v.capacity[k] = capacity_[k];
      offset += Layout::static_words(capacity_[k]);
    }
    v.chunks = &misc_.get()->chunks;
    v.available = available_.get();
    v.chunk_count = chunk_count_;
    v.chunk_class = chunk_class_.get();
    v.stuck = &misc_.get()->stuck;
    v.store = store_.get();
    return v;
  }

  // VA adds, per chunk of the pool, its Queue-Chunk words, a reuse slot and 8 KiB of items: this
  // pool keeps no bytes of its own (the workloads keep what they write), so the items a chunk
  // holds while it is a Queue-Chunk live in a buffer beside it, indexed by chunk.
  std::uint64_t device_bytes() const override {
    return kPageClasses * sizeof(PageQueueWords) + sizeof(PoolWords) + slot_total_ * 4 +
           chunks_ * (4 + 1 + 1) +
           (Layout::kVirtual ? chunks_ * (sizeof(ouro::QueueChunkMeta) + 4 +
                                          std::uint64_t{ouro::kQueueChunkItems} * 4)
                             : 0);
  }
  const char* size_parameter() const override { return "--T"; }

  void set_up() override {
    queues_.resize(kPageClasses);
    misc_.resize(1);
    slots_.resize(slot_total_);
    chunk_class_.resize(std::max<std::uint64_t>(chunks_, 1));
    const std::vector<std::uint32_t> available = chunks_free_at_start(T_, A_, seed_, chunks_);
    chunk_count_ = static_cast<std::uint32_t>(available.size());
    available_.resize(std::max<std::size_t>(available.size(), 1));
    if (!available.empty())
      ALLOCLAB_CUDA(cudaMemcpy(available_.get(), available.data(), available.size() * 4,
                               cudaMemcpyHostToDevice));
    if (Layout::kVirtual) {
      const std::uint64_t chunks = std::max<std::uint64_t>(chunks_, 1);
      meta_.resize(chunks);
      queue_items_.resize(chunks * ouro::kQueueChunkItems);
      reuse_slots_.resize(chunks);
      store_.resize(1);
      ouro::QueueChunkStore st;
      st.meta = meta_.get();
      st.slots = queue_items_.get();
      st.reuse = ouro::IndexQueueRef{&misc_.get()->reuse, reuse_slots_.get(),
                                     static_cast<std::uint32_t>(chunks)};
      ALLOCLAB_CUDA(cudaMemcpy(store_.get(), &st, sizeof st, cudaMemcpyHostToDevice));
    }
    reset();
  }

  // The pristine pool: empty rings, untyped chunks, zero counters (a cold allocator).
  void reset() override {
    ALLOCLAB_CUDA(cudaMemset(slots_.get(), 0xff, slots_.bytes()));
    ALLOCLAB_CUDA(cudaMemset(chunk_class_.get(), 0xff, chunk_class_.bytes()));
    if (Layout::kVirtual) {
      // No Queue-Chunk yet (a prepare sets count and start; a fresh chunk's items are filled by
      // the lane that prepares it, as the paper's), and nothing given back.
      ALLOCLAB_CUDA(cudaMemset(meta_.get(), 0xff, meta_.bytes()));
      ALLOCLAB_CUDA(cudaMemset(reuse_slots_.get(), 0xff, reuse_slots_.bytes()));
    }
    std::array<PageQueueWords, kPageClasses> queues{};
    for (auto& q : queues) q.semaphore = ouro::sem_pack({});
    ALLOCLAB_CUDA(
        cudaMemcpy(queues_.get(), queues.data(), queues_.bytes(), cudaMemcpyHostToDevice));
    const PoolWords misc{};
    ALLOCLAB_CUDA(cudaMemcpy(misc_.get(), &misc, sizeof misc, cudaMemcpyHostToDevice));
  }

  // Units the live requests hold: per class, the pages created less those free in its queue.
  std::optional<std::uint64_t> pages_in_use() const override {
    const State st = state();
    check_at_rest(st, "between phases");
    std::uint64_t units = 0;
    for (unsigned k = 0; k < kPageClasses; ++k)
      units += (st.queue[k].pages - static_cast<std::uint64_t>(st.sem[k].count)) *
               ouro::units_per_page(k);
    return units;
  }
  void verify_allocated(const Allocation& run) const override {
    const State st = state();
    check_at_rest(st, "after the allocation");
    const unsigned k = ouro::page_class_of_units(run.pages);
    const std::uint64_t held = st.queue[k].pages - static_cast<std::uint64_t>(st.sem[k].count);
    if (held != run.taken)
      throw VerificationError(name_ + ": class " + std::to_string(k) + " holds " +
                              std::to_string(held) + " pages out of its queue, " +
                              std::to_string(run.taken) + " requests served");
  }
  void verify_freed(const Allocation&) const override {
    const State st = state();
    check_at_rest(st, "after the free");
    for (unsigned k = 0; k < kPageClasses; ++k)
      if (static_cast<std::uint64_t>(st.sem[k].count) != st.queue[k].pages ||
          st.queue[k].back - st.queue[k].front != st.queue[k].pages)
        throw VerificationError(name_ + ": after the free, class " + std::to_string(k) + " has " +
                                std::to_string(st.queue[k].pages) + " pages, " +
                                std::to_string(st.sem[k].count) + " counted free and " +
                                std::to_string(st.queue[k].back - st.queue[k].front) +
                                " in its ring");
  }
  std::optional<std::vector<std::uint64_t>> free_pages() const override { return std::nullopt; }
  std::vector<std::string> notes() const override {
    return {name_ +
            ": every run starts from empty queues and untyped chunks (a cold allocator); "
            "the chunks a run types stay in their class until the pool is reset"};
  }

 private:
  struct State {
    std::array<PageQueueWords, kPageClasses> queue;
    std::array<ouro::SemCounters, kPageClasses> sem;
    ouro::ChunkSourceWords source;
    std::uint64_t stuck = 0;
    std::int64_t reused_waiting = 0;  // VA, VL: Queue-Chunks in the reuse queue
  };
  State state() const {
    State st;
    ALLOCLAB_CUDA(
        cudaMemcpy(st.queue.data(), queues_.get(), queues_.bytes(), cudaMemcpyDeviceToHost));
    PoolWords misc;
    ALLOCLAB_CUDA(cudaMemcpy(&misc, misc_.get(), sizeof misc, cudaMemcpyDeviceToHost));
    for (unsigned k = 0; k < kPageClasses; ++k) st.sem[k] = ouro::sem_unpack(st.queue[k].semaphore);
    st.source = misc.chunks;
    st.stuck = misc.stuck;
    st.reused_waiting = static_cast<std::int32_t>(misc.reuse.fill_count);
    return st;
  }
  // Between kernels nothing is in flight: no promise (E), no reservation (R), no slot given up.
  void check_at_rest(const State& st, const char* when) const {
    if (st.stuck)
      throw VerificationError(name_ + ": " + std::to_string(st.stuck) + " slot waits gave up " +
                              when);
    for (unsigned k = 0; k < kPageClasses; ++k)
      if (st.sem[k].expected || st.sem[k].reserved || st.sem[k].count < 0)
        throw VerificationError(name_ + ": class " + std::to_string(k) +
                                " semaphore C=" + std::to_string(st.sem[k].count) +
                                " E=" + std::to_string(st.sem[k].expected) +
                                " R=" + std::to_string(st.sem[k].reserved) + " " + when);
    if (Layout::kVirtual) check_queue_chunks(st, when);
  }
  // VA and VL: the Queue-Chunks' accounting (ouro::queue_chunks_at_rest_error).
  void check_queue_chunks(const State& st, const char* when) const {
    const std::string error = ouro::queue_chunks_at_rest_error(
        st.queue.data(), st.source, chunk_count_, st.reused_waiting, Layout::kTrail);
    if (!error.empty()) throw VerificationError(name_ + ": " + error + " " + when);
  }

  std::string name_;
  std::uint64_t T_, A_, seed_;
  std::uint64_t chunks_ = 0, slot_total_ = 0;
  std::uint32_t chunk_count_ = 0;
  std::array<std::uint32_t, kPageClasses> capacity_{};
  DeviceBuffer<PageQueueWords> queues_;
  DeviceBuffer<PoolWords> misc_;
  DeviceBuffer<std::uint32_t> slots_, available_;
  DeviceBuffer<std::uint8_t> chunk_class_;
  // VA, VL: what the classes' Queue-Chunks share.
  DeviceBuffer<ouro::QueueChunkMeta> meta_;
  DeviceBuffer<std::uint32_t> queue_items_, reuse_slots_;
  DeviceBuffer<ouro::QueueChunkStore> store_;
};

template <class Layout>
void launch_ouro_page_alloc(const KernelArgs& a, const OuroPageView<Layout>& v, bool counters) {
  if (counters)
    ouro_page_alloc_kernel<true><<<blocks_for(a.N, a.block), a.block>>>(a, v);
  else
    ouro_page_alloc_kernel<false><<<blocks_for(a.N, a.block), a.block>>>(a, v);
  ALLOCLAB_CUDA_LAUNCH();
}

template <class Layout>
void launch_ouro_page_free(const KernelArgs& a, const OuroPageView<Layout>& v) {
  ouro_page_free_kernel<<<blocks_for(a.N * a.per_thread, 256), 256>>>(a, v);
  ALLOCLAB_CUDA_LAUNCH();
}

template <class Layout>
KernelRegisters ouro_page_registers(const KernelArgs&, const OuroPageView<Layout>&, bool counters) {
  return kernel_registers(counters,
                          reinterpret_cast<const void*>(&ouro_page_alloc_kernel<true, Layout>),
                          reinterpret_cast<const void*>(&ouro_page_alloc_kernel<false, Layout>),
                          reinterpret_cast<const void*>(&ouro_page_free_kernel<Layout>));
}

using S = ouro::StaticRing<DeviceAtomics>;
using VA = ouro::VirtualArray<DeviceAtomics>;
using VL = ouro::VirtualLinked<DeviceAtomics>;

// GETPAGE of the case studies (pool_page_heap.cuh): the lanes asking at once are a warp group of
// ouro_malloc, as in the allocation kernel.
template <class Layout>
struct OuroPageTake {
  OuroPageView<Layout> view;
  KernelArgs args;
  static constexpr std::uint64_t kUnitBytes = ouro::kSmallestPageBytes;
  __device__ std::uint64_t take(std::uint32_t units) const {
    return ouro_malloc<false, Layout>(view, units, args).unit;
  }
};

}  // namespace

ALLOCLAB_REGISTER_ENTRY(GpuTable, Algorithm::ouro_p_s,
                        (gpu_entry(GpuTraits<OuroPagePool<S>>{
                            .alloc = &launch_ouro_page_alloc<S>,
                            .free = &launch_ouro_page_free<S>,
                            .out_of_memory = OutOfMemory::exhausted,
                            .op_count_names = ouro::kOpCountNames,
                            .registers = &ouro_page_registers<S>})))
ALLOCLAB_REGISTER_ENTRY(PageHeapTable, Algorithm::ouro_p_s,
                        (pool_page_heap_entry<OuroPagePool<S>, OuroPageTake<S>>()))

ALLOCLAB_REGISTER_ENTRY(GpuTable, Algorithm::ouro_p_va,
                        (gpu_entry(GpuTraits<OuroPagePool<VA>>{
                            .alloc = &launch_ouro_page_alloc<VA>,
                            .free = &launch_ouro_page_free<VA>,
                            .out_of_memory = OutOfMemory::exhausted,
                            .op_count_names = ouro::kOpCountNames,
                            .registers = &ouro_page_registers<VA>})))
ALLOCLAB_REGISTER_ENTRY(PageHeapTable, Algorithm::ouro_p_va,
                        (pool_page_heap_entry<OuroPagePool<VA>, OuroPageTake<VA>>()))

ALLOCLAB_REGISTER_ENTRY(GpuTable, Algorithm::ouro_p_vl,
                        (gpu_entry(GpuTraits<OuroPagePool<VL>>{
                            .alloc = &launch_ouro_page_alloc<VL>,
                            .free = &launch_ouro_page_free<VL>,
                            .out_of_memory = OutOfMemory::exhausted,
                            .op_count_names = ouro::kOpCountNames,
                            .registers = &ouro_page_registers<VL>})))
ALLOCLAB_REGISTER_ENTRY(PageHeapTable, Algorithm::ouro_p_vl,
                        (pool_page_heap_entry<OuroPagePool<VL>, OuroPageTake<VL>>()))

}  // namespace alloclab::gpu::detail
