// Ouroboros variant P over standard array queues (ouro-p-s; Winter et al., ICS'20, §4.1,
// Alg. 3): one ring of page indices per size class behind a bulk semaphore, chunks of 8 KiB
// typed for life by the thread that grows a queue. The operations are the shared step machines
// of core/ouroboros/page_queue.hpp; this file only drives them in the simulator's three modes
// (the pool, the verification mirror and the lockstep engine are ouro_sim_base.hpp's).
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
#include <stdexcept>
#include <thread>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/ouroboros/bulk_semaphore.hpp"
#include "alloclab/core/ouroboros/host_atomics.hpp"
#include "alloclab/core/ouroboros/page_queue.hpp"
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
using Reserve = ouro::PageReserveOp<HostAtomics>;
using Read = ouro::SlotRead<HostAtomics>;
using Write = ouro::SlotWrite<HostAtomics>;

class OuroPageAllocator final : public OuroSimBase {
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
    return allocate_in_modes(*this, seed);
  }

  std::uint64_t free(std::uint64_t first_page, unsigned n) override {
    const unsigned k = release(first_page, n);
    const PageQueueRef q = ref(k);
    OpCounts oc;
    Write write(ouro::page_index_of_unit(first_page, k), ouro::run_release<HostAtomics>(q, 1, oc));
    ouro::run_slot(write, q, oc, YieldOrStop{"a free's slot never emptied"});
    return oc.atomics;
  }

  // The lockstep engine's interface (ouro_sim_base.hpp).
  struct Group : WarpGroupBase {
    std::unique_ptr<Reserve> op;
    std::vector<Read> reads;
    OpCounts counts;
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
      for (std::size_t l = 0; l < g.lanes.size(); ++l) g.reads.emplace_back(g.op->position() + l);
      return false;
    }
    bool all = true;
    for (auto& read : g.reads)
      if (!read.done()) all = read.step(q, g.counts) == OpStatus::done && all;
    return all;
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
  // The rings of the classes this allocation asks for, set up before any thread runs (a ring is
  // static memory: it exists in full once its class is used).
  void set_up_rings() {
    for (std::uint64_t i = 0; i < s_.N; ++i) {
      const unsigned k = class_of(i);
      if (slots_[k]) continue;
      slots_[k] = std::make_unique<std::uint32_t[]>(capacity_[k]);
      std::fill_n(slots_[k].get(), capacity_[k], ouro::kDeletionMarker);
      if (opt_.pages_per_thread.empty()) break;
    }
  }
  PageQueueRef ref(unsigned k) const {
    return PageQueueRef{&words_[k], slots_[k].get(),   capacity_[k], k,
                        &chunks_,   available_.data(), chunk_count_, chunk_class_.data()};
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
  std::array<std::unique_ptr<std::uint32_t[]>, ouro::kPageClasses> slots_;
};

}  // namespace

// Memory: the used-unit mirror, the initial free units, a class byte and an id per chunk and the
// rings of the classes used.
ALLOCLAB_REGISTER_ENTRY(SimTable, Algorithm::ouro_p_s,
                        (SimEntry{.make = &make_allocator_of<OuroPageAllocator>,
                                  .check = &check_ouro_scenario,
                                  .pool_bytes =
                                      [](const Scenario& s) {
                                        return bitmap_bytes(s.T, 64) +
                                               8.0 * static_cast<double>(s.A) +
                                               5.0 * static_cast<double>(
                                                         ouro::chunk_count_of_units(s.T)) +
                                               4.0 * static_cast<double>(ring_capacity(
                                                         s, ouro::page_class_of_units(s.pages)));
                                      },
                                  .step_bound = &ouro_default_step_bound}))

}  // namespace alloclab::sim::detail
