// gallatin (McCoy & Pandey, PPoPP'24 Alg. 1-4): the atomics of the slice path, counted from the
// algorithm (studies/gallatin/, "The model"), and its model-table entry. The simulator's
// schedules on an empty pool (A = T, whole 16 MiB segments, no pre-boot), every request of one
// class k with S = 4096 slices per block and B = 256 >> k blocks per segment:
//  * a team's allocation is ONE atomicAdd on its block's malloc counter (Alg. 3);
//  * a block refill (an empty buffer slot, or the team that took a block's last slice swapping
//    it) is 4 more: the segment's gate CAS, its head, its ring slot, the buffer slot's CAS;
//  * slot s serving n_s slices takes floor(n_s / S) + 1 blocks (the first, and one after each
//    full block, the last swap included): R = sum over the slots used;
//  * segments are drained front-first, one at a time, so G = ceil(R / B) are formatted and
//    D = floor(R / B) drained; each is inserted into the empty block tree and each drained one
//    removed from it, L atomics each (the word turns non-empty / empty at every level), and each
//    formatted segment s is removed from the full segment tree: 1 atomic plus one per level where
//    s is the last index of its ancestor's span (the word turns empty);
//  * each format is counted in flight (get_segment's `formatting` word: 2 atomics, up and down),
//    so that a caller finding no free segment can tell out of memory from a format under way.
// So atomics = teams + 4 R + L (G + D) + 2 G + sum_{s < G} p(s), and per request about 1 / team
// size plus 4 / S per request of a slot: the digest's "1/|team| + one refill per 4096 slices per
// slot". Slots: requests form thread blocks of 8 warps of `lanes`; thread block b runs on SM
// b mod 132 and uses slot (SM mod max(4, 132 >> k)) (cpu_sim/src/gallatin.cpp).
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "alloclab/core/gallatin/large.hpp"
#include "alloclab/core/gallatin/layout.hpp"
#include "alloclab/core/gallatin/veb_tree.hpp"
#include "alloclab/model/explain.hpp"
#include "alloclab/model/model.hpp"
#include "alloclab/model/model_table.hpp"

