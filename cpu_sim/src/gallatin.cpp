// Gallatin (McCoy & Pandey, PPoPP'24) in the simulator: the shared operations of
// core/gallatin/allocator.hpp driven in the three modes over one pool (studies/gallatin/, "In the
// simulator").
//
// The pool: T pages of 16 B (Capabilities::fixed_page_bytes), a whole number of 16 MiB segments
// (2^20 pages each; anything else is an input error on --T). Segments whose pages are all free
// at the start (A of T free, as for every allocator) are the memory manager's, in the segment
// tree; the others are the application's and never used. A request of n pages (1 .. the pool)
// is routed by its 16 n bytes (core/gallatin/large.hpp, route_of): up to 4096 B a slice of the
// size class 16 B << k >= 16 n B; above, 2^j contiguous 4 KiB slices, a whole block, or
// contiguous segments from the back of the segment tree. Its first n pages are the request's
// (the rest is internal fragmentation).
//
// SMs and block buffers: the buffers are sized for kDefaultSms = 132 SMs (an H100 or H200 SXM);
// simulated threads form thread blocks of 256 (8 warps, as the reference benchmark launches),
// thread block b running on SM b mod 132; a team uses its SM's slot (mod the class's slots). The
// buffers are filled on demand by the first team that finds a slot empty (Alg. 3's own path), or
// with SimOptions::preboot (--preboot) before the first request by the GPU backend's rule
// (Ops::preboot_pool: every class on pools of 64 segments or more, as the paper's init).
//
// Modes:
//  * sequential: requests one at a time in the random service order, each a team of one.
//  * Requests above 4096 B are teams of one in every mode (one thread each, as the public
//    code's large paths).
//  * lockstep: warps of `lanes` threads; the lanes of a warp asking one size class form a team
//    (the coalesced group of Alg. 3) whose leader issues one atomicAdd for all; teams run whole,
//    in round-priority order of their leaders (no interleaving inside an operation: races show in
//    threads mode).
//  * threads: host threads serve whole warps (their teams) at once on std::atomic_ref words.
// Steps: a lane's steps are its team's attempts of Alg. 3's loop (1 on the fast path).
// Verification beyond the simulator's own: a mirror of used pages (a page handed out twice, a
// double free), per block the slices live, and the structural check (state_check: every vEB
// upper bit the OR of its child word, segments and block trees agree, each block's handed-out
// slices = freed + live) at the start of every allocate() and at its end.
#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/gallatin/allocator.hpp"
#include "alloclab/core/gallatin/large.hpp"
#include "alloclab/core/gallatin/op_counts.hpp"
#include "alloclab/core/gallatin/state_check.hpp"
#include "alloclab/core/ouroboros/host_atomics.hpp"
#include "detail.hpp"
#include "engine.hpp"

namespace alloclab::sim::detail {
namespace {

using Op = gallatin::Ops<ouro::HostAtomics>;
using Big = gallatin::Large<ouro::HostAtomics>;
using gallatin::Route;
using gallatin::RouteKind;
constexpr std::uint64_t kPageBytes = 16;
constexpr std::uint64_t kPagesPerSegment = gallatin::kDefaultSegmentBytes / kPageBytes;
constexpr std::uint32_t kDefaultSms = 132;
constexpr std::uint64_t kWarpsPerThreadBlock = 8;

// RunResult::op_counts, per run (Counters::extra): the allocations', then the frees' made since
// the previous allocate() (the list the GPU reports too: core/gallatin/op_counts.hpp).
using namespace gallatin;  // the OpCount names
constexpr unsigned kCounts = kOpCounts;
const char* const* const kCountNames = kOpCountNames;
static_assert(kCounts <= Counters::kExtra);

gallatin::Geometry geometry_of_pages(std::uint64_t T) {
  gallatin::Geometry g;
  g.segments = static_cast<std::uint32_t>(T / kPagesPerSegment);
  return g;
}
gallatin::Geometry geometry_of(const Scenario& s) {
  return geometry_of_pages(s.T);
}

class GallatinAllocator final : public Allocator {
 public:
  GallatinAllocator(const Scenario& s, const SimOptions& o, std::uint64_t pool_seed)
      : s_(s),
        opt_(o),
        g_(geometry_of(s)),
        storage_(g_, kDefaultSms),
        used_(s.T, 64),
        live_(std::uint64_t{g_.segments} * g_.max_blocks()) {
    build_pool(used_, s, o.occupancy, pool_seed, resolve_host_threads(o.host_threads));
    live_pages_.store(s.T - used_.count_free());
    // A segment with any page in use is the application's.
    const std::uint64_t words = kPagesPerSegment / 64;
    gallatin::VebCounts ignored;
    for (std::uint32_t seg = 0; seg < g_.segments; ++seg) {
      bool free = true;
      for (std::uint64_t j = seg * words; j < (seg + 1) * words && free; ++j)
        free = used_.load(j) == 0;
      if (free) continue;
      storage_.tree_id[seg] = gallatin::kAppSegment;
      gallatin::Veb<ouro::HostAtomics>::remove(st().segment_tree, seg, ignored);
    }
    if (o.preboot) {
      // The class of the run's largest request (the slices route of large ones is class 8).
      unsigned largest = s.pages;
      for (const unsigned n : o.pages_per_thread) largest = std::max(largest, n);
      const unsigned run_class = gallatin::preboot_class(route_of_pages(largest));
      gallatin::Counts c;
      Op::preboot_pool(st(), run_class, c);
      if (c.stuck) throw VerificationError("gallatin: the pre-boot reached a bound");
      check_at_rest("after the pre-boot");
    }
  }

