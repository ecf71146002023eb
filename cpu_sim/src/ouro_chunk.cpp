// Ouroboros variant C (Winter et al., ICS'20, §4.2, Alg. 4-5) over standard array queues
// (ouro-c-s) and over the virtualized queues of §5 (ouro-c-va, ouro-c-vl; the layout is a policy
// type, core/ouroboros/chunk_queue_virtual.hpp): one queue of chunk indices per size class, the
// chunks tracking their pages with bit masks, a bulk semaphore per class counting the free pages on
// them; a chunk whose pages are all free is flashed to the chunk-reuse queue and may take any class
// next. The operations are the shared step machines of core/ouroboros/chunk_queue.hpp and
// chunk_page.hpp; this file drives them in the simulator's three modes (the pool, the verification
// mirror and the lockstep engine are ouro_sim_base.hpp's).
//
// Modes:
//  * sequential: requests one at a time in the random service order (nothing spins);
//  * lockstep: warp groups (ouro_sim_base.hpp): the leader waits for the group's pages, then
//    every lane walks the queue and takes its page, one step per round;
//  * threads: host threads run requests concurrently on std::atomic_ref words.
// Steps: memory operations on shared allocator state (semaphore, front, back, queue slots, chunk
// words, mask words, flags, the reuse queue); in lockstep a lane's steps are its group's rounds.
// The step bound ends a semaphore wait (nothing held) or a walk between chunks (the lane gives
// its page back to the semaphore); either way the request fails and is counted.
#include <array>
#include <memory>
#include <vector>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/ouroboros/chunk_free.hpp"
#include "alloclab/core/ouroboros/chunk_page.hpp"
#include "alloclab/core/ouroboros/chunk_queue_virtual.hpp"
#include "alloclab/core/ouroboros/host_atomics.hpp"
#include "alloclab/core/ouroboros/queue_chunk_check.hpp"
#include "detail.hpp"
#include "engine.hpp"
#include "ouro_sim_base.hpp"

namespace alloclab::sim::detail {
namespace {

using ouro::ChunkCounts;
using ouro::HostAtomics;
using ouro::OpStatus;
using ouro::ReserveOutcome;

std::uint32_t chunk_ring_capacity(const Scenario& s) {
  return ouro::chunk_ring_capacity(ouro::chunk_count_of_units(s.T));
}

// `LayoutOf`: where the queues keep their entries, ouro::ChunkRing (S), ouro::ChunkArray (VA) or
// ouro::ChunkLinked (VL).
template <template <class> class LayoutOf>
class OuroChunkAllocator final : public OuroSimBase {
  using Layout = LayoutOf<HostAtomics>;
  using Reserve = ouro::ChunkReserveOp<HostAtomics, Layout>;
  using Take = ouro::ChunkTakeOp<HostAtomics, Layout>;

 public:
  OuroChunkAllocator(const Scenario& s, const SimOptions& o, std::uint64_t pool_seed)
      : OuroSimBase(s, o, pool_seed),
        capacity_(chunk_ring_capacity(s)),
        meta_(std::max<std::size_t>(chunk_class_.size(), 1)),
        reuse_slots_(capacity_, ouro::kDeletionMarker) {
    chunk_queue_ = true;
    for (auto& w : words_) w.semaphore = ouro::sem_pack({});
    q_.words = words_.data();
    for (unsigned k = 0; k < ouro::kPageClasses; ++k) q_.capacity[k] = capacity_;
    q_.meta = meta_.data();
    q_.chunk_class = chunk_class_.data();
    q_.fresh = &chunks_;
    q_.available = available_.data();
    q_.available_count = chunk_count_;
    q_.reuse = ouro::IndexQueueRef{&reuse_words_, reuse_slots_.data(), capacity_};
    q_.class_pages = ouro::queue_capacity_of(o.queue_capacity);
    if (Layout::kVirtual) {
      const std::size_t chunks = meta_.size();
      queue_meta_.assign(chunks, ouro::QueueChunkMeta{});
      // Not value-initialised: only the chunks drawn as Queue-Chunks are filled (and touched).
      entries_.reset(new std::uint64_t[chunks * ouro::kChunkQueueEntries]);
      spare_.fill(ouro::kEmptySpare);
      virt_.words_per_class = Layout::words_per_class(capacity_);
      static_words_.assign(std::size_t{ouro::kPageClasses} * virt_.words_per_class,
                           ouro::kDeletionMarker);
      virt_.meta = queue_meta_.data();
      virt_.entries = entries_.get();
      virt_.spare = spare_.data();
      virt_.words = static_words_.data();
      virt_.counts = &virt_counts_;
      virt_.reserve_per_class = ouro::chunk_queue_reserve(capacity_, Layout::kTrail);
      q_.virt = &virt_;
    }
  }

