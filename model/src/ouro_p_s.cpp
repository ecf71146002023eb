// ouro-p-s (Ouroboros variant P, standard rings; Winter et al., ICS'20, Alg. 2-3): the cost of
// the sequential schedule, counted from the algorithm (studies/ouroboros/), and its model-table
// entry. One request at a time on an empty pool, every request of one class with p pages per
// chunk:
//  * a request that finds a page: 3 memory operations (the semaphore's subtraction, front, its
//    slot);
//  * the first request after the queue ran dry grows it: subtraction and undo, CAS (grow), the
//    admission add, the chunk counter, the chunk id, the class byte, signal, back, p slot CASes,
//    then a read before the 3 of a hit: 13 + p.
// The queue runs dry every p requests, so the growers are the requests served 1st, (p+1)-th, ...:
// G = ceil(N / p) of them, and exactly G chunks are typed (the digest's "chunk allocations =
// ceil(allocations / pages per chunk)"). Static memory: the class's ring of 4-byte indices.
#include <cstdint>
#include <string_view>

#include "alloclab/core/ouroboros/config.hpp"
#include "alloclab/core/ouroboros/layout.hpp"
#include "alloclab/model/model.hpp"
#include "alloclab/model/model_table.hpp"
#include "ouro_sequential.hpp"

namespace alloclab::model {
namespace {

std::uint64_t pages_per_chunk_of(const Scenario& s) {
  return ouro::pages_per_chunk(ouro::page_class_of_units(s.pages));
}

std::uint64_t growers(const Scenario& s) {
  const std::uint64_t p = pages_per_chunk_of(s);
  return (s.N + p - 1) / p;
}

// An empty pool (A = T) with a chunk for every grower and a ring for every page.
std::optional<InputError> uncovered(const Scenario& s) {
  if (auto why = ouro_one_class_empty_pool_uncovered(s)) return why;
  const std::uint64_t p = pages_per_chunk_of(s);
  const unsigned k = ouro::page_class_of_units(s.pages);
  return ouro_chunks_uncovered(s, growers(s), 0, growers(s) * p, ouro::ring_capacity(s.T, k));
}

Record evaluate(const Scenario& s) {
  Record r = scenario_record(s);
  const std::uint64_t p = pages_per_chunk_of(s), G = growers(s);
  const double grower_steps = 13.0 + static_cast<double>(p);
  r.set("tas", (3.0 * static_cast<double>(s.N) +
                (10.0 + static_cast<double>(p)) * static_cast<double>(G)) /
                   static_cast<double>(s.N));
  // Warps of `lanes` consecutive requests in service order (the model's warps): a warp holds a
  // grower when a multiple of p lies in its positions; its max is then 13 + p, else 3.
  const std::uint64_t L = s.lanes, warps = (s.N + L - 1) / L;
  std::uint64_t with_grower = 0;
  for (std::uint64_t w = 0; w < warps; ++w) {
    const std::uint64_t first = w * L;
    const std::uint64_t next_multiple = (first + p - 1) / p * p;  // first grower position >= first
    if (next_multiple < first + L && next_multiple < s.N) ++with_grower;
  }
  r.set("was", (static_cast<double>(with_grower) * grower_steps +
                static_cast<double>(warps - with_grower) * 3.0) /
                   static_cast<double>(warps));
  r.set_int("chunks", G);
  r.set_int("static_queue_bytes",
            4 * std::uint64_t{ouro::ring_capacity(s.T, ouro::page_class_of_units(s.pages))});
  return r;
}

constexpr std::string_view kHelp =
    "ouro-p-s, sequential schedule on an empty pool (A = T), one class with p pages per chunk:\n"
    "a request that finds a page takes 3 memory operations, the grower of each chunk 13 + p, so\n"
    "tas = (3N + (10 + p) ceil(N/p)) / N and chunks = ceil(N/p); was: warps of consecutive\n"
    "requests in service order, max 13 + p where a grower is among them, else 3.\n"
    "static_queue_bytes: the class's ring of 4-byte indices.";

// `alloclab explain` (explain.hpp): the record above, read with the class's arithmetic.
Explanation explain(const Scenario& s) {
  return ouro_explain(s, evaluate(s),
                      {"ouro-p-s: Ouroboros variant P (queues of page indices) over standard rings "
                       "(Winter et al., ICS'20, Alg. 2-3), sequential schedule",
                       "3 steps (the semaphore's subtraction, front, its slot).",
                       "10 + p more: the subtraction's undo, the CAS that makes it the grower, the "
                       "admission, the chunk counter and id, the class byte, the signal, back, and "
                       "one slot write per page (13 + p in all).",
                       "A ring of 4-byte page indices per class, as many as the class may hold."});
}

}  // namespace

ALLOCLAB_REGISTER_ENTRY(ModelTable, Algorithm::ouro_p_s,
                        (ModelEntry{.uncovered = &uncovered,
                                    .evaluate = &evaluate,
                                    .metrics = {"tas", "was", "chunks", "static_queue_bytes"},
                                    .help = kHelp,
                                    .explain = &explain}))

}  // namespace alloclab::model
