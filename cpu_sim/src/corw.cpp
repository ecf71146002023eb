// CoRW (paper 000, Algorithm 2): the lanes of a warp each read one random word per round
// (bitmap_probe_word with k = round), then share the free bits they found in the order of
// Figure 5 (corw_share). The simulator follows the GPU kernel (gpu/src/corw.cu), because that
// implementation is what is measured; it deviates from Algorithm 2 as written:
//  * No LockMap. Each lane reads its word (a snapshot; in lockstep mode every warp reads at the
//    start of the round), computes from the warp's snapshots which of its word's free bits the
//    Figure-5 order would hand out (corw_share on the snapshots: `handed_out`), and claims
//    exactly those with one atomic OR (lanes of one warp in lane order). Bits of the claim that
//    were already set (another warp, or a lower lane of the same warp that read the same word,
//    took them since the read) are lost: one collision per lost bit, and the lane at once claims
//    as many other free bits of the value the OR returned, in the same round, until it holds its
//    share or the word is full. The bits actually won are then handed out in the same order
//    (corw_share again, each lane offering only its won bits); needing lanes left without a won
//    bit stay in need for the next round. Nothing is claimed that is not handed out, so every
//    page not handed out stays free. (Without the in-round retry, every lost bit cost a needing
//    lane a whole round; see gpu/src/corw.cu.)
//    (Algorithm 2 as written, with its LockMap - a lane that finds its word locked offers
//    nothing and counts one collision, the holder's bits go to every needing lane of its warp -
//    is the simulator-only allocator corw-lockmap, corw_lockmap.cpp; it gives different
//    collision counts and fewer lost pages per conflict; see docs/simulator.md.)
//  * Leftovers: bits offered but not taken are not claimed (see corw_share.hpp).
//  * Bit order (--bit-choice, core/bit_choice.hpp): lowest, the paper's, or rotated: lane t views
//    its word rotated by rotation_offset(t, w, lanes), and its offers, its share and the
//    replacements of lost bits are all taken in that view (the GPU kernel does the same), so the
//    ~N/words threads of other warps that read one word at once target different bits.
//  * Steps: a lane's steps = the round in which it got its page; the warp's = its rounds.
//  * Free: clear the page's bit with an atomic AND.
#include "alloclab/core/errors.hpp"
#include "alloclab/cpu_sim/corw_share.hpp"
#include "alloclab/cpu_sim/warp_collectives.hpp"
#include "detail.hpp"
#include "engine.hpp"

namespace alloclab::sim {

CorwShareResult corw_share(const std::vector<CorwLaneInput>& lanes, unsigned w, bool keep_trace) {
  // The simulator's warps have up to 64 lanes (--lanes), so the 64-lane warp holds any of them.
  using Warp64 = warp::BasicWarp<64>;
  const unsigned m = static_cast<unsigned>(lanes.size());
  const Warp64 warp = Warp64::first_lanes(m);
  const std::uint64_t full = bits::low_mask(w);
  CorwShareResult out;
  out.pageID.assign(m, -1);
  out.handed_out.assign(m, 0);
  std::vector<std::uint64_t> P(m);
  for (unsigned t = 0; t < m; ++t) P[t] = lanes[t].P | ~full;
  std::uint64_t need = warp.ballot_of([&](unsigned t) { return lanes[t].needs; });
  auto has_mask = [&] {  // line 8 / 16: ballot(P != all ones)
    return warp.ballot_of([&](unsigned t) { return ~P[t] != 0; });
  };
  std::uint64_t has = has_mask();
  while (need && has) {  // line 9
    CorwShareIteration it;
    it.b.assign(m, -1);
    it.s.assign(m, 0);
    it.t_prime.assign(m, -1);
    std::vector<int> bit(m, -1);
    for (unsigned t = 0; t < m; ++t) {  // lines 10-11 (without committing the bit yet)
      if (!((has >> t) & 1u)) continue;
      bit[t] = bits::first_free_bit_from(P[t], w, lanes[t].rot);  // lowest in the lane's view
      it.b[t] = static_cast<std::int64_t>(lanes[t].word_index * w + static_cast<unsigned>(bit[t]));
    }
    std::vector<std::int64_t> got(m, -1);
    const Warp64::Lanes<unsigned> s = warp.rank(need);  // line 12: popc(need & lanemask_lt)
    for (unsigned t = 0; t < m; ++t) {
      it.s[t] = static_cast<int>(s[t]);
      if (!((need >> t) & 1u)) continue;            // line 13: only lanes with pageID == -1
      it.t_prime[t] = Warp64::nth_lane(has, s[t]);  // fks(hasMask, s + 1) - 1
    }
    for (unsigned t = 0; t < m; ++t) {  // line 14: shfl_sync(b, t')
      const int src = it.t_prime[t];
      if (src < 0) continue;
      out.pageID[t] = it.b[static_cast<unsigned>(src)];
      const std::uint64_t m1 = std::uint64_t{1} << bit[static_cast<unsigned>(src)];
      P[static_cast<unsigned>(src)] |= m1;  // the bit is gone only because someone took it
      out.handed_out[static_cast<unsigned>(src)] |= m1;
      need &= ~(std::uint64_t{1} << t);  // line 15
    }
    has = has_mask();  // line 16
    if (keep_trace) {
      it.pageID = out.pageID;
      out.trace.push_back(std::move(it));
    }
  }
  return out;
}

namespace detail {
namespace {

class CorwAllocator final : public BitmapAllocator {
 public:
  CorwAllocator(const Scenario& s, const SimOptions& o, std::uint64_t ps)
      : BitmapAllocator(s, o, ps, s.w) {}

