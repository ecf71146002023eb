// Internal machinery shared by the allocators: the atomic bitmap, the initial pool, run context,
// service order / priorities, host-thread fan-out, the batched probe generator and the factory
// each allocator registers in the simulator's table.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "alloclab/core/bit_tricks.hpp"
#include "alloclab/core/probe_sequence.hpp"
#include "alloclab/core/scenario.hpp"
#include "alloclab/cpu_sim/memory_estimate.hpp"
#include "alloclab/cpu_sim/sim_table.hpp"
#include "alloclab/cpu_sim/simulator.hpp"

namespace alloclab::sim::detail {

// Bitmap of T pages in words of w bits (1..64), each stored in one 64-bit atomic slot (low w
// bits). Page p = word * w + bit. Bits past T in the last word are permanently set ("used").
class Bitmap {
 public:
  Bitmap(std::uint64_t T, unsigned w);
  std::uint64_t pages() const { return T_; }
  std::uint64_t words() const { return words_; }
  unsigned w() const { return w_; }
  std::uint64_t full() const { return full_; }  // low_mask(w)

  std::uint64_t load(std::uint64_t j) const { return a_[j].load(std::memory_order_relaxed); }
  std::uint64_t load_acquire(std::uint64_t j) const {
    return a_[j].load(std::memory_order_acquire);
  }
  std::uint64_t fetch_or(std::uint64_t j, std::uint64_t m) {
    return a_[j].fetch_or(m, std::memory_order_acq_rel);
  }
  std::uint64_t fetch_and(std::uint64_t j, std::uint64_t m) {
    return a_[j].fetch_and(m, std::memory_order_acq_rel);
  }
  void store(std::uint64_t j, std::uint64_t v) { a_[j].store(v, std::memory_order_relaxed); }

  bool used(std::uint64_t page) const { return (load(page / w_) >> (page % w_)) & 1u; }
  // Sets pages [first, first + n) if all are free (word by word; on failure the bits this call
  // set are cleared again). Returns false if any was in use. Adds the atomic RMWs it issued
  // (one OR per word piece up to the first that found a bit set, then one AND per piece
  // undone) to `atomics`.
  bool claim_range(std::uint64_t first, std::uint64_t n, std::uint64_t& atomics);
  // Clears pages [first, first + n), one atomic AND per word piece; returns the ANDs issued.
  // Throws VerificationError if a page was not in use.
  std::uint64_t release_range(std::uint64_t first, std::uint64_t n);

  std::uint64_t count_free() const;
  std::vector<std::uint64_t> used_pages() const;  // packed 64 pages per element

 private:
  std::uint64_t T_, words_;
  unsigned w_;
  std::uint64_t full_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> a_;
};

// Initial state (occupancy of the pool) for the seed: fills `bm` (all pages used except the
// A free ones). Parallel over host threads for large T; the result does not depend on that.
void build_pool(Bitmap& bm, const Scenario& s, Occupancy occ, std::uint64_t pool_seed,
                unsigned host_threads);
// The free page ids in ascending order (queue initialisation).
std::vector<std::uint64_t> initial_free_pages(const Scenario& s, Occupancy occ,
                                              std::uint64_t pool_seed, unsigned host_threads);

unsigned resolve_host_threads(unsigned requested);

// Runs fn(unit, worker) for unit in [0, units) on `workers` host threads (dynamic chunks).
void parallel_for(std::uint64_t units, unsigned workers,
                  const std::function<void(std::uint64_t, unsigned)>& fn, std::uint64_t chunk = 1);

// Sequential mode: the order in which units (threads or warps) are served: sorted by
// PhiloxStream(seed, order, unit).bits(0), ties by id.
std::vector<std::uint64_t> service_order(std::uint64_t seed, std::uint64_t units);
// The ids 0..keys.size()-1 sorted by (keys[id], id): service_order's sort.
std::vector<std::uint64_t> order_by_keys(const std::vector<std::uint64_t>& keys);
// Lockstep mode: priority of thread `thread` in round r (>= 0): lower wins a conflict.
inline std::uint64_t round_priority(std::uint64_t seed, std::uint64_t thread, std::uint64_t r) {
  return PhiloxStream(seed, StreamDomain::order, thread).bits(r + 1);
}

// 16 consecutive probe numbers: out[j] == probe_bits(seed, thread, k0 + j); k0 must be even.
constexpr unsigned kProbeBatch = 16;
void probe_bits_batch(std::uint64_t seed, std::uint64_t thread, std::uint64_t k0,
                      std::uint64_t out[kProbeBatch]);

// What a run needs to know.
struct Run {
  const Scenario& s;
  const SimOptions& opt;
  std::uint64_t seed;   // probe / order streams
  std::uint64_t bound;  // steps (rounds) before a request gives up
  unsigned workers;     // host threads (threads mode)
  RunResult& out;
  unsigned pages_of(std::uint64_t thread) const {
    return opt.pages_per_thread.empty() ? s.pages : opt.pages_per_thread[thread];
  }
};

// The SimEntry factory (alloclab/cpu_sim/sim_table.hpp) of an allocator class constructed from
// (scenario, options, pool seed): each allocator's file registers make_allocator_of<Its class>.
template <class AllocatorClass>
std::unique_ptr<Allocator> make_allocator_of(const Scenario& s, const SimOptions& o,
                                             std::uint64_t pool_seed) {
  return std::make_unique<AllocatorClass>(s, o, pool_seed);
}

// Base for the bitmap allocators.
class BitmapAllocator : public Allocator {
 public:
  BitmapAllocator(const Scenario& s, const SimOptions& o, std::uint64_t pool_seed, unsigned w)
      : s_(s), opt_(o), bm_(s.T, w) {
    build_pool(bm_, s, o.occupancy, pool_seed, resolve_host_threads(o.host_threads));
    free_.store(bm_.count_free());
  }
  std::uint64_t free(std::uint64_t first_page, unsigned n) override {
    const std::uint64_t ands = bm_.release_range(first_page, n);
    free_.fetch_add(n, std::memory_order_relaxed);  // the simulator's counter: not counted
    return ands;
  }
  std::vector<std::uint64_t> used_pages() const override { return bm_.used_pages(); }
  std::uint64_t free_count() const override { return free_.load(); }

 protected:
  RunResult fresh_result(std::uint64_t seed) const;
  Scenario s_;
  SimOptions opt_;
  Bitmap bm_;
  std::atomic<std::uint64_t> free_{0};  // exact count of free pages (updated on every take)
};

}  // namespace alloclab::sim::detail
