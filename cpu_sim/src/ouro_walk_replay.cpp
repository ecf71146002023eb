#include "alloclab/cpu_sim/ouro_walk_replay.hpp"

#include <algorithm>
#include <array>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/ouroboros/chunk_page.hpp"
#include "alloclab/core/ouroboros/config.hpp"
#include "alloclab/core/ouroboros/host_atomics.hpp"

namespace alloclab::sim {

WalkReplay replay_lanes_together(unsigned page_class, std::span<const std::uint32_t> free_per_entry,
                                 std::uint64_t lanes) {
  using namespace alloclab::ouro;
  if (page_class >= kPageClasses)
    throw std::invalid_argument("replay_lanes_together: no page class " +
                                std::to_string(page_class));
  const std::uint32_t per_chunk = pages_per_chunk(page_class);
  std::uint64_t free_pages = 0;
  for (const std::uint32_t f : free_per_entry) {
    if (f > per_chunk)
      throw std::invalid_argument("replay_lanes_together: an entry with " + std::to_string(f) +
                                  " free pages, a chunk of class " + std::to_string(page_class) +
                                  " has " + std::to_string(per_chunk));
    free_pages += f;
  }
  if (lanes == 0 || free_pages < lanes)
    throw std::invalid_argument("replay_lanes_together: " + std::to_string(lanes) +
                                " lanes need a free page each, the entries hold " +
                                std::to_string(free_pages));

  // The queue: entry j at position j, chunk j its chunk (typed for the class, in the queue) or a
  // hole where it has no free page. Its free pages are its first f pages (a lane picks among the
  // set bits from its rotation on). front = 0, back = the entries.
  const auto entries = static_cast<std::uint32_t>(free_per_entry.size());
  const std::uint32_t capacity = chunk_ring_capacity(std::max<std::uint32_t>(entries, 1));
  std::vector<ChunkMeta> meta(std::max<std::uint32_t>(entries, 1));
  std::vector<std::uint8_t> chunk_class(meta.size(), static_cast<std::uint8_t>(page_class));
  std::vector<std::uint64_t> slots(capacity, kEmptyEntry);
  std::vector<std::uint32_t> reuse_slots(capacity, kDeletionMarker);
  std::vector<std::uint32_t> available;  // no fresh chunk: the replay never grows
  std::array<ChunkQueueWords, kPageClasses> words{};
  ChunkSourceWords fresh;
  IndexQueueWords reuse_words;
  for (std::uint32_t j = 0; j < entries; ++j) {
    const std::uint32_t f = free_per_entry[j];
    if (f == 0) {
      slots[j] = make_hole(j);
      continue;
    }
    ChunkMeta& m = meta[j];
    m.state = chunk_state(0, f);
    m.flags = flags_of_epoch(0) | kChunkInQueue;
    m.position = 1 + std::uint64_t{j};
    for (std::uint32_t p = 0; p < f; ++p) m.bits[p / 64] |= std::uint64_t{1} << (p % 64);
    slots[j] = make_entry(j, 0, j);
  }
  words[page_class].semaphore =
      sem_pack({.count = static_cast<std::int32_t>(std::min<std::uint64_t>(free_pages, kMaxUnits)),
                .expected = 0,
                .reserved = 0});
  words[page_class].back = entries;
  words[page_class].pages = free_pages;
  ChunkQueues q;
  q.words = words.data();
  q.slots[page_class] = slots.data();
  q.capacity[page_class] = capacity;
  q.meta = meta.data();
  q.chunk_class = chunk_class.data();
  q.fresh = &fresh;
  q.available = available.data();
  q.available_count = 0;
  q.reuse = IndexQueueRef{&reuse_words, reuse_slots.data(), capacity};

  // The lanes, as warps of 32 rotate their bit choice by lane (the GPU's lane id).
  std::vector<ChunkTakeOp<HostAtomics>> ops;
  ops.reserve(lanes);
  for (std::uint64_t i = 0; i < lanes; ++i)
    ops.emplace_back(page_class, static_cast<unsigned>(i % 32));
  std::vector<ChunkCounts> counts(lanes);
  // Every step of a lane's walk passes a position or takes a page; a bound far past what the
  // queue can ask (a few steps a position, the lanes' pops and removals) stops a defect.
  const std::uint64_t bound = 64 * (std::uint64_t{entries} + lanes) + 1024;
  WalkReplay out;
  std::uint64_t left = lanes;
  while (left > 0) {
    if (++out.rounds > bound)
      throw VerificationError("replay_lanes_together: a lane did not find its page within " +
                              std::to_string(bound) + " rounds");
    for (std::uint64_t i = 0; i < lanes; ++i) {
      if (ops[i].done()) continue;
      ops[i].step(q, counts[i]);
      if (ops[i].done()) --left;
    }
  }
  std::vector<std::uint8_t> taken(std::size_t{entries} * per_chunk, 0);
  long double sum = 0;
  for (std::uint64_t i = 0; i < lanes; ++i) {
    if (ops[i].outcome() != TakeOutcome::ok)
      throw VerificationError("replay_lanes_together: lane " + std::to_string(i) +
                              " found no page");
    const std::size_t page = std::size_t{ops[i].chunk()} * per_chunk + ops[i].page();
    if (ops[i].chunk() >= entries || ops[i].page() >= free_per_entry[ops[i].chunk()] ||
        taken[page]++)
      throw VerificationError("replay_lanes_together: lane " + std::to_string(i) +
                              " took a page that was not free or was taken twice");
    sum += counts[i].traversal;
    out.max_walk = std::max(out.max_walk, counts[i].traversal);
  }
  out.pages_taken = lanes;
  out.mean_walk = static_cast<double>(sum / static_cast<long double>(lanes));
  return out;
}

}  // namespace alloclab::sim