  RunResult allocate(std::uint64_t seed) override {
    set_up_rings();
    RunResult r = allocate_in_modes(*this, seed);
    check_at_rest("after an allocation");
    return r;
  }

  // VA and VL, with nothing in flight: the Queue-Chunks drawn are those the queues hold and the
  // classes' spares, as the GPU checks it.
  void check_at_rest(const char* when) const {
    if constexpr (Layout::kVirtual) {
      const std::string error = ouro::chunk_queue_chunks_at_rest_error(words_.data(), virt_counts_,
                                                                       chunks_, Layout::kTrail);
      if (!error.empty())
        throw VerificationError(std::string(name(s_.algo)) + ": " + error + " " + when);
    }
  }

  std::uint64_t free(std::uint64_t first_page, unsigned n) override {
    const unsigned k = release(first_page, n);
    set_up_ring(k);  // a chunk retyped since may belong to a class no allocation has asked for
    const auto chunk = static_cast<std::uint32_t>(first_page / ouro::kUnitsPerChunk);
    const auto page = static_cast<std::uint32_t>((first_page % ouro::kUnitsPerChunk) >> k);
    ChunkCounts cc;
    if (ouro::chunk_free_page<HostAtomics, Layout>(
            q_, chunk, page, cc, YieldOrStop{"a free's queue slot never emptied"}) ==
        ouro::ChunkFreeOutcome::double_free)
      throw VerificationError(std::string(name(s_.algo)) +
                              ": the mask already had the page of unit " +
                              std::to_string(first_page) + " free");
    check_at_rest("after a free");
    return cc.ops.atomics;
  }

  // The lockstep engine's interface (ouro_sim_base.hpp).
  struct Group : WarpGroupBase {
    std::unique_ptr<Reserve> op;
    std::vector<Take> takes;
    ChunkCounts counts;
  };
  using OuroSimBase::class_of;
  Group make(std::uint64_t leader, unsigned k, std::vector<std::uint64_t> lanes,
             std::uint32_t rounds) const {
    return make_warp_group<Group, Reserve>(leader, k, std::move(lanes), rounds);
  }
  bool step(Group& g, std::uint64_t bound) const {
    if (g.op->phase() != ouro::ChunkReservePhase::done) {
      if (g.rounds > bound && g.op->can_abandon()) {
        g.op->abandon(q_, g.counts);
        return true;
      }
      g.op->step(q_, g.counts);
      if (g.op->phase() != ouro::ChunkReservePhase::done) return false;
      if (g.op->outcome() != ReserveOutcome::ok) return true;
      for (const std::uint64_t i : g.lanes) g.takes.emplace_back(g.k, rotation(i));
      return false;
    }
    bool all = true;
    for (auto& take : g.takes) {
      if (take.done()) continue;
      if (g.rounds > bound) take.abandon();
      all = take.step(q_, g.counts) == OpStatus::done && all;
    }
    return all;
  }
  static bool splits(const Group& g) {
    const ReserveOutcome o = g.op->outcome();
    return g.lanes.size() > 1 &&
           (o == ReserveOutcome::out_of_memory || o == ReserveOutcome::queue_full);
  }
  static void discard(const Group& g, Counters& c) { count(g.counts, c); }
  void finish_group(Group& g, RunResult& r, Counters& c) {
    discard(g, c);
    const bool reserved = g.op->outcome() == ReserveOutcome::ok;
    if (!reserved) check_failure(g.op->outcome());
    for (std::size_t l = 0; l < g.lanes.size(); ++l) {
      const std::uint64_t i = g.lanes[l];
      r.steps[i] = g.rounds;
      if (reserved && g.takes[l].outcome() == ouro::TakeOutcome::ok)
        take(i, unit_of(g.takes[l], g.k), r, c);
      else
        ++c.failed;
    }
  }

 private:
  // A lane's place in its warp: spreads a warp's lanes over the mask words and bits. One request
  // at a time (sequential) has nobody to spread from: it scans from the first word and bit.
  unsigned rotation(std::uint64_t i) const {
    return opt_.mode == Mode::sequential ? 0 : static_cast<unsigned>(i % s_.lanes);
  }
  static std::uint64_t unit_of(const Take& t, unsigned k) {
    return std::uint64_t{t.chunk()} * ouro::kUnitsPerChunk +
           std::uint64_t{t.page()} * ouro::units_per_page(k);
  }
  void set_up_ring(unsigned k) {
    if (Layout::kVirtual) return;  // the static words are set up with the allocator
    if (slots_[k].empty()) {
      slots_[k].assign(capacity_, ouro::kEmptyEntry);
      q_.slots[k] = slots_[k].data();
    }
  }
  // The rings of the classes this allocation asks for, set up before any thread runs.
  void set_up_rings() {
    for (std::uint64_t i = 0; i < s_.N; ++i) {
      set_up_ring(class_of(i));
      if (opt_.pages_per_thread.empty()) break;
    }
  }

