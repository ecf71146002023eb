// Warp collectives for the simulator's lockstep mode: ballot, any/all, rank among the lanes whose
// predicate holds, match_any, shuffles, sums over the active lanes, coalesced groups
// (labeled_partition) and the warp-aggregated atomic, with the semantics of CUDA's intrinsics
// (__ballot_sync, __any_sync, __all_sync, __popc(ballot & lanemask_lt), __match_any_sync,
// __shfl_sync, __shfl_xor_sync, __reduce_add_sync, __fns, cooperative_groups::coalesced_threads
// and labeled_partition). A simulated warp holds its registers lane by lane in std::array<T,
// Width>; the warp's active mask says which lanes execute the collective. Inactive lanes neither
// contribute nor receive: every per-lane result holds T{} (0, false, an empty mask) for them.
//
// Width is 32 on hardware. The simulator accepts up to 64 lanes per warp (a what-if of
// `--lanes`), so BasicWarp<64> exists too; masks are 32-bit for Width <= 32, else 64-bit.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "alloclab/core/bit_tricks.hpp"

namespace alloclab::sim::warp {

template <unsigned Width>
using LaneMask = std::conditional_t<(Width <= 32), std::uint32_t, std::uint64_t>;

// A lane's coalesced group (cooperative_groups::coalesced_group seen from that lane).
template <unsigned Width>
struct Group {
  LaneMask<Width> mask = 0;  // the group's lanes
  unsigned leader = 0;       // its lowest lane (thread_rank() == 0)
  unsigned rank = 0;         // this lane's thread_rank(): group lanes below it
  unsigned size = 0;         // popc(mask)
  bool operator==(const Group&) const = default;
};

template <typename T, unsigned Width>
struct AggregatedAdd {
  std::array<T, Width> offsets{};  // per lane: the counter value its own amount starts at
  unsigned atomics = 0;            // fetch_adds issued: one per group
};

template <unsigned Width = 32>
class BasicWarp {
  static_assert(Width >= 1 && Width <= 64, "a simulated warp has 1..64 lanes");

 public:
  using Mask = LaneMask<Width>;
  template <typename T>
  using Lanes = std::array<T, Width>;
  static constexpr unsigned kWidth = Width;

  static constexpr Mask full_mask() { return static_cast<Mask>(bits::low_mask(Width)); }
  // Lanes below `lane` (%lanemask_lt).
  static constexpr Mask lanemask_lt(unsigned lane) {
    return static_cast<Mask>(bits::low_mask(lane));
  }
  // The lane of the n-th (0-based) set bit of m, -1 if m has no more than n set bits (__fns).
  static int nth_lane(Mask m, unsigned n) { return bits::find_kth_set_bit(m, n + 1); }

  explicit BasicWarp(Mask active) : active_(active & full_mask()) {}
  // Lanes 0..n-1 active: a warp whose last lanes lie past the end of the grid.
  static BasicWarp first_lanes(unsigned n) {
    if (n > Width)
      throw std::invalid_argument("warp: " + std::to_string(n) + " lanes exceed the width " +
                                  std::to_string(Width));
    return BasicWarp(static_cast<Mask>(bits::low_mask(n)));
  }

  Mask active() const { return active_; }
  bool is_active(unsigned lane) const { return lane < Width && ((active_ >> lane) & 1u); }
  unsigned size() const { return bits::popcount(active_); }

  // __ballot_sync: bit t set iff lane t is active and its predicate holds.
  Mask ballot(const Lanes<bool>& pred) const {
    return ballot_of([&](unsigned t) { return pred[t]; });
  }
  // The same with the predicate computed per lane: pred(lane) is called for active lanes only.
  template <typename Pred>
  Mask ballot_of(Pred&& pred) const {
    Mask m = 0;
    for_each_active([&](unsigned t) {
      if (pred(t)) m |= Mask{1} << t;
    });
    return m;
  }
  bool any(const Lanes<bool>& pred) const { return ballot(pred) != 0; }        // __any_sync
  bool all(const Lanes<bool>& pred) const { return ballot(pred) == active_; }  // __all_sync
  unsigned count(const Lanes<bool>& pred) const { return bits::popcount(ballot(pred)); }

  // Per active lane: __popc(ballot & lanemask_lt), the number of active lanes below it in
  // `ballot` (for a lane in the ballot: its rank among them).
  Lanes<unsigned> rank(Mask ballot) const {
    Lanes<unsigned> r{};
    const Mask b = ballot & active_;
    for_each_active([&](unsigned t) { r[t] = bits::popcount(b & lanemask_lt(t)); });
    return r;
  }

  // __match_any_sync: per active lane, the active lanes holding the same key.
  template <typename K>
  Lanes<Mask> match_any(const Lanes<K>& keys) const {
    Lanes<Mask> out{};
    Mask left = active_;
    while (left) {  // one pass per distinct key, led by its lowest lane
      const unsigned lead = bits::count_trailing_zeros(left);
      Mask same = 0;
      for (Mask m = left; m; m &= m - 1) {
        const unsigned t = bits::count_trailing_zeros(m);
        if (keys[t] == keys[lead]) same |= Mask{1} << t;
      }
      for (Mask m = same; m; m &= m - 1) out[bits::count_trailing_zeros(m)] = same;
      left &= ~same;
    }
    return out;
  }

