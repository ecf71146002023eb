// `alloclab explain` for Gelado & Garland's allocators (gg-tbuddy, gg-ualloc, gg-malloc): they
// have no closed-form model, so the explanation is the structure at the point (TBuddy's orders,
// UAlloc's size class and bin), the counts a fresh pool makes exact (splits, bins), and one
// request's cost in the allocator's own terms from the quick simulations' counters
// (validation/explain_parts.hpp). Registered in the explain part table from this folder.
#include <fmt/format.h>

#include <cmath>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/gelado/tbuddy_pool.hpp"
#include "alloclab/core/gelado/ualloc_layout.hpp"
#include "alloclab/model/explain.hpp"
#include "alloclab/validation/explain_parts.hpp"

namespace alloclab::studies::gelado_garland {
namespace {

using model::ExplainLine;
using model::ExplainSection;
using model::Explanation;
using validation::CountMeaning;
using validation::QuickSimulation;

double num(std::uint64_t v) {
  return static_cast<double>(v);
}

// The semaphore's counts, as both allocators name them (core/gelado's stats).
const std::vector<CountMeaning> kSemaphoreCounts = {
    {"waits_took", "waits on a bulk semaphore that returned 0: a unit (a block, a slot) taken"},
    {"waits_grew",
     "waits that returned -1 (Alg. 1): this thread grows the structure, for itself and a batch"},
    {"reserves", "waits that reserved a unit a grower had promised (R += 1), then waited for it"},
    {"sem_spins", "semaphore steps that spun (a reserver waiting for the batch to arrive)"},
};

std::vector<CountMeaning> with(std::vector<CountMeaning> a, const std::vector<CountMeaning>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// ---- gg-tbuddy -------------------------------------------------------------------------------

// S = sum over l = 1 .. H - o of ceil(N / 2^l): on an empty pool served one request at a time,
// the requests take the order-o blocks from the left, and every block above them that holds one
// of the first N is split exactly once (its first taker grows it, the second takes the
// promised half).
std::uint64_t tbuddy_fresh_splits(std::uint64_t N, unsigned H, unsigned o) {
  std::uint64_t splits = 0;
  for (unsigned l = 1; l + o <= H; ++l) splits += (N + (std::uint64_t{1} << l) - 1) >> l;
  return splits;
}

Explanation tbuddy_explain(const Scenario& s, const std::vector<QuickSimulation>& sims) {
  const unsigned H = gelado::tbuddy_height_of(s.T);
  const unsigned o = gelado::tbuddy_order_of(s.pages);
  Explanation x;
  x.model =
      "gg-tbuddy: one request's cost in semaphore waits, splits and node operations (Gelado & "
      "Garland, PPoPP'19 §4.1; alloclab has no closed-form model of it)";
  x.assumptions_title = "How one request is served (no closed-form model)";
  x.assumptions = {
      "TBuddy is a binary buddy tree over 2^H pages with one bulk semaphore per order (batch 2): "
      "a request of n pages waits on the semaphore of its order o = ceil(log2 n).",
      "wait returns 0: a unit (an Available block of order o) is its; it searches the tree for "
      "one (nodes_visited) and claims it with a CAS, the ancestors' states updated (lock "
      "coupling, propagations).",
      "wait returns -1: it grows: it asks one order up in turn, splits the block it gets, keeps "
      "one half and signals the other (a batch of 2: its own unit and one for the next waiter).",
      "The sequential schedule serves one request at a time (no CAS fails, nobody waits); "
      "lockstep runs every thread one memory operation per round."};
  x.hardware = {
      "Threads of a warp wait on one semaphore word together: their CASes collide "
      "(sem_cas_failures) and the reservers spin until the grower signals (sem_spins), which the "
      "lockstep counts show and the sequential ones cannot.",
      "Node locks are held down a path (lock coupling): a lock another thread holds is a spin "
      "(lock_spins), so requests that meet near the root serialise."};
  ExplainSection tree;
  tree.title = "The tree at this point";
  tree.lines = {
      {"H", "ceil(log2 T)", fmt::format("ceil(log2 {})", s.T), num(H),
       fmt::format("the tree's height: 2^{} leaves of one page, H + 1 = {} orders and semaphores",
                   H, H + 1)},
      {"o", "ceil(log2 n)", fmt::format("ceil(log2 {})", s.pages), num(o),
       fmt::format("the request's order: a block of 2^{} = {} pages", o, 1u << o)},
      {"climb", "H - o", fmt::format("{} - {}", H, o), num(H - o),
       "the most orders a grower climbs (and splits it makes): up to the root"}};
  x.sections.push_back(std::move(tree));
  ExplainSection fresh;
  fresh.title = "Splits on an empty pool, one request at a time (exact)";
  if (s.A == s.T && s.T == (std::uint64_t{1} << H) && (s.N << o) <= s.T) {
    const std::uint64_t S = tbuddy_fresh_splits(s.N, H, o);
    std::string terms;
    for (unsigned l = 1; l + o <= H; ++l)
      terms += fmt::format("{}ceil({}/{})", l == 1 ? "" : " + ", s.N, std::uint64_t{1} << l);
    fresh.text =
        "The requests take the order-o blocks from the left; every block of a higher order that "
        "holds one of the first N is split once, by the first request that needs it (its wait "
        "returns -1), and its other half is the unit the next request takes. Compare with the "
        "simulator's splits and waits_grew per request below (sequential).";
    fresh.lines = {
        {"S", "sum over l = 1 .. H - o of ceil(N / 2^l)", terms, num(S),
         "blocks split (and waits that grew) in all"},
        {"S / N", "S / N", fmt::format("{} / {}", S, s.N), num(S) / num(s.N),
         "splits per request: the first request pays the whole climb, later ones about one"}};
  } else {
    fresh.text = fmt::format(
        "Exact only on an empty pool (A = T) whose T is a power of two and holds the N blocks "
        "(N x 2^o <= T); here A = {}, T = {}: see the simulator's counts below.",
        s.A, s.T);
  }
  x.sections.push_back(std::move(fresh));
  const auto counts =
      with({{"tas", "memory operations of a request (the registry's step)"},
            {"was", "the warp's slowest lane"}},
           with(kSemaphoreCounts,
                {{"sem_cas_failures", "semaphore CASes that found the word changed (retried)"},
                 {"splits", "blocks split by a grower"},
                 {"propagations", "ancestors whose state a claim or split changed"},
                 {"nodes_visited", "node reads of the search for an Available block"},
                 {"node_ops", "loads and atomics on tree nodes"},
                 {"claim_cas_failures", "claims whose CAS found the node changed"},
                 {"lock_spins", "lock attempts that found the node's lock held"},
                 {"gave_up", "requests that stopped at the step bound (out of memory)"}}));
  for (auto& sec : validation::counter_sections(
           s, sims, counts,
           "Per request, the mean over the quick simulation's trials (alloclab simulate "
           "--allocator gg-tbuddy prints the same columns)."))
    x.sections.push_back(std::move(sec));
  x.errata = {"gg-alg1-c-ge-i", "gg-spin-rule", "gg-signal-i-plus-b", "gg-tbuddy-merge-rule",
              "gg-tbuddy-merge-recursion"};
  return x;
}

// ---- gg-ualloc and gg-malloc's UAlloc path ------------------------------------------------------

const std::vector<CountMeaning> kUAllocCounts =
    with({{"tas", "memory operations of a request (the registry's step)"},
          {"was", "the warp's slowest lane"}},
         with(kSemaphoreCounts,
              {{"list_nodes", "bins of the size's free list visited"},
               {"bitmap_probes", "bin bitmap words read for a free slot"},
               {"bit_retries", "slot claims lost to another thread (the bit was taken)"},
               {"count_cas_failures", "CASes on a bin's free count that found it changed"},
               {"refills", "bins initialised for the size (a grower's batch)"},
               {"chunk_refills", "chunks taken from TBuddy for new bins"},
               {"chunk_locks", "acquisitions of the arena's chunk mutex"},
               {"lock_spins", "attempts that found the chunk mutex held"},
               {"unlinks", "full bins taken off the free list"},
               {"gave_up", "requests that stopped at the step bound (out of memory)"},
               {"grow_failed", "grows that found no chunk (the pool exhausted)"}}));

// The size class of n 8-byte units and its bin, with the fresh pool's bin count.
void ualloc_sections(const Scenario& s, Explanation& x) {
  const std::uint32_t bytes = 8 * s.pages;
  const std::uint32_t k = gelado::ualloc_class_of(bytes);
  const std::uint32_t slot = gelado::ualloc_class_bytes(k);
  const std::uint32_t body = gelado::ualloc_body_slots(k);
  const std::uint32_t batch = gelado::ualloc_batch(k);
  const std::uint64_t chunk_units = std::uint64_t{gelado::kUAllocDefaultChunkBins} * 4096 / 8;
  ExplainSection cls;
  cls.title = "The size class and its bin";
  cls.lines = {
      {"k", "smallest k with 8 B x 2^k >= 8 B x n", fmt::format("8 B x {} = {} B", s.pages, bytes),
       num(k), fmt::format("the size class: slots of {} B", slot)},
      {"body", "floor(3968 B / slot)", fmt::format("floor(3968 / {})", slot), num(body),
       "slots in a bin's body (4 KB less its 128 B header)"},
      {"batch", "body + 128 B / slot (slot <= 128 B: the bin's tail)",
       slot <= 128 ? fmt::format("{} + 128 / {}", body, slot) : fmt::format("{} + 0", body),
       num(batch), "slots of a new bin: what one grower's wait promises (the semaphore's batch)"},
      {"chunks", "T x 8 B / (64 bins x 4 KB)", fmt::format("{} x 8 / {}", s.T, 64 * 4096),
       num(s.T / chunk_units), "chunks of 256 KB the pool holds (TBuddy's blocks for UAlloc)"}};
  x.sections.push_back(std::move(cls));
  ExplainSection fresh;
  fresh.title = "Bins on an empty pool, one request at a time, one arena (exact)";
  const std::uint64_t bins = (s.N + batch - 1) / batch;
  if (s.A == s.T && bins <= gelado::kUAllocTails) {
    fresh.text =
        "Every request of the size asks the size's semaphore: the first finds nothing and grows "
        "(a new bin, its batch of slots), the next batch - 1 take slots from it, and so on. "
        "Compare with the simulator's refills and waits_grew per request (sequential).";
    fresh.lines = {{"bins", "ceil(N / batch)", fmt::format("ceil({} / {})", s.N, batch), num(bins),
                    "bins initialised"},
                   {"bins / N", "bins / N", fmt::format("{} / {}", bins, s.N), num(bins) / num(s.N),
                    "bin refills per request: one request in `batch` pays for a bin"}};
  } else {
    fresh.text = fmt::format(
        "Exact only on an empty pool (A = T) whose requests fill at most {} bins (those with a "
        "tail); here A = {}, T = {}, ceil(N / batch) = {}: see the simulator's counts below.",
        gelado::kUAllocTails, s.A, s.T, bins);
  }
  x.sections.push_back(std::move(fresh));
}

const std::vector<std::string> kUAllocErrata = {"gg-return-zero-grows", "gg-ualloc-chunk-bins",
                                                "gg-alg1-c-ge-i", "gg-spin-rule"};

Explanation ualloc_explain(const Scenario& s, const std::vector<QuickSimulation>& sims) {
  Explanation x;
  x.model =
      "gg-ualloc: one request's cost in semaphore waits, bins and bitmap words (Gelado & Garland, "
      "PPoPP'19 §4.2; alloclab has no closed-form model of it)";
  x.assumptions_title = "How one request is served (no closed-form model)";
  x.assumptions = {
      "A request of n units of 8 B takes a slot of its size class, 8 B x 2^ceil(log2 n) (up to "
      "1 KB), from a 4 KB bin of that size on its arena's free list.",
      "It first waits on the size's bulk semaphore: 0 means a slot is counted for it (it walks "
      "the list and claims a bit of a bin's bitmap); -1 means it grows: it takes a bin from the "
      "arena's chunk (a chunk from TBuddy when none is left, under the chunk mutex), initialises "
      "it and signals the batch of its slots.",
      "The sequential schedule serves one request at a time; lockstep runs every thread one "
      "memory operation per round (the simulator's arenas: thread i uses (i / lanes) mod "
      "arenas, one by default)."};
  x.hardware = {
      "Threads of a warp asking for one size meet on one semaphore word and one bin: CAS "
      "failures and bit retries grow with the warp, as the lockstep counts show.",
      "The GPU gives each SM its own arena, so the chunk mutex is shared by fewer threads than "
      "the simulator's one arena."};
  ualloc_sections(s, x);
  for (auto& sec : validation::counter_sections(
           s, sims, kUAllocCounts,
           "Per request, the mean over the quick simulation's trials (alloclab simulate "
           "--allocator gg-ualloc prints the same columns)."))
    x.sections.push_back(std::move(sec));
  x.errata = kUAllocErrata;
  return x;
}

Explanation malloc_explain(const Scenario& s, const std::vector<QuickSimulation>& sims) {
  Explanation x;
  x.model =
      "gg-malloc: which allocator serves the request, and its cost (Gelado & Garland, PPoPP'19 "
      "§4; alloclab has no closed-form model of it)";
  x.assumptions_title = "How one request is served (no closed-form model)";
  x.assumptions = {
      "malloc rounds a size up to a power of two: up to 1 KB it is a UAlloc slot, from 2 KB "
      "whole 4 KB pages from TBuddy (a 2 KB object fits once in a bin's 3,968 B body).",
      "free tells them apart by alignment: no UAlloc address is 4 KB-aligned (a bin's first "
      "128 B are its header)."};
  x.hardware = {"As gg-ualloc's and gg-tbuddy's: a warp's lanes meet on one semaphore word."};
  const std::uint64_t bytes = std::uint64_t{8} * s.pages;
  std::uint64_t rounded = 8;
  while (rounded < bytes) rounded *= 2;
  ExplainSection route;
  route.title = "Which allocator serves it";
  route.lines = {{"size", "8 B x n, rounded up to a power of two",
                  fmt::format("8 x {} = {} B -> {} B", s.pages, bytes, rounded), num(rounded),
                  rounded <= gelado::kUAllocMaxBytes
                      ? "at most 1 KB: a UAlloc slot (below)"
                      : "2 KB or more: whole 4 KB pages of TBuddy, counted by its give-ups only"}};
  if (rounded > gelado::kUAllocMaxBytes) {
    const std::uint64_t pages4k = std::max<std::uint64_t>(1, rounded / 4096);
    route.lines.push_back({"TBuddy pages", "max(1, size / 4 KB)",
                           fmt::format("max(1, {} / 4096)", rounded), num(pages4k),
                           "the 4 KB pages TBuddy hands out for it (a block of that order)"});
  }
  x.sections.push_back(std::move(route));
  if (rounded <= gelado::kUAllocMaxBytes) ualloc_sections(s, x);
  for (auto& sec : validation::counter_sections(
           s, sims, kUAllocCounts,
           "Per request, the mean over the quick simulation's trials (UAlloc's counts; a TBuddy "
           "request counts only its give-ups)."))
    x.sections.push_back(std::move(sec));
  x.errata = kUAllocErrata;
  if (rounded > gelado::kUAllocMaxBytes)  // served by TBuddy: its errata come first
    x.errata = {"gg-tbuddy-merge-rule", "gg-tbuddy-merge-recursion", "gg-alg1-c-ge-i",
                "gg-spin-rule", "gg-signal-i-plus-b"};
  return x;
}

}  // namespace
}  // namespace alloclab::studies::gelado_garland

ALLOCLAB_REGISTER_EXPLAIN_PART((alloclab::validation::ExplainPartEntry{
    .algo = alloclab::Algorithm::gg_tbuddy,
    .study = "gelado-garland",
    .explain = &alloclab::studies::gelado_garland::tbuddy_explain}))
ALLOCLAB_REGISTER_EXPLAIN_PART((alloclab::validation::ExplainPartEntry{
    .algo = alloclab::Algorithm::gg_ualloc,
    .study = "gelado-garland",
    .explain = &alloclab::studies::gelado_garland::ualloc_explain}))
ALLOCLAB_REGISTER_EXPLAIN_PART((alloclab::validation::ExplainPartEntry{
    .algo = alloclab::Algorithm::gg_malloc,
    .study = "gelado-garland",
    .explain = &alloclab::studies::gelado_garland::malloc_explain}))
