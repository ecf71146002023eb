// CoRW exactly as paper 000's Algorithm 2, with its LockMap (registry name corw-lockmap;
// simulator only - the GPU kernel and the simulator's `corw` claim lock-free, see corw.cpp).
// The lanes of a warp each lock and read one random word per round (bitmap_probe_word with
// k = round), then share the free bits they found in the order of Figure 5 (corw_share, the same
// function `corw` uses). Decisions where Algorithm 2 is incomplete:
//  * LockMap: one bit per word, taken with an atomic OR (line 6). A lane that finds the word
//    locked (by another warp, or by a lower lane of its own warp: atomics of one warp
//    instruction are applied in lane order here) acts as a consumer with P = all ones. Each
//    failed lock attempt counts as a collision. Lockstep: every warp locks (prepare) before any
//    warp shares (resolve), so a lock taken in round r is held until the holder's resolve.
//  * Claiming: line 10 only changes the register copy P. The bits a lane actually handed out
//    are set in BitMap[p] with one atomic OR while it still holds LockMap[p], i.e. before
//    line 18 releases the lock. Only lock holders set bits of a word (frees only clear bits),
//    so that OR cannot lose; the simulator checks it anyway (VerificationError).
//  * Leftovers: bits a lane offered but nobody took are NOT set (see corw_share.hpp), so every
//    page not handed out stays free.
//  * Steps: a lane's steps = the round in which it got its page; the warp's = its rounds.
//  * Free: clear the page's bit with an atomic AND (no lock needed: clearing never conflicts
//    with a holder's OR of other bits, and a holder that misses the cleared bit only sees the
//    page as used for this round).
#include <atomic>
#include <cmath>
#include <memory>
#include <vector>

#include "alloclab/core/errors.hpp"
#include "alloclab/cpu_sim/corw_share.hpp"
#include "detail.hpp"
#include "engine.hpp"

namespace alloclab::sim::detail {
namespace {

class CorwLockMapAllocator final : public BitmapAllocator {
 public:
  CorwLockMapAllocator(const Scenario& s, const SimOptions& o, std::uint64_t ps)
      : BitmapAllocator(s, o, ps, s.w), lock_((bm_.words() + 63) / 64) {
    for (auto& l : lock_) l.store(0, std::memory_order_relaxed);
  }

  RunResult allocate(std::uint64_t seed) override {
    RunResult r = fresh_result(seed);
    const Run run{
        s_, opt_, seed, default_step_bound(s_, opt_), resolve_host_threads(opt_.host_threads), r};
    Policy pol{*this, run, std::vector<std::uint64_t>(s_.N), std::vector<std::uint64_t>(s_.N),
               std::vector<std::uint8_t>(s_.N)};
    run_per_warp(pol, run);
    for (const auto& l : lock_)  // line 18 ran for every lock taken
      if (l.load(std::memory_order_relaxed) != 0)
        throw VerificationError("CoRW (LockMap): a lock was still held after the run");
    return r;
  }

 private:
  bool try_lock(std::uint64_t j) {
    const std::uint64_t bit = std::uint64_t{1} << (j % 64);
    return (lock_[j / 64].fetch_or(bit, std::memory_order_acquire) & bit) == 0;
  }
  void unlock(std::uint64_t j) {
    lock_[j / 64].fetch_and(~(std::uint64_t{1} << (j % 64)), std::memory_order_release);
  }

  struct Policy {
    CorwLockMapAllocator& a;
    const Run& run;
    std::vector<std::uint64_t> word, P;  // per global thread: this round's word and copy
    std::vector<std::uint8_t> locked;    // per global thread: it holds LockMap[word]

    unsigned lanes_in(std::uint64_t warp) const { return lanes_in_warp(run, warp); }
    bool hopeless(std::uint64_t) const { return a.free_.load(std::memory_order_relaxed) == 0; }
    void prepare(std::uint64_t warp, std::uint64_t r, Counters& c) {
      const std::uint64_t first = warp * run.s.lanes;
      const unsigned m = lanes_in(warp);
      const std::uint64_t W = a.bm_.words();
      for (unsigned t = 0; t < m; ++t) {  // lines 5-7, lanes in lane order
        const std::uint64_t i = first + t;
        word[i] = bitmap_probe_word(run.seed, i, r, W);
        locked[i] = a.try_lock(word[i]);
        ++c.atomics;
        if (locked[i]) {
          P[i] = a.bm_.load_acquire(word[i]);
        } else {  // a consumer: offers nothing
          P[i] = ~std::uint64_t{0};
          ++c.collisions;
          ++c.failed_claims;
        }
      }
      c.probes += m;
    }
    bool resolve(std::uint64_t warp, std::uint64_t r, Counters& c) {
      const std::uint64_t first = warp * run.s.lanes;
      const unsigned m = lanes_in(warp);
      std::vector<CorwLaneInput> in(m);
      for (unsigned t = 0; t < m; ++t)
        in[t] = {word[first + t], P[first + t], run.out.first_page[first + t] < 0};
      const CorwShareResult res = corw_share(in, a.bm_.w());
      bool done = true;
      for (unsigned t = 0; t < m; ++t) {
        const std::uint64_t i = first + t;
        if (res.handed_out[t]) {  // claim in BitMap[p] while holding LockMap[p]
          const std::uint64_t old = a.bm_.fetch_or(word[i], res.handed_out[t]);
          ++c.atomics;  // cannot fail (checked below), so never a failed claim
          if (old & res.handed_out[t])
            throw VerificationError("CoRW (LockMap): a bit handed out under the lock was set");
        }
        if (res.pageID[t] >= 0) {
          serve_lane(run, i, res.pageID[t], r, c);
          a.free_.fetch_sub(1, std::memory_order_relaxed);
        }
        if (run.out.first_page[i] < 0) done = false;
      }
      for (unsigned t = 0; t < m; ++t)  // line 18
        if (locked[first + t]) {
          a.unlock(word[first + t]);
          ++c.atomics;
          locked[first + t] = 0;
        }
      return done;
    }
    void give_up(std::uint64_t warp, std::uint64_t rounds_done, Counters& c) {
      c.probes += (run.bound - rounds_done) * lanes_in(warp);
      fail_waiting_lanes(run, warp, c);
    }
  };

  std::vector<std::atomic<std::uint64_t>> lock_;  // LockMap: one bit per bitmap word
};

}  // namespace

// Memory: the bitmap keeps each w-page word in a 64-bit atomic, the LockMap one bit per word;
// each lane keeps its word, snapshot and lock flag.
ALLOCLAB_REGISTER_ENTRY(SimTable, Algorithm::corw_lockmap,
                        (SimEntry{.make = &make_allocator_of<CorwLockMapAllocator>,
                                  .pool_bytes =
                                      [](const Scenario& s) {
                                        const double words = bitmap_bytes(s.T, s.w) / 8;
                                        return 8 * words + 8 * std::ceil(words / 64);
                                      },
                                  .lane_bytes_per_thread = 17}))

}  // namespace alloclab::sim::detail
