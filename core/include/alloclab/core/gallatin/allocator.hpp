// Gallatin's operations (McCoy & Pandey, PPoPP'24 Alg. 1-4) over the State of state.hpp, through
// the atomics policy `Atomics` (core/ouroboros/host_atomics.hpp), counted in Counts. Shared by the
// CPU simulator and the GPU. Each function runs one operation to its end; every loop is bounded
// (kRaceBound, kWaitBound), and out of memory returns kNoBlock / fewer slices, never a hang.
//
//  * get_segment(k) (Alg. 1, block trees only), counted in flight in `formatting` (two atomics
//    a call): claim the first free segment (segment tree,
//    lock_offset from 0: front-first, so segment s is used only when all before it are), format
//    it for class k (ring of its 256 >> k blocks, then the available count published last) and
//    insert it into block tree k.
//  * get_block(k) (Alg. 2): the first segment of block tree k (successor from 0); take a unit of
//    its available count with one atomic add of -1 (a count that was <= 0 gets the unit back);
//    dequeue a block; re-read
//    the segment's class (the stale-tree check: a segment re-formatted for another class between
//    the search and the gate) and give the block back if it changed. A segment whose count the
//    taker brought to 0 leaves the block tree; one whose count a return brings to 1 comes back
//    (membership is settled like a vEB upward write: write, re-read, again if it changed).
//    No segment in the tree and none free: out of memory, unless a get_segment is in flight
//    (another caller claimed the last free segment and is formatting it): then it waits for that
//    format and searches again. Without the wait, the callers that race the formatter for an
//    empty block tree would all see null while a fresh segment is a few steps from the tree.
//  * malloc_team(k, slot, n) (Alg. 3): a team of n lanes of one warp asking class k; the leader
//    reads its SM's buffer slot and does ONE atomicAdd(n) on the block's malloc counter; lanes
//    whose index is < slices_per_block get a slice; the team that took the last slice swaps the
//    slot for a new block (get_block); lanes left over wait for that swap and retry (bounded:
//    Alg. 3 as printed loops for ever at out of memory; here they give up and get null).
//  * free_slices(offset, n) (Alg. 4): n slices of one block (a coalesced team) add n to its free
//    counter in ONE atomicAdd; the team that brings it to slices_per_block gives the block back
//    to its segment's ring; a segment whose blocks are all back is closed (a CAS of its count
//    from n to kClosed), leaves its block tree and returns to the segment tree (the paper's and
//    the public code's behaviour; State::return_segments = false, a test variant, keeps it
//    formatted for its class).
#pragma once

#include <cstdint>
#include <type_traits>

#include "alloclab/core/gallatin/layout.hpp"
#include "alloclab/core/gallatin/state.hpp"
#include "alloclab/core/gallatin/veb_tree.hpp"
#include "alloclab/core/hd.hpp"

namespace alloclab::gallatin {

// Bounds. A lost race (a failed CAS, a stale tree, a used-up block) means another caller made
// progress, so the retries of one operation are bounded by the contention: kRaceBound allows a
// few thousand callers on one word (a GPU has up to ~2,000 warps resident a segment may serve).
// A wait (a ring slot an enqueuer is writing, a segment being formatted, a used-up block in a
// buffer slot its last taker is swapping) lasts as long as another caller's few steps. Reaching
// either bound counts as stuck: a defect the verification reports, never a silent null.
inline constexpr std::uint32_t kRaceBound = 1u << 12;
inline constexpr std::uint32_t kUnread = 0xffffffffu;
inline constexpr std::uint32_t kMinusOne =
    0xffffffffu;  // an atomic add of -1  // malloc_team: the caller read no slot
inline constexpr std::uint32_t kWaitBound = 1u << 24;

// Slices first, first + stride, ... for the team's ranks rank .. rank + count - 1: into an array
// or through a pointer (the simulator's), or handed to out.run(rank, count, first, stride) (the
// GPU's, which lets every lane of a team served in one run compute its own slice).
template <class Out>
ALLOCLAB_HD void put_run(Out& out, std::uint32_t rank, std::uint32_t count, std::uint64_t first,
                         std::uint64_t stride) {
  if constexpr (std::is_class_v<std::remove_cvref_t<Out>>) {
    out.run(rank, count, first, stride);
  } else {
    for (std::uint32_t i = 0; i < count; ++i) out[rank + i] = first + i * stride;
  }
}

// The paper's pre-boot fills every class's buffer slots: 13 segments with 132 SMs
// (studies/gallatin/). Pools of at least this many segments (1 GiB) get all of it (preboot_pool).
inline constexpr std::uint32_t kFullPrebootSegments = 64;

template <class Atomics>
struct Ops {
  using V = Veb<Atomics>;

