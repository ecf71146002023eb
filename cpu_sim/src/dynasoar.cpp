// DynaSOAr (Springer & Masuhara, ECOOP'19) in the simulator: the step machines of
// core/dynasoar/alloc.hpp and free.hpp driven in the three modes over one heap
// (core/dynasoar/heap_storage.hpp; studies/dynasoar/README.md).
//
// Requests: a request of n pages (--pages n, or per thread) is an object of the type of n pages,
// the page being the smallest type (heap.hpp); n > 64 is an input error (§3.2), and so is a heap
// of fewer than 64 pages (less than one block). It gets slot k of block b: pages
// [64 b + k n, 64 b + k n + n).
// Modes:
//  * sequential: requests one at a time in the random service order, each to its end (want 1).
//  * lockstep: the lanes of a warp asking for one type form a group served by one machine (the
//    leader's, §4.2's coalescing: several slots per atomicOr); every unfinished group makes one
//    step per round, groups in round-priority order of their first lane. Without coalescing
//    (Variant::coalesce false) every lane is its own group.
//  * threads: host threads run requests concurrently (want 1) on std::atomic_ref words.
// Steps (the registry's unit): one memory operation on the heap (a block's bitmap or type word,
// a block-bitmap word); a lane's steps are its group's until its slot was delivered.
// Out of memory: alloc.hpp's give-up (kMaxEmptyRounds rounds that found no block, or the step
// bound below); the unserved lanes fail (RunResult::failed).
// Verification, beyond the simulator's own: a mirror of used pages catches a slot handed out twice
// and double frees (an error, never served), and the heap is checked at rest (heap_storage.hpp:
// Def. 1 in every block bitmap, each block's state against its bitmap and the slots held) at the
// start of every allocate() (so every free since the last one is checked) and at its end.
#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "alloclab/core/dynasoar/alloc.hpp"
#include "alloclab/core/dynasoar/heap_storage.hpp"
#include "alloclab/core/dynasoar/op_counts.hpp"
#include "alloclab/core/errors.hpp"
#include "alloclab/core/ouroboros/host_atomics.hpp"
#include "alloclab/core/random_stream.hpp"
#include "alloclab/cpu_sim/typed_heap.hpp"
#include "detail.hpp"
#include "engine.hpp"

namespace alloclab::sim::detail {
namespace {

using Atom = ouro::HostAtomics;
using dynasoar::AllocOp;
using dynasoar::BitStatus;
using dynasoar::DeallocOp;
using dynasoar::DsCounts;

// RunResult::op_counts: core/dynasoar/op_counts.hpp's names, shared with the GPU backend.
using namespace dynasoar::ds_count;
const auto& kCountNames = dynasoar::kDsCountNames;
static_assert(kCounts <= Counters::kExtra);

// A machine that never ends is a defect (every spin waits for an operation in flight).
constexpr std::uint64_t kStuckSteps = std::uint64_t{1} << 32;

struct Variant {
  bool coalesce = true;
  bool rotate = true;
};

std::uint64_t ds_step_bound(const Scenario& s) {
  const std::uint64_t M = dynasoar::heap_blocks(s.T);
  return std::min<std::uint64_t>(64 * (s.N + M) + 4096, 4294967294ull);
}

template <Variant V>
class DynasoarAllocator final : public Allocator {
 public:
  DynasoarAllocator(const Scenario& s, const SimOptions& o, std::uint64_t pool_seed)
      : s_(s), opt_(o), used_(s.T, 64), held_(s.T, 0), heap_(s.T, app_pages(s, o, pool_seed)) {
    std::uint64_t app = 0;
    for (std::uint64_t b = 0; b < heap_.heap.blocks; ++b)
      if (heap_.types[b] == 1)
        for (unsigned k = 0; k < 64 && 64 * b + k < s.T; ++k)
          if ((heap_.slots[b] >> k) & 1u) used_.fetch_or(b, std::uint64_t{1} << k), ++app;
    live_pages_.store(app);
  }

