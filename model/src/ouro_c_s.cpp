// ouro-c-s (Ouroboros variant C, standard rings; Winter et al., ICS'20, Alg. 2, 4-5): the cost of
// the sequential schedule, counted from the algorithm as alloclab builds it (studies/ouroboros/,
// "Variant C"), and its model-table entry. One request at a time on an empty pool, every request
// of one class with p pages per chunk and W = max(1, p / 64) mask words; the j-th request served
// on a chunk (j = 0 .. p - 1) takes its page j (a request alone scans from the first word and
// bit, and the earlier pages of the chunk are taken):
//  * j = 0, the grower: the semaphore's subtraction, its undo and the CAS (grow); the class's
//    admission; the reuse queue's fill count and its undo; the chunk counter and the chunk id;
//    the class byte, W mask words, the epoch, the flags, count += p; the flags' read and CAS,
//    back, the slot and the entry's position; signal; a read and the subtraction; then a take
//    (front, back, slot, count read, subtraction, mask word, AND): 27 + W;
//  * j > 0: the subtraction and a take, plus one read per mask word already emptied: 8 + j / 64;
//  * j = p - 1 also takes the chunk's entry out at front: CAS front, the slot, the position, the
//    flags' read and CAS, the count read again: + 6.
// The traversal (positions passed before the serving one) is 0: the chunk with pages is always
// at front. Exactly ceil(N / p) chunks are typed. Static memory: the class's ring of 8-byte
// entries (twice the pool's chunks, a power of two).
#include <cstdint>
#include <string_view>

#include "alloclab/core/ouroboros/chunk_state.hpp"
#include "alloclab/core/ouroboros/config.hpp"
#include "alloclab/core/ouroboros/layout.hpp"
#include "alloclab/model/model.hpp"
#include "alloclab/model/model_table.hpp"
#include "ouro_sequential.hpp"

namespace alloclab::model {
namespace {

// An empty pool (A = T) with a chunk for every grower, within the class's 2^20 pages.
std::optional<InputError> uncovered(const Scenario& s) {
  return ouro_c_uncovered(s, 0);
}

Record evaluate(const Scenario& s) {
  Record r = ouro_c_record(s, ouro_c_s_steps);
  r.set_int("traversal", 0);
  r.set_int("static_queue_bytes",
            8 * std::uint64_t{ouro::chunk_ring_capacity(ouro::chunk_count_of_units(s.T))});
  return r;
}

constexpr std::string_view kHelp =
    "ouro-c-s, sequential schedule on an empty pool (A = T), one class with p pages per chunk and\n"
    "W = max(1, p/64) mask words: the j-th request on a chunk costs 27 + W (j = 0, the grower),\n"
    "else 8 + floor(j/64) (one read per emptied mask word), plus 6 for j = p - 1 (its entry out\n"
    "at front); tas = mean, was = mean over warps of consecutive requests of their max;\n"
    "chunks = ceil(N/p); traversal = 0 (the chunk with pages is at front).\n"
    "static_queue_bytes: the class's ring of 8-byte entries.";

// `alloclab explain` (explain.hpp): the record above, read with the class's arithmetic.
Explanation explain(const Scenario& s) {
  return ouro_explain(
      s, evaluate(s),
      {"ouro-c-s: Ouroboros variant C (queues of chunk indices, per-chunk bit masks) over standard "
       "rings (Alg. 2, 4-5), sequential schedule",
       "8 + j/64 steps for the j-th page of a chunk (the subtraction, front, back, the slot, the "
       "count read and subtraction, a mask word and its AND, plus the mask words already emptied); "
       "the chunk's last page also takes its entry out at front (+6).",
       "27 + W in all for the first page of a chunk: the grow, the reuse queue's count, the chunk "
       "counter and id, the class byte, W mask words, the epoch and flags, publishing the chunk at "
       "back, the signal, then its own take.",
       "A ring of 8-byte entries (twice the pool's chunks, a power of two) per class."});
}

}  // namespace

ALLOCLAB_REGISTER_ENTRY(ModelTable, Algorithm::ouro_c_s,
                        (ModelEntry{
                            .uncovered = &uncovered,
                            .evaluate = &evaluate,
                            .metrics = {"tas", "was", "chunks", "traversal", "static_queue_bytes"},
                            .help = kHelp,
                            .explain = &explain}))

}  // namespace alloclab::model
