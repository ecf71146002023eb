// Ouroboros variant P over standard array queues (ouro-p-s; Winter et al., ICS'20, §4.1,
// Alg. 3): one ring of page indices per size class behind a bulk semaphore, chunks of 8 KiB
// typed for life by the thread that grows a queue. The operations are the shared step machines
// of core/ouroboros/page_queue.hpp; this file only drives them in the simulator's three modes.
//
// Units: a simulator "page" is 16 B (the smallest page), a chunk 512 of them; a request of n
// units is served by the class 2^k >= n, and the first n units of that page are the request's
// (the rest is internal fragmentation: neither used nor free to anyone else).
//
// Modes:
//  * sequential: requests one at a time in the random service order; no two operations overlap,
//    so nothing spins, and steps are exact functions of the order (the model's case).
//  * lockstep: SIMT emulation with warp aggregation as on hardware: the lanes of a warp
//    (`lanes` consecutive threads) that ask for one class form a group whose leader (lowest
//    lane) waits for the whole group's pages and takes their front positions in one atomic; then
//    every lane reads its own slot. A group that runs out of memory as a whole splits into its
//    lanes, each asking for its own page (fewer pages than a warp asks for may remain). Each round,
//    every unfinished group issues one step (its leader's, or every unfinished lane's slot read
//    together), groups in round-priority order; each step is applied whole, so the atomics of a
//    round are serialised in that order.
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
#include "ouro_config.hpp"

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

// A slot wait that never ends is a defect of the allocator (every slot a group waits for belongs
// to an operation that is running); the simulator stops it rather than hang.
constexpr std::uint64_t kStuckSpins = std::uint64_t{1} << 32;

// After a spin of a host thread: yield; a wait past kStuckSpins is a defect (throws `what`).
struct YieldOrStop {
  const char* what;
  bool operator()(std::uint64_t spins) const {
    if (spins >= kStuckSpins) throw VerificationError(what);
    std::this_thread::yield();
    return true;
  }
};

class OuroPageAllocator final : public Allocator {
 public:
  OuroPageAllocator(const Scenario& s, const SimOptions& o, std::uint64_t pool_seed)
      : s_(s), opt_(o), used_(s.T, 64) {
    // The initial pool: units not free are the application's; chunks with none of them are
    // the memory manager's, handed out in ascending order.
    for (std::uint64_t j = 0; j < used_.words(); ++j) used_.store(j, ~std::uint64_t{0});
    const auto free_units =
        initial_free_pages(s, o.occupancy, pool_seed, resolve_host_threads(o.host_threads));
    for (const std::uint64_t u : free_units)
      used_.fetch_and(u / 64, ~(std::uint64_t{1} << (u % 64)));
    live_units_.store(s.T - free_units.size());
    const std::uint64_t chunks = ouro::chunk_count_of_units(s.T);
    chunk_class_.assign(chunks, 0xff);
    std::vector<std::uint64_t> free_in_chunk(chunks, 0);
    for (const std::uint64_t u : free_units)
      if (u / ouro::kUnitsPerChunk < chunks) ++free_in_chunk[u / ouro::kUnitsPerChunk];
    for (std::uint64_t ch = 0; ch < chunks; ++ch)
      if (free_in_chunk[ch] == ouro::kUnitsPerChunk)
        available_.push_back(static_cast<std::uint32_t>(ch));
    chunk_count_ = static_cast<std::uint32_t>(available_.size());
    for (unsigned k = 0; k < ouro::kPageClasses; ++k) {
      capacity_[k] = ring_capacity(s, k);
      words_[k].semaphore = ouro::sem_pack({});
    }
  }