  RunResult allocate(std::uint64_t seed) override {
    check_at_rest("before an allocation (after the frees since the last one)");
    RunResult r;
    r.steps.assign(s_.N, 0);
    r.first_page.assign(s_.N, -1);
    const std::uint64_t bound = default_step_bound(s_, opt_);
    std::vector<Counters> c(1);
    run_modes(
        s_, opt_, seed, r, c,
        [&](std::uint64_t i, Counters& ci) { serve_alone(i, seed, bound, r, ci); },
        [&](Counters& c0) { run_lockstep(seed, bound, r, c0); });
    const DsCounts f = take_free_counts();
    std::uint32_t fv[dynasoar::kDsFreeCounts];
    dynasoar::free_count_values(f, fv);
    for (unsigned k = 0; k < dynasoar::kDsFreeCounts; ++k) c[0].extra[invalidations + k] += fv[k];
    finish(r, c, {std::begin(kCountNames), std::end(kCountNames)});
    check_at_rest("after an allocation");
    return r;
  }

  std::uint64_t free(std::uint64_t first_page, unsigned n) override {
    if (first_page >= s_.T || n == 0 || first_page + n > s_.T)
      throw VerificationError("free of pages outside the heap");
    if (held_[first_page] != n)
      throw VerificationError("free of page " + std::to_string(first_page) +
                              " which does not start an object of " + std::to_string(n) +
                              " pages handed out (a double free or a foreign pointer)");
    held_[first_page] = 0;
    for (std::uint64_t p = first_page; p < first_page + n; ++p) {
      const std::uint64_t bit = std::uint64_t{1} << (p % 64);
      if (!(used_.fetch_and(p / 64, ~bit) & bit))
        throw VerificationError("double free of page " + std::to_string(p));
    }
    live_pages_.fetch_sub(n);
    const std::uint64_t bid = first_page / 64;
    DeallocOp<Atom> op(bid, static_cast<unsigned>((first_page % 64) / n), n);
    DsCounts c;
    for (std::uint64_t k = 0;; ++k) {
      if (k >= kStuckSteps) throw VerificationError("a DynaSOAr free never ended");
      const BitStatus st = op.step(heap_.heap, c);
      if (st == BitStatus::done) break;
      if (st == BitStatus::spinning) std::this_thread::yield();
    }
    if (op.double_free())
      throw VerificationError("dynasoar: a slot's bit was clear when its object was freed");
    {
      std::lock_guard<std::mutex> lock(free_mutex_);
      free_counts_.add(c);
    }
    return c.atomics();
  }

  std::vector<std::uint64_t> used_pages() const override { return used_.used_pages(); }
  std::uint64_t free_count() const override { return s_.T - live_pages_.load(); }

 private:
  static std::vector<bool> app_pages(const Scenario& s, const SimOptions& o,
                                     std::uint64_t pool_seed) {
    std::vector<bool> app(s.T, true);
    for (const std::uint64_t p :
         initial_free_pages(s, o.occupancy, pool_seed, resolve_host_threads(o.host_threads)))
      app[p] = false;
    return app;
  }
  unsigned pages_of(std::uint64_t i) const {
    return opt_.pages_per_thread.empty() ? s_.pages : opt_.pages_per_thread[i];
  }
  static unsigned seed_of(std::uint64_t seed, std::uint64_t unit) {
    return static_cast<unsigned>(PhiloxStream(seed, StreamDomain::probe, unit).bits(0));
  }
  dynasoar::AllocConfig config(std::uint64_t bound) const {
    dynasoar::AllocConfig cfg;
    cfg.rotate = V.rotate;
    cfg.max_steps = bound;
    return cfg;
  }
  DsCounts take_free_counts() {
    std::lock_guard<std::mutex> lock(free_mutex_);
    const DsCounts f = free_counts_;
    free_counts_ = DsCounts{};
    return f;
  }

  void check_at_rest(const char* when) const {
    const std::string e = heap_.check([&](std::uint64_t page) { return used_.used(page); });
    if (!e.empty()) throw VerificationError("dynasoar: " + e + " " + when);
  }

