// The explorer's Ouroboros side by side (parts.hpp): the same requests served by variant P (a
// queue of page indices per class, Alg. 3) and variant C (a queue of chunks per class, Alg.
// 4-5), both over standard rings, by the core's step machines (core/ouroboros/page_queue.hpp,
// chunk_queue.hpp, chunk_page.hpp, chunk_free.hpp) run one request at a time; each queue's
// tickets (front, back), its ring, the chunks typed, and a request's walk on the chunk queue.
#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "alloclab/core/bit_tricks.hpp"
#include "alloclab/core/comma_list.hpp"
#include "alloclab/core/ouroboros/chunk_free.hpp"
#include "alloclab/core/ouroboros/chunk_page.hpp"
#include "alloclab/core/ouroboros/config.hpp"
#include "alloclab/core/ouroboros/host_atomics.hpp"
#include "alloclab/core/ouroboros/page_queue.hpp"
#include "parts.hpp"

namespace alloclab::explorer {
namespace {

using nlohmann::json;
using namespace alloclab::ouro;
using A = HostAtomics;  // the single-threaded policy in WebAssembly
constexpr std::uint64_t kBound = 1u << 20;
constexpr std::uint8_t kUntyped = 0xff;

// One thread alone never waits for another: a spin here is a defect.
bool no_spin(std::uint64_t spins) {
  return spins < 1024;
}

// Variant P: a ring per class with room for every page of the pool in that class.
struct PagePool {
  std::array<PageQueueWords, kPageClasses> words{};
  std::array<std::vector<std::uint32_t>, kPageClasses> slots;
  ChunkSourceWords source;
  std::vector<std::uint32_t> available;
  std::vector<std::uint8_t> cls;
  explicit PagePool(std::uint32_t chunks) : cls(chunks, kUntyped) {
    for (std::uint32_t c = 0; c < chunks; ++c) available.push_back(c);
    for (unsigned k = 0; k < kPageClasses; ++k) {
      words[k].semaphore = sem_pack({});
      slots[k].assign(std::size_t{chunks} * pages_per_chunk(k), kDeletionMarker);
    }
  }
  PageQueueRef ref(unsigned k) {
    return PageQueueRef{
        &words[k], slots[k].data(),  static_cast<std::uint32_t>(slots[k].size()),  k,
        &source,   available.data(), static_cast<std::uint32_t>(available.size()), cls.data()};
  }
};

// Variant C: the chunk queues, as the core's tests set them up.
struct ChunkPool {
  std::uint32_t capacity;
  std::vector<ChunkMeta> meta;
  std::vector<std::uint8_t> cls;
  std::vector<std::uint32_t> reuse_slots, available;
  std::array<ChunkQueueWords, kPageClasses> words{};
  std::array<std::vector<std::uint64_t>, kPageClasses> slots;
  ChunkSourceWords fresh;
  IndexQueueWords reuse_words;
  ChunkQueues q;
  explicit ChunkPool(std::uint32_t chunks)
      : capacity(chunk_ring_capacity(chunks)),
        meta(chunks),
        cls(chunks, kUntyped),
        reuse_slots(capacity, kDeletionMarker) {
    for (auto& w : words) w.semaphore = sem_pack({});
    for (std::uint32_t c = 0; c < chunks; ++c) available.push_back(c);
    for (unsigned k = 0; k < kPageClasses; ++k) {
      slots[k].assign(capacity, kEmptyEntry);
      q.slots[k] = slots[k].data();
      q.capacity[k] = capacity;
    }
    q.words = words.data();
    q.meta = meta.data();
    q.chunk_class = cls.data();
    q.fresh = &fresh;
    q.available = available.data();
    q.available_count = chunks;
    q.reuse = IndexQueueRef{&reuse_words, reuse_slots.data(), capacity};
  }
};

json sem_json(std::uint64_t word) {
  const SemCounters c = sem_unpack(word);
  return {{"C", c.count}, {"E", c.expected}, {"R", c.reserved}};
}

}  // namespace

std::string ouro_queues_run(int chunks, const std::string& requests) {
  try {
    if (chunks < 1 || chunks > 16) throw std::invalid_argument("chunks: 1 .. 16");
    const auto n = static_cast<std::uint32_t>(chunks);
    PagePool P(n);
    ChunkPool C(n);
    struct Held {
      unsigned k = 0;
      bool live = false;
      std::uint32_t p_index = 0;  // P: the page index (chunk x pages per chunk + page)
      std::uint32_t c_chunk = 0, c_page = 0;
    };
    std::vector<Held> held;
    std::vector<unsigned> classes_used;
    json steps = json::array();
    auto snapshot = [&](json step) {
      json pq = json::array(), cq = json::array();
      for (const unsigned k : classes_used) {
        json ring = json::array();
        for (const std::uint32_t s : P.slots[k])
          ring.push_back(s == kDeletionMarker ? -1 : static_cast<std::int64_t>(s));
        pq.push_back({{"class", k},
                      {"page_bytes", std::uint64_t{kChunkBytes} / pages_per_chunk(k)},
                      {"sem", sem_json(P.words[k].semaphore)},
                      {"front", P.words[k].front},
                      {"back", P.words[k].back},
                      {"ring", ring}});
        json entries = json::array();
        for (std::uint64_t p = C.words[k].front; p < C.words[k].back; ++p) {
          const std::uint64_t e = C.slots[k][p % C.capacity];
          entries.push_back(
              e == kEmptyEntry || entry_is_hole(e) ? -1 : static_cast<int>(entry_chunk(e)));
        }
        cq.push_back({{"class", k},
                      {"sem", sem_json(C.words[k].semaphore)},
                      {"front", C.words[k].front},
                      {"back", C.words[k].back},
                      {"entries", entries}});
      }
      json pchunks = json::array(), cchunks = json::array();
      for (std::uint32_t c = 0; c < n; ++c) {
        pchunks.push_back(P.cls[c] == kUntyped ? -1 : P.cls[c]);
        int free_pages = 0;
        if (C.cls[c] != kUntyped)
          for (unsigned w = 0; w < mask_words(C.cls[c]); ++w)
            free_pages += bits::popcount(C.meta[c].bits[w]);
        cchunks.push_back({{"class", C.cls[c] == kUntyped ? -1 : C.cls[c]},
                           {"free", free_pages},
                           {"queued", (C.meta[c].flags & kChunkInQueue) != 0}});
      }
      step["p_queues"] = pq;
      step["c_queues"] = cq;
      step["p_chunks"] = pchunks;
      step["c_chunks"] = cchunks;
      steps.push_back(step);
    };
    snapshot({{"what", "start: every chunk untyped"}});
    for (const std::string& t : comma_items(requests)) {
      if (held.size() >= 128) throw std::invalid_argument("requests: at most 128");
      if (t[0] == '-') {
        const std::size_t i = parse_number(t.substr(1));
        if (i >= held.size() || !held[i].live)
          throw std::invalid_argument("requests: -" + t.substr(1) + " frees nothing held");
        Held& h = held[i];
        OpCounts pc;
        const PageQueueRef q = P.ref(h.k);
        const std::uint64_t pos = run_release<A>(q, 1, pc);
        SlotWrite<A> w(h.p_index, pos);
        if (!run_slot(w, q, pc, no_spin)) throw std::runtime_error("P: a free waited");
        ChunkCounts cc;
        const ChunkFreeOutcome fo = chunk_free_page<A>(C.q, h.c_chunk, h.c_page, cc, no_spin);
        h.live = false;
        held.push_back({});
        snapshot({{"what", "free request " + std::to_string(i)},
                  {"freed", i},
                  {"p_position", pos},
                  {"p_ops", pc.memory_ops},
                  {"c_ops", cc.ops.memory_ops},
                  {"c_flashed", fo == ChunkFreeOutcome::flashed}});
        continue;
      }
      const std::uint64_t bytes = parse_number(t);
      if (bytes < 1 || bytes > kChunkBytes)
        throw std::invalid_argument("requests: bytes 1 .. 8192 (" + t + ")");
      const unsigned k = page_class_of_bytes(bytes);
      bool seen = false;
      for (const unsigned u : classes_used) seen |= u == k;
      if (!seen) classes_used.push_back(k);
      Held h;
      h.k = k;
      json step = {{"what", std::to_string(bytes) + " B: class " + std::to_string(k) + " (" +
                                std::to_string(kChunkBytes / pages_per_chunk(k)) + " B pages, " +
                                std::to_string(pages_per_chunk(k)) + " a chunk)"},
                   {"class", k}};
      // P: wait and a ticket on front, then the slot of that ticket.
      OpCounts pc;
      const PageQueueRef q = P.ref(k);
      PageReserveOp<A> r(1, k);
      if (!run_reserve(r, q, pc, kBound, no_spin)) throw std::runtime_error("P: a wait spun");
      bool p_ok = r.outcome() == ReserveOutcome::ok;
      if (p_ok) {
        SlotRead<A> s(r.position());
        if (!run_slot(s, q, pc, no_spin)) throw std::runtime_error("P: a slot read spun");
        h.p_index = s.index();
        step["p_ticket"] = r.position();
        step["p_slot"] = ring_slot(r.position(), q.capacity);
        step["p_chunk"] = s.index() / pages_per_chunk(k);
        step["p_page"] = s.index() % pages_per_chunk(k);
        step["p_grew"] = pc.chunks;
      }
      step["p_ops"] = pc.memory_ops;
      // C: wait, then walk the chunk queue from its front to a chunk with a free page.
      ChunkCounts cc;
      ChunkReserveOp<A> cr(1, k);
      if (!run_chunk_reserve(cr, C.q, cc, kBound, no_spin))
        throw std::runtime_error("C: a wait spun");
      bool c_ok = cr.outcome() == ReserveOutcome::ok;
      if (c_ok) {
        ChunkTakeOp<A> take(k, 0);
        if (!run_chunk_take(take, C.q, cc, kBound, no_spin) || take.outcome() != TakeOutcome::ok)
          throw std::runtime_error("C: a take did not finish");
        h.c_chunk = take.chunk();
        h.c_page = take.page();
        step["c_chunk"] = take.chunk();
        step["c_page"] = take.page();
        step["c_walk"] = cc.traversal;
        step["c_grew"] = cc.ops.chunks;
      }
      step["c_ops"] = cc.ops.memory_ops;
      if (p_ok != c_ok) throw std::runtime_error("P and C disagree on out of memory");
      h.live = p_ok;
      step["served"] = p_ok;
      held.push_back(h);
      snapshot(step);
    }
    return json{{"chunks", chunks}, {"chunk_bytes", kChunkBytes}, {"steps", steps}}.dump();
  } catch (const std::exception& e) {
    return json{{"error", e.what()}}.dump();
  }
}

}  // namespace alloclab::explorer
