// TBuddy (Gelado & Garland, PPoPP'19 §4.1) in the simulator: the step machines of
// core/gelado/tbuddy.hpp driven in the three modes over one tree (studies/gelado-garland/tbuddy.md,
// "TBuddy in the simulator").
//
// The pool: core/gelado/tbuddy_pool.hpp (shared with the GPU): height ceil(log2 T), the initial
// free pages merged as far as the buddy rule allows, n pages take a block of 2^ceil(log2 n).
// Modes:
//  * sequential: requests one at a time in the random service order, each to its end.
//  * lockstep: every unfinished simulated thread issues one step per round, threads in round-
//    priority order; each step is applied whole. No warp aggregation: the paper's TBuddy has none
//    (each thread waits on its order's semaphore for itself).
//  * threads: host threads run requests concurrently on std::atomic_ref words.
// Steps (the registry's unit): a request's steps are its machine's steps, one memory operation
// each on a node word or a semaphore word (a spin is a step: a load that saw a lock held).
// Step bound (SimOptions::max_probes_per_request, default below): a request that has made
// `bound` steps gives up where that leaves nothing half done (TBuddyAlloc::give_up: in a wait or
// holding only a unit); while it holds a node lock, splits or climbs, it finishes first. It fails
// (counted in RunResult::failed), and its steps are all it made.
// Verification, beyond the simulator's own (no page twice, conservation): a mirror of used pages
// catches a page handed out twice and double frees, a held block records its order per first
// page, no operation ever holds more than 2 node locks, and the tree is checked at rest
// (gelado::tbuddy_check: I1, I2, summaries, no lock, tiling, semaphores = Available nodes) at the
// start of every allocate() (so every free since the last one is checked) and at its end.
#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/gelado/tbuddy.hpp"
#include "alloclab/core/gelado/tbuddy_pool.hpp"
#include "alloclab/core/ouroboros/host_atomics.hpp"
#include "alloclab/core/random_stream.hpp"
#include "detail.hpp"
#include "engine.hpp"

namespace alloclab::sim::detail {
namespace {

using Atom = ouro::CountingAtomics<ouro::HostAtomics>;
using gelado::NodeState;
using gelado::StepStatus;
using gelado::TBuddyStats;
using Alloc = gelado::TBuddyAlloc<Atom>;
using Free = gelado::TBuddyFree<Atom>;

// A machine that never ends is a defect (every wait is for an operation that is running).
constexpr std::uint64_t kStuckSteps = std::uint64_t{1} << 32;

using gelado::tbuddy_height_of;
using gelado::tbuddy_order_of;

// RunResult::op_counts, per run (Counters::extra). The alloc's TBuddyStats, then the frees' made
// since the previous allocate() (free() returns only its atomics).
enum Count : unsigned {
  waits_took,
  waits_grew,
  reserves,
  sem_cas_failures,
  sem_spins,
  nodes_visited,
  sweeps,
  claim_cas_failures,
  lock_spins,
  splits,
  propagations,
  node_ops,
  gave_up,
  free_try_waits_took,
  free_try_waits_empty,
  free_merges,
  free_merge_waits,
  free_lock_spins,
  kCounts
};
const char* const kCountNames[kCounts] = {
    "waits_took",       "waits_grew",          "reserves",
    "sem_cas_failures", "sem_spins",           "nodes_visited",
    "sweeps",           "claim_cas_failures",  "lock_spins",
    "splits",           "propagations",        "node_ops",
    "gave_up",          "free_try_waits_took", "free_try_waits_empty",
    "free_merges",      "free_merge_waits",    "free_lock_spins"};
static_assert(kCounts <= Counters::kExtra);

class TBuddyAllocator final : public Allocator {
 public:
  TBuddyAllocator(const Scenario& s, const SimOptions& o, std::uint64_t pool_seed)
      : s_(s),
        opt_(o),
        height_(tbuddy_height_of(s.T)),
        storage_(height_),
        used_(s.T, 64),
        held_order_(std::size_t{1} << height_, 0) {
    const std::uint64_t leaves = std::uint64_t{1} << height_;
    std::vector<std::uint8_t> free_page(leaves, 0);
    const auto free_pages =
        initial_free_pages(s, o.occupancy, pool_seed, resolve_host_threads(o.host_threads));
    for (const std::uint64_t p : free_pages) free_page[p] = 1;
    for (std::uint64_t j = 0; j < used_.words(); ++j) used_.store(j, ~std::uint64_t{0});
    for (const std::uint64_t p : free_pages)
      used_.fetch_and(p / 64, ~(std::uint64_t{1} << (p % 64)));
    live_pages_.store(s.T - free_pages.size());
    build_tree(free_page);
  }