  RunResult allocate(std::uint64_t seed) override {
    RunResult r = fresh_result(seed);
    const Run run{
        s_, opt_, seed, default_step_bound(s_, opt_), resolve_host_threads(opt_.host_threads), r};
    Policy pol{*this, run, std::vector<std::uint64_t>(s_.N), std::vector<std::uint64_t>(s_.N)};
    run_per_warp(pol, run);
    return r;
  }

 private:
  struct Policy {
    CorwAllocator& a;
    const Run& run;
    std::vector<std::uint64_t> word, P;  // per global thread: this round's word and snapshot

    unsigned lanes_in(std::uint64_t warp) const { return lanes_in_warp(run, warp); }
    bool hopeless(std::uint64_t) const { return a.free_.load(std::memory_order_relaxed) == 0; }
    void prepare(std::uint64_t warp, std::uint64_t r, Counters& c) {
      const std::uint64_t first = warp * run.s.lanes;
      const unsigned m = lanes_in(warp);
      const std::uint64_t W = a.bm_.words();
      for (unsigned t = 0; t < m; ++t) {  // every lane reads one word
        const std::uint64_t i = first + t;
        word[i] = bitmap_probe_word(run.seed, i, r, W);
        P[i] = a.bm_.load_acquire(word[i]);
      }
      c.probes += m;
    }
    bool resolve(std::uint64_t warp, std::uint64_t r, Counters& c) {
      const std::uint64_t first = warp * run.s.lanes;
      const unsigned m = lanes_in(warp);
      const unsigned w = a.bm_.w();
      const std::uint64_t full = bits::low_mask(w);
      const bool rotated = run.s.bit_choice == BitChoice::rotated;
      std::vector<CorwLaneInput> in(m);
      for (unsigned t = 0; t < m; ++t)
        in[t] = {word[first + t], P[first + t], run.out.first_page[first + t] < 0,
                 rotated ? rotation_offset(t, w, run.s.lanes) : 0u};
      const CorwShareResult plan = corw_share(in, w);  // the claims: Figure 5 on the snapshots
      bool any_lost = false;
      for (unsigned t = 0; t < m; ++t) {  // one atomic OR per lane, in lane order
        std::uint64_t claim = plan.handed_out[t];
        std::uint64_t won = 0;
        // A bit lost since the read is replaced by another free bit of the returned value (the
        // lowest in the lane's view), in the same round (gpu/src/corw.cu does the same), until
        // the share is held or the word is full.
        const unsigned rot = in[t].rot;
        while (claim) {
          const std::uint64_t old = a.bm_.fetch_or(word[first + t], claim);
          ++c.atomics;
          won |= claim & ~old;
          const unsigned lost_now = bits::popcount(claim & old);
          if (lost_now) {
            c.collisions += lost_now;  // lost bits; the OR is one failed claim
            ++c.failed_claims;
            any_lost = true;
          }
          const std::uint64_t still_free = ~(old | claim) & full;
          const unsigned replace = std::min(lost_now, bits::popcount(still_free));
          claim = replace ? bits::rotate_left(bits::lowest_set_bits(
                                                  bits::rotate_right(still_free, rot, w), replace),
                                              rot, w)
                          : 0;
        }
        in[t].P = ~won & full;  // the second pass offers only the bits this lane won
      }
      // Without a lost bit the plan stands as it is; otherwise hand out the won bits in order.
      const CorwShareResult res = any_lost ? corw_share(in, w) : plan;
      bool done = true;
      for (unsigned t = 0; t < m; ++t) {
        const std::uint64_t i = first + t;
        if (res.pageID[t] >= 0) {
          serve_lane(run, i, res.pageID[t], r, c);
          a.free_.fetch_sub(1, std::memory_order_relaxed);
        }
        if (run.out.first_page[i] < 0) done = false;
      }
      if (any_lost)  // every won bit must have been handed out
        for (unsigned t = 0; t < m; ++t)
          if (res.handed_out[t] != (~in[t].P & full))
            throw VerificationError("CoRW: a won bit was not handed out");
      return done;
    }
    void give_up(std::uint64_t warp, std::uint64_t rounds_done, Counters& c) {
      c.probes += (run.bound - rounds_done) * lanes_in(warp);
      fail_waiting_lanes(run, warp, c);
    }
  };
};

}  // namespace

// Memory: the bitmap keeps each w-page word in a 64-bit atomic; each lane keeps its word and
// snapshot.
ALLOCLAB_REGISTER_ENTRY(SimTable, Algorithm::corw,
                        (SimEntry{
                            .make = &make_allocator_of<CorwAllocator>,
                            .pool_bytes = [](const Scenario& s) { return bitmap_bytes(s.T, s.w); },
                            .lane_bytes_per_thread = 17}))

}  // namespace detail
}  // namespace alloclab::sim