 public:
  // One request run to its end by one host thread (sequential and threads modes).
  void serve_alone(std::uint64_t i, std::uint64_t bound, RunResult& r, Counters& c) {
    const unsigned k = class_of(i);
    ChunkCounts cc;
    Reserve op(1, k);
    ouro::run_chunk_reserve(op, q_, cc, bound, YieldOrStop{"a grower's slot never emptied"});
    if (op.outcome() == ReserveOutcome::ok) {
      Take t(k, rotation(i));
      ouro::run_chunk_take(t, q_, cc, bound, YieldOrStop{"a walk of the queue never ended"});
      if (t.outcome() == ouro::TakeOutcome::ok)
        take(i, unit_of(t, k), r, c);
      else
        ++c.failed;
    } else {
      check_failure(op.outcome());
      ++c.failed;
    }
    r.steps[i] = cc.ops.memory_ops;
    count(cc, c);
  }

 private:
  std::uint32_t capacity_;
  std::vector<ouro::ChunkMeta> meta_;
  std::array<ouro::ChunkQueueWords, ouro::kPageClasses> words_{};
  std::array<std::vector<std::uint64_t>, ouro::kPageClasses> slots_;
  ouro::IndexQueueWords reuse_words_;
  std::vector<std::uint32_t> reuse_slots_;
  // VA, VL: the Queue-Chunks' words and entries, each class's spare stack and static words.
  std::vector<ouro::QueueChunkMeta> queue_meta_;
  std::unique_ptr<std::uint64_t[]> entries_;
  std::array<std::uint64_t, ouro::kPageClasses> spare_{};
  std::vector<std::uint32_t> static_words_;
  ouro::ChunkQueueChunkWords virt_counts_;
  ouro::ChunkQueueChunks virt_;
  ouro::ChunkQueues q_;
};

// VA and VL: per chunk also its Queue-Chunk words (16 B); the Queue-Chunks a run fills (8 KiB
// each, about one per 1024 publishes, a few more per class).
double chunk_queue_pool_bytes(const Scenario& s) {
  const double chunks = static_cast<double>(chunk_ring_capacity(s));
  const double queue_chunks = static_cast<double>(2 * s.N / ouro::kChunkQueueEntries + 24);
  return bitmap_bytes(s.T, 64) + 8.0 * static_cast<double>(s.A) + (80.0 + 1 + 4 + 4 + 16) * chunks +
         8192.0 * std::min(queue_chunks, chunks);
}

}  // namespace

// Memory: the used-unit mirror, the initial free units, per chunk its words (80 B), class and
// id and a reuse-queue slot, and the rings of the classes used (8 B per chunk each).
ALLOCLAB_REGISTER_ENTRY(SimTable, Algorithm::ouro_c_s,
                        (SimEntry{.make = &make_allocator_of<OuroChunkAllocator<ouro::ChunkRing>>,
                                  .check = &check_ouro_scenario,
                                  .pool_bytes =
                                      [](const Scenario& s) {
                                        return bitmap_bytes(s.T, 64) +
                                               8.0 * static_cast<double>(s.A) +
                                               (80.0 + 1 + 4 + 4 + 8) *
                                                   static_cast<double>(chunk_ring_capacity(s));
                                      },
                                  .step_bound = &ouro_default_step_bound}))

template <template <class> class LayoutOf>
SimEntry chunk_queue_entry() {
  return SimEntry{.make = &make_allocator_of<OuroChunkAllocator<LayoutOf>>,
                  .check = &check_ouro_scenario,
                  .pool_bytes = &chunk_queue_pool_bytes,
                  .step_bound = &ouro_default_step_bound};
}

ALLOCLAB_REGISTER_ENTRY(SimTable, Algorithm::ouro_c_va, (chunk_queue_entry<ouro::ChunkArray>()))
static_assert(kAlgorithms[static_cast<std::size_t>(Algorithm::ouro_c_vl)].caps.queue_trail ==
              ouro::kVlTrail);
ALLOCLAB_REGISTER_ENTRY(SimTable, Algorithm::ouro_c_vl, (chunk_queue_entry<ouro::ChunkLinked>()))

}  // namespace alloclab::sim::detail
