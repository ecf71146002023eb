// ouro-p-va (Ouroboros variant P over virtualized array queues; Winter et al., ICS'20, Alg. 2-3
// and §5.1): the cost of the sequential schedule, counted from the algorithm as alloclab builds it
// (core/ouroboros/virtual_array_queue.hpp, studies/ouroboros/), and its model-table entry. One
// request at a time on an empty pool, every request of one class with p pages per chunk; the
// request served r-th reads position r:
//  * its hit: the semaphore's subtraction, front, and its item (the reference, the chunk's
//    virtual start, the exchange, the count): 6; the read of a Queue-Chunk's last item
//    (r mod 2048 = 2047) also gives the chunk back (the reference, the reuse queue's fill count,
//    back and item): + 4;
//  * a grower (r mod p = 0) before it: as ouro-p-s's (9), the commit of its page chunk (1), 4
//    per page written, and the semaphore read again: + 11 + 4p; and the class's Queue-Chunks:
//    read once where they suffice (+1), at r = 0 extended to 3 one by one (each a commit and a
//    CAS, each followed by a read: +10), where the pages cross a multiple of 2048 (r mod 2048 =
//    0) extended by one (+4); writing position 0 prepares
//    chunks 0 and 1 fresh (the reuse queue's fill count and undo, the chunk counter and id, the
//    count, 2048 markers, the start, the reference: 2055 each); a later first item of a chunk
//    (r mod 2048 = 0) takes a used-up one back from the reuse queue (fill count, front, item,
//    count, start, reference: 6).
// Exactly ceil(N / p) page chunks are typed, and the pool keeps ceil(N' / 2048) + 2 chunks for
// the queue (N' = the class's pages). Static memory: the class's references, 4 bytes each.
#include <cstdint>
#include <string_view>

#include "alloclab/core/ouroboros/config.hpp"
#include "alloclab/core/ouroboros/layout.hpp"
#include "alloclab/core/ouroboros/queue_chunk.hpp"
#include "alloclab/model/model.hpp"
#include "alloclab/model/model_table.hpp"
#include "ouro_sequential.hpp"

namespace alloclab::model {
namespace {

// An empty pool (A = T) with a chunk for every grower beside the queue's reserve, and a queue
// for every page.
std::optional<InputError> uncovered(const Scenario& s) {
  if (auto why = ouro_one_class_empty_pool_uncovered(s)) return why;
  const unsigned k = ouro_class_of(s);
  const std::uint64_t p = ouro::pages_per_chunk(k), G = ouro_growers(s);
  return ouro_chunks_uncovered(s, G, ouro::queue_chunks_reserved(G * p), G * p,
                               ouro::ring_capacity(s.T, k));
}

// Steps of the request served r-th.
std::uint64_t steps_of(std::uint64_t r, std::uint64_t p) {
  const std::uint64_t item = r % ouro::kQueueChunkItems;
  std::uint64_t x = 6 + (item == ouro::kQueueChunkItems - 1 ? 4 : 0);
  if (r % p == 0)
    x += 11 + 4 * p + (r == 0 ? 2 * 2055 : item == 0 ? 6 : 0) + (r == 0 ? 10 : item == 0 ? 4 : 1);
  return x;
}

Record evaluate(const Scenario& s) {
  Record r = scenario_record(s);
  const unsigned k = ouro_class_of(s);
  const std::uint64_t p = ouro::pages_per_chunk(k);
  set_sequential_tas_was(r, s, [&](std::uint64_t i) { return steps_of(i, p); });
  r.set_int("chunks", ouro_growers(s));
  r.set_int("queue_chunks_reserved", ouro::queue_chunks_reserved(ouro_growers(s) * p));
  r.set_int("static_queue_bytes",
            4 * std::uint64_t{ouro::va_reference_count(ouro::ring_capacity(s.T, k))});
  return r;
}

constexpr std::string_view kHelp =
    "ouro-p-va, sequential schedule on an empty pool (A = T), one class with p pages per chunk:\n"
    "the r-th request costs 6 (+4 where it reads a Queue-Chunk's last item, r mod 2048 = 2047),\n"
    "plus 12 + 4p where it grows (r mod p = 0), plus 4120 at r = 0 (two fresh Queue-Chunks: 2048\n"
    "markers each; three Queue-Chunks committed) or 9 at a later r mod 2048 = 0 (one reused, one\n"
    "more committed); tas = mean, was = mean over warps\n"
    "of consecutive requests of their max; chunks = ceil(N/p); queue_chunks_reserved =\n"
    "ceil(pages/2048) + 2, the pool's chunks kept for the queue.\n"
    "static_queue_bytes: the class's references, ceil(capacity/2048) + 2 of 4 bytes.";

// `alloclab explain` (explain.hpp): the record above, read with the class's arithmetic.
Explanation explain(const Scenario& s) {
  return ouro_explain(
      s, evaluate(s),
      {"ouro-p-va: Ouroboros variant P over virtualized array queues (Alg. 2-3, §5.1), sequential "
       "schedule",
       "6 steps (the subtraction, front, the item's reference, the Queue-Chunk's start, the "
       "exchange, the count); reading a Queue-Chunk's last item also gives the chunk back (+4).",
       "ouro-p-s's grow, the commit of its page chunk, 4 steps per page written, the semaphore "
       "read again (11 + 4p), and the class's Queue-Chunks read or extended; position 0 prepares "
       "Queue-Chunks 0 and 1 (2055 steps each).",
       "A reference of 4 bytes per Queue-Chunk of 2048 items; the Queue-Chunks themselves are "
       "chunks of the pool, kept for the class."});
}

}  // namespace

ALLOCLAB_REGISTER_ENTRY(ModelTable, Algorithm::ouro_p_va,
                        (ModelEntry{.uncovered = &uncovered,
                                    .evaluate = &evaluate,
                                    .metrics = {"tas", "was", "chunks", "queue_chunks_reserved",
                                                "static_queue_bytes"},
                                    .help = kHelp,
                                    .explain = &explain}))

}  // namespace alloclab::model
