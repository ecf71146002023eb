// Ouroboros' base index queue (Winter et al., ICS'20, Alg. 1), one thread driving it step by step.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "alloclab/core/ouroboros/host_atomics.hpp"
#include "alloclab/core/ouroboros/index_queue.hpp"

using namespace alloclab::ouro;

namespace {

using A = HostAtomics;
constexpr std::uint32_t kDel = kDeletionMarker;

struct HostQueue {
  IndexQueueWords words;
  std::vector<std::uint32_t> slots;
  explicit HostQueue(std::uint32_t size) : slots(size, kDeletionMarker) {}
  IndexQueueRef ref() { return {&words, slots.data(), static_cast<std::uint32_t>(slots.size())}; }
  std::int32_t fill() const { return static_cast<std::int32_t>(words.fill_count); }
};

QueueOutcome enqueue(HostQueue& q, std::uint32_t index, FullCheck check = FullCheck::correct) {
  EnqueueOp<A> op(index, check);
  return queue_run_bounded(op, q.ref(), 100);
}
// Returns the index, or kDel when the dequeue did not succeed.
std::uint32_t dequeue(HostQueue& q) {
  DequeueOp<A> op;
  return queue_run_bounded(op, q.ref(), 100) == QueueOutcome::ok ? op.index() : kDel;
}

}  // namespace

TEST_CASE("index queue: FIFO with front and back past the ring size", "[core][ouro][queue]") {
  HostQueue q(4);
  for (std::uint32_t i : {10u, 11u, 12u}) CHECK(enqueue(q, i) == QueueOutcome::ok);
  CHECK(q.slots == std::vector<std::uint32_t>{10, 11, 12, kDel});
  CHECK(dequeue(q) == 10);
  CHECK(dequeue(q) == 11);
  CHECK(q.slots == std::vector<std::uint32_t>{kDel, kDel, 12, kDel});
  // back = 3, 4, 5: slots 3, 0, 1.
  for (std::uint32_t i : {13u, 14u, 15u}) CHECK(enqueue(q, i) == QueueOutcome::ok);
  CHECK(q.slots == std::vector<std::uint32_t>{14, 15, 12, 13});
  CHECK(q.fill() == 4);
  CHECK(enqueue(q, 16) == QueueOutcome::full);  // four items in four slots
  CHECK(q.fill() == 4);
  CHECK(q.words.back == 6);  // the refused enqueue did not claim a position
  for (std::uint32_t expect : {12u, 13u, 14u, 15u}) CHECK(dequeue(q) == expect);
  CHECK(q.words.front == 6);
  CHECK(q.fill() == 0);
  CHECK(q.slots == std::vector<std::uint32_t>{kDel, kDel, kDel, kDel});
  // Several more laps keep the order.
  std::uint32_t next_in = 100, next_out = 100;
  for (int lap = 0; lap < 7; ++lap) {
    for (int k = 0; k < 3; ++k) REQUIRE(enqueue(q, next_in++) == QueueOutcome::ok);
    for (int k = 0; k < 3; ++k) REQUIRE(dequeue(q) == next_out++);
  }
  CHECK(q.words.front == 27);
  CHECK(q.words.back == 27);
}

TEST_CASE("index queue: dequeue from empty fails and restores the fill count",
          "[core][ouro][queue]") {
  HostQueue q(4);
  DequeueOp<A> op;
  CHECK(op.step(q.ref()) == QueueStatus::running);
  CHECK(q.fill() == -1);  // line 9 took it below zero ...
  CHECK(op.step(q.ref()) == QueueStatus::done);
  CHECK(op.outcome() == QueueOutcome::empty);
  CHECK(q.fill() == 0);  // ... line 10 put it back
  CHECK(q.words.front == 0);
  CHECK(op.memory_ops() == 2);
  // Still usable.
  CHECK(enqueue(q, 7) == QueueOutcome::ok);
  CHECK(dequeue(q) == 7);
  CHECK(dequeue(q) == kDel);
  CHECK(q.fill() == 0);
  // The deletion marker cannot be enqueued (it would read as an empty slot).
  CHECK(enqueue(q, kDel) == QueueOutcome::invalid_index);
  CHECK(q.fill() == 0);
}

