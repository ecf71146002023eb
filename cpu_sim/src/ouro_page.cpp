// Ouroboros variant P (Winter et al., ICS'20, §4.1, Alg. 3): one queue of page indices per size
// class behind a bulk semaphore, chunks of 8 KiB typed for life by the thread that grows a queue;
// over standard array rings (ouro-p-s) or virtualized array or linked queues on Queue-Chunks
// (ouro-p-va, ouro-p-vl, §5.1-5.2). The operations are the shared step machines of
// core/ouroboros/page_queue.hpp and virtual_*_queue.hpp; this file only drives them in the
// simulator's three modes (the pool, the verification mirror and the lockstep engine are
// ouro_sim_base.hpp's).
//
// Modes:
//  * sequential: requests one at a time in the random service order; no two operations overlap,
//    so nothing spins, and steps are exact functions of the order (the model's case).
//  * lockstep: warp groups (ouro_sim_base.hpp): the leader waits for the group's pages and takes
//    their front positions in one atomic; then every lane reads its own slot.
//  * threads: host threads run requests concurrently on std::atomic_ref words, one per thread.
// Steps (the registry's unit): memory operations on shared allocator state (loads and atomics on
// the semaphore, front, back, slots, counters; the chunk's class byte); in lockstep a lane's
// steps are its group's rounds.
// The step bound (SimOptions::max_probes_per_request, default below) applies to the semaphore
// wait only: a group past it has taken a chunk or front positions it must honour, and finishes.
// Every run is verified by the simulator (no unit handed out twice, conservation); the
// allocator also keeps a mirror of used units to catch a page handed out twice and double frees.
#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <stdexcept>
#include <thread>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/ouroboros/bulk_semaphore.hpp"
#include "alloclab/core/ouroboros/host_atomics.hpp"
#include "alloclab/core/ouroboros/page_queue.hpp"
#include "alloclab/core/ouroboros/queue_chunk_check.hpp"
#include "alloclab/core/ouroboros/virtual_array_queue.hpp"
#include "alloclab/core/ouroboros/virtual_linked_queue.hpp"
#include "detail.hpp"
#include "engine.hpp"
#include "ouro_sim_base.hpp"

namespace alloclab::sim::detail {
namespace {

using ouro::HostAtomics;
using ouro::OpCounts;
using ouro::OpStatus;
using ouro::PageQueueRef;
using ouro::ReserveOutcome;

// `Storage`: the queue layout, ouro::StaticRing (S), ouro::VirtualArray (VA) or
// ouro::VirtualLinked (VL).
template <template <class> class Storage>
class OuroPageAllocator final : public OuroSimBase {
  using Layout = Storage<HostAtomics>;
  using Reserve = ouro::PageReserveOp<HostAtomics, Layout>;
  using Read = typename Layout::Read;
  using Write = typename Layout::Write;

 public:
  OuroPageAllocator(const Scenario& s, const SimOptions& o, std::uint64_t pool_seed)
      : OuroSimBase(s, o, pool_seed) {
    for (unsigned k = 0; k < ouro::kPageClasses; ++k) {
      capacity_[k] = ring_capacity(s, k, o.queue_capacity);
      words_[k].semaphore = ouro::sem_pack({});
    }
  }

  RunResult allocate(std::uint64_t seed) override {
    set_up_rings();
    RunResult r = allocate_in_modes(*this, seed);
    check_at_rest("after an allocation");
    return r;
  }

  std::uint64_t free(std::uint64_t first_page, unsigned n) override {
    const unsigned k = release(first_page, n);
    const PageQueueRef q = ref(k);
    OpCounts oc;
    Write write(ouro::page_index_of_unit(first_page, k), ouro::run_release<HostAtomics>(q, 1, oc));
    ouro::run_slot(write, q, oc, YieldOrStop{"a free's slot never emptied"});
    check_at_rest("after a free");
    return oc.atomics;
  }

  // Virtualized queues, with nothing in flight: the Queue-Chunks' accounting, as the GPU checks it.
  void check_at_rest(const char* when) const {
    if constexpr (Layout::kVirtual) {
      const std::string error = ouro::queue_chunks_at_rest_error(
          words_.data(), chunks_, chunk_count_, static_cast<std::int32_t>(reuse_words_.fill_count),
          Layout::kTrail);
      if (!error.empty())
        throw VerificationError(std::string(name(s_.algo)) + ": " + error + " " + when);
    }
  }

