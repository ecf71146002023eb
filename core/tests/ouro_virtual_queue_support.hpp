// What the tests of Ouroboros' virtualized queues (ouro_virtual_array_test.cpp,
// ouro_virtual_linked_test.cpp) share: one class's queue over a pool of chunks, all free, and
// the Queue-Chunks it holds.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <numeric>
#include <thread>
#include <vector>

#include "alloclab/core/ouroboros/host_atomics.hpp"
#include "alloclab/core/ouroboros/page_queue.hpp"
#include "alloclab/core/ouroboros/queue_chunk.hpp"

namespace alloclab::ouro::test {

// One class's (page_class) queue over `chunks` chunks, with room for `capacity` items and a
// static part of `static_words` words (VA: va_reference_count(capacity); VL: kVlStaticWords).
struct VirtualQueue {
  VirtualQueue(std::uint32_t chunks, std::uint64_t capacity, std::uint32_t static_words,
               unsigned page_class = 0)
      : meta(chunks),
        items(std::uint64_t{chunks} * kQueueChunkItems, 0x12345678u),  // not the marker
        reuse_slots(chunks, kDeletionMarker),
        refs(static_words, kDeletionMarker),
        available(chunks) {
    std::iota(available.begin(), available.end(), 0u);
    store.meta = meta.data();
    store.slots = items.data();
    store.reuse = IndexQueueRef{&reuse_words, reuse_slots.data(), chunks};
    q = PageQueueRef{&words,     nullptr, static_cast<std::uint32_t>(capacity),
                     page_class, &source, available.data(),
                     chunks,     nullptr};
    q.refs = refs.data();
    q.ref_count = static_words;
    q.store = &store;
  }
  // Queue-Chunks out of the pool's list and not in the reuse queue.
  std::int64_t held() const {
    const std::uint64_t drawn = std::min<std::uint64_t>(source.next_chunk, available.size());
    return static_cast<std::int64_t>(drawn) - static_cast<std::int32_t>(reuse_words.fill_count);
  }
  // Steps `op` to its end; one that is still waiting after a million steps waits for nobody.
  template <class Op>
  void run(Op& op, OpCounts& c) {
    for (int i = 0; i < 1000000 && !op.done(); ++i) op.step(q, c);
    REQUIRE(op.done());
  }

  std::vector<QueueChunkMeta> meta;
  std::vector<std::uint32_t> items, reuse_slots, refs, available;
  IndexQueueWords reuse_words;
  PageQueueWords words;
  ChunkSourceWords source;
  QueueChunkStore store;
  PageQueueRef q{};
};

// `threads` host threads each free a page and then request one, `per_thread` times: back and its
// write, front and its read (so at most `threads` positions are in flight). Returns how often
// each index written was read: once each, if the queue moved every index exactly once.
template <class Read, class Write>
std::vector<std::uint32_t> churn_in_threads(VirtualQueue& v, unsigned threads,
                                            std::uint32_t per_thread) {
  using A = HostAtomics;
  std::vector<std::atomic<std::uint32_t>> seen(std::size_t{threads} * per_thread);
  auto worker = [&](unsigned t) {
    OpCounts c;
    for (std::uint32_t k = 0; k < per_thread; ++k) {
      Write w(t * per_thread + k, A::fetch_add(v.words.back, std::uint64_t{1}));
      while (!w.done())
        if (w.step(v.q, c) == OpStatus::spinning) std::this_thread::yield();
      Read r(A::fetch_add(v.words.front, std::uint64_t{1}));
      while (!r.done())
        if (r.step(v.q, c) == OpStatus::spinning) std::this_thread::yield();
      seen[r.index()].fetch_add(1);
    }
  };
  std::vector<std::thread> ts;
  for (unsigned t = 0; t < threads; ++t) ts.emplace_back(worker, t);
  for (auto& t : ts) t.join();
  std::vector<std::uint32_t> out;
  for (auto& x : seen) out.push_back(x.load());
  return out;
}

}  // namespace alloclab::ouro::test
