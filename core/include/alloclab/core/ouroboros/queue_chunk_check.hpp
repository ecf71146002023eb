// The at-rest accounting of the virtualized queues' Queue-Chunks (queue_chunk.hpp), checked by
// the GPU pool after every kernel and by the simulator after every allocation and free: with no
// operation in flight,
//  * the pool's committed chunks are the page chunks and every class's committed Queue-Chunks,
//    each class's at least the reserve its pages need;
//  * the Queue-Chunks out of the memory manager's hands (drawn fresh and not in the reuse queue)
//    are exactly those the queues' positions need (va_chunks_at_rest), and VL's trail of
//    min(t, chunks used up).
// Variant C's (chunk_queue_virtual.hpp) draws its Queue-Chunks on demand and never gives one back:
// at rest, the chunks drawn are those the queues' positions need and VL's trail (as above, at
// 1024 entries a chunk), and the classes' spares. Host only.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "alloclab/core/ouroboros/chunk_queue.hpp"
#include "alloclab/core/ouroboros/layout.hpp"
#include "alloclab/core/ouroboros/page_queue.hpp"
#include "alloclab/core/ouroboros/queue_chunk.hpp"

namespace alloclab::ouro {

// `classes`: the kPageClasses queues' words; `reused_waiting`: Queue-Chunks in the reuse queue.
// Returns what is wrong, or an empty string.
inline std::string queue_chunks_at_rest_error(const PageQueueWords* classes,
                                              const ChunkSourceWords& source,
                                              std::uint32_t chunk_count,
                                              std::int64_t reused_waiting, std::uint32_t trail) {
  std::uint64_t page_chunks = 0, queue_chunks = 0, needed = 0;
  bool short_reserve = false;
  for (unsigned k = 0; k < kPageClasses; ++k) {
    const PageQueueWords& w = classes[k];
    page_chunks += w.pages / pages_per_chunk(k);
    queue_chunks += w.queue_chunks;
    short_reserve = short_reserve || w.queue_chunks < queue_chunks_reserved(w.pages, trail);
    needed += va_chunks_at_rest(w.front, w.back) +
              std::min<std::uint64_t>(trail, w.front / kQueueChunkItems);
  }
  const std::uint64_t drawn = std::min<std::uint64_t>(source.next_chunk, chunk_count);
  const auto held = static_cast<std::int64_t>(drawn - page_chunks) - reused_waiting;
  if (source.committed == page_chunks + queue_chunks && !short_reserve &&
      held == static_cast<std::int64_t>(needed))
    return {};
  return std::to_string(source.committed) + " chunks committed for " + std::to_string(page_chunks) +
         " page chunks and " + std::to_string(queue_chunks) + " Queue-Chunks" +
         (short_reserve ? " (a class short of its pages' reserve)" : "") + "; " +
         std::to_string(held) + " Queue-Chunks held where the queues' positions need " +
         std::to_string(needed);
}

// Variant C's (see the file comment); also: the pool's committed chunks are the fresh page chunks
// taken and every class's reserve, and the Queue-Chunks drawn stay within the reserves. Returns
// what is wrong, or an empty string.
inline std::string chunk_queue_chunks_at_rest_error(const ChunkQueueWords* classes,
                                                    const ChunkQueueChunkWords& counts,
                                                    const ChunkSourceWords& source,
                                                    std::uint32_t trail) {
  std::uint64_t needed = 0, reserved = 0;
  for (unsigned k = 0; k < kPageClasses; ++k) {
    const ChunkQueueWords& w = classes[k];
    needed += va_chunks_at_rest(w.front, w.back, kChunkQueueEntries) +
              std::min<std::uint64_t>(trail, w.front / kChunkQueueEntries);
    reserved += w.queue_chunks;
  }
  const std::uint64_t page_chunks = source.next_chunk - counts.drawn;
  if (counts.drawn == needed + counts.spared && counts.drawn <= reserved &&
      source.committed == page_chunks + reserved)
    return {};
  return std::to_string(counts.drawn) + " Queue-Chunks drawn (" + std::to_string(counts.spared) +
         " of them spare) where the queues' positions need " + std::to_string(needed) + "; " +
         std::to_string(source.committed) + " chunks committed for " + std::to_string(page_chunks) +
         " fresh page chunks and " + std::to_string(reserved) + " kept for the queues";
}

}  // namespace alloclab::ouro