  RunResult allocate(std::uint64_t seed) override {
    check_at_rest("before an allocation (after the frees since the last one)");
    RunResult r;
    r.steps.assign(s_.N, 0);
    r.first_page.assign(s_.N, -1);
    std::vector<Counters> c(1);
    if (opt_.mode == Mode::sequential) {
      r.service_order = service_order(seed, s_.N);
      for (const std::uint64_t i : r.service_order) serve({i}, r, c[0]);
    } else {
      const std::uint64_t warps = warp_count(s_);
      if (opt_.mode == Mode::threads) {
        const unsigned workers = resolve_host_threads(opt_.host_threads);
        c.assign(workers, Counters{});
        parallel_for(warps, workers, [&](std::uint64_t w, unsigned wk) {
          for (const auto& team : teams_of(w)) serve(team, r, c[wk]);
        });
      } else {
        // Every team of every warp, leaders in round-priority order.
        std::vector<std::pair<std::uint64_t, std::vector<std::uint64_t>>> all;
        for (std::uint64_t w = 0; w < warps; ++w)
          for (auto& team : teams_of(w))
            all.emplace_back(round_priority(seed, team.front(), 0), std::move(team));
        std::sort(all.begin(), all.end());
        for (const auto& [priority, team] : all) serve(team, r, c[0]);
      }
    }
    for (unsigned k = free_blocks_returned; k < kCounts; ++k)
      c[0].extra[k] += free_counts_[k - free_blocks_returned].exchange(0);
    finish(r, c, {kCountNames, kCountNames + kCounts});
    check_at_rest("after an allocation");
    return r;
  }

  std::uint64_t free(std::uint64_t first_page, unsigned n) override {
    if (first_page >= s_.T || n == 0 || first_page + n > s_.T)
      throw VerificationError("free of pages outside the pool");
    const std::uint64_t offset = first_page * kPageBytes;
    const auto seg = static_cast<std::uint32_t>(offset / g_.segment_bytes);
    const std::uint32_t k = storage_.tree_id[seg];
    const Route r = route_of_pages(n);
    const bool starts =
        r.kind == RouteKind::segments
            ? k == gallatin::kSizeClasses + r.count && offset % g_.segment_bytes == 0
            : k == r.k && offset % g_.slice_bytes(k) == 0 &&
                  (r.kind != RouteKind::block || offset % g_.block_bytes(k) == 0);
    if (!starts)
      throw VerificationError("free of page " + std::to_string(first_page) +
                              " which does not start an allocation handed out for " +
                              std::to_string(n) + " pages");
    mark(first_page, n, false);
    if (r.kind != RouteKind::segments && live_[block_of(offset, k)].fetch_sub(1) == 0)
      throw VerificationError("a free of a block with no live allocation");
    live_pages_.fetch_sub(n);
    gallatin::Counts gc;
    Big::free_one(st(), offset, gc);
    if (gc.stuck) throw VerificationError("a Gallatin free reached its wait bound");
    free_counts_[0] += gc.blocks_returned;
    free_counts_[1] += gc.segments_returned;
    free_counts_[2] += gc.all_atomics();
    return gc.all_atomics();
  }

