// ouro-c-vl (Ouroboros variant C over virtualized linked queues; Winter et al., ICS'20, Alg. 4-5
// and §5.2): the cost of the sequential schedule, counted from the algorithm as alloclab builds it
// (core/ouroboros/chunk_queue_virtual.hpp, studies/ouroboros/), and its model-table entry. One
// request at a time on an empty pool, every request of one class with p pages per chunk: as
// ouro-c-s's (ouro_c_s.cpp), the g-th grower's chunk at queue position g, emptied and taken out
// of the queue by the request that takes its last page; b = g / 1024 is the Queue-Chunk of g.
// On top of ouro-c-s's steps:
//  * every request's walk finds its position's Queue-Chunk from the front pointer: the pointer
//    and the chunk's start (+2);
//  * a grower reads the class's reserve of Queue-Chunks and commits its fresh chunk (+2); the
//    first also commits the reserve (the add and the CAS: +2);
//  * a grower's publish at g = 0 draws Queue-Chunk 0 fresh, sets front, back, old and the trail
//    count (4), draws chunk 1 fresh and links it (1): a fresh draw is the spare stack's head, the
//    chunk counter and id, the count of drawn chunks, the chunk's count, 1024 empty entries, its
//    next and its start (1031); at a later g it loads back
//    and the chunk's start (+2), and at g mod 1024 = 0 also follows back's next and checks that
//    chunk's start (+2), draws the next chunk (fresh for b <= 10; from the spare stack after, where
//    the trail has given one back: head, next, CAS, count of spares, count, next, start: 7),
//    links it and moves back (+2);
//  * the removal of an entry counts it on its chunk (+1); the 1024th of a chunk
//    (g mod 1024 = 1023) also reads the next, moves front, adds to the trail and reads the new
//    front chunk's count (+4), and once the trail passes t = 10 (b >= 10) gives old's chunk back
//    (old, its next, the CAS, the trail count, then the spare stack's head, next, CAS and count
//    of spares: +8).
// Queue-Chunks drawn from the pool: 2 + min(10, (G - 1) / 1024) for G growers; kept for the queue:
// ceil(capacity / 1024) + 2 + 10, the capacity being ouro-c-s's ring. Static memory: 4 words of 4
// bytes (front, back, old and the trail count).
#include <algorithm>
#include <cstdint>
#include <string_view>

#include "alloclab/core/ouroboros/chunk_queue_virtual.hpp"
#include "alloclab/core/ouroboros/chunk_state.hpp"
#include "alloclab/core/ouroboros/config.hpp"
#include "alloclab/core/ouroboros/layout.hpp"
#include "alloclab/core/ouroboros/queue_chunk.hpp"
#include "alloclab/model/model.hpp"
#include "alloclab/model/model_table.hpp"
#include "ouro_sequential.hpp"

namespace alloclab::model {
namespace {

constexpr std::uint64_t kEntries = 1024;  // eight-byte entries on an 8 KiB Queue-Chunk

std::uint64_t queue_chunks_drawn(const Scenario& s) {
  return 2 + std::min<std::uint64_t>(ouro::kVlTrail, (ouro_growers(s) - 1) / kEntries);
}

std::uint64_t reserve(const Scenario& s) {
  return ouro_c_queue_reserve(s, ouro::kVlTrail);
}

// An empty pool (A = T) with a chunk for every grower beside the queue's reserve, within the
// class's 2^20 pages.
std::optional<InputError> uncovered(const Scenario& s) {
  return ouro_c_uncovered(s, reserve(s));
}

std::uint64_t steps_of(std::uint64_t r, std::uint64_t p, std::uint64_t W) {
  const std::uint64_t j = r % p, g = r / p, b = g / kEntries;
  std::uint64_t x = ouro_c_s_steps(r, p, W) + 2;
  if (j == 0) {
    x += 2;
    if (g == 0)
      x += 2 + 2 * 1031 + 4 + 1;
    else
      x += 2 + (g % kEntries == 0 ? 2 + (b <= ouro::kVlTrail ? 1031 : 7) + 2 : 0);
  }
  if (j == p - 1) x += 1 + (g % kEntries == kEntries - 1 ? 4 + (b >= ouro::kVlTrail ? 8 : 0) : 0);
  return x;
}

Record evaluate(const Scenario& s) {
  Record r = ouro_c_record(s, steps_of);
  r.set_int("queue_chunks", queue_chunks_drawn(s));
  r.set_int("queue_chunks_reserved", reserve(s));
  r.set_int("static_queue_bytes", 16);
  return r;
}

constexpr std::string_view kHelp =
    "ouro-c-vl, sequential schedule on an empty pool (A = T), one class with p pages per chunk,\n"
    "grower g's entry at position g of Queue-Chunk b = g/1024: ouro-c-s's steps, plus 2 per\n"
    "request (its walk finds the Queue-Chunk from front), plus 2 per grower (the reserve read,\n"
    "the chunk committed), plus 2069 at the first (the reserve committed, two fresh\n"
    "Queue-Chunks of 1024 entries and the pointers), 2 at a later one, and 6 + 1031 (b <= 10:\n"
    "fresh) or 6 + 7 (from the spare stack) at g mod 1024 = 0; plus 1 where an entry is taken "
    "out,\n"
    "+4 for a Queue-Chunk's last (moving front), +8 more once the trail passes t = 10 (b >= 10);\n"
    "tas = mean, was = mean over warps of consecutive requests of their max; chunks = ceil(N/p);\n"
    "queue_chunks = 2 + min(10, (G-1)/1024) drawn; queue_chunks_reserved = ceil(capacity/1024)\n"
    "+ 12 kept in the pool. static_queue_bytes: 4 words of 4 bytes.";

// `alloclab explain` (explain.hpp): the record above, read with the class's arithmetic.
Explanation explain(const Scenario& s) {
  return ouro_explain(
      s, evaluate(s),
      {"ouro-c-vl: Ouroboros variant C over virtualized linked queues (Alg. 4-5, §5.2), sequential "
       "schedule",
       "ouro-c-s's steps, plus walking from the front pointer to the position's chunk (+2) and "
       "counting a removal (+1); the 1024th removal of a chunk moves front on (+4) and past the "
       "trail t = 10 gives old's chunk back (+8).",
       "ouro-c-s's grower, plus the reserve read and committed, and its publish loading back and "
       "the chunk's start (+2 to +4); where a Queue-Chunk fills, the next one is drawn and linked.",
       "Four words (front, back, old, the trail count); the linked chunks come from the pool."});
}

}  // namespace

ALLOCLAB_REGISTER_ENTRY(ModelTable, Algorithm::ouro_c_vl,
                        (ModelEntry{.uncovered = &uncovered,
                                    .evaluate = &evaluate,
                                    .metrics = {"tas", "was", "chunks", "queue_chunks",
                                                "queue_chunks_reserved", "static_queue_bytes"},
                                    .help = kHelp,
                                    .explain = &explain}))

}  // namespace alloclab::model