  RunResult allocate(std::uint64_t seed) override {
    check_at_rest("before an allocation (after the frees since the last one)");
    RunResult r;
    r.steps.assign(s_.N, 0);
    r.first_page.assign(s_.N, -1);
    const std::uint64_t bound = default_step_bound(s_, opt_);
    std::vector<Counters> c(1);
    run_step_machines(
        s_, opt_, seed, r, c, [&](std::uint64_t i) { return make_req(i, seed); },
        [&](Req& q) { return advance(q, bound); },
        [&](const Req& q, Counters& ci) { complete(q, r, ci); });
    // The frees' counts since the last allocation.
    for (unsigned k = free_try_waits_took; k < kCounts; ++k)
      c[0].extra[k] += free_counts_[k - free_try_waits_took].exchange(0);
    finish(r, c, {std::begin(kCountNames), std::end(kCountNames)});
    check_at_rest("after an allocation");
    return r;
  }

  std::uint64_t free(std::uint64_t first_page, unsigned n) override {
    if (first_page >= s_.T || n == 0 || first_page + n > s_.T)
      throw VerificationError("free of pages outside the pool");
    const unsigned held = held_order_[first_page];
    if (held == 0 || n > (std::uint64_t{1} << (held - 1)))
      throw VerificationError("free of page " + std::to_string(first_page) +
                              " which does not start a block handed out for " + std::to_string(n) +
                              " pages");
    for (std::uint64_t p = first_page; p < first_page + n; ++p) {
      const std::uint64_t bit = std::uint64_t{1} << (p % 64);
      if (!(used_.fetch_and(p / 64, ~bit) & bit))
        throw VerificationError("double free of page " + std::to_string(p));
    }
    live_pages_.fetch_sub(n);
    held_order_[first_page] = 0;
    const gelado::TBuddyTree& t = storage_.tree;
    Free op(t, gelado::tb_node(height_, static_cast<std::uint32_t>(first_page), held - 1));
    const ouro::AtomicOpCounts before = Atom::counts();
    for (std::uint64_t k = 0;; ++k) {
      if (k >= kStuckSteps) throw VerificationError("a TBuddy free never ended");
      const StepStatus st = op.step(t);
      if (st == StepStatus::done) break;
      if (st == StepStatus::spinning) std::this_thread::yield();
    }
    const TBuddyStats& ts = op.stats();
    check_locks(ts);
    free_counts_[0] += ts.try_waits_took;
    free_counts_[1] += ts.try_waits_empty;
    free_counts_[2] += ts.merges;
    free_counts_[3] += ts.merge_waits;
    free_counts_[4] += ts.lock_spins;
    return Atom::counts().rmw() - before.rmw();
  }

  std::vector<std::uint64_t> used_pages() const override { return used_.used_pages(); }
  std::uint64_t free_count() const override { return s_.T - live_pages_.load(); }

 private:
  unsigned pages_of(std::uint64_t i) const {
    return opt_.pages_per_thread.empty() ? s_.pages : opt_.pages_per_thread[i];
  }
  static std::uint32_t scatter_of(std::uint64_t seed, std::uint64_t i) {
    return static_cast<std::uint32_t>(PhiloxStream(seed, StreamDomain::probe, i).bits(0));
  }

  // The initial tree from the free pages (core/gelado/tbuddy_pool.hpp).
  void build_tree(const std::vector<std::uint8_t>& free_page) {
    app_blocks_ = gelado::tbuddy_build(storage_.tree, free_page);
  }

  void check_at_rest(const char* when) const {
    std::vector<std::uint32_t> held = app_blocks_;
    for (std::uint64_t p = 0; p < held_order_.size(); ++p)
      if (held_order_[p])
        held.push_back(gelado::tb_node(height_, static_cast<std::uint32_t>(p), held_order_[p] - 1));
    const std::string e = gelado::tbuddy_check(storage_.tree, held);
    if (!e.empty()) throw VerificationError("gg-tbuddy: " + e + " " + when);
  }
  static void check_locks(const TBuddyStats& ts) {
    if (ts.max_locks_held > 2)
      throw VerificationError("a TBuddy operation held " + std::to_string(ts.max_locks_held) +
                              " node locks at once (lock coupling allows 2)");
  }