  RunResult allocate(std::uint64_t seed) override {
    RunResult r;
    r.steps.assign(s_.N, 0);
    r.first_page.assign(s_.N, -1);
    const std::uint64_t bound = step_bound();
    set_up_rings();
    std::vector<Counters> c(1);
    if (opt_.mode == Mode::threads) {
      const unsigned workers = resolve_host_threads(opt_.host_threads);
      c.assign(workers, Counters{});
      parallel_for(
          s_.N, workers, [&](std::uint64_t i, unsigned wk) { serve_alone(i, bound, r, c[wk]); },
          16);
    } else if (opt_.mode == Mode::sequential) {
      r.service_order = service_order(seed, s_.N);
      for (const std::uint64_t i : r.service_order) serve_alone(i, bound, r, c[0]);
    } else {
      lockstep(seed, bound, r, c[0]);
    }
    finish(r, c);
    return r;
  }

  std::uint64_t free(std::uint64_t first_page, unsigned n) override {
    if (first_page >= s_.T || n == 0 || first_page + n > s_.T)
      throw VerificationError("free of units outside the pool");
    const std::uint64_t chunk = first_page / ouro::kUnitsPerChunk;
    const unsigned k = chunk < chunk_class_.size() ? chunk_class_[chunk] : ouro::kPageClasses;
    if (k >= ouro::kPageClasses || !ouro::unit_starts_page(first_page, k) ||
        n > ouro::units_per_page(k))
      throw VerificationError("free of unit " + std::to_string(first_page) +
                              " which does not start a page handed out");
    for (std::uint64_t u = first_page; u < first_page + n; ++u) {
      const std::uint64_t bit = std::uint64_t{1} << (u % 64);
      if (!(used_.fetch_and(u / 64, ~bit) & bit))
        throw VerificationError("double free of unit " + std::to_string(u));
    }
    live_units_.fetch_sub(n);
    const PageQueueRef q = ref(k);
    OpCounts oc;
    Write write(ouro::page_index_of_unit(first_page, k), ouro::run_release<HostAtomics>(q, 1, oc));
    ouro::run_slot(write, q, oc, YieldOrStop{"a free's slot never emptied"});
    return oc.atomics;
  }

  std::vector<std::uint64_t> used_pages() const override { return used_.used_pages(); }
  std::uint64_t free_count() const override { return s_.T - live_units_.load(); }

 private:
  unsigned class_of(std::uint64_t i) const {
    return ouro::page_class_of_units(opt_.pages_per_thread.empty() ? s_.pages
                                                                   : opt_.pages_per_thread[i]);
  }
  unsigned units_of(std::uint64_t i) const {
    return opt_.pages_per_thread.empty() ? s_.pages : opt_.pages_per_thread[i];
  }
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

  std::uint64_t step_bound() const { return default_step_bound(s_, opt_); }

  // A page index handed to thread i: mark its units (the mirror) and record the result.
  void take(std::uint64_t i, std::uint32_t index, unsigned k, RunResult& r, Counters& c) {
    const std::uint64_t unit = ouro::unit_of_page_index(index, k);
    const unsigned n = units_of(i);
    if (unit + n > s_.T) throw VerificationError("a page index past the pool's end");
    for (std::uint64_t u = unit; u < unit + n; ++u) {
      const std::uint64_t bit = std::uint64_t{1} << (u % 64);
      if (used_.fetch_or(u / 64, bit) & bit)
        throw VerificationError("ouro-p-s handed out unit " + std::to_string(u) +
                                " which is in use");
    }
    live_units_.fetch_add(n);
    r.first_page[i] = static_cast<std::int64_t>(unit);
    c.taken += n;
  }