  ALLOCLAB_HD static std::uint32_t load(std::uint32_t& w, Counts& c) {
    ++c.loads;
    return Atomics::load(w);
  }
  // Between two reads of a wait (the w-th): the policy's pause where it has one. The GPU's sleeps
  // a little after the first few, because the caller waited for may be another branch of the
  // same warp (the hash join's lanes ask for pages at different times): independent thread
  // scheduling runs that branch when this one sleeps, and may not while it spins. The host's
  // policies have none (the simulator's threads are the host's, its lockstep steps its own).
  ALLOCLAB_HD static void pause(std::uint32_t w) {
    if constexpr (requires { Atomics::pause(w); }) Atomics::pause(w);
  }
  ALLOCLAB_HD static std::uint32_t add(std::uint32_t& w, std::uint32_t v, Counts& c) {
    ++c.atomics;
    return Atomics::fetch_add(w, v);
  }
  ALLOCLAB_HD static std::uint32_t cas(std::uint32_t& w, std::uint32_t e, std::uint32_t d,
                                       Counts& c) {
    ++c.atomics;
    return Atomics::cas(w, e, d);
  }
  ALLOCLAB_HD static std::uint32_t exchange(std::uint32_t& w, std::uint32_t v, Counts& c) {
    ++c.atomics;
    return Atomics::exchange(w, v);
  }
  // A set-up write (formatting a segment, initialising a block): an exchange, counted apart.
  ALLOCLAB_HD static void store(std::uint32_t& w, std::uint32_t v, Counts& c) {
    ++c.init_writes;
    Atomics::exchange(w, v);
  }
  // A set-up write that must keep concurrent increments (the count a segment is published
  // with): an atomic add, counted with the set-up writes.
  ALLOCLAB_HD static void init_add(std::uint32_t& w, std::uint32_t v, Counts& c) {
    ++c.init_writes;
    Atomics::fetch_add(w, v);
  }
  ALLOCLAB_HD static bool positive(std::uint32_t v) { return static_cast<std::int32_t>(v) > 0; }

  // Makes segment s's membership of block tree k say whether it has blocks of class k to hand
  // out; re-reads after each write and writes again if it changed meanwhile.
  ALLOCLAB_HD static void settle(const State& st, std::uint32_t s, unsigned k, Counts& c) {
    for (std::uint32_t attempt = 0; attempt < kRaceBound; ++attempt) {
      const bool want = positive(load(st.available[s], c)) && load(st.tree_id[s], c) == k;
      if (want)
        V::insert(st.block_trees[k], s, c.veb);
      else
        V::remove(st.block_trees[k], s, c.veb);
      const bool now = positive(load(st.available[s], c)) && load(st.tree_id[s], c) == k;
      if (now == want) return;
      ++c.restarts;
    }
    ++c.stuck;
  }

  // Alg. 1 for a block tree: false when no segment is free.
  ALLOCLAB_HD static bool get_segment(const State& st, unsigned k, Counts& c) {
    add(*st.formatting, 1, c);
    const bool got = format_segment(st, k, c);
    add(*st.formatting, kMinusOne, c);
    return got;
  }