  // The lockstep engine's interface (ouro_sim_base.hpp).
  struct Group : WarpGroupBase {
    std::unique_ptr<Reserve> op;
    std::vector<Read> reads;
    OpCounts counts;
    // VA, a group on one Queue-Chunk (ouro::va_group_aggregates): the leader's locate, then the
    // lanes' items, then the leader's count.
    std::optional<ouro::VaRead<HostAtomics>> locate;
    std::optional<ouro::VaRead<HostAtomics>> count;
    // VL: the leader's walk to the chunk of the group's first position (ouro::VirtualLinked).
    std::optional<ouro::VlSlotOp<HostAtomics, false>> walk;
  };
  using OuroSimBase::class_of;
  Group make(std::uint64_t leader, unsigned k, std::vector<std::uint64_t> lanes,
             std::uint32_t rounds) const {
    return make_warp_group<Group, Reserve>(leader, k, std::move(lanes), rounds);
  }
  // One round of one group; true when it has finished.
  bool step(Group& g, std::uint64_t bound) const {
    const PageQueueRef q = ref(g.k);
    if (g.op->phase() != ouro::ReservePhase::done) {
      if (g.rounds > bound && g.op->can_abandon()) {
        g.op->abandon(q, g.counts);
        return true;
      }
      g.op->step(q, g.counts);
      if (g.op->phase() != ouro::ReservePhase::done) return false;
      if (g.op->outcome() != ReserveOutcome::ok) return true;
      if constexpr (Layout::kGroupItems) {
        if (ouro::va_group_aggregates(g.op->position(), lanes_of(g))) {
          g.locate.emplace(ouro::va_locate_only<HostAtomics>(g.op->position()));
          return false;
        }
      }
      if constexpr (Layout::kGroupWalk) {
        if (lanes_of(g) > 1) {
          g.walk.emplace(Layout::template locate<false>(g.op->position()));
          return false;
        }
      }
      for (std::size_t l = 0; l < g.lanes.size(); ++l) g.reads.emplace_back(g.op->position() + l);
      return false;
    }
    if constexpr (Layout::kGroupItems) {
      if (g.locate && !g.locate->done()) {
        g.locate->step(q, g.counts);
        if (g.locate->done())
          for (std::size_t l = 0; l < g.lanes.size(); ++l)
            g.reads.emplace_back(ouro::va_item_only<HostAtomics, false>(
                ouro::kDeletionMarker, g.op->position() + l, g.locate->chunk()));
        return false;
      }
    }
    if constexpr (Layout::kGroupWalk) {
      if (g.walk && !g.walk->done()) {
        g.walk->step(q, g.counts);
        if (g.walk->done())
          for (std::size_t l = 0; l < g.lanes.size(); ++l)
            g.reads.emplace_back(Layout::template from_hint<false>(
                ouro::kDeletionMarker, g.op->position() + l, g.walk->chunk()));
        return false;
      }
    }
    bool all = true;
    for (auto& read : g.reads)
      if (!read.done()) all = read.step(q, g.counts) == OpStatus::done && all;
    if constexpr (Layout::kGroupItems) {
      if (all && g.locate) {
        if (!g.count)
          g.count.emplace(ouro::va_count_only<HostAtomics, false>(g.op->position(),
                                                                  g.locate->chunk(), lanes_of(g)));
        // The count's first step is in the round after the last item's.
        else if (g.count->step(q, g.counts) == OpStatus::done)
          return true;
        return false;
      }
    }
    return all;
  }
  static std::uint32_t lanes_of(const Group& g) {
    return static_cast<std::uint32_t>(g.lanes.size());
  }
  static bool splits(const Group& g) {
    const ReserveOutcome o = g.op->outcome();
    return g.lanes.size() > 1 &&
           (o == ReserveOutcome::out_of_memory || o == ReserveOutcome::queue_full);
  }
  static void discard(const Group& g, Counters& c) { count(g.counts, c); }
  void finish_group(Group& g, RunResult& r, Counters& c) {
    count(g.counts, c);
    const bool ok = g.op->outcome() == ReserveOutcome::ok;
    if (!ok) check_failure(g.op->outcome());
    for (std::size_t l = 0; l < g.lanes.size(); ++l) {
      const std::uint64_t i = g.lanes[l];
      r.steps[i] = g.rounds;
      if (ok)
        take(i, ouro::unit_of_page_index(g.reads[l].index(), g.k), r, c);
      else
        ++c.failed;
    }
  }

 private:
  // The static part of the queues of the classes this allocation asks for, set up before any
  // thread runs: S, a class's whole ring; VA, its ring of references (and, once, what the
  // classes' Queue-Chunks share).
  void set_up_rings() {
    for (std::uint64_t i = 0; i < s_.N; ++i) {
      const unsigned k = class_of(i);
      if (slots_[k]) continue;
      const std::uint32_t n = Layout::static_words(capacity_[k]);
      slots_[k] = std::make_unique<std::uint32_t[]>(n);
      std::fill_n(slots_[k].get(), n, ouro::kDeletionMarker);
      if (opt_.pages_per_thread.empty()) break;
    }
    if (Layout::kVirtual && !queue_chunk_slots_) {
      const std::uint64_t chunks = ouro::chunk_count_of_units(s_.T);
      meta_.assign(chunks, ouro::QueueChunkMeta{});
      // Not value-initialised: only the chunks that become Queue-Chunks are filled (and touched).
      queue_chunk_slots_.reset(new std::uint32_t[chunks * ouro::kQueueChunkItems]);
      reuse_slots_.assign(chunks, ouro::kDeletionMarker);
      store_.meta = meta_.data();
      store_.slots = queue_chunk_slots_.get();
      store_.reuse = ouro::IndexQueueRef{&reuse_words_, reuse_slots_.data(),
                                         static_cast<std::uint32_t>(chunks)};
    }
  }
  PageQueueRef ref(unsigned k) const {
    PageQueueRef q{&words_[k],   Layout::kVirtual ? nullptr : slots_[k].get(),
                   capacity_[k], k,
                   &chunks_,     available_.data(),
                   chunk_count_, chunk_class_.data()};
    if (Layout::kVirtual) {
      q.refs = slots_[k].get();
      q.ref_count = Layout::static_words(capacity_[k]);
      q.store = &store_;
    }
    return q;
  }

