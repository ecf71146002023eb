// What the simulator's Ouroboros allocators (ouro_page.cpp: variant P, ouro_chunk.cpp: variant C)
// share: the pool as the memory manager sees it (chunks with every unit free at the start, handed
// out in ascending order), the used-unit mirror that verifies every page handed out and every
// free, and the lockstep engine with warp aggregation.
//
// Units: a simulator "page" is 16 B (the smallest page), a chunk 512 of them; a request of n
// units is served by the class 2^k >= n, and the first n units of that page are the request's
// (the rest is internal fragmentation: neither used nor free to anyone else).
//
// Lockstep with warp aggregation, as on hardware: the lanes of a warp (`lanes` consecutive
// threads) that ask for one class form a group whose leader (lowest lane) waits on the semaphore
// for the whole group; then every lane finishes its own part. A group that runs out of memory as
// a whole splits into its lanes, each asking for its own page (fewer pages than a warp asks for
// may remain). Each round, every unfinished group issues one step (its leader's, or every
// unfinished lane's together), groups in round-priority order; each step is applied whole, so
// the atomics of a round are serialised in that order.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/ouroboros/chunk_queue.hpp"
#include "alloclab/core/ouroboros/layout.hpp"
#include "alloclab/core/ouroboros/page_queue.hpp"
#include "detail.hpp"
#include "ouro_config.hpp"

namespace alloclab::sim::detail {

// A wait that never ends is a defect of the allocator (every wait is for an operation that is
// running); the simulator stops it rather than hang.
inline constexpr std::uint64_t kOuroStuckSpins = std::uint64_t{1} << 32;

// After a spin of a host thread: yield; a wait past kOuroStuckSpins is a defect (throws `what`).
struct YieldOrStop {
  const char* what;
  bool operator()(std::uint64_t spins) const {
    if (spins >= kOuroStuckSpins) throw VerificationError(what);
    std::this_thread::yield();
    return true;
  }
};

class OuroSimBase : public Allocator {
 public:
  OuroSimBase(const Scenario& s, const SimOptions& o, std::uint64_t pool_seed)
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
  }

  std::vector<std::uint64_t> used_pages() const override { return used_.used_pages(); }
  std::uint64_t free_count() const override { return s_.T - live_units_.load(); }

 protected:
  unsigned units_of(std::uint64_t i) const {
    return opt_.pages_per_thread.empty() ? s_.pages : opt_.pages_per_thread[i];
  }
  unsigned class_of(std::uint64_t i) const { return ouro::page_class_of_units(units_of(i)); }
  std::uint64_t step_bound() const { return default_step_bound(s_, opt_); }

  // The page starting at `unit` handed to thread i: mark its units (the mirror), record it.
  void take(std::uint64_t i, std::uint64_t unit, RunResult& r, Counters& c) {
    const unsigned n = units_of(i);
    if (unit + n > s_.T) throw VerificationError("a page past the pool's end");
    for (std::uint64_t u = unit; u < unit + n; ++u) {
      const std::uint64_t bit = std::uint64_t{1} << (u % 64);
      if (used_.fetch_or(u / 64, bit) & bit)
        throw VerificationError(std::string(name(s_.algo)) + " handed out unit " +
                                std::to_string(u) + " which is in use");
    }
    live_units_.fetch_add(n);
    r.first_page[i] = static_cast<std::int64_t>(unit);
    c.taken += n;
  }

  // A free of n units from first_page: checks it against the mirror and clears them; returns
  // the class of the page it frees.
  unsigned release(std::uint64_t first_page, unsigned n) {
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
    return k;
  }

  static void count(const ouro::OpCounts& oc, Counters& c) {
    c.probes += oc.memory_ops;
    c.atomics += oc.atomics;
    c.failed_claims += oc.failed;
    c.collisions += oc.failed;
    std::uint32_t mine[ouro::kOpCountValues];
    ouro::op_count_values(oc, mine);
    for (unsigned i = 0; i < ouro::kOpCountValues; ++i) c.extra[i] += mine[i];
  }
  static void count(const ouro::ChunkCounts& cc, Counters& c) {
    count(cc.ops, c);
    std::uint32_t mine[ouro::kChunkCountValues];
    ouro::chunk_count_values(cc, mine);
    for (unsigned i = ouro::kOpCountValues; i < ouro::kChunkCountValues; ++i) c.extra[i] += mine[i];
  }
  // The names of the counts above, in RunResult::op_counts (core/ouroboros/op_counts.hpp).
  static std::vector<const char*> op_count_names(bool chunk_queue) {
    if (chunk_queue) return {std::begin(ouro::kChunkCountNames), std::end(ouro::kChunkCountNames)};
    return {std::begin(ouro::kOpCountNames), std::end(ouro::kOpCountNames)};
  }

  // allocate() in the three modes; `driver` (the derived allocator) provides
  // serve_alone(i, bound, RunResult&, Counters&) (one request to its end, by one host thread) and
  // the lockstep interface of run_warp_lockstep with its Group type.
  template <class Driver>
  RunResult allocate_in_modes(Driver& driver, std::uint64_t seed);
  bool chunk_queue_ = false;  // variant C: its walk's counts too (op_count_names)

