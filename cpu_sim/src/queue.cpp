// Queue baseline (Ouroboros-style, paper 000 Eq. 1): a FIFO ring of free page ids with one
// shared head and tail counter. Decisions:
//  * The ring starts with the A free pages in ascending page order.
//  * Step semantics (registry): the request served k-th takes k steps: sequential = k-th in
//    the random service order; lockstep = all threads issue their dequeue in round 1 and the
//    hardware serialises them in round-priority order; threads = k-th successful dequeue on
//    the shared head counter. A request that finds the queue empty fails at once (a queue
//    knows it is empty) with steps = its position.
//  * Dequeue is a compare-and-swap on head (so an empty queue is never over-drawn); failed CAS
//    attempts count as collisions (threads mode only). Enqueue (free) is a fetch_add on tail
//    followed by a store into the slot; a dequeue that sees the slot not yet written waits for
//    it (only possible while a free runs concurrently).
//  * A mirror bitmap of used pages is kept for verification and double-free detection.
//  * Atomics counted (RunResult::atomics_issued): the CAS attempts on head (threads mode; a
//    failed one is a failed claim and a collision); sequential and lockstep serialise the
//    dequeues, so there each successful one counts as one atomic that cannot fail. A request
//    that finds the queue empty issues none. The ring-slot hand-off and the mirror are the
//    simulator's bookkeeping and are not counted. A free issues one atomic per page: the
//    fetch_add on tail (the used-page mirror's AND is bookkeeping).
#include <thread>

#include "alloclab/core/errors.hpp"
#include "detail.hpp"
#include "engine.hpp"

namespace alloclab::sim::detail {
namespace {

class QueueAllocator final : public Allocator {
 public:
  QueueAllocator(const Scenario& s, const SimOptions& o, std::uint64_t ps)
      : s_(s), opt_(o), used_(s.T, 64), slots_(s.T) {
    for (auto& x : slots_) x.store(-1, std::memory_order_relaxed);
    const auto fp = initial_free_pages(s, o.occupancy, ps, resolve_host_threads(o.host_threads));
    for (std::uint64_t j = 0; j < used_.words(); ++j) used_.store(j, ~std::uint64_t{0});
    for (std::uint64_t k = 0; k < fp.size(); ++k) {
      slots_[k].store(static_cast<std::int64_t>(fp[k]), std::memory_order_relaxed);
      used_.fetch_and(fp[k] / 64, ~(std::uint64_t{1} << (fp[k] % 64)));
    }
    tail_.store(fp.size());
  }

  RunResult allocate(std::uint64_t seed) override {
    RunResult r;
    r.steps.assign(s_.N, 0);
    r.first_page.assign(s_.N, -1);
    const unsigned workers = resolve_host_threads(opt_.host_threads);
    const std::uint64_t head0 = head_.load();
    if (opt_.mode == Mode::threads) {
      std::vector<Counters> c(workers);
      parallel_for(
          s_.N, workers,
          [&](std::uint64_t i, unsigned wk) {
            std::uint64_t h = head_.load();
            for (;;) {
              if (h >= tail_.load()) {
                r.steps[i] = static_cast<std::uint32_t>(h - head0 + 1);
                ++c[wk].failed;
                ++c[wk].probes;
                return;
              }
              ++c[wk].probes;
              ++c[wk].atomics;
              if (head_.compare_exchange_weak(h, h + 1)) break;
              ++c[wk].collisions;
              ++c[wk].failed_claims;
            }
            r.steps[i] = static_cast<std::uint32_t>(h - head0 + 1);
            r.first_page[i] = take_slot(h);
            ++c[wk].taken;
          },
          16);
      finish(r, c);
    } else {
      std::vector<std::uint64_t> order;
      if (opt_.mode == Mode::sequential) {
        order = service_order(seed, s_.N);
      } else {
        std::vector<std::pair<std::uint64_t, std::uint64_t>> keyed(s_.N);
        for (std::uint64_t i = 0; i < s_.N; ++i) keyed[i] = {round_priority(seed, i, 0), i};
        std::sort(keyed.begin(), keyed.end());
        for (auto& kv : keyed) order.push_back(kv.second);
      }
      if (opt_.mode == Mode::sequential) r.service_order = order;
      std::vector<Counters> c(1);
      for (std::uint64_t k = 0; k < order.size(); ++k) {
        const std::uint64_t i = order[k];
        r.steps[i] = static_cast<std::uint32_t>(k + 1);
        ++c[0].probes;
        const std::uint64_t h = head_.load();
        if (h >= tail_.load()) {
          ++c[0].failed;
          continue;
        }
        head_.store(h + 1);  // the dequeue's one atomic on head (serialised here: it cannot fail)
        ++c[0].atomics;
        r.first_page[i] = take_slot(h);
        ++c[0].taken;
      }
      finish(r, c);
    }
    return r;
  }

  std::uint64_t free(std::uint64_t first_page, unsigned n) override {
    std::uint64_t enqueues = 0;
    for (std::uint64_t p = first_page; p < first_page + n; ++p) {
      if (p >= s_.T) throw VerificationError("free of a page outside the pool");
      const std::uint64_t bit = std::uint64_t{1} << (p % 64);
      if (!(used_.fetch_and(p / 64, ~bit) & bit))
        throw VerificationError("double free of page " + std::to_string(p));
      const std::uint64_t t = tail_.fetch_add(1);  // the enqueue's one atomic
      ++enqueues;
      slots_[t % s_.T].store(static_cast<std::int64_t>(p), std::memory_order_release);
    }
    return enqueues;
  }
  std::vector<std::uint64_t> used_pages() const override { return used_.used_pages(); }
  std::uint64_t free_count() const override { return tail_.load() - head_.load(); }

 private:
  std::int64_t take_slot(std::uint64_t h) {
    auto& slot = slots_[h % s_.T];
    std::int64_t page;
    while ((page = slot.exchange(-1, std::memory_order_acquire)) < 0) std::this_thread::yield();
    const auto p = static_cast<std::uint64_t>(page);
    const std::uint64_t bit = std::uint64_t{1} << (p % 64);
    if (used_.fetch_or(p / 64, bit) & bit)
      throw VerificationError("queue handed out page " + std::to_string(p) + " which is in use");
    return page;
  }

  Scenario s_;
  SimOptions opt_;
  Bitmap used_;
  std::vector<std::atomic<std::int64_t>> slots_;
  std::atomic<std::uint64_t> head_{0}, tail_{0};
};

}  // namespace

// Memory: the used-page mirror (64 pages per word), a 64-bit slot per page and the free page ids.
ALLOCLAB_REGISTER_ENTRY(SimTable, Algorithm::queue,
                        (SimEntry{.make = &make_allocator_of<QueueAllocator>,
                                  .pool_bytes = [](const Scenario& s) {
                                    return bitmap_bytes(s.T, 64) + 8 * static_cast<double>(s.T) +
                                           8 * static_cast<double>(s.A);
                                  }}))

}  // namespace alloclab::sim::detail