 public:
  // One request run to its end by one host thread (sequential and threads modes).
  void serve_alone(std::uint64_t i, std::uint64_t bound, RunResult& r, Counters& c) {
    const unsigned k = class_of(i);
    const PageQueueRef q = ref(k);
    OpCounts oc;
    Reserve op(1, k);
    ouro::run_reserve(op, q, oc, bound, YieldOrStop{"a grower's slot never emptied"});
    if (op.outcome() == ReserveOutcome::ok) {
      Read read(op.position());
      ouro::run_slot(read, q, oc, YieldOrStop{"a slot was never written"});
      take(i, ouro::unit_of_page_index(read.index(), k), r, c);
    } else {
      check_failure(op.outcome());
      ++c.failed;
    }
    r.steps[i] = oc.memory_ops;
    count(oc, c);
  }

 private:
  mutable std::array<ouro::PageQueueWords, ouro::kPageClasses> words_{};
  std::array<std::uint32_t, ouro::kPageClasses> capacity_{};
  // S: each class's ring; VA, VL: each class's static words (references, pointers).
  std::array<std::unique_ptr<std::uint32_t[]>, ouro::kPageClasses> slots_;
  // VA, VL: what the classes' Queue-Chunks share (queue_chunk.hpp).
  mutable std::vector<ouro::QueueChunkMeta> meta_;
  std::unique_ptr<std::uint32_t[]> queue_chunk_slots_;
  mutable std::vector<std::uint32_t> reuse_slots_;
  mutable ouro::IndexQueueWords reuse_words_;
  mutable ouro::QueueChunkStore store_;
};

double ouro_page_pool_bytes(const Scenario& s, std::uint64_t static_slots) {
  return bitmap_bytes(s.T, 64) + 8.0 * static_cast<double>(s.A) +
         5.0 * static_cast<double>(ouro::chunk_count_of_units(s.T)) +
         4.0 * static_cast<double>(static_slots);
}

}  // namespace

// Memory: the used-unit mirror, the initial free units, a class byte and an id per chunk and the
// rings of the classes used.
ALLOCLAB_REGISTER_ENTRY(SimTable, Algorithm::ouro_p_s,
                        (SimEntry{.make = &make_allocator_of<OuroPageAllocator<ouro::StaticRing>>,
                                  .check = &check_ouro_scenario,
                                  .pool_bytes =
                                      [](const Scenario& s) {
                                        return ouro_page_pool_bytes(
                                            s,
                                            ring_capacity(s, ouro::page_class_of_units(s.pages)));
                                      },
                                  .step_bound = &ouro_default_step_bound}))

// VA and VL: per chunk also its Queue-Chunk words (16 B) and a reuse slot; the Queue-Chunks a run
// fills (8 KiB each, one per 2048 positions the requests take, a few more per class).
double virtual_queue_pool_bytes(const Scenario& s) {
  const double chunks = static_cast<double>(ouro::chunk_count_of_units(s.T));
  const double queue_chunks = static_cast<double>(s.N / ouro::kQueueChunkItems + 13);
  return ouro_page_pool_bytes(s, 0) + 20.0 * chunks + 8192.0 * std::min(queue_chunks, chunks);
}

template <template <class> class Storage>
SimEntry virtual_queue_entry() {
  return SimEntry{.make = &make_allocator_of<OuroPageAllocator<Storage>>,
                  .check = &check_ouro_scenario,
                  .pool_bytes = &virtual_queue_pool_bytes,
                  .step_bound = &ouro_default_step_bound};
}

ALLOCLAB_REGISTER_ENTRY(SimTable, Algorithm::ouro_p_va, (virtual_queue_entry<ouro::VirtualArray>()))
static_assert(kAlgorithms[static_cast<std::size_t>(Algorithm::ouro_p_vl)].caps.queue_trail ==
              ouro::kVlTrail);
ALLOCLAB_REGISTER_ENTRY(SimTable, Algorithm::ouro_p_vl,
                        (virtual_queue_entry<ouro::VirtualLinked>()))

}  // namespace alloclab::sim::detail