namespace alloclab::model {
namespace {

constexpr std::uint64_t kPagesPerSegment = gallatin::kDefaultSegmentBytes / 16;
constexpr std::uint64_t kSms = 132;
constexpr std::uint64_t kWarpsPerThreadBlock = 8;

unsigned class_of(const Scenario& s) {
  return gallatin::size_class_of(std::uint64_t{s.pages} * 16);
}

struct Counts {
  std::uint64_t refills = 0, segments = 0, drained = 0, levels = 0, segment_tree_atomics = 0;
};

Counts counts(const Scenario& s) {
  gallatin::Geometry g;
  g.segments = static_cast<std::uint32_t>(s.T / kPagesPerSegment);
  const unsigned k = class_of(s);
  const std::uint64_t slots = gallatin::buffer_slots(kSms, k);
  std::vector<std::uint64_t> per_slot(slots, 0);
  const std::uint64_t per_block = std::uint64_t{s.lanes} * kWarpsPerThreadBlock;
  for (std::uint64_t first = 0; first < s.N; first += per_block) {
    const std::uint64_t sm = (first / per_block) % kSms;
    per_slot[sm % slots] += std::min<std::uint64_t>(per_block, s.N - first);
  }
  Counts c;
  for (const std::uint64_t n : per_slot)
    if (n > 0) c.refills += n / g.slices_per_block + 1;
  const std::uint64_t B = g.blocks_per_segment(k);
  c.segments = (c.refills + B - 1) / B;
  c.drained = c.refills / B;
  c.levels = gallatin::veb_levels_paper(g.segments);
  // Segment s leaves the full segment tree after 0 .. s - 1: its word at each level turns empty
  // when it is the last index of that word's span (within the tree's words).
  for (std::uint64_t seg = 0; seg < c.segments; ++seg) {
    std::uint64_t atomics = 1, x = seg, items = g.segments;  // the leaf's AND
    for (std::uint64_t level = c.levels - 1; level > 0; --level) {
      if (x != std::min<std::uint64_t>(x | 63, items - 1)) break;  // the word keeps a bit
      ++atomics;  // it turned empty: the parent's AND
      items = (items + 63) / 64;
      x >>= 6;
    }
    c.segment_tree_atomics += atomics;
  }
  return c;
}

// The atomics beside the teams' own: 4 a refill, L a block-tree insert or remove, 2 a format
// (get_segment's in-flight count, up and down) and the segment tree's removes.
std::uint64_t fixed_atomics(const Counts& c) {
  return 4 * c.refills + c.levels * (c.segments + c.drained) + 2 * c.segments +
         c.segment_tree_atomics;
}

std::uint64_t segments_needed(const Scenario& s) {
  return counts(s).segments;
}

gallatin::Route route_of(const Scenario& s) {
  gallatin::Geometry g;
  g.segments = static_cast<std::uint32_t>(s.T / kPagesPerSegment);
  return gallatin::route_of(std::uint64_t{s.pages} * 16, g);
}

// The segment path (requests above one 16 MiB block, large.hpp), on a pool of at most 64
// segments (one vEB level): m = ceil(size / 16 MiB) segments a request, claimed alone with m
// leaf atomics and the in-flight count's two; floor(segments / m) requests fit; utilisation
// size / (16 MiB m).
std::optional<InputError> segment_path_uncovered(const Scenario& s) {
  const std::uint64_t segments = s.T / kPagesPerSegment, m = route_of(s).count;
  if (route_of(s).kind != gallatin::RouteKind::segments)
    return InputError("--pages", fmt::format("it needs requests of 16 B to 4096 B (slices, pages "
                                             "1..256) or above 16 MiB (whole segments); {} B "
                                             "takes blocks",
                                             std::uint64_t{s.pages} * 16));
  if (segments > 64)
    return InputError("--T", fmt::format("requests above 16 MiB are modelled on pools of at most "
                                         "64 segments (one vEB level); T holds {}",
                                         segments));
  if (s.N > segments / m)  // N x m > segments, without the product
    return InputError("--N", fmt::format("it needs {} segments for each request: N x {} <= the "
                                         "pool's {} segments (here N={})",
                                         m, m, segments, s.N));
  return std::nullopt;
}

// An empty pool of whole segments, slices of 16 B - 4096 B, and segments for every refill; or
// the segment path.
std::optional<InputError> uncovered(const Scenario& s) {
  if (s.A != s.T)
    return InputError("--A", fmt::format("it needs an empty pool: A = T (--free 1); here A={} of "
                                         "T={}",
                                         s.A, s.T));
  if (s.T < kPagesPerSegment || s.T % kPagesPerSegment != 0)
    return InputError("--T", fmt::format("it needs whole 16 MiB segments: T a multiple of {} "
                                         "pages of 16 B; here T={}",
                                         kPagesPerSegment, s.T));
  if (s.pages > gallatin::kMaxSliceBytes / 16) return segment_path_uncovered(s);
  if (s.pages < 1) return InputError("--pages", "it needs requests of at least one page");
  if (s.lanes < 1) return InputError("--lanes", "it needs warps of at least one lane");
  if (s.N > 0 && s.pages > s.A / s.N)  // N x pages > A, without the product
    return InputError("--N", fmt::format("it needs a free page for every page requested: N x "
                                         "pages <= A (here {} x {} > A={})",
                                         s.N, s.pages, s.A));
  if (segments_needed(s) > s.T / kPagesPerSegment)
    return InputError("--N", fmt::format("it needs a segment for every block refill: the "
                                         "requests take {} segments, the pool has {}",
                                         segments_needed(s), s.T / kPagesPerSegment));
  return std::nullopt;
}

Record evaluate(const Scenario& s) {
  Record r = scenario_record(s);
  if (s.pages > gallatin::kMaxSliceBytes / 16) {  // the segment path
    const std::uint64_t m = route_of(s).count;
    const double bytes = static_cast<double>(s.pages) * 16;
    r.set("tas", 1.0).set("was", 1.0);
    r.set("atomics_per_request", static_cast<double>(m + 2));
    r.set_int("segments_per_request", m);
    r.set_int("requests_fit", s.T / kPagesPerSegment / m);
    r.set("utilisation", bytes / (static_cast<double>(m) * gallatin::kDefaultSegmentBytes));
    return r;
  }
  const Counts c = counts(s);
  const std::uint64_t fixed = fixed_atomics(c);
  const double N = static_cast<double>(s.N);
  // Sequential: every request a team of one, one attempt.
  r.set("tas", 1.0).set("was", 1.0);
  r.set("atomics_per_request", (N + static_cast<double>(fixed)) / N);
  // Warp teams (lockstep): one atomicAdd per team of `lanes`; exact when every warp is full and
  // S is a multiple of the team (no team straddles a block's end).
  if (s.N % s.lanes == 0 && gallatin::kDefaultSlicesPerBlock % s.lanes == 0)
    r.set("atomics_per_request_teams",
          (static_cast<double>(s.N / s.lanes) + static_cast<double>(fixed)) / N);
  else
    r.set_quantity("atomics_per_request_teams", std::nullopt,
                   "teams straddle a block's end (lanes does not divide N and 4096)");
  r.set_int("block_refills", c.refills);
  r.set_int("segments_formatted", c.segments);
  r.set_int("veb_levels", c.levels);
  return r;
}

// Gallatin's derivation for `alloclab explain` (explain.hpp), from the counts evaluate() uses.
Explanation explain(const Scenario& s) {
  Explanation x;
  x.model = "gallatin's atomics per slice allocation (McCoy & Pandey, PPoPP'24, Alg. 1-4)";
  x.assumptions = {
      "The pool is empty (A = T) and a whole number of 16 MiB segments; every request asks for "
      "one size class of slices, 16 B << k, with S = 4096 slices a block and B = 256 >> k "
      "blocks a segment.",
      "Requests form thread blocks of 8 warps; thread block b runs on SM b mod 132 and takes "
      "its blocks through one per-SM buffer slot of its class (max(4, 132 >> k) slots a class).",
      "A team's allocation is one atomicAdd on its block's counter (Alg. 3); a block refill is 4 "
      "more; segments are formatted front-first, one at a time, and the buffers are filled on "
      "demand (no pre-boot)."};
  x.hardware = {
      "The public Gallatin pre-boots every SM's buffers at start (13 segments for 132 SMs at "
      "16 B, studies/gallatin/): the first requests pay no refills, and the address range "
      "starts past those segments.",
      "A GPU's teams are the lanes that ask together (coalesced groups), often fewer than 32, "
      "and racing refills can format more segments than the schedule here."};
  const unsigned k = class_of(s);
  const Counts c = counts(s);
  gallatin::Geometry g;
  g.segments = static_cast<std::uint32_t>(s.T / kPagesPerSegment);
  const std::uint64_t B = g.blocks_per_segment(k);
  const std::uint64_t fixed = fixed_atomics(c);
  const double N = static_cast<double>(s.N);
  ExplainSection geometry;
  geometry.title = "The class and the pool";
  geometry.lines = {
      {"k", "smallest k with 16 B << k >= 16 B x pages", fmt::format("16 x {} B", s.pages), k,
       fmt::format("the size class: slices of {} B", 16u << k)},
      {"B", "256 >> k", fmt::format("256 >> {}", k), static_cast<double>(B),
       "blocks of 4096 slices a 16 MiB segment holds"},
      {"L", "ceil(log64 segments)", fmt::format("ceil(log64 {})", g.segments),
       static_cast<double>(c.levels), "levels of each vEB tree (the paper's count)"}};
  x.sections.push_back(std::move(geometry));
  ExplainSection refills;
  refills.title = "Blocks and segments";
  refills.lines = {{"R", "sum over the slots used of floor(n_s / 4096) + 1",
                    fmt::format("{} requests over {} slots", s.N, gallatin::buffer_slots(kSms, k)),
                    static_cast<double>(c.refills),
                    "block refills: each slot's first block, and one after each block it fills"},
                   {"G", "ceil(R / B)", fmt::format("ceil({} / {})", c.refills, B),
                    static_cast<double>(c.segments), "segments formatted, front-first"},
                   {"D", "floor(R / B)", fmt::format("floor({} / {})", c.refills, B),
                    static_cast<double>(c.drained), "segments whose blocks were all handed out"},
                   {"fixed", "4R + L(G + D) + 2G + the segment tree's removes",
                    fmt::format("4 x {} + {} x ({} + {}) + 2 x {} + {}", c.refills, c.levels,
                                c.segments, c.drained, c.segments, c.segment_tree_atomics),
                    static_cast<double>(fixed), "the atomics beside the teams' own"}};
  x.sections.push_back(std::move(refills));
  ExplainSection per_request;
  per_request.title = "Atomics per request";
  per_request.lines = {{"teams of one", "(N + fixed) / N",
                        fmt::format("({} + {}) / {}", s.N, fixed, s.N),
                        (N + static_cast<double>(fixed)) / N,
                        "the sequential schedule: every request its own atomicAdd"}};
  if (s.N % s.lanes == 0 && gallatin::kDefaultSlicesPerBlock % s.lanes == 0)
    per_request.lines.push_back(
        {"warp teams", "(N / lanes + fixed) / N",
         fmt::format("({} / {} + {}) / {}", s.N, s.lanes, fixed, s.N),
         (static_cast<double>(s.N / s.lanes) + static_cast<double>(fixed)) / N,
         "lockstep: a warp's lanes share one atomicAdd (Alg. 3's team), about 1 / lanes"});
  x.sections.push_back(std::move(per_request));
  return x;
}

constexpr std::string_view kHelp =
    "gallatin, the simulator's schedules on an empty pool (A = T, whole 16 MiB segments), one\n"
    "class of slices (S = 4096 per block, B = 256 >> k blocks per segment): a team's allocation\n"
    "is one atomicAdd, a block refill 4 more; slot s serving n_s slices takes floor(n_s/S) + 1\n"
    "blocks (R in all), G = ceil(R/B) segments formatted and D = floor(R/B) drained, L vEB "
    "levels:\n"
    "atomics = teams + 4R + L(G + D) + 2G (a format counted in flight) + the segment tree's\n"
    "removes. atomics_per_request: teams of one (sequential); atomics_per_request_teams: warps\n"
    "of `lanes` (lockstep). Requests above 16 MiB (pools of at most 64 segments): m =\n"
    "ceil(size / 16 MiB) segments each from the back of the segment tree, m + 2 atomics a\n"
    "request, floor(segments / m) fit, utilisation size / (16 MiB m).";

}  // namespace

ALLOCLAB_REGISTER_ENTRY(ModelTable, Algorithm::gallatin,
                        (ModelEntry{.uncovered = &uncovered,
                                    .evaluate = &evaluate,
                                    .metrics = {"tas", "was", "atomics_per_request",
                                                "block_refills", "segments_formatted"},
                                    .help = kHelp,
                                    .explain = &explain}))

}  // namespace alloclab::model