  // __shfl_sync with a per-lane source: lane t receives values[src[t] % Width]. Reading an
  // inactive lane is undefined in CUDA; here it is an error (a simulated kernel must not do it).
  template <typename T>
  Lanes<T> shfl(const Lanes<T>& values, const Lanes<unsigned>& src) const {
    Lanes<T> out{};
    for_each_active([&](unsigned t) { out[t] = values[source(src[t] % Width, "shfl")]; });
    return out;
  }
  // __shfl_sync broadcasting one lane's value.
  template <typename T>
  Lanes<T> shfl(const Lanes<T>& values, unsigned src_lane) const {
    const T v = values[source(src_lane % Width, "shfl")];
    Lanes<T> out{};
    for_each_active([&](unsigned t) { out[t] = v; });
    return out;
  }
  // __shfl_xor_sync: lane t receives values[t ^ lane_mask]; a source past the warp gives the
  // lane its own value (CUDA's rule for a source beyond `width`).
  template <typename T>
  Lanes<T> shfl_xor(const Lanes<T>& values, unsigned lane_mask) const {
    Lanes<T> out{};
    for_each_active([&](unsigned t) {
      const unsigned s = t ^ lane_mask;
      out[t] = s < Width ? values[source(s, "shfl_xor")] : values[t];
    });
    return out;
  }

  // __reduce_add_sync: the sum over the active lanes (every active lane receives it).
  template <typename T>
  T reduce_add(const Lanes<T>& values) const {
    T sum{};
    for_each_active([&](unsigned t) { sum += values[t]; });
    return sum;
  }
  // Per active lane: the sum of the active lanes below it (lane order).
  template <typename T>
  Lanes<T> exclusive_sum(const Lanes<T>& values) const {
    Lanes<T> out{};
    T run{};
    for_each_active([&](unsigned t) {
      out[t] = run;
      run += values[t];
    });
    return out;
  }

  // cooperative_groups::coalesced_threads(): all active lanes form one group.
  Lanes<Group<Width>> coalesced_threads() const { return groups_of(Lanes<Mask>{}, true); }
  // cooperative_groups::labeled_partition(coalesced_threads(), label): the active lanes with the
  // same label form one group.
  template <typename K>
  Lanes<Group<Width>> labeled_partition(const Lanes<K>& labels) const {
    return groups_of(match_any(labels), false);
  }

  // The warp-aggregated atomic: the active lanes are grouped by key (match_any); each group's
  // leader issues ONE counter.fetch_add(sum of its group's amounts) and every lane receives the
  // returned value plus the amounts of its group's lanes below it. Groups issue their atomics in
  // the order of their leaders' lanes (on hardware that order is unspecified). A group whose
  // amounts sum to 0 still issues its atomic, as the GPU code does.
  template <typename T, typename Counter, typename K>
  AggregatedAdd<T, Width> aggregated_fetch_add(Counter& counter, const Lanes<T>& amounts,
                                               const Lanes<K>& keys) const {
    return aggregate(counter, amounts, labeled_partition(keys));
  }
  // One group: the whole active warp.
  template <typename T, typename Counter>
  AggregatedAdd<T, Width> aggregated_fetch_add(Counter& counter, const Lanes<T>& amounts) const {
    return aggregate(counter, amounts, coalesced_threads());
  }

 private:
  template <typename F>
  void for_each_active(F&& f) const {
    for (Mask m = active_; m; m &= m - 1) f(bits::count_trailing_zeros(m));
  }
  unsigned source(unsigned lane, const char* op) const {
    if (!is_active(lane))
      throw std::logic_error(std::string("warp ") + op + ": source lane " + std::to_string(lane) +
                             " is inactive (undefined in CUDA)");
    return lane;
  }
  Lanes<Group<Width>> groups_of(const Lanes<Mask>& masks, bool whole_warp) const {
    Lanes<Group<Width>> out{};
    for_each_active([&](unsigned t) {
      const Mask g = whole_warp ? active_ : masks[t];
      out[t] = {g, bits::count_trailing_zeros(g), bits::popcount(g & lanemask_lt(t)),
                bits::popcount(g)};
    });
    return out;
  }
  template <typename T, typename Counter>
  AggregatedAdd<T, Width> aggregate(Counter& counter, const Lanes<T>& amounts,
                                    const Lanes<Group<Width>>& groups) const {
    AggregatedAdd<T, Width> r;
    for_each_active([&](unsigned t) {  // leaders in lane order
      const Group<Width>& g = groups[t];
      if (g.leader != t) return;
      T total{};
      for (Mask m = g.mask; m; m &= m - 1) {
        const unsigned u = bits::count_trailing_zeros(m);
        r.offsets[u] = total;  // exclusive prefix within the group
        total += amounts[u];
      }
      const T base = static_cast<T>(counter.fetch_add(total));
      ++r.atomics;
      for (Mask m = g.mask; m; m &= m - 1) r.offsets[bits::count_trailing_zeros(m)] += base;
    });
    return r;
  }

  Mask active_;
};

using Warp = BasicWarp<32>;

}  // namespace alloclab::sim::warp
