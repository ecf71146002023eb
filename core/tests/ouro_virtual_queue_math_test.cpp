// Index arithmetic and static memory of Ouroboros' S, VA and VL queues (Winter et al., ICS'20,
// §5), against the paper's numbers and hand-worked positions.
#include <catch2/catch.hpp>

#include <cstdint>

#include "alloclab/core/ouroboros/virtual_queue_math.hpp"

using namespace alloclab::ouro;

TEST_CASE("virtual array queue: positions to Queue-Chunk slot and offset", "[core][ouro][vqueue]") {
  CHECK(queue_chunk_items(8192, 4) == 2048);
  // Small hand-worked geometry: 4 items per Queue-Chunk, 3 reference slots (12 virtual items).
  struct Case {
    std::uint64_t v, slot;
    std::uint32_t offset;
  };
  for (const Case c : {Case{0, 0, 0}, Case{3, 0, 3}, Case{4, 1, 0}, Case{11, 2, 3},
                       Case{12, 0, 0},  // one lap: back to slot 0
                       Case{13, 0, 1}, Case{26, 0, 2}}) {
    const VirtualSlot s = va_locate(c.v, 4, 3);
    CHECK(s.chunk_slot == c.slot);
    CHECK(s.offset == c.offset);
  }
  // The public code's geometry: 2048 items per 8 KiB Queue-Chunk, 16384 reference slots.
  CHECK(va_capacity(2048, 16384) == (1ull << 25));
  CHECK(va_locate(2047, 2048, 16384).chunk_slot == 0);
  CHECK(va_locate(2048, 2048, 16384).chunk_slot == 1);
  CHECK(va_locate((1ull << 25) + 2049, 2048, 16384).chunk_slot == 1);
  CHECK(va_locate((1ull << 25) + 2049, 2048, 16384).offset == 1);
  // Past 2^32 (a 32-bit counter would have wrapped here) the position still maps on.
  CHECK(va_locate((1ull << 32) + 5, 2048, 16384).offset == 5);
  CHECK(va_allocates_next_chunk(0, 4));
  CHECK(va_allocates_next_chunk(8, 4));
  CHECK_FALSE(va_allocates_next_chunk(9, 4));
}

TEST_CASE("static queue memory: S, VA = 1/2048 of S, VL = 3 pointers", "[core][ouro][vqueue]") {
  // The paper's evaluation: 10 queues of capacity 2,000,000 with 4-byte indices.
  CHECK(static_bytes_s(2000000, 4) == 8000000);
  CHECK(10 * static_bytes_s(2000000, 4) == 80000000);
  // VA: ceil(2,000,000 / 2048) = 977 references of 4 bytes.
  CHECK(static_bytes_va(2000000, 8192, 4, 4) == 977 * 4);
  // Where the capacity is a whole number of Queue-Chunks the ratio is exactly 8192 / 4 = 2048.
  const std::uint64_t cap = 2048ull * 1024;
  CHECK(static_bytes_s(cap, 4) == 8ull << 20);      // 8 MiB
  CHECK(static_bytes_va(cap, 8192, 4, 4) == 4096);  // 4 KiB
  CHECK(static_bytes_s(cap, 4) / static_bytes_va(cap, 8192, 4, 4) == 2048);
  // With 8-byte pointers as references it would be 1/1024.
  CHECK(static_bytes_s(cap, 4) / static_bytes_va(cap, 8192, 4, 8) == 1024);
  // The ratio is chunk size / reference width, whatever the item width: 8-byte items halve the
  // items per Queue-Chunk and double the ring alike.
  CHECK(static_bytes_s(cap, 8) / static_bytes_va(cap, 8192, 8, 4) == 2048);
  CHECK(static_bytes_vl(8) == 24);
}

TEST_CASE("Queue-Chunk counters: used up after #spots enqueues and as many dequeues",
          "[core][ouro][vqueue]") {
  const std::uint32_t spots = 2048;
  CHECK(queue_chunk_counters_fit(spots));
  CHECK_FALSE(queue_chunk_counters_fit(queue_chunk_items(256 * 1024, 4)));  // 65536 spots
  std::uint32_t w = 0;
  for (std::uint32_t i = 0; i < spots; ++i) {
    w += queue_chunk_enqueue_delta();
    if (i % 3 == 0) {  // interleave some dequeues
      w += queue_chunk_dequeue_delta();
      CHECK_FALSE(queue_chunk_used_up(w, spots));
    }
  }
  CHECK(queue_chunk_count_a(w) == spots);
  const std::uint32_t present = spots - (spots + 2) / 3;  // 683 dequeued in the loop
  CHECK(queue_chunk_count_b(w) == present);
  for (std::uint32_t i = 0; i < present; ++i) {
    CHECK_FALSE(queue_chunk_used_up(w, spots));
    w += queue_chunk_dequeue_delta();
  }
  CHECK(queue_chunk_used_up(w, spots));
  CHECK(w == spots);
}