  // get_segment found no segment free: waits until no get_segment is in flight (false if that
  // wait reached its bound), so that a segment another caller was formatting is in its tree.
  ALLOCLAB_HD static bool awaited_formats(const State& st, Counts& c) {
    std::uint32_t w = 0;
    while (w < kWaitBound && load(*st.formatting, c) != 0) pause(w++);
    if (w < kWaitBound) return true;
    ++c.stuck;
    return false;
  }

  // Alg. 1's body: claim the first free segment, format it for class k, publish it.
  ALLOCLAB_HD static bool format_segment(const State& st, unsigned k, Counts& c) {
    const std::uint64_t s64 = V::lock_offset(st.segment_tree, 0, c.veb);
    if (s64 == kVebFail) return false;
    // The segment's previous life (its frees, a large owner's bytes) before its insert into the
    // segment tree (release there) is visible from here on.
    Atomics::fence_acquire();
    const auto s = static_cast<std::uint32_t>(s64);
    const std::uint32_t n = st.g.blocks_per_segment(k);
    const std::uint32_t max = st.g.max_blocks();
    for (std::uint32_t b = 0; b < n; ++b) {
      store(st.ring[std::uint64_t{s} * max + b], b + 1, c);
      store(st.malloc_ctr[st.g.block_id(s, b)], kIdle, c);
    }
    // A segment formatted before for a larger class count left its other blocks in these slots:
    // all of its ring's, tail - head of them (it closed with every block back), 0 when fresh.
    // Reading the two counters rather than every slot past n keeps a format of a class with few
    // blocks (one at 4096 B) from reading 255 slots.
    const std::uint32_t before = load(st.tail[s], c) - load(st.head[s], c);
    for (std::uint32_t b = n; b < before && b < max; ++b)
      store(st.ring[std::uint64_t{s} * max + b], 0, c);
    store(st.head[s], 0, c);
    store(st.tail[s], n, c);
    store(st.tree_id[s], k, c);
    // Published last: the gate opens. Added, not stored: a gate that found the segment closed
    // may still owe its unit back (its undo then lands on n). The release fence orders the
    // format's writes before it (a gate's acquire in get_block pairs with it).
    Atomics::fence_release();
    init_add(st.available[s], n - kClosed, c);
    ++c.segments_formatted;
    settle(st, s, k, c);
    return true;
  }

  // Gives block b (within segment s, formatted for class k) back to the segment's ring.
  ALLOCLAB_HD static void return_block(const State& st, std::uint32_t s, unsigned k,
                                       std::uint32_t b, Counts& c) {
    const std::uint32_t n = st.g.blocks_per_segment(k);
    store(st.malloc_ctr[st.g.block_id(s, b)], kIdle, c);  // late bumps take nothing now
    const std::uint32_t pos = add(st.tail[s], 1, c) % n;
    // The slot may still hold the block of the previous lap: its taker has claimed the position
    // but not emptied it yet. Wait for it (never overwrite: that would lose a block).
    std::uint32_t& slot = st.ring[std::uint64_t{s} * st.g.max_blocks() + pos];
    // The block's idle counter and its slices' last bytes before the ring slot that hands it
    // over (get_block's acquire after its exchange pairs with it).
    Atomics::fence_release();
    std::uint32_t w = 0;
    for (; w < kWaitBound && cas(slot, 0, b + 1, c) != 0; ++w) {
      ++c.restarts;
      pause(w);
    }
    if (w == kWaitBound) ++c.stuck;
    const std::uint32_t now = add(st.available[s], 1, c) + 1;
    ++c.blocks_returned;
    after_rise(st, s, k, now, c);
  }