  // A group of lanes served by one machine: its lanes (ascending), how many are served.
  struct Group {
    std::vector<std::uint64_t> lanes;
    unsigned served = 0;
    AllocOp<Atom> op;
    DsCounts counts;
  };
  // One step of g; delivered slots go to its next lanes. True when it is done.
  bool advance(Group& g, RunResult& r) {
    const BitStatus st = g.op.step(heap_.heap, g.counts);
    if (g.op.pending()) {
      const std::uint64_t bid = g.op.pending_block();
      for (std::uint64_t m = g.op.pending_mask(); m != 0; m &= m - 1)
        take(g.lanes[g.served++], bid, bits::count_trailing_zeros(m), g.op.steps(), r);
      g.op.take();
    }
    if (g.op.steps() >= kStuckSteps) throw VerificationError("a DynaSOAr allocation never ended");
    if (g.op.broken()) throw VerificationError("dynasoar: a rollback freed a slot not reserved");
    if (st == BitStatus::spinning && opt_.mode == Mode::threads) std::this_thread::yield();
    return st == BitStatus::done || g.op.finished();
  }
  // Lane i gets slot `slot` of block bid: mark its pages in the mirror.
  void take(std::uint64_t i, std::uint64_t bid, unsigned slot, std::uint64_t steps, RunResult& r) {
    const unsigned n = pages_of(i);
    const std::uint64_t first = dynasoar::slot_first_page(bid, slot, n);
    if (slot >= dynasoar::valid_slots(n, bid, s_.T))
      throw VerificationError("dynasoar handed out a slot past its block's capacity");
    for (std::uint64_t p = first; p < first + n; ++p) {
      const std::uint64_t bit = std::uint64_t{1} << (p % 64);
      if (used_.fetch_or(p / 64, bit) & bit)
        throw VerificationError("dynasoar handed out page " + std::to_string(p) +
                                " which is in use");
    }
    held_[first] = static_cast<std::uint8_t>(n);
    live_pages_.fetch_add(n);
    r.first_page[i] = static_cast<std::int64_t>(first);
    r.steps[i] = static_cast<std::uint32_t>(std::min<std::uint64_t>(steps, 4294967295ull));
  }
  // g is done: the unserved lanes failed; its counts go to c.
  void complete(const Group& g, RunResult& r, Counters& c) const {
    for (unsigned k = g.served; k < g.lanes.size(); ++k) {
      r.steps[g.lanes[k]] =
          static_cast<std::uint32_t>(std::min<std::uint64_t>(g.op.steps(), 4294967295ull));
      ++c.failed;
    }
    const DsCounts& d = g.counts;
    c.probes += d.memory_ops();
    c.atomics += d.atomics();
    c.collisions += d.lost_atomics();
    c.failed_claims += d.lost_atomics();
    std::uint32_t v[kCounts];
    dynasoar::alloc_count_values(d, v);
    for (unsigned k = 0; k < std::size(v); ++k) c.extra[k] += v[k];
  }
  void count_taken(const RunResult& r, Counters& c) const {
    for (std::uint64_t i = 0; i < s_.N; ++i)
      if (r.first_page[i] >= 0) c.taken += pages_of(i);
  }

  // Sequential and threads modes: request i alone, to its end.
  void serve_alone(std::uint64_t i, std::uint64_t seed, std::uint64_t bound, RunResult& r,
                   Counters& c) {
    Group g;
    g.lanes = {i};
    g.op = AllocOp<Atom>(pages_of(i), 1, static_cast<unsigned>(i / s_.lanes), seed_of(seed, i),
                         config(bound));
    while (!advance(g, r)) {
    }
    complete(g, r, c);
    if (r.first_page[i] >= 0) c.taken += pages_of(i);
  }

  // Lockstep: one step per unfinished group per round, in round-priority order.
  void run_lockstep(std::uint64_t seed, std::uint64_t bound, RunResult& r, Counters& c) {
    std::vector<Group> groups;
    for (std::uint64_t w0 = 0; w0 < s_.N; w0 += s_.lanes) {
      const std::uint64_t w1 = std::min<std::uint64_t>(s_.N, w0 + s_.lanes);
      const std::size_t first = groups.size();
      for (std::uint64_t i = w0; i < w1; ++i) {
        Group* g = nullptr;
        if (V.coalesce)
          for (std::size_t k = first; k < groups.size() && !g; ++k)
            if (pages_of(groups[k].lanes[0]) == pages_of(i)) g = &groups[k];
        if (!g) {
          groups.emplace_back();
          g = &groups.back();
        }
        g->lanes.push_back(i);
      }
    }
    for (Group& g : groups)
      g.op = AllocOp<Atom>(pages_of(g.lanes[0]), static_cast<unsigned>(g.lanes.size()),
                           static_cast<unsigned>(g.lanes[0] / s_.lanes), seed_of(seed, g.lanes[0]),
                           config(bound));
    std::vector<std::pair<std::uint64_t, std::size_t>> order;
    std::vector<std::size_t> active(groups.size());
    for (std::size_t k = 0; k < groups.size(); ++k) active[k] = k;
    for (std::uint64_t round = 0; !active.empty(); ++round) {
      order.clear();
      for (const std::size_t k : active)
        order.emplace_back(round_priority(seed, groups[k].lanes[0], round), k);
      std::sort(order.begin(), order.end());
      active.clear();
      for (const auto& [priority, k] : order) {
        if (advance(groups[k], r))
          complete(groups[k], r, c);
        else
          active.push_back(k);
      }
      std::sort(active.begin(), active.end());
    }
    count_taken(r, c);
  }