  static void count(const OpCounts& oc, Counters& c) {
    c.probes += oc.memory_ops;
    c.atomics += oc.atomics;
    c.failed_claims += oc.failed;
    c.collisions += oc.failed;
  }

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
      take(i, read.index(), k, r, c);
    } else {
      check_failure(op.outcome());
      ++c.failed;
    }
    r.steps[i] = oc.memory_ops;
    count(oc, c);
  }

  static void check_failure(ReserveOutcome o) {
    if (o == ReserveOutcome::counter_overflow)
      throw VerificationError(
          "the bulk semaphore's counters overflowed (a configuration the input checks missed)");
  }

  // Lockstep with warp aggregation (see the file comment).
  struct Group {
    std::uint64_t leader;              // lowest thread id of the group
    unsigned k;                        // its class
    std::vector<std::uint64_t> lanes;  // thread ids
    std::unique_ptr<Reserve> op;
    std::vector<Read> reads;
    OpCounts counts;
    std::uint32_t rounds = 0;
    bool done = false;
  };

  void lockstep(std::uint64_t seed, std::uint64_t bound, RunResult& r, Counters& c) {
    std::vector<Group> groups;
    for (std::uint64_t first = 0; first < s_.N; first += s_.lanes) {
      const std::uint64_t end = std::min<std::uint64_t>(s_.N, first + s_.lanes);
      const std::size_t warp_begin = groups.size();
      for (std::uint64_t i = first; i < end; ++i) {
        const unsigned k = class_of(i);
        auto same = std::find_if(groups.begin() + static_cast<std::ptrdiff_t>(warp_begin),
                                 groups.end(), [&](const Group& g) { return g.k == k; });
        if (same == groups.end()) {
          groups.push_back(Group{i, k, {}, nullptr, {}, {}, 0, false});
          same = groups.end() - 1;
        }
        same->lanes.push_back(i);
      }
    }
    for (auto& g : groups)
      g.op = std::make_unique<Reserve>(static_cast<std::uint32_t>(g.lanes.size()), g.k);
    std::vector<std::pair<std::uint64_t, std::size_t>> order;
    std::vector<Group> split;
    std::size_t unfinished = groups.size();
    for (std::uint64_t round = 0; unfinished > 0; ++round) {
      if (round >= kStuckSpins) throw VerificationError("lockstep rounds never ended");
      order.clear();
      for (std::size_t j = 0; j < groups.size(); ++j)
        if (!groups[j].done) order.emplace_back(round_priority(seed, groups[j].leader, round), j);
      std::sort(order.begin(), order.end());
      for (const auto& [priority, j] : order) {
        Group& g = groups[j];
        ++g.rounds;
        if (!step_group(g, bound)) continue;
        g.done = true;
        --unfinished;
        if (splits(g)) {
          // Out of memory for the whole group is not out of memory for each lane: the lanes
          // ask again one by one (a chunk of big pages may hold fewer pages than a warp asks).
          for (const std::uint64_t i : g.lanes) {
            split.push_back(
                Group{i, g.k, {i}, std::make_unique<Reserve>(1, g.k), {}, {}, g.rounds, false});
          }
          count(g.counts, c);
        } else {
          finish_group(g, r, c);
        }
      }
      for (auto& g : split) groups.push_back(std::move(g));
      unfinished += split.size();
      split.clear();
    }
  }

  static bool splits(const Group& g) {
    const ReserveOutcome o = g.op->outcome();
    return g.lanes.size() > 1 &&
           (o == ReserveOutcome::out_of_memory || o == ReserveOutcome::queue_full);
  }

  // One round of one group; true when it has finished.
  bool step_group(Group& g, std::uint64_t bound) {
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

  void finish_group(Group& g, RunResult& r, Counters& c) {
    count(g.counts, c);
    const bool ok = g.op->outcome() == ReserveOutcome::ok;
    if (!ok) check_failure(g.op->outcome());
    for (std::size_t l = 0; l < g.lanes.size(); ++l) {
      const std::uint64_t i = g.lanes[l];
      r.steps[i] = g.rounds;
      if (ok)
        take(i, g.reads[l].index(), g.k, r, c);
      else
        ++c.failed;
    }
  }

  Scenario s_;
  SimOptions opt_;
  Bitmap used_;  // units held by live requests (verification and double frees)
  std::atomic<std::uint64_t> live_units_{0};
  std::vector<std::uint32_t> available_;  // chunk ids with every unit free at the start
  std::uint32_t chunk_count_ = 0;
  // Shared allocator state: written through the atomics policy by const operations' steps.
  mutable std::vector<std::uint8_t> chunk_class_;
  mutable ouro::ChunkSourceWords chunks_;
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
