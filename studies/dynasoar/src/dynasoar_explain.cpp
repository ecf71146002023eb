// `alloclab explain` for DynaSOAr's allocators (dynasoar, dynasoar-nocoal, dynasoar-norot and the
// BitmapAlloc baseline): no closed-form model, so the explanation is the heap's structure at the
// point (blocks, a type's capacity, the hierarchical bitmaps' levels), the counts an empty heap
// makes exact, and one request's cost in bitmap levels, lookups and reservations from the quick
// simulations' counters (validation/explain_parts.hpp).
#include <fmt/format.h>

#include "alloclab/core/dynasoar/hbitmap.hpp"
#include "alloclab/core/dynasoar/heap.hpp"
#include "alloclab/model/explain.hpp"
#include "alloclab/validation/explain_parts.hpp"

namespace alloclab::studies::dynasoar {
namespace {

using model::ExplainSection;
using model::Explanation;
using validation::CountMeaning;
using validation::QuickSimulation;

double num(std::uint64_t v) {
  return static_cast<double>(v);
}

// L(b) = 1 if b <= 64, else 1 + L(ceil(b / 64)), written out: "ceil(4096/64) = 64 <= 64".
std::string levels_text(std::uint64_t bits) {
  std::string out = fmt::format("{}", bits);
  for (std::uint64_t b = bits; b > 64; b = (b + 63) / 64)
    out += fmt::format(" -> {}", (b + 63) / 64);
  return out + " (one level per step, until <= 64 bits)";
}

const std::vector<CountMeaning> kDsCounts = {
    {"tas", "memory operations of a request (the registry's step)"},
    {"was", "the warp's slowest lane"},
    {"levels", "bitmap levels the request's bitmap operations worked on"},
    {"lookups", "searches of active[type] for a block with a free slot (try_find_set)"},
    {"lookup_fails", "of those, searches that found no active block"},
    {"find_fails", "bitmap searches that found no set bit"},
    {"reserves", "reservations of slots in a block's 64-bit object bitmap (one atomic each)"},
    {"reserve_lost", "reservations that lost bits to another thread"},
    {"reserve_fails", "reservations that found the block full"},
    {"blocks_initialised", "free blocks taken from free[] and typed for the request's type"},
    {"set_spins", "set() retries on a bitmap word"},
    {"clear_spins", "clear() retries on a bitmap word"},
    {"rollbacks", "reservations undone (the block was invalidated meanwhile)"},
    {"gave_up", "requests that stopped at the step bound (out of memory)"}};

Explanation dynasoar_explain(const Scenario& s, const std::vector<QuickSimulation>& sims) {
  const std::uint64_t M = alloclab::dynasoar::heap_blocks(s.T);
  const unsigned cap = alloclab::dynasoar::block_capacity(s.pages);
  const unsigned L = alloclab::dynasoar::hb_levels(M);
  const auto& d = info(s.algo);
  Explanation x;
  x.model = fmt::format(
      "{}: one request's cost in bitmap levels, lookups and reservations (Springer & Masuhara, "
      "ECOOP'19 Alg. 1-9; alloclab has no closed-form model of it)",
      d.name);
  x.assumptions_title = "How one request is served (no closed-form model)";
  x.assumptions = {
      "The heap is M blocks of 64 slots of the smallest type; a type of n pages holds "
      "floor(64 / n) objects a block. Block bitmaps free[], allocated[type] and active[type] "
      "are hierarchical: a set bit above says a word below has a set bit.",
      "A request looks up an active block of its type (try_find_set from the top level down), "
      "reserves a slot with one atomic on the block's 64-bit object bitmap, and when it filled "
      "the block clears it from active[] (the levels above as the word empties). No active block: "
      "it takes a free block (clear() on free[]) and types it.",
      caps(s.algo).warp_collective
          ? "Warp coalescing: the lanes of a warp asking for one type reserve together (one "
            "atomic for the group), which is why lockstep's WAS is near its TAS."
          : "No coalescing: every lane reserves its own slot (DynaSOAr-NoCoal).",
      d.description.find("rotation") != std::string_view::npos &&
              d.description.find("without bitmap rotation") == std::string_view::npos
          ? "Bitmap rotation: a search starts at a bit rotated by the warp, so warps spread over "
            "blocks instead of all taking the first."
          : "Searches take the first set or free bit (no rotation), so warps meet on one block."};
  x.hardware = {
      "A GPU warp's lanes reach the same block at once: reservations lose bits to each other "
      "(reserve_lost) and retry, which the lockstep counts show.",
      "The bitmaps' upper levels are few words, read by every thread: a hot spot in the L2."};
  ExplainSection heap;
  heap.title = "The heap at this point";
  heap.lines = {
      {"M", "ceil(T / 64)", fmt::format("ceil({} / 64)", s.T), num(M), "blocks of 64 slots"},
      {"N_T", "floor(64 / n)", fmt::format("floor(64 / {})", s.pages), num(cap),
       fmt::format("objects of {} pages a block holds", s.pages)},
      {"L", "levels of a bitmap of M bits", levels_text(M), num(L),
       "levels of free[] and active[]: the most words one search reads"}};
  x.sections.push_back(std::move(heap));
  ExplainSection fresh;
  fresh.title = "Blocks on an empty heap, one request at a time (exact)";
  const std::uint64_t blocks = (s.N + cap - 1) / cap;
  if (s.A == s.T && blocks <= M) {
    fresh.text =
        "Requests of one type fill a block before taking the next: the first request and every "
        "N_T-th after it initialise a block. Compare with the simulator's blocks_initialised per "
        "request (sequential).";
    fresh.lines = {{"blocks", "ceil(N / N_T)", fmt::format("ceil({} / {})", s.N, cap), num(blocks),
                    "blocks initialised"},
                   {"blocks / N", "blocks / N", fmt::format("{} / {}", blocks, s.N),
                    num(blocks) / num(s.N), "blocks initialised per request"}};
  } else {
    fresh.text = fmt::format(
        "Exact only on an empty heap (A = T) that holds the N objects; here A = {}, T = {}, "
        "ceil(N / N_T) = {} of M = {} blocks: see the simulator's counts below.",
        s.A, s.T, blocks, M);
  }
  x.sections.push_back(std::move(fresh));
  for (auto& sec : validation::counter_sections(
           s, sims, kDsCounts,
           "Per request, the mean over the quick simulation's trials (alloclab simulate "
           "--allocator " +
               std::string(d.name) + " prints the same columns)."))
    x.sections.push_back(std::move(sec));
  x.errata = {"dynasoar-clear"};
  return x;
}

Explanation bitmap_alloc_explain(const Scenario& s, const std::vector<QuickSimulation>& sims) {
  const unsigned L = alloclab::dynasoar::hb_levels(s.T);
  Explanation x;
  x.model =
      "bitmap-alloc: one request's cost in bitmap words (Springer & Masuhara, ECOOP'19 §6's "
      "BitmapAlloc baseline; alloclab has no closed-form model of it)";
  x.assumptions_title = "How one request is served (no closed-form model)";
  x.assumptions = {
      "The heap is one array of T equal objects and one hierarchical bitmap of its free slots "
      "(a set bit: free); allocation is clear(), free is set().",
      "clear() is try_find_set (one word read per level, from the top, rotated by seed and "
      "warp) and try_clear (one fetch_and on the bottom word); when that empties the word the "
      "bit above is cleared too. A lost bit retries with the next seed."};
  x.hardware = {
      "Every thread of the GPU starts at the same top word: the upper levels are a hot spot, and "
      "threads whose rotations meet in one word lose bits to each other (lost_claims)."};
  ExplainSection bm;
  bm.title = "The bitmap at this point";
  bm.lines = {
      {"L", "levels of a bitmap of T bits", levels_text(s.T), num(L),
       "words a search reads, one per level"},
      {"words", "sum over levels of ceil(bits / 64)", "",
       num(alloclab::dynasoar::hb_total_words(s.T)), "the bitmap's 64-bit words"},
      {"least steps", "L + 1", fmt::format("{} + 1", L), num(L + 1),
       "a request that neither loses its bit nor empties a word: L loads and one fetch_and"}};
  x.sections.push_back(std::move(bm));
  for (auto& sec : validation::counter_sections(
           s, sims,
           {{"tas", "memory operations of a request (the registry's step)"},
            {"was", "the warp's slowest lane"},
            {"levels", "bitmap levels the request's operations worked on"},
            {"find_fails", "searches that found no set bit"},
            {"lost_claims", "try_clears that found the bit already taken"},
            {"gave_up", "requests that stopped at the step bound (out of memory)"}},
           "Per request, the mean over the quick simulation's trials (alloclab simulate "
           "--allocator bitmap-alloc prints the same columns)."))
    x.sections.push_back(std::move(sec));
  x.errata = {"dynasoar-clear"};
  return x;
}

}  // namespace
}  // namespace alloclab::studies::dynasoar

ALLOCLAB_REGISTER_EXPLAIN_PART((alloclab::validation::ExplainPartEntry{
    .algo = alloclab::Algorithm::dynasoar,
    .study = "dynasoar",
    .explain = &alloclab::studies::dynasoar::dynasoar_explain}))
ALLOCLAB_REGISTER_EXPLAIN_PART((alloclab::validation::ExplainPartEntry{
    .algo = alloclab::Algorithm::dynasoar_nocoal,
    .study = "dynasoar",
    .explain = &alloclab::studies::dynasoar::dynasoar_explain}))
ALLOCLAB_REGISTER_EXPLAIN_PART((alloclab::validation::ExplainPartEntry{
    .algo = alloclab::Algorithm::dynasoar_norot,
    .study = "dynasoar",
    .explain = &alloclab::studies::dynasoar::dynasoar_explain}))
ALLOCLAB_REGISTER_EXPLAIN_PART((alloclab::validation::ExplainPartEntry{
    .algo = alloclab::Algorithm::bitmap_alloc,
    .study = "dynasoar",
    .explain = &alloclab::studies::dynasoar::bitmap_alloc_explain}))