  // Segment s's count (class k) has just risen to `now` (a block back, or a gate's unit given
  // back): at 1 it re-enters its block tree; at n (every block back) it closes and returns to
  // the segment tree.
  ALLOCLAB_HD static void after_rise(const State& st, std::uint32_t s, unsigned k,
                                     std::uint32_t now, Counts& c) {
    const std::uint32_t n = st.g.blocks_per_segment(k);
    if (now == 1) settle(st, s, k, c);
    if (now == n && st.return_segments && cas(st.available[s], n, kClosed, c) == n) {
      // Every block is back and nobody can take one now: the segment is free again. Its blocks'
      // returns (each released before its add to the count this CAS read) before its insert.
      Atomics::fence_acquire();
      Atomics::fence_release();
      settle(st, s, k, c);
      store(st.tree_id[s], kNoTree, c);
      V::insert(st.segment_tree, s, c.veb);
      ++c.segments_returned;
    }
  }

  // Alg. 2: a fresh block of class k (its global id), or kNoBlock when memory is exhausted.
  ALLOCLAB_HD static std::uint64_t get_block(const State& st, unsigned k, Counts& c) {
    const std::uint32_t max = st.g.max_blocks();
    for (std::uint32_t attempt = 0; attempt < kRaceBound; ++attempt) {
      const std::uint64_t s64 = V::successor(st.block_trees[k], 0, c.veb);
      if (s64 == kVebFail) {
        if (get_segment(st, k, c)) continue;
        // No segment free: once the formats in flight are done, one more search decides.
        if (!awaited_formats(st, c) || V::successor(st.block_trees[k], 0, c.veb) == kVebFail)
          return kNoBlock;
        continue;
      }
      const auto s = static_cast<std::uint32_t>(s64);
      if (load(st.tree_id[s], c) != k) {  // a stale membership: fix it, search again
        ++c.restarts;
        settle(st, s, k, c);
        continue;
      }
      // The gate: one atomic takes a unit of the available count. A count that was not positive
      // had nothing to take: the unit goes back. (A CAS loop here made every caller that raced
      // for the segment retry once per winner: with a buffer slot per SM refilling at once, a
      // hundred rounds.) While the unit is out a return may have missed the count's rise to 1
      // or n, so the undo does the return's follow-ups; the class read before it is stable
      // (nobody closes a segment whose count is below n).
      const std::uint32_t v = add(st.available[s], kMinusOne, c);
      if (!positive(v)) {
        ++c.restarts;
        const std::uint32_t owner = load(st.tree_id[s], c);
        const std::uint32_t now = add(st.available[s], 1, c) + 1;
        if (owner < kSizeClasses) after_rise(st, s, owner, now, c);
        settle(st, s, k, c);
        continue;
      }
      // Holding a unit, the segment cannot close: its class is stable now. The acquire pairs with
      // format_segment's release: its class, head and ring are the ones read below.
      Atomics::fence_acquire();
      const std::uint32_t cls = load(st.tree_id[s], c);
      const std::uint32_t n = st.g.blocks_per_segment(cls);
      const std::uint32_t pos = add(st.head[s], 1, c) % n;
      std::uint32_t b = 0;
      for (std::uint32_t w = 0; w < kWaitBound && b == 0; ++w) {
        b = exchange(st.ring[std::uint64_t{s} * max + pos], 0, c);  // 0: an enqueue in flight
        if (b == 0) {
          ++c.restarts;
          pause(w);
        }
      }
      if (b == 0) {
        ++c.stuck;
        return kNoBlock;
      }
      Atomics::fence_acquire();  // return_block's writes (and the slices' bytes) before its slot
      if (v == 1) settle(st, s, cls, c);  // took the last one: leave the block tree
      if (cls != k) {  // Alg. 2's stale-tree check: re-formatted since the search
        ++c.restarts;
        return_block(st, s, cls, b - 1, c);
        continue;
      }
      const std::uint64_t id = st.g.block_id(s, b - 1);
      store(st.free_ctr[id], 0, c);
      store(st.malloc_ctr[id], k << kClassShift, c);
      ++c.block_refills;
      // The fresh counters before whatever publishes the block (a buffer slot's CAS or store; a
      // team's acquire after reading the slot pairs with it).
      Atomics::fence_release();
      return id;
    }
    ++c.stuck;
    return kNoBlock;
  }