  static void check_failure(ouro::ReserveOutcome o) {
    if (o == ouro::ReserveOutcome::counter_overflow)
      throw VerificationError(
          "the bulk semaphore's counters overflowed (a configuration the input checks missed)");
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
};

// What every lockstep group has; a driver's group type derives from it.
struct WarpGroupBase {
  std::uint64_t leader = 0;          // lowest thread id of the group
  unsigned k = 0;                    // its class
  std::vector<std::uint64_t> lanes;  // thread ids
  std::uint32_t rounds = 0;
  bool done = false;
};

// A group of `lanes` of class k whose leader's reservation (Reserve(n, k)) waits for all of them.
template <class Group, class Reserve>
Group make_warp_group(std::uint64_t leader, unsigned k, std::vector<std::uint64_t> lanes,
                      std::uint32_t rounds) {
  Group g;
  g.leader = leader;
  g.k = k;
  g.op = std::make_unique<Reserve>(static_cast<std::uint32_t>(lanes.size()), k);
  g.lanes = std::move(lanes);
  g.rounds = rounds;
  return g;
}

// The lockstep rounds over the groups of every warp by class (see the file comment).
// `driver` provides:
//   unsigned class_of(i);
//   Group make(leader, k, lanes, rounds)      a group waiting for lanes.size() pages;
//   bool step(Group&, bound)                  one round; true when the group has finished;
//   bool splits(const Group&)                 finished out of memory as a whole: split;
//   void discard(Group&, Counters&)           the counts of a group that split;
//   void finish_group(Group&, RunResult&, Counters&).
template <class Group, class Driver>
void run_warp_lockstep(Driver& driver, const Scenario& s, std::uint64_t seed, std::uint64_t bound,
                       RunResult& r, Counters& c) {
  std::vector<Group> groups;
  for (std::uint64_t first = 0; first < s.N; first += s.lanes) {
    const std::uint64_t end = std::min<std::uint64_t>(s.N, first + s.lanes);
    std::vector<std::pair<unsigned, std::vector<std::uint64_t>>> by_class;
    for (std::uint64_t i = first; i < end; ++i) {
      const unsigned k = driver.class_of(i);
      auto same = std::find_if(by_class.begin(), by_class.end(),
                               [&](const auto& g) { return g.first == k; });
      if (same == by_class.end()) {
        by_class.push_back({k, {}});
        same = by_class.end() - 1;
      }
      same->second.push_back(i);
    }
    for (auto& [k, lanes] : by_class) {
      const std::uint64_t leader = lanes.front();
      groups.push_back(driver.make(leader, k, std::move(lanes), 0));
    }
  }
  std::vector<std::pair<std::uint64_t, std::size_t>> order;
  std::vector<Group> split;
  std::size_t unfinished = groups.size();
  for (std::uint64_t round = 0; unfinished > 0; ++round) {
    if (round >= kOuroStuckSpins) throw VerificationError("lockstep rounds never ended");
    order.clear();
    for (std::size_t j = 0; j < groups.size(); ++j)
      if (!groups[j].done) order.emplace_back(round_priority(seed, groups[j].leader, round), j);
    std::sort(order.begin(), order.end());
    for (const auto& [priority, j] : order) {
      Group& g = groups[j];
      ++g.rounds;
      if (!driver.step(g, bound)) continue;
      g.done = true;
      --unfinished;
      if (driver.splits(g)) {
        // Out of memory for the whole group is not out of memory for each lane: the lanes ask
        // again one by one (a chunk of big pages may hold fewer pages than a warp asks for).
        for (const std::uint64_t i : g.lanes) split.push_back(driver.make(i, g.k, {i}, g.rounds));
        driver.discard(g, c);
      } else {
        driver.finish_group(g, r, c);
      }
    }
    for (auto& g : split) groups.push_back(std::move(g));
    unfinished += split.size();
    split.clear();
  }
}

template <class Driver>
RunResult OuroSimBase::allocate_in_modes(Driver& driver, std::uint64_t seed) {
  RunResult r;
  r.steps.assign(s_.N, 0);
  r.first_page.assign(s_.N, -1);
  const std::uint64_t bound = step_bound();
  std::vector<Counters> c(1);
  if (opt_.mode == Mode::threads) {
    const unsigned workers = resolve_host_threads(opt_.host_threads);
    c.assign(workers, Counters{});
    parallel_for(
        s_.N, workers,
        [&](std::uint64_t i, unsigned wk) { driver.serve_alone(i, bound, r, c[wk]); }, 16);
  } else if (opt_.mode == Mode::sequential) {
    r.service_order = service_order(seed, s_.N);
    for (const std::uint64_t i : r.service_order) driver.serve_alone(i, bound, r, c[0]);
  } else {
    run_warp_lockstep<typename Driver::Group>(driver, s_, seed, bound, r, c[0]);
  }
  finish(r, c, op_count_names(chunk_queue_));
  return r;
}

}  // namespace alloclab::sim::detail