TEST_CASE("index queue: the printed full check admits a (size + 1)-th enqueue",
          "[core][ouro][queue]") {
  SECTION("correct check refuses it") {
    HostQueue q(4);
    for (std::uint32_t i = 1; i <= 4; ++i) REQUIRE(enqueue(q, i) == QueueOutcome::ok);
    EnqueueOp<A> fifth(5, FullCheck::correct);
    CHECK(queue_run_bounded(fifth, q.ref(), 100) == QueueOutcome::full);
    CHECK(fifth.slot_spins() == 0);
    CHECK(q.fill() == 4);
    CHECK(q.words.back == 4);
  }
  SECTION("printed check: the fifth enqueue blocks on a live slot until a dequeue") {
    HostQueue q(4);
    for (std::uint32_t i = 1; i <= 4; ++i)
      REQUIRE(enqueue(q, i, FullCheck::printed) == QueueOutcome::ok);
    // Old fill count 4 is not > 4, so line 2 lets it through; back = 4 gives slot 0, which
    // still holds item 1. Its CAS (line 6) fails until somebody dequeues item 1: a full queue
    // now blocks the enqueuer instead of refusing it. Where that somebody is the enqueuer
    // itself (or waits for it), the printed version hangs.
    EnqueueOp<A> fifth(5, FullCheck::printed);
    CHECK(queue_run_bounded(fifth, q.ref(), 100) == QueueOutcome::spin_limit);
    CHECK(fifth.slot_spins() == 100);
    CHECK(fifth.position() == 4);
    CHECK(q.fill() == 5);    // the fill count now exceeds the ring
    CHECK(q.slots[0] == 1);  // the CAS never overwrote the live item
    CHECK(dequeue(q) == 1);
    CHECK(queue_run_bounded(fifth, q.ref(), 100) == QueueOutcome::ok);  // resumed: now it lands
    CHECK(q.slots[0] == 5);
    for (std::uint32_t expect : {2u, 3u, 4u, 5u}) CHECK(dequeue(q) == expect);
    CHECK(q.fill() == 0);
  }
  SECTION("printed check: an enqueue dropped after claiming its slot strands a dequeue") {
    HostQueue q(4);
    for (std::uint32_t i = 1; i <= 4; ++i)
      REQUIRE(enqueue(q, i, FullCheck::printed) == QueueOutcome::ok);
    {
      EnqueueOp<A> fifth(5, FullCheck::printed);
      CHECK(queue_run_bounded(fifth, q.ref(), 10) == QueueOutcome::spin_limit);
    }  // dropped, not resumed: position 4 is claimed and will never be written
    for (std::uint32_t expect : {1u, 2u, 3u, 4u}) CHECK(dequeue(q) == expect);
    CHECK(q.fill() == 1);  // one item advertised ...
    DequeueOp<A> stranded;
    CHECK(queue_run_bounded(stranded, q.ref(), 50) == QueueOutcome::spin_limit);  // ... never there
    CHECK(stranded.position() == 4);
    CHECK(stranded.slot_spins() == 50);
  }
}

TEST_CASE("index queue: a dequeue that overtakes its enqueue waits for the write",
          "[core][ouro][queue]") {
  // Interleaving of §3.3: the enqueue is counted (line 2) and has its position (line 5), the
  // dequeue is admitted by that count and reaches the slot before the write (line 13 spins).
  HostQueue q(2);
  EnqueueOp<A> enq(42);
  DequeueOp<A> deq;
  CHECK(enq.step(q.ref()) == QueueStatus::running);   // fill 0 -> 1
  CHECK(enq.step(q.ref()) == QueueStatus::running);   // back 0 -> 1
  CHECK(deq.step(q.ref()) == QueueStatus::running);   // fill 1 -> 0: admitted
  CHECK(deq.step(q.ref()) == QueueStatus::running);   // front 0 -> 1
  CHECK(deq.step(q.ref()) == QueueStatus::spinning);  // slot 0 still del
  CHECK(deq.step(q.ref()) == QueueStatus::spinning);
  CHECK(enq.step(q.ref()) == QueueStatus::done);  // CAS del -> 42
  CHECK(deq.step(q.ref()) == QueueStatus::done);
  CHECK(deq.index() == 42);
  CHECK(deq.slot_spins() == 2);
  CHECK(q.slots[0] == kDel);
  // And the converse: an enqueue onto a slot a dequeue has claimed but not yet emptied.
  HostQueue r(1);
  REQUIRE(enqueue(r, 7) == QueueOutcome::ok);
  DequeueOp<A> slow;
  slow.step(r.ref());  // fill 1 -> 0
  slow.step(r.ref());  // front 0 -> 1, slot 0 still holds 7
  EnqueueOp<A> eager(8);
  eager.step(r.ref());  // fill 0 -> 1: admitted (the ring looks empty)
  eager.step(r.ref());  // back 1 -> 2: slot 0
  CHECK(eager.step(r.ref()) == QueueStatus::spinning);  // 7 not yet taken out: line 6 waits
  CHECK(slow.step(r.ref()) == QueueStatus::done);
  CHECK(slow.index() == 7);
  CHECK(eager.step(r.ref()) == QueueStatus::done);
  CHECK(dequeue(r) == 8);
}

TEST_CASE("index queue: the counting policy sees each operation", "[core][ouro][queue]") {
  using C = CountingAtomics<>;
  HostQueue q(4);
  const AtomicOpCounts before = C::counts();
  EnqueueOp<C> enq(3);
  queue_run_bounded(enq, q.ref(), 10);
  DequeueOp<C> deq;
  queue_run_bounded(deq, q.ref(), 10);
  const AtomicOpCounts& after = C::counts();
  // enqueue: add fill, add back, CAS; dequeue: add fill, add front, exchange.
  CHECK(after.fetch_adds - before.fetch_adds == 4);
  CHECK(after.cas - before.cas == 1);
  CHECK(after.exchanges - before.exchanges == 1);
  CHECK(after.loads == before.loads);
  CHECK(enq.memory_ops() + deq.memory_ops() == 6);
}