  std::vector<std::uint64_t> used_pages() const override { return used_.used_pages(); }
  std::uint64_t free_count() const override { return s_.T - live_pages_.load(); }

 private:
  const gallatin::State& st() const { return storage_.st; }
  unsigned pages_of(std::uint64_t i) const {
    return opt_.pages_per_thread.empty() ? s_.pages : opt_.pages_per_thread[i];
  }
  Route route_of_pages(unsigned n) const { return gallatin::route_of(n * kPageBytes, g_); }
  Route route_of_request(std::uint64_t i) const { return route_of_pages(pages_of(i)); }
  std::uint64_t block_of(std::uint64_t offset, unsigned k) const {
    return g_.block_id(static_cast<std::uint32_t>(offset / g_.segment_bytes),
                       static_cast<std::uint32_t>((offset % g_.segment_bytes) / g_.block_bytes(k)));
  }
  // The coalesced groups of warp w: its lanes asking slices, by size class, each in lane order;
  // then each lane asking more than 4096 B alone.
  std::vector<std::vector<std::uint64_t>> teams_of(std::uint64_t w) const {
    std::map<unsigned, std::vector<std::uint64_t>> by_class;
    std::vector<std::vector<std::uint64_t>> alone;
    const std::uint64_t first = w * s_.lanes;
    const std::uint64_t end = std::min<std::uint64_t>(first + s_.lanes, s_.N);
    for (std::uint64_t i = first; i < end; ++i) {
      const Route r = route_of_request(i);
      if (r.kind == RouteKind::slice)
        by_class[r.k].push_back(i);
      else
        alone.push_back({i});
    }
    std::vector<std::vector<std::uint64_t>> out;
    for (auto& [k, lanes] : by_class) out.push_back(std::move(lanes));
    for (auto& lane : alone) out.push_back(std::move(lane));
    return out;
  }
  // Pages [first, first + n) in use (set) or free (clear) in the mirror; a page already so is a
  // double hand-out or a double free. Whole words at once (a segment is 2^20 pages).
  void mark(std::uint64_t first, std::uint64_t n, bool set) {
    for (std::uint64_t p = first; p < first + n;) {
      const auto bit = static_cast<unsigned>(p % 64);
      const auto len = static_cast<unsigned>(std::min<std::uint64_t>(64 - bit, first + n - p));
      const std::uint64_t m = bits::low_mask(len) << bit;
      const std::uint64_t old = set ? used_.fetch_or(p / 64, m) : used_.fetch_and(p / 64, ~m);
      if (set && (old & m) != 0)
        throw VerificationError("gallatin handed out page " +
                                std::to_string(p + bits::count_trailing_zeros((old & m) >> bit)) +
                                " which is in use");
      if (!set && (old & m) != m)
        throw VerificationError("double free of page " +
                                std::to_string(p + bits::count_trailing_zeros((~old & m) >> bit)));
      p += len;
    }
  }

  // One team's Alg. 3: its slices, verified and recorded, and its counts.
  void serve(const std::vector<std::uint64_t>& team, RunResult& r, Counters& c) {
    const Route route = route_of_request(team.front());
    const unsigned k = route.k;
    const std::uint64_t sm = (team.front() / s_.lanes / kWarpsPerThreadBlock) % kDefaultSms;
    const auto slot = static_cast<std::uint32_t>(sm % st().slots[k]);
    std::vector<std::uint64_t> offsets(team.size());
    gallatin::Counts gc;
    std::uint32_t served = 0;
    if (route.kind == RouteKind::slice) {
      served = Op::malloc_team(st(), k, slot, static_cast<std::uint32_t>(team.size()),
                               offsets.data(), gc);
    } else {  // one request (teams_of)
      offsets[0] = Big::malloc(st(), route, slot, gc);
      served = offsets[0] == gallatin::kNoBlock ? 0 : 1;
    }
    if (gc.stuck) throw VerificationError("a Gallatin allocation reached its wait bound");
    for (std::size_t j = 0; j < team.size(); ++j) {
      r.steps[team[j]] = gc.attempts;
      if (j < served)
        take(team[j], offsets[j], route, r, c);
      else
        ++c.failed;
    }
    c.probes += gc.loads + gc.veb.loads;
    c.atomics += gc.all_atomics();
    c.collisions += gc.restarts + gc.veb.restarts;
    c.failed_claims += gc.restarts + gc.veb.restarts;
    const std::uint32_t v[] = {1,
                               0,
                               gc.block_refills,
                               gc.segments_formatted,
                               gc.veb.loads,
                               gc.veb.levels,
                               gc.veb.atomics,
                               gc.veb.restarts,
                               gc.restarts,
                               gc.init_writes};
    for (unsigned j = 0; j < std::size(v); ++j) c.extra[j] += v[j];
    // Each lane counts its team's size: per request, the mean team a request was served in.
    c.extra[team_lanes] += team.size() * team.size();
  }
  void take(std::uint64_t i, std::uint64_t offset, const Route& route, RunResult& r, Counters& c) {
    const unsigned n = pages_of(i);
    const std::uint64_t first = offset / kPageBytes;
    if (first + n > s_.T) throw VerificationError("a Gallatin allocation past the pool's end");
    mark(first, n, true);
    if (route.kind != RouteKind::segments) live_[block_of(offset, route.k)].fetch_add(1);
    live_pages_.fetch_add(n);
    r.first_page[i] = static_cast<std::int64_t>(first);
    c.taken += n;
  }

