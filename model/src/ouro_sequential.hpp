// What the Ouroboros models of a sequential schedule (ouro_p_*.cpp, ouro_c_*.cpp) share: the
// scenario they cover (one class on an empty pool), its class and growers, tas and was from the
// steps of each request in service order, and for variant C its steps over a standard ring
// (ouro_c_s.cpp's comment counts them), which C over VA and VL adds to, its domain and its record.
#pragma once

#include <cstdint>

#include <fmt/format.h>
#include "alloclab/core/ouroboros/chunk_queue_chunks.hpp"
#include "alloclab/core/ouroboros/chunk_state.hpp"
#include "alloclab/core/ouroboros/config.hpp"
#include "alloclab/core/ouroboros/layout.hpp"

#include <optional>
#include <string>

#include "alloclab/core/errors.hpp"

#include "alloclab/model/explain.hpp"
#include "alloclab/model/model.hpp"

namespace alloclab::model {

inline unsigned ouro_class_of(const Scenario& s) {
  return ouro::page_class_of_units(s.pages);
}

// What every model here assumes: an empty pool (A = T) of at least one chunk, and requests of
// 1 .. 512 units (one class). Why a point is not such a case (model_table.hpp's `uncovered`).
inline std::optional<InputError> ouro_one_class_empty_pool_uncovered(const Scenario& s) {
  if (s.A != s.T)
    return InputError("--A", fmt::format("it needs an empty pool: A = T (--free 1); here A={} of "
                                         "T={}",
                                         s.A, s.T));
  if (s.T < ouro::kUnitsPerChunk)
    return InputError("--T", fmt::format("it needs a pool of at least one chunk: T >= {} units; "
                                         "here T={}",
                                         ouro::kUnitsPerChunk, s.T));
  if (s.pages < 1 || s.pages > ouro::kUnitsPerChunk)
    return InputError("--pages", fmt::format("it needs requests of one size class: pages in "
                                             "1..{} units; here {}",
                                             ouro::kUnitsPerChunk, s.pages));
  return std::nullopt;
}

// Why `growers` growers, each taking a chunk, with `kept` chunks kept for the queue, and `pages`
// pages in the class's queue of `capacity` pages do not fit (variants P and C alike).
inline std::optional<InputError> ouro_chunks_uncovered(const Scenario& s, std::uint64_t growers,
                                                       std::uint64_t kept, std::uint64_t pages,
                                                       std::uint64_t capacity) {
  const std::uint64_t chunks = ouro::chunk_count_of_units(s.T);
  if (growers + kept > chunks)
    return InputError(
        "--N",
        fmt::format("it needs a chunk for every grower: ceil(N / p){} <= "
                    "chunks; here {} growers{} and {} chunks",
                    kept ? " + the queue's chunks" : "", growers,
                    kept ? fmt::format(" + {} for the queue", kept) : std::string(), chunks));
  if (pages > capacity)
    return InputError("--N", fmt::format("it needs the class's queue to hold the pages of every "
                                         "grown chunk: ceil(N / p) p <= its capacity; here {} > {}",
                                         pages, capacity));
  return std::nullopt;
}

// Requests that grow their class by a chunk: ceil(N / p).
inline std::uint64_t ouro_growers(const Scenario& s) {
  const std::uint64_t p = ouro::pages_per_chunk(ouro_class_of(s));
  return (s.N + p - 1) / p;
}

// ouro-c-s: the steps of the request served r-th, with p pages per chunk and W mask words.
inline std::uint64_t ouro_c_s_steps(std::uint64_t r, std::uint64_t p, std::uint64_t W) {
  const std::uint64_t j = r % p;
  return (j == 0 ? 27 + W : 8 + j / 64) + (j == p - 1 ? 6 : 0);
}

// Variant C's domain: one class on an empty pool with a chunk for every grower beside the `kept`
// chunks its queue keeps, within the class's 2^20 pages.
inline std::optional<InputError> ouro_c_uncovered(const Scenario& s, std::uint64_t kept) {
  if (auto why = ouro_one_class_empty_pool_uncovered(s)) return why;
  const std::uint64_t p = ouro::pages_per_chunk(ouro_class_of(s));
  return ouro_chunks_uncovered(s, ouro_growers(s), kept, ouro_growers(s) * p,
                               ouro::kDefaultQueueCapacity);
}

// Variant C over VA or VL: the Queue-Chunks a class keeps in the pool, for ouro-c-s's ring.
inline std::uint64_t ouro_c_queue_reserve(const Scenario& s, std::uint32_t trail) {
  return ouro::chunk_queue_reserve(ouro::chunk_ring_capacity(ouro::chunk_count_of_units(s.T)),
                                   trail);
}

// tas = the mean of steps_of(r) over the N requests, was = the mean over warps of `lanes`
// consecutive requests of their max.
template <class StepsOf>
void set_sequential_tas_was(Record& r, const Scenario& s, StepsOf steps_of) {
  std::uint64_t total = 0, warp_max_sum = 0, warp_max = 0;
  const std::uint64_t L = s.lanes;
  for (std::uint64_t i = 0; i < s.N; ++i) {
    const std::uint64_t x = steps_of(i);
    total += x;
    warp_max = x > warp_max ? x : warp_max;
    if ((i + 1) % L == 0 || i + 1 == s.N) {
      warp_max_sum += warp_max;
      warp_max = 0;
    }
  }
  const std::uint64_t warps = (s.N + L - 1) / L;
  r.set("tas", static_cast<double>(total) / static_cast<double>(s.N));
  r.set("was", static_cast<double>(warp_max_sum) / static_cast<double>(warps));
}

// Variant C's record: tas and was from steps_of(r, p, W) (p pages per chunk, W mask words), and
// the chunks typed.
template <class StepsOf>
Record ouro_c_record(const Scenario& s, StepsOf steps_of) {
  Record r = scenario_record(s);
  const unsigned k = ouro_class_of(s);
  const std::uint64_t p = ouro::pages_per_chunk(k), W = ouro::mask_words(k);
  set_sequential_tas_was(r, s, [&](std::uint64_t i) { return steps_of(i, p, W); });
  r.set_int("chunks", ouro_growers(s));
  return r;
}

// ---- `alloclab explain` for the six (explain.hpp) ------------------------------------------

// What a variant's explanation says in its own words: its name, and what a request that finds a
// page and a grower cost (the counts its file's comment derives).
struct OuroExplainText {
  const char* model;   // "ouro-p-s: variant P over standard rings (Alg. 2-3)"
  const char* hit;     // what a request that finds a page does, and its steps
  const char* grower;  // what the request that grows the class does on top
  const char* queue;   // where the queue lives (static memory, Queue-Chunks)
};

// The explanation from the variant's record at s (its tas, was, chunks, static_queue_bytes and,
// over VA and VL, its Queue-Chunks), the class arithmetic and the text.
inline Explanation ouro_explain(const Scenario& s, const Record& r, const OuroExplainText& t) {
  const unsigned k = ouro_class_of(s);
  const std::uint64_t p = ouro::pages_per_chunk(k), G = ouro_growers(s);
  const bool chunk_variant = s.algo == Algorithm::ouro_c_s || s.algo == Algorithm::ouro_c_va ||
                             s.algo == Algorithm::ouro_c_vl;
  Explanation x;
  x.model = t.model;
  x.assumptions = {
      "One request at a time (the sequential schedule) on an empty pool (A = T): every request "
      "asks for the same size, so one size class (queue) serves them all.",
      "A chunk is 8 KiB; the class's pages are 8 KiB / p each; the first request after the "
      "class's queue runs dry grows it by one chunk (the bulk semaphore's grow), the others find "
      "a page (take).",
      "Steps are memory operations on shared state, counted from the algorithm as alloclab builds "
      "it (studies/ouroboros/); the simulator's sequential mode counts the same, exactly."};
  x.hardware = {
      "On a GPU the requests run at once: cold, thousands of warp leaders race on the "
      "semaphore's CAS while growers type chunks (hundreds to thousands of CAS attempts a "
      "request, `sem_cas_per_request` in `alloclab workload` rows), so a request is no longer "
      "O(1) in time.",
      "A warp's lanes that ask for one class are served together: the leader takes their units "
      "in one step (warp aggregation), which the sequential model does not have."};
  if (chunk_variant)
    x.hardware.push_back(
        "Variant C's lanes walk the queue from front to the chunk that serves them (the paper's "
        "'queue traversal'): 0 positions one at a time, hundreds under concurrency "
        "(`traversal_per_request`).");
  ExplainSection cls;
  cls.title = "The class and its chunks";
  cls.lines = {
      {"k", "the size class of a request of n units of 16 B", fmt::format("n = {}", s.pages),
       static_cast<double>(k), fmt::format("pages of {} B", 16u << k)},
      {"p", "pages per chunk = 8 KiB / page", fmt::format("8192 / {}", 16u << k),
       static_cast<double>(p), "requests one chunk serves"},
      {"G", "ceil(N / p)", fmt::format("ceil({} / {})", s.N, p), static_cast<double>(G),
       "growers: the 1st, (p+1)-th, ... request served; each types one chunk"},
      {"chunks", "chunks typed for the class", "", r.number("chunks"),
       "equals G: the digest's 'chunk allocations = ceil(allocations / pages per chunk)'"}};
  x.sections.push_back(std::move(cls));
  ExplainSection cost;
  cost.title = "Steps of one request";
  cost.text =
      std::string("A request that finds a page: ") + t.hit + " A grower, on top: " + t.grower;
  cost.lines = {
      {"TAS", "(sum of the N requests' steps) / N", fmt::format("N = {}, G = {}", s.N, G),
       r.number("tas"), "steps a request takes on average: O(1), whatever the pool's size"},
      {"WAS", "mean over warps of L consecutive requests of their largest",
       fmt::format("L = {}", s.lanes), r.number("was"),
       "a warp holding a grower waits for it: the grower's steps decide"}};
  x.sections.push_back(std::move(cost));
  ExplainSection queue;
  queue.title = "The queue's memory";
  queue.text = t.queue;
  queue.lines.push_back({"static", "bytes of the class's queue outside the pool", "",
                         r.number("static_queue_bytes"),
                         "the paper's static queue size (§5.1, §5.2)"});
  if (const auto q = r.number("queue_chunks_reserved"))
    queue.lines.push_back({"reserved", "Queue-Chunks the pool keeps for the class", "", q,
                           "chunks of the pool that hold the queue, not pages"});
  x.sections.push_back(std::move(queue));
  x.errata = {"ouro-21-bit-count"};
  if (s.algo == Algorithm::ouro_p_s || s.algo == Algorithm::ouro_c_s)
    x.errata.push_back("ouro-alg1-full-check");
  if (chunk_variant) x.errata.push_back("ouro-alg4-atomicmax");
  if (s.algo == Algorithm::ouro_p_vl || s.algo == Algorithm::ouro_c_vl)
    x.errata.push_back("ouro-vlq-static");
  return x;
}

}  // namespace alloclab::model