  Scenario s_;
  SimOptions opt_;
  Bitmap used_;                     // pages of live objects and of the application
  std::vector<std::uint8_t> held_;  // per first page, n of the object a request holds there
  std::atomic<std::uint64_t> live_pages_{0};
  dynasoar::HeapStorage heap_;
  std::mutex free_mutex_;
  DsCounts free_counts_;
};

void check_dynasoar_scenario(const Scenario& s, const SimOptions& o) {
  if (s.T < 64)
    throw InputError("--T", "dynasoar's heap is blocks of 64 pages (the smallest type's slots): " +
                                std::to_string(s.T) + " pages are less than one block");
  auto check = [](unsigned n) {
    if (n < 1 || n > dynasoar::kMaxTypePages)
      throw InputError("--pages",
                       "dynasoar's types are 1 to 64 pages (a page is the smallest type; §3.2: "
                       "at most 64 times the smallest); got " +
                           std::to_string(n));
  };
  check(s.pages);
  for (const unsigned n : o.pages_per_thread) check(n);
}

// The block bitmaps (free and 2 x 64 typed ones), a bitmap and a type per block; the page mirror
// and a byte per page (held sizes).
double ds_pool_bytes(const Scenario& s) {
  const std::uint64_t M = dynasoar::heap_blocks(s.T);
  return 8.0 * static_cast<double>(dynasoar::hb_total_words(M) + dynasoar::heap_type_words(M) + M) +
         4.0 * static_cast<double>(M) + bitmap_bytes(s.T, 64) + static_cast<double>(s.T);
}

}  // namespace

ALLOCLAB_REGISTER_ENTRY(SimTable, Algorithm::dynasoar,
                        (SimEntry{.make = &make_allocator_of<DynasoarAllocator<Variant{}>>,
                                  .check = &check_dynasoar_scenario,
                                  .pool_bytes = &ds_pool_bytes,
                                  .lane_bytes_per_thread = 256,
                                  .step_bound = &ds_step_bound}))
ALLOCLAB_REGISTER_ENTRY(
    SimTable, Algorithm::dynasoar_nocoal,
    (SimEntry{.make = &make_allocator_of<DynasoarAllocator<Variant{.coalesce = false}>>,
              .check = &check_dynasoar_scenario,
              .pool_bytes = &ds_pool_bytes,
              .lane_bytes_per_thread = 256,
              .step_bound = &ds_step_bound}))
ALLOCLAB_REGISTER_ENTRY(SimTable, Algorithm::dynasoar_norot,
                        (SimEntry{
                            .make = &make_allocator_of<DynasoarAllocator<Variant{.rotate = false}>>,
                            .check = &check_dynasoar_scenario,
                            .pool_bytes = &ds_pool_bytes,
                            .lane_bytes_per_thread = 256,
                            .step_bound = &ds_step_bound}))

// The typed heap of byte-sized types (typed_heap.hpp: the application workloads) runs the same
// step machines; these entries say how each variant drives them.
ALLOCLAB_REGISTER_ENTRY(TypedHeapTable, Algorithm::dynasoar, (TypedHeapEntry{}))
ALLOCLAB_REGISTER_ENTRY(TypedHeapTable, Algorithm::dynasoar_nocoal,
                        (TypedHeapEntry{.coalesce = false}))
ALLOCLAB_REGISTER_ENTRY(TypedHeapTable, Algorithm::dynasoar_norot,
                        (TypedHeapEntry{.rotate = false}))

}  // namespace alloclab::sim::detail
