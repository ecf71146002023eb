// ouro-p-vl (Ouroboros variant P over virtualized linked-chunk queues; Winter et al., ICS'20,
// Alg. 2-3 and §5.2): the cost of the sequential schedule, counted from the algorithm as alloclab
// builds it (core/ouroboros/virtual_linked_queue.hpp, studies/ouroboros/), and its model-table
// entry. One request at a time on an empty pool, every request of one class with p pages per
// chunk, S = 2048 items per Queue-Chunk, trail t = 10; the request served r-th reads position r,
// and back and front always point at the chunk of the position written or read (the write of a
// chunk's last item moves back on, the read of it moves front on):
//  * its hit: the semaphore's subtraction, front, and its item (the front pointer, the chunk's
//    start word, the exchange, the count): 6; the read of a chunk's last item moves front (the
//    chunk's next, its start again, the CAS, the trail count, the next chunk's count: 5), and
//    from the 11th such move on also reclaims the chunk at old (old, its next, the CAS, the trail
//    count back, the reuse queue's fill count, back and item: 7);
//  * a grower (r mod p = 0) before it: S's 9 and the commit (10), the semaphore read again (1),
//    the class's Queue-Chunks read once (+1), or at r = 0 extended to 13 one by one (+40), or
//    where the pages cross a multiple of 2048 extended by one (+4),
//    and each page written x = r .. r + p - 1: the back pointer, the start word, the CAS and the
//    count (4); position 0 instead makes chunks 0 and 1 fresh and sets the three pointers (2055 +
//    3 + 2055 + the link + the CAS and the count = 4116; a fresh chunk: the reuse queue's fill
//    count and undo, the chunk counter and id, the count, 2048 markers, the next, the start); a
//    later first item x = jS links chunk j + 1 (2055 fresh while j <= t, 6 from the reuse queue
//    after: the reclaimed chunks; + 1 for the link); a chunk's last item moves back (next,
//    start, CAS, the next's count: 4).
// Exactly ceil(N / p) page chunks are typed. Static memory: front, back, old and the trail count.
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

constexpr std::uint64_t kItems = ouro::kQueueChunkItems;
constexpr std::uint64_t kTrail = ouro::kVlTrail;

std::optional<InputError> uncovered(const Scenario& s) {
  if (auto why = ouro_one_class_empty_pool_uncovered(s)) return why;
  const unsigned k = ouro_class_of(s);
  const std::uint64_t p = ouro::pages_per_chunk(k), G = ouro_growers(s);
  return ouro_chunks_uncovered(s, G, ouro::queue_chunks_reserved(G * p, kTrail), G * p,
                               ouro::ring_capacity(s.T, k));
}

// The write of position x by a grower.
std::uint64_t write_steps(std::uint64_t x) {
  if (x == 0) return 4116;
  std::uint64_t w = 4;
  if (x % kItems == 0) w += (x / kItems <= kTrail ? 2055 : 6) + 1;
  if (x % kItems == kItems - 1) w += 4;
  return w;
}

// Steps of the request served r-th.
std::uint64_t steps_of(std::uint64_t r, std::uint64_t p) {
  std::uint64_t x = 6;
  if (r % kItems == kItems - 1) x += 5 + ((r + 1) / kItems > kTrail ? 7 : 0);
  if (r % p == 0) {
    x += 11 + (r == 0 ? 40 : r % kItems == 0 ? 4 : 1);
    for (std::uint64_t w = r; w < r + p; ++w) x += write_steps(w);
  }
  return x;
}

Record evaluate(const Scenario& s) {
  Record r = scenario_record(s);
  const std::uint64_t p = ouro::pages_per_chunk(ouro_class_of(s));
  set_sequential_tas_was(r, s, [&](std::uint64_t i) { return steps_of(i, p); });
  r.set_int("chunks", ouro_growers(s));
  r.set_int("queue_chunks_reserved", ouro::queue_chunks_reserved(ouro_growers(s) * p, kTrail));
  r.set_int("static_queue_bytes", 16);
  return r;
}

constexpr std::string_view kHelp =
    "ouro-p-vl, sequential schedule on an empty pool (A = T), one class with p pages per chunk,\n"
    "2048 items per Queue-Chunk, trail t = 10: the r-th request costs 6, +5 where it reads a\n"
    "chunk's last item (front moves), +7 more from the 11th such move (a chunk reclaimed); a\n"
    "grower adds 12 (51 at r = 0, 15 at r mod 2048 = 0: Queue-Chunks committed) and 4 per page\n"
    "written, 4116 for position 0 (chunks 0 and 1 made, the three\n"
    "pointers set), 2056 at a chunk's first item while the chunk is among the first t + 1 (a "
    "fresh\n"
    "chunk linked), 7 after (a reclaimed one), +4 at a chunk's last item (back moves);\n"
    "tas = mean, was = mean over warps of consecutive requests of their max; chunks = ceil(N/p);\n"
    "queue_chunks_reserved = ceil(pages/2048) + 2 + t.\n"
    "static_queue_bytes: front, back, old and the trail count, 4 bytes each.";

// `alloclab explain` (explain.hpp): the record above, read with the class's arithmetic.
Explanation explain(const Scenario& s) {
  return ouro_explain(s, evaluate(s),
                      {"ouro-p-vl: Ouroboros variant P over virtualized linked queues (Alg. 2-3, "
                       "§5.2), sequential schedule",
                       "6 steps (the subtraction, front, the front pointer, the chunk's start, the "
                       "exchange, the count); reading a chunk's last item moves front on (+5) and, "
                       "past the trail of t = 10 chunks, reclaims the oldest (+7).",
                       "as over VA, with back's chunk linked and moved on where a Queue-Chunk "
                       "fills; position 0 makes chunks 0 and 1 and sets front, back and old.",
                       "Four words (front, back, old and the trail count); the chunks of the "
                       "linked list come from the pool."});
}

}  // namespace

ALLOCLAB_REGISTER_ENTRY(ModelTable, Algorithm::ouro_p_vl,
                        (ModelEntry{.uncovered = &uncovered,
                                    .evaluate = &evaluate,
                                    .metrics = {"tas", "was", "chunks", "queue_chunks_reserved",
                                                "static_queue_bytes"},
                                    .help = kHelp,
                                    .explain = &explain}))

}  // namespace alloclab::model