  // Adds `n` to block id's free counter (its class k); gives the block back when all its slices
  // are free. One atomicAdd, plus the return.
  ALLOCLAB_HD static void add_frees(const State& st, std::uint64_t id, unsigned k, std::uint32_t n,
                                    Counts& c) {
    const std::uint32_t spb = st.g.slices_per_block;
    Atomics::fence_release();  // the freed slices' last bytes before the count that frees them
    const std::uint32_t old = add(st.free_ctr[id], n, c);
    if (old < spb && old + n >= spb) {
      // The last free of the block: every other freer's bytes (their releases, in the counter's
      // chain of adds) before the block goes back.
      Atomics::fence_acquire();
      const auto max = static_cast<std::uint64_t>(st.g.max_blocks());
      return_block(st, static_cast<std::uint32_t>(id / max), k,
                   static_cast<std::uint32_t>(id % max), c);
    }
  }

  // Alg. 3 for a team of n lanes of class k using buffer slot `slot` (< st.slots[k]): writes the
  // byte offsets of the slices served to out[0 .. served) and returns `served` (< n only when
  // memory ran out or the attempts were used up: those lanes get null).
  // `out`: where the slices go, by rank in the team (put_run). `seen`: the slot's value the caller
  // has just read (its first attempt uses it instead of reading again), or kUnread.
  template <class Out>
  ALLOCLAB_HD static std::uint32_t malloc_team(const State& st, unsigned k, std::uint32_t slot,
                                               std::uint32_t n, Out&& out, Counts& c,
                                               std::uint32_t seen = kUnread) {
    const std::uint32_t spb = st.g.slices_per_block;
    std::uint32_t& cell = st.buffer[st.slot_offset[k] + slot];
    std::uint32_t served = 0;
    std::uint32_t attempt = 0;
    for (; attempt < kRaceBound && served < n; ++attempt) {
      ++c.attempts;
      const std::uint32_t remaining = n - served;
      std::uint32_t b = attempt == 0 && seen != kUnread ? seen : load(cell, c);
      if (b == 0) {  // an empty slot: the leader fetches a block (out of memory: null)
        const std::uint64_t id = get_block(st, k, c);
        if (id == kNoBlock) {
          if (load(cell, c) != 0) continue;  // another team filled the slot meanwhile
          return served;
        }
        const auto fresh = static_cast<std::uint32_t>(id + 1);
        if (cas(cell, 0, fresh, c) != 0) {  // another team filled it first: give ours back
          ++c.restarts;
          release_fresh(st, id, k, c);
          continue;
        }
        b = fresh;
      }
      const std::uint64_t id = b - 1;
      // The block's fresh counters (get_block's release before the slot's CAS) before its use.
      Atomics::fence_acquire();
      const std::uint32_t old = add(st.malloc_ctr[id], remaining, c);  // the team's one atomic
      if ((old >> kClassShift) != k) {
        // The block went back after this team read the slot (idle: nothing taken) and maybe
        // was handed out for another class: the indices taken there are slices nobody will be
        // handed, so they count as freed. The slot still holding it waits for its swap.
        ++c.restarts;
        const std::uint32_t at = old & kCountMask;
        if ((old >> kClassShift) != kIdleClass && at < spb)
          add_frees(st, id, old >> kClassShift, spb - at < remaining ? spb - at : remaining, c);
        await_swap(cell, b, c);
        continue;
      }
      const std::uint32_t at = old & kCountMask;
      const std::uint32_t valid = at >= spb ? 0 : (spb - at < remaining ? spb - at : remaining);
      const std::uint64_t base = st.g.block_offset(id, k);
      if (valid > 0)
        put_run(out, served, valid, base + std::uint64_t{at} * st.g.slice_bytes(k),
                st.g.slice_bytes(k));
      served += valid;
      if (valid > 0 && at + valid == spb) {
        // This team took the block's last slice: swap the slot for a new block (or none).
        const std::uint64_t next = get_block(st, k, c);
        const std::uint32_t want = next == kNoBlock ? 0u : static_cast<std::uint32_t>(next + 1);
        if (cas(cell, b, want, c) != b && next != kNoBlock) release_fresh(st, next, k, c);
      } else if (valid == 0) {
        // Used up by the teams before this one: the team that took its last slice is swapping
        // the slot (above). Waiting for that, rather than fetching a block too, keeps the other
        // teams on the slot from taking (and giving back) blocks all at once, which would leave
        // the free ones briefly held and let a caller see a false out of memory.
        ++c.restarts;
        await_swap(cell, b, c);
      }
    }
    if (served < n && attempt == kRaceBound) ++c.stuck;
    return served;
  }

