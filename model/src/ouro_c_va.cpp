// ouro-c-va (Ouroboros variant C over virtualized array queues; Winter et al., ICS'20, Alg. 4-5 and
// §5.1): the cost of the sequential schedule, counted from the algorithm as alloclab builds it
// (core/ouroboros/chunk_queue_virtual.hpp, studies/ouroboros/), and its model-table entry. One
// request at a time on an empty pool, every request of one class with p pages per chunk: as
// ouro-c-s's (ouro_c_s.cpp), the g-th grower's chunk at queue position g, emptied and taken out
// of the queue by the request that takes its last page. On top of ouro-c-s's steps:
//  * every request's walk finds its position's Queue-Chunk: the reference and the chunk's start
//    (+2);
//  * a grower reads the class's reserve of Queue-Chunks and commits its fresh chunk (+2); the
//    first also commits the reserve (the add and the CAS: +2);
//  * a grower's publish finds its Queue-Chunk as a walk does (+2); at g = 0 it prepares
//    Queue-Chunks 0 and 1 fresh (the spare stack's head, the chunk counter and id, the count of
//    drawn chunks, the chunk's count, 1024 empty entries, its start, its reference: 1031 each);
//    at a later g mod 1024 = 0 it prepares the next one from the spare stack, where the chunk
//    used up just before lies (head, next, CAS, count of spares, count, start, reference: 7);
//  * the removal of an entry counts it on its chunk (+1); the 1024th of a chunk
//    (g mod 1024 = 1023) also empties its reference and puts it on the spare stack (head, next,
//    CAS, count of spares: +5).
// Queue-Chunks drawn from the pool: 2; kept for the queue: R = ceil(capacity / 1024) + 2, the
// capacity being ouro-c-s's ring. Static memory: R references of 4 bytes.
#include <cstdint>
#include <string_view>

#include "alloclab/core/ouroboros/chunk_queue_virtual.hpp"
#include "alloclab/core/ouroboros/chunk_state.hpp"
#include "alloclab/core/ouroboros/config.hpp"
#include "alloclab/core/ouroboros/layout.hpp"
#include "alloclab/model/model.hpp"
#include "alloclab/model/model_table.hpp"
#include "ouro_sequential.hpp"

namespace alloclab::model {
namespace {

constexpr std::uint64_t kEntries = ouro::kChunkQueueEntries;

std::uint64_t reserve(const Scenario& s) {
  return ouro_c_queue_reserve(s, 0);
}

// An empty pool (A = T) with a chunk for every grower beside the queue's reserve, within the
// class's 2^20 pages.
std::optional<InputError> uncovered(const Scenario& s) {
  return ouro_c_uncovered(s, reserve(s));
}

std::uint64_t steps_of(std::uint64_t r, std::uint64_t p, std::uint64_t W) {
  const std::uint64_t j = r % p, g = r / p;
  std::uint64_t x = ouro_c_s_steps(r, p, W) + 2;
  if (j == 0) x += 4 + (g == 0 ? 2 + 2 * 1031 : g % kEntries == 0 ? 7 : 0);
  if (j == p - 1) x += 1 + (g % kEntries == kEntries - 1 ? 5 : 0);
  return x;
}

Record evaluate(const Scenario& s) {
  Record r = ouro_c_record(s, steps_of);
  r.set_int("queue_chunks", 2);
  r.set_int("queue_chunks_reserved", reserve(s));
  r.set_int("static_queue_bytes", 4 * reserve(s));
  return r;
}

constexpr std::string_view kHelp =
    "ouro-c-va, sequential schedule on an empty pool (A = T), one class with p pages per chunk:\n"
    "ouro-c-s's steps, plus 2 per request (its walk finds the Queue-Chunk), plus 4 per grower\n"
    "(its publish does; the reserve read, the chunk committed) and 2064 at the first (the reserve\n"
    "committed, two fresh Queue-Chunks of 1024 entries) or 7 at\n"
    "a later grower g with g mod 1024 = 0 (one from the spare stack), plus 1 where an entry is\n"
    "taken out (+5 for a Queue-Chunk's last, g mod 1024 = 1023); tas = mean, was = mean over\n"
    "warps of consecutive requests of their max; chunks = ceil(N/p); queue_chunks = 2 drawn;\n"
    "queue_chunks_reserved = ceil(capacity/1024) + 2 kept in the pool.\n"
    "static_queue_bytes: the class's references, ceil(capacity/1024) + 2 of 4 bytes.";

// `alloclab explain` (explain.hpp): the record above, read with the class's arithmetic.
Explanation explain(const Scenario& s) {
  return ouro_explain(
      s, evaluate(s),
      {"ouro-c-va: Ouroboros variant C over virtualized array queues (Alg. 4-5, §5.1), sequential "
       "schedule",
       "ouro-c-s's steps, plus finding the position's Queue-Chunk (its reference and start: +2) "
       "and counting a removal on its chunk (+1).",
       "ouro-c-s's grower, plus the reserve of Queue-Chunks read and committed and its publish "
       "finding its Queue-Chunk (+4); the first prepares Queue-Chunks 0 and 1 (1031 steps each).",
       "A reference of 4 bytes per Queue-Chunk of 1024 entries, kept in the pool for the class."});
}

}  // namespace

ALLOCLAB_REGISTER_ENTRY(ModelTable, Algorithm::ouro_c_va,
                        (ModelEntry{.uncovered = &uncovered,
                                    .evaluate = &evaluate,
                                    .metrics = {"tas", "was", "chunks", "queue_chunks",
                                                "queue_chunks_reserved", "static_queue_bytes"},
                                    .help = kHelp,
                                    .explain = &explain}))

}  // namespace alloclab::model
