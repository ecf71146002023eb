// RW_malloc (paper 000, Algorithm 3): n consecutive pages per request (n may differ per lane).
// Each round the warp reads a window of `lanes` consecutive words starting at
// rwmalloc_window_start(seed, warp, lanes, round, W) (clipped at the end of the bitmap).
// Decisions where Algorithm 3 is incomplete or wrong:
//  * Segments across words: free runs that continue from the last bit of word j into bit 0 of
//    word j+1 (within the window) are joined into one segment (§4.3: "free segments running
//    across two neighboring words are also connected"), so a request may span words.
//  * Assignment: segments are offered in window order (lines 10-18); each segment goes to the
//    lowest needing lane whose n fits (line 13-14); that lane claims only ITS n pages
//    [S1, S1+n), not the whole segment (line 15 would set S1..S1+L1-1, wasting L1-n pages),
//    and the rest of the segment is offered to the next fitting lane.
//  * Claiming can fail (line 15/16): the claim sets the range word by word with atomic ORs; if
//    any bit was already set, the bits this claim set are cleared again (so nothing leaks),
//    the claim counts as a collision, the lane keeps needing and the rest of that (stale)
//    segment is not offered this round.
//  * Steps: a lane's steps = the round in which it got its pages; probes = words read.
//  * Free: clear the n bits (atomic AND per word), checking that they were all set.
#include <string>

#include "alloclab/core/errors.hpp"
#include "detail.hpp"
#include "engine.hpp"

namespace alloclab::sim::detail {
namespace {

class RwmallocAllocator final : public BitmapAllocator {
 public:
  RwmallocAllocator(const Scenario& s, const SimOptions& o, std::uint64_t ps)
      : BitmapAllocator(s, o, ps, s.w) {}

  RunResult allocate(std::uint64_t seed) override {
    RunResult r = fresh_result(seed);
    const Run run{
        s_, opt_, seed, default_step_bound(s_, opt_), resolve_host_threads(opt_.host_threads), r};
    const std::uint64_t warps = warp_count(s_);
    Policy pol{*this, run, std::vector<std::uint64_t>(warps * s_.lanes),
               std::vector<std::uint64_t>(warps), std::vector<unsigned>(warps)};
    run_per_warp(pol, run);
    return r;
  }

 private:
  struct Policy {
    RwmallocAllocator& a;
    const Run& run;
    std::vector<std::uint64_t> window;  // per warp: `lanes` words read this round
    std::vector<std::uint64_t> start;   // per warp: first word of the window
    std::vector<unsigned> count;        // per warp: words in the window (clipped)

    unsigned lanes_in(std::uint64_t warp) const { return lanes_in_warp(run, warp); }
    bool hopeless(std::uint64_t warp) const {
      const std::uint64_t first = warp * run.s.lanes;
      unsigned smallest = ~0u;
      for (unsigned t = 0; t < lanes_in(warp); ++t)
        if (run.out.first_page[first + t] < 0)
          smallest = std::min(smallest, run.pages_of(first + t));
      return a.free_.load(std::memory_order_relaxed) < smallest;
    }
    void prepare(std::uint64_t warp, std::uint64_t r, Counters& c) {
      const std::uint64_t W = a.bm_.words();
      const std::uint64_t p = rwmalloc_window_start(run.seed, warp, run.s.lanes, r, W);
      const unsigned n = static_cast<unsigned>(std::min<std::uint64_t>(run.s.lanes, W - p));
      start[warp] = p;
      count[warp] = n;
      for (unsigned t = 0; t < n; ++t) window[warp * run.s.lanes + t] = a.bm_.load(p + t);
      c.probes += n;
    }
    // Offers segment [seg, seg + len) to the needing lanes; see the file comment.
    void offer(std::uint64_t warp, std::uint64_t r, std::uint64_t seg, std::uint64_t len,
               Counters& c) {
      const std::uint64_t first = warp * run.s.lanes;
      const unsigned m = lanes_in(warp);
      while (len > 0) {
        int taker = -1;
        for (unsigned t = 0; t < m; ++t)
          if (run.out.first_page[first + t] < 0 && run.pages_of(first + t) <= len) {
            taker = static_cast<int>(t);
            break;
          }
        if (taker < 0) return;
        const std::uint64_t i = first + static_cast<unsigned>(taker);
        const unsigned n = run.pages_of(i);
        if (!a.bm_.claim_range(seg, n, c.atomics)) {
          ++c.collisions;
          ++c.failed_claims;  // claim_range stops at the first OR that found a bit set
          return;
        }
        serve_lane(run, i, static_cast<std::int64_t>(seg), r, c, n);
        a.free_.fetch_sub(n, std::memory_order_relaxed);
        seg += n;
        len -= n;
      }
    }
    bool needs_any(std::uint64_t warp) const {
      const std::uint64_t first = warp * run.s.lanes;
      for (unsigned t = 0; t < lanes_in(warp); ++t)
        if (run.out.first_page[first + t] < 0) return true;
      return false;
    }
    bool resolve(std::uint64_t warp, std::uint64_t r, Counters& c) {
      const unsigned w = a.bm_.w();
      std::uint64_t seg = 0, len = 0;  // pending segment (may grow into the next word)
      for (unsigned t = 0; t < count[warp]; ++t) {
        const std::uint64_t word = window[warp * run.s.lanes + t];
        const std::uint64_t base = (start[warp] + t) * w;
        unsigned from = 0;
        for (;;) {
          const bits::FreeRun fr = bits::next_free_run(word, w, from);
          if (fr.start < 0) break;
          const std::uint64_t s0 = base + static_cast<unsigned>(fr.start);
          const unsigned l = std::min<unsigned>(fr.length, w - static_cast<unsigned>(fr.start));
          if (len > 0 && seg + len == s0) {
            len += l;  // joins the segment from the previous word
          } else {
            if (len > 0) offer(warp, r, seg, len, c);
            seg = s0;
            len = l;
          }
          from = static_cast<unsigned>(fr.start) + l;
        }
        if (len > 0 && seg + len != base + w) {  // cannot continue into the next word
          offer(warp, r, seg, len, c);
          len = 0;
        }
        if (!needs_any(warp)) return true;
      }
      if (len > 0) offer(warp, r, seg, len, c);
      return !needs_any(warp);
    }
    void give_up(std::uint64_t warp, std::uint64_t rounds_done, Counters& c) {
      c.probes += (run.bound - rounds_done) * std::min<std::uint64_t>(run.s.lanes, a.bm_.words());
      fail_waiting_lanes(run, warp, c);
    }
  };
};

// A request is served from one window of `lanes` consecutive words, so it can be at most
// lanes * w pages long.
void check_request_sizes(const Scenario& s, const SimOptions& o) {
  const unsigned longest = s.lanes * s.w;
  auto check = [&](unsigned n) {
    if (n < 1 || n > longest)
      throw InputError("--pages", "pages per request must be in 1..lanes*w (" +
                                      std::to_string(longest) + ", one window)");
  };
  check(s.pages);
  for (auto n : o.pages_per_thread) check(n);
}

}  // namespace

// Memory: the bitmap keeps each w-page word in a 64-bit atomic; each lane keeps its word and
// snapshot.
ALLOCLAB_REGISTER_ENTRY(SimTable, Algorithm::rwmalloc,
                        (SimEntry{
                            .make = &make_allocator_of<RwmallocAllocator>,
                            .check = &check_request_sizes,
                            .pool_bytes = [](const Scenario& s) { return bitmap_bytes(s.T, s.w); },
                            .lane_bytes_per_thread = 17}))

}  // namespace alloclab::sim::detail