  // Alg. 4 for n slices of one block (a coalesced team); `offset` is any of them.
  ALLOCLAB_HD static void free_slices(const State& st, std::uint64_t offset, std::uint32_t n,
                                      Counts& c) {
    const auto s = static_cast<std::uint32_t>(offset / st.g.segment_bytes);
    const std::uint32_t k = load(st.tree_id[s], c);
    const auto b = static_cast<std::uint32_t>((offset % st.g.segment_bytes) / st.g.block_bytes(k));
    add_frees(st, st.g.block_id(s, b), k, n, c);
  }

  // The block of class k a team of the paper's init fills each buffer slot with (§4.3, "pre-
  // booted": the fragmentation wavefront of §6.10); slots left empty when memory runs out.
  ALLOCLAB_HD static void preboot(const State& st, Counts& c) {
    for (unsigned k = 0; k < kSizeClasses; ++k)
      for (std::uint32_t i = 0; i < st.slots[k]; ++i) {
        const std::uint64_t id = get_block(st, k, c);
        if (id == kNoBlock) return;
        store(st.buffer[st.slot_offset[k] + i], static_cast<std::uint32_t>(id + 1), c);
      }
  }

  // The pre-boot of a pool as the GPU backend and the simulator's --preboot do it: every class's
  // slots (the paper's init) on a pool of at least kFullPrebootSegments segments; on a smaller
  // one, where it would take a fifth of the pool or more, the slots of `run_class` only (the
  // class of the run's largest request), as far as the pool goes.
  ALLOCLAB_HD static void preboot_pool(const State& st, unsigned run_class, Counts& c) {
    if (st.g.segments >= kFullPrebootSegments) {
      preboot(st, c);
      return;
    }
    if (run_class >= kSizeClasses) return;  // the run's requests use no slot (preboot_class)
    for (std::uint32_t i = 0; i < st.slots[run_class]; ++i) {
      const std::uint64_t id = get_block(st, run_class, c);
      if (id == kNoBlock) return;
      store(st.buffer[st.slot_offset[run_class] + i], static_cast<std::uint32_t>(id + 1), c);
    }
  }

  // (Also used by the large requests' paths, large.hpp.)
  // Waits (loads only) until buffer slot `cell` no longer holds block b + 1; past the bound it
  // empties the slot itself (the next attempt fetches a block), so a slow swapper stalls nobody.
  ALLOCLAB_HD static void await_swap(std::uint32_t& cell, std::uint32_t b, Counts& c) {
    for (std::uint32_t w = 0; w < kWaitBound; ++w) {
      if (load(cell, c) != b) return;
      pause(w);
    }
    cas(cell, b, 0, c);
  }

  // A block fetched but not used (a lost slot race): its counters are fresh, so it goes back.
  ALLOCLAB_HD static void release_fresh(const State& st, std::uint64_t id, unsigned k, Counts& c) {
    const auto max = static_cast<std::uint64_t>(st.g.max_blocks());
    return_block(st, static_cast<std::uint32_t>(id / max), k, static_cast<std::uint32_t>(id % max),
                 c);
  }
};

}  // namespace alloclab::gallatin
