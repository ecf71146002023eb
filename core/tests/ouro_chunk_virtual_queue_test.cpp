// Variant C's virtualized queues (chunk_queue_virtual.hpp), one step machine at a time, against
// what the decisions promise: a walker that still holds a Queue-Chunk used up and drawn again by
// its class finds no entry for its position there (so walks need no check beyond the entry's),
// nor does a flasher's CAS of its exact entry; the spare stack's tagged head defeats ABA; and the
// at-rest accounting adds up after a hand-run sequence, and catches a chunk lost.
#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <numeric>
#include <vector>

#include "alloclab/core/ouroboros/chunk_queue_virtual.hpp"
#include "alloclab/core/ouroboros/host_atomics.hpp"
#include "alloclab/core/ouroboros/queue_chunk_check.hpp"

using namespace alloclab::ouro;

namespace {

// The shared words of C's queues over `chunks` chunks, all fresh; class 0's queue has room for
// `capacity` positions (VA: ceil(capacity / 1024) + 2 references).
template <template <class> class LayoutOf>
struct ChunkQueueFixture {
  using Layout = LayoutOf<HostAtomics>;
  explicit ChunkQueueFixture(std::uint32_t chunks, std::uint32_t capacity = 2048)
      : words(kPageClasses),
        meta(chunks),
        chunk_class(chunks, 0xff),
        available(chunks),
        reuse_slots(chunks, kDeletionMarker),
        queue_meta(chunks),
        entries(std::uint64_t{chunks} * kChunkQueueEntries, 0x5555'5555'5555'5555ull),
        static_words(std::size_t{kPageClasses} * Layout::words_per_class(capacity),
                     kDeletionMarker) {
    std::iota(available.begin(), available.end(), 0u);
    spare.fill(kEmptySpare);
    virt.meta = queue_meta.data();
    virt.entries = entries.data();
    virt.spare = spare.data();
    virt.words = static_words.data();
    virt.words_per_class = Layout::words_per_class(capacity);
    virt.counts = &counts;
    virt.reserve_per_class = chunk_queue_reserve(capacity, Layout::kTrail);
    q.words = words.data();
    q.meta = meta.data();
    q.chunk_class = chunk_class.data();
    q.fresh = &fresh;
    q.available = available.data();
    q.available_count = chunks;
    q.reuse = IndexQueueRef{&reuse_words, reuse_slots.data(), chunks};
    q.virt = &virt;
  }

  template <class Op>
  void run(Op& op) {
    for (int i = 0; i < 100000 && !op.done(); ++i) op.step(q, c);
    REQUIRE(op.done());
  }
  // The word of class 0's position p for `use`, and where it was found.
  std::uint64_t* locate(std::uint64_t p, EntryUse use, ChunkCursor* at = nullptr) {
    typename Layout::Locate l(q, 0, p, use);
    run(l);
    if (at) *at = l.cursor();
    return l.word();
  }
  // A publish at p of an entry naming chunk 1 + p mod 50 (the entry CAS of PublishOp, on the
  // located word), and back.
  void publish(std::uint64_t p) {
    const auto id = static_cast<std::uint32_t>(1 + p % 50);
    std::uint64_t* w = locate(p, EntryUse::write);
    REQUIRE(w != nullptr);
    REQUIRE(HostAtomics::cas(*w, kEmptyEntry, make_entry(id, 0, p)) == kEmptyEntry);
    words[0].back = p + 1;
  }
  // The front remover's exchange at p and its count (ChunkTakeOp's pop_slot and popped).
  void pop(std::uint64_t p) {
    ChunkCursor at;
    std::uint64_t* w = locate(p, EntryUse::pop, &at);
    REQUIRE(w != nullptr);
    CHECK(entry_is_for(HostAtomics::exchange(*w, kEmptyEntry), p));
    typename Layout::Popped done(0, p, at);
    run(done);
    words[0].front = p + 1;
  }

  std::vector<ChunkQueueWords> words;
  std::vector<ChunkMeta> meta;
  std::vector<std::uint8_t> chunk_class;
  ChunkSourceWords fresh;
  std::vector<std::uint32_t> available;
  IndexQueueWords reuse_words;
  std::vector<std::uint32_t> reuse_slots;
  std::vector<QueueChunkMeta> queue_meta;
  std::vector<std::uint64_t> entries;
  std::array<std::uint64_t, kPageClasses> spare{};
  std::vector<std::uint32_t> static_words;
  ChunkQueueChunkWords counts;
  ChunkQueueChunks virt;
  ChunkQueues q;
  ChunkCounts c;
};

// Publishes and takes out positions a Queue-Chunk at a time until the chunk that held positions
// 0..1023 holds a later chunk's positions again; then reads position 5 through the old cursor.
template <template <class> class LayoutOf>
void stale_holder_finds_nothing() {
  ChunkQueueFixture<LayoutOf> f(64);
  for (std::uint64_t p = 0; p < kChunkQueueEntries; ++p) f.publish(p);
  ChunkCursor old;
  REQUIRE(f.locate(5, EntryUse::walk, &old) != nullptr);
  const std::uint64_t old_entry = make_entry(1 + 5 % 50, 0, 5);
  CHECK(*f.locate(5, EntryUse::walk) == old_entry);
  // Chunk b's positions published, then chunk b - 1's taken out: VA gives a used-up chunk back
  // at once, VL after its trail of 10.
  bool reused = false;
  std::uint64_t b = 1;
  for (; b < 20 && !reused; ++b) {
    for (std::uint64_t p = b * kChunkQueueEntries; p < (b + 1) * kChunkQueueEntries; ++p)
      f.publish(p);
    for (std::uint64_t p = (b - 1) * kChunkQueueEntries; p < b * kChunkQueueEntries; ++p) f.pop(p);
    ChunkCursor now;
    REQUIRE(f.locate((b + 1) * kChunkQueueEntries - 1, EntryUse::walk, &now) != nullptr);
    reused = now.chunk == old.chunk;
  }
  REQUIRE(reused);
  CAPTURE(b);
  // The old cursor still "covers" position 5, and reads an entry of a later position.
  std::uint64_t* w = LayoutOf<HostAtomics>::covered(f.q, 0, 5, old);
  REQUIRE(w != nullptr);
  CHECK_FALSE(entry_is_for(*w, 5));
  // A walk from scratch finds no chunk for position 5 (used up): it passes it, or starts again.
  typename LayoutOf<HostAtomics>::Locate walk(f.q, 0, 5, EntryUse::walk);
  f.run(walk);
  CHECK(walk.word() == nullptr);
  CHECK((walk.stale() || walk.skip_to() > 5));
  // A flasher of the chunk whose entry was at 5: no word, or a CAS that fails.
  std::uint64_t* h = f.locate(5, EntryUse::hole);
  if (h) CHECK(HostAtomics::cas(*h, old_entry, make_hole(5)) != old_entry);
  // At rest: the chunks drawn are those the positions need, VL's trail and the spares; the pool
  // committed the class's reserve (set here as a grow commits it) and no fresh page chunk.
  f.words[0].queue_chunks = f.virt.reserve_per_class;
  f.fresh.committed = f.virt.reserve_per_class;
  CHECK(chunk_queue_chunks_at_rest_error(f.words.data(), f.counts, f.fresh,
                                         LayoutOf<HostAtomics>::kTrail) == "");
  ++f.counts.drawn;  // a Queue-Chunk nobody holds
  CHECK(chunk_queue_chunks_at_rest_error(f.words.data(), f.counts, f.fresh,
                                         LayoutOf<HostAtomics>::kTrail) != "");
}

}  // namespace

TEST_CASE("C over VA: a walker holding a reused Queue-Chunk finds no entry for its position",
          "[ouro][vqueue][chunk]") {
  stale_holder_finds_nothing<ChunkArray>();
}

TEST_CASE("C over VL: a walker holding a reclaimed and reused Queue-Chunk finds no entry for it",
          "[ouro][vqueue][chunk]") {
  stale_holder_finds_nothing<ChunkLinked>();
}

// Worked by hand: chunks 7 and 8 on the stack (head 8). A reads the head and 8's next (7); then B
// takes 8, C takes 7 and B puts 8 back: the head names 8 again, with nothing under it. A's CAS of
// the head it read (8, whose next it read as 7) must fail, or it would hand out 7 a second time.
TEST_CASE("C's spare stack: a head read before a take and a give-back of its chunk is not reused",
          "[ouro][vqueue][chunk]") {
  ChunkQueueFixture<ChunkArray> f(16);
  for (const std::uint32_t id : {7u, 8u}) {
    QueueChunkSpare<HostAtomics> give(0, id);
    f.run(give);
  }
  CHECK(spare_id(f.spare[0]) == 8);
  CHECK(f.counts.spared == 2);
  QueueChunkDraw<HostAtomics> a(0, 0, false);
  a.step(f.q, f.c);  // the head: 8
  a.step(f.q, f.c);  // its next: 7
  QueueChunkDraw<HostAtomics> b(0, 1024, false), c(0, 2048, false);
  f.run(b);
  f.run(c);
  CHECK(b.chunk() == 8);
  CHECK(c.chunk() == 7);
  QueueChunkSpare<HostAtomics> back(0, 8);
  f.run(back);
  CHECK(spare_id(f.spare[0]) == 8);
  const std::uint32_t lost_before = f.c.ops.failed;
  f.run(a);
  CHECK(f.c.ops.failed > lost_before);  // its first CAS failed
  CHECK(a.chunk() == 8);                // it took 8 again, not 7
  CHECK(spare_id(f.spare[0]) == kDeletionMarker);
  CHECK(f.counts.spared == 0);
  CHECK(f.counts.drawn == 0);  // every chunk came from the stack
  CHECK(f.queue_meta[8].virtual_start == 0);
}