  // Request i's alloc with its step count and what it has issued.
  struct Req {
    std::uint64_t thread = 0;
    Alloc op{0, 0};
    std::uint64_t steps = 0;
    std::uint64_t loads = 0, rmws = 0;
    bool stopping = false;  // gave up at the bound: the growers below it signal their failure
  };
  Req make_req(std::uint64_t i, std::uint64_t seed) const {
    Req q;
    q.thread = i;
    q.op = Alloc(tbuddy_order_of(pages_of(i)), scatter_of(seed, i));
    return q;
  }
  // One step of q (after it gives up, if it reached the bound and can); true when it is done.
  bool advance(Req& q, std::uint64_t bound) const {
    const gelado::TBuddyTree& t = storage_.tree;
    const ouro::AtomicOpCounts before = Atom::counts();
    if (q.steps >= bound && !q.stopping) q.stopping = q.op.give_up(t);
    bool done = q.op.phase() == gelado::TBuddyAllocPhase::done;
    StepStatus st = StepStatus::done;
    if (!done) {
      st = q.op.step(t);
      ++q.steps;
      done = st == StepStatus::done;
    }
    const ouro::AtomicOpCounts& after = Atom::counts();
    q.loads += after.loads - before.loads;
    q.rmws += after.rmw() - before.rmw();
    if (q.steps >= kStuckSteps) throw VerificationError("a TBuddy alloc never ended");
    if (!done && st == StepStatus::spinning && opt_.mode == Mode::threads)
      std::this_thread::yield();
    return done;
  }
  // q is done: its block (verified, recorded) or its failure, and its counts.
  void complete(const Req& q, RunResult& r, Counters& c) {
    const TBuddyStats& ts = q.op.stats();
    check_locks(ts);
    if (q.op.overflowed())
      throw VerificationError(
          "a TBuddy semaphore's counters overflowed (a configuration the input checks missed)");
    const std::uint64_t i = q.thread;
    r.steps[i] = static_cast<std::uint32_t>(q.steps);
    c.probes += q.loads + q.rmws;
    c.atomics += q.rmws;
    c.collisions += ts.cas_failures + ts.sem_cas_failures;
    c.failed_claims += ts.cas_failures + ts.sem_cas_failures;
    const std::uint32_t node = q.op.node();
    if (node == 0) {
      ++c.failed;
    } else {
      take(i, node, r, c);
    }
    const std::uint32_t v[] = {
        ts.waits_took,    ts.waits_grew, ts.reserves,     ts.sem_cas_failures, ts.sem_spins,
        ts.nodes_visited, ts.sweeps,     ts.cas_failures, ts.lock_spins,       ts.splits,
        ts.propagations,  ts.memory_ops, ts.gave_up};
    for (unsigned k = 0; k < std::size(v); ++k) c.extra[k] += v[k];
  }
  // The block `node` handed to thread i: mark its first n pages in the mirror, record its order.
  void take(std::uint64_t i, std::uint32_t node, RunResult& r, Counters& c) {
    const unsigned n = pages_of(i);
    const std::uint32_t order = gelado::tb_height(height_, node);
    const std::uint64_t first = gelado::tb_offset(height_, node);
    if (order != tbuddy_order_of(n)) throw VerificationError("a TBuddy block of the wrong order");
    if (first + n > s_.T) throw VerificationError("a TBuddy block past the pool's end");
    for (std::uint64_t p = first; p < first + n; ++p) {
      const std::uint64_t bit = std::uint64_t{1} << (p % 64);
      if (used_.fetch_or(p / 64, bit) & bit)
        throw VerificationError("gg-tbuddy handed out page " + std::to_string(p) +
                                " which is in use");
    }
    held_order_[first] = static_cast<std::uint8_t>(order + 1);
    live_pages_.fetch_add(n);
    r.first_page[i] = static_cast<std::int64_t>(first);
    c.taken += n;
  }

  Scenario s_;
  SimOptions opt_;
  std::uint32_t height_;
  gelado::TBuddyStorage storage_;  // the tree and the semaphores, written through Atom
  Bitmap used_;                    // pages held by live requests or the application
  std::atomic<std::uint64_t> live_pages_{0};
  // Per first page, 1 + the order of the block a request holds there (0: none).
  std::vector<std::uint8_t> held_order_;
  std::vector<std::uint32_t> app_blocks_;  // the application's Busy blocks, for the checker
  std::atomic<std::uint64_t> free_counts_[kCounts - free_try_waits_took] = {};
};

void check_tbuddy_scenario(const Scenario& s, const SimOptions& o) {
  // Requests in flight at once hold E and R units of a semaphore: every thread in lockstep.
  const std::uint64_t in_flight =
      o.mode == Mode::lockstep  ? s.N
      : o.mode == Mode::threads ? std::min<std::uint64_t>(s.N, resolve_host_threads(o.host_threads))
                                : 1;
  gelado::check_tbuddy_scenario(s, o.pages_per_thread, in_flight);
}

// A request is a walk of the tree at most (2^(H+1) node reads per sweep) plus O(H) locks and
// writes; in lockstep or among host threads it also waits for the others (a semaphore CAS admits
// one thread per round): 16 times (N + a sweep of the tree) + 64 per level.
std::uint64_t tbuddy_step_bound(const Scenario& s) {
  const std::uint64_t h = tbuddy_height_of(s.T);
  const std::uint64_t steps = 16 * (s.N + (std::uint64_t{2} << h)) + 64 * (h + 1);
  return std::min<std::uint64_t>(steps, 4294967294ull);
}

}  // namespace

// Memory: the tree (4 B per node, 2^(H+1)), the used-page mirror, a byte per leaf (held orders),
// the application's blocks and the checker's scratch (a byte per node, the held list).
ALLOCLAB_REGISTER_ENTRY(SimTable, Algorithm::gg_tbuddy,
                        (SimEntry{.make = &make_allocator_of<TBuddyAllocator>,
                                  .check = &check_tbuddy_scenario,
                                  .pool_bytes =
                                      [](const Scenario& s) {
                                        const double leaves = static_cast<double>(
                                            std::uint64_t{1} << tbuddy_height_of(s.T));
                                        return bitmap_bytes(s.T, 64) + 8 * leaves + leaves +
                                               8 * leaves + 2 * leaves + 8 * leaves;
                                      },
                                  .lane_bytes_per_thread = 256,
                                  .step_bound = &tbuddy_step_bound}))

}  // namespace alloclab::sim::detail