  void check_at_rest(const char* when) const {
    std::vector<std::uint32_t> live(live_.size());
    for (std::size_t b = 0; b < live.size(); ++b) live[b] = live_[b].load();
    const std::string e = gallatin::state_check(st(), live);
    if (!e.empty()) throw VerificationError("gallatin: " + e + " " + when);
  }

  Scenario s_;
  SimOptions opt_;
  gallatin::Geometry g_;
  gallatin::StateStorage storage_;                // the trees, the memory table, the buffers
  Bitmap used_;                                   // pages held by live requests or the application
  std::vector<std::atomic<std::uint32_t>> live_;  // per block: slices live
  std::atomic<std::uint64_t> live_pages_{0};
  std::atomic<std::uint64_t> free_counts_[kCounts - free_blocks_returned] = {};
};

void check_gallatin_scenario(const Scenario& s, const SimOptions& o) {
  if (s.T < kPagesPerSegment || s.T % kPagesPerSegment != 0)
    throw InputError("--T", "gallatin's pool is a whole number of 16 MiB segments (" +
                                std::to_string(kPagesPerSegment) + " pages of 16 B each); got " +
                                std::to_string(s.T) + " pages");
  if (s.T / kPagesPerSegment > (std::uint64_t{1} << 24))
    throw InputError("--T", "gallatin's simulator holds at most 2^24 segments");
  const std::uint64_t pool_pages = s.T;
  auto check = [pool_pages](unsigned n) {
    if (n < 1 || n > pool_pages)
      throw InputError("--pages", "gallatin serves requests of 1 page (16 B) up to the pool (" +
                                      std::to_string(pool_pages) + " pages); got " +
                                      std::to_string(n) + " pages");
    // Segments are claimed whole: a request's segments must fit the pool.
    const Route r =
        gallatin::route_of(std::uint64_t{n} * kPageBytes, geometry_of_pages(pool_pages));
    if (gallatin::route_bytes(r, geometry_of_pages(pool_pages)) > pool_pages * kPageBytes)
      throw InputError("--pages", "gallatin takes " + std::to_string(r.count) +
                                      " segments for a request of " + std::to_string(n) +
                                      " pages, more than the pool's " +
                                      std::to_string(pool_pages / kPagesPerSegment));
  };
  check(s.pages);
  for (const unsigned n : o.pages_per_thread) check(n);
}

// The memory table (ring, malloc and free counters, live slices: 16 B per block slot), the vEB
// trees (10 of them, a word per 64 segments and level), the used-page mirror.
double gallatin_pool_bytes(const Scenario& s) {
  const double segments = static_cast<double>(s.T / kPagesPerSegment);
  return 16.0 * 256 * segments + 10 * 8.0 * (segments / 64 + 2) * 4 + 32.0 * segments +
         bitmap_bytes(s.T, 64);
}

}  // namespace

ALLOCLAB_REGISTER_ENTRY(SimTable, Algorithm::gallatin,
                        (SimEntry{.make = &make_allocator_of<GallatinAllocator>,
                                  .check = &check_gallatin_scenario,
                                  .pool_bytes = &gallatin_pool_bytes,
                                  .lane_bytes_per_thread = 16,
                                  .step_bound = [](const Scenario&) -> std::uint64_t {
                                    return gallatin::kRaceBound;
                                  }}))

}  // namespace alloclab::sim::detail
