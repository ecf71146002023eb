// Figure 6's list benchmark (core/gelado/rcu_list_bench.hpp) step by step on a 3-node list:
// Figure 4b's scenario (a reader inside, a barrier draining, a second one waiting, a third that
// delegates) worked by hand from §4.2.1, with the conditional and the plain barrier; a freed
// node seen by a reader is caught; the input vector is a permutation.
#include <catch2/catch.hpp>

#include <cstdint>
#include <set>
#include <thread>
#include <vector>

#include "alloclab/core/gelado/rcu_list_bench_summary.hpp"
#include "alloclab/core/ouroboros/host_atomics.hpp"

using namespace alloclab::gelado;
using Atom = alloclab::ouro::HostAtomics;
using Thread = RcuListThread<Atom>;

namespace {

void step_to(Thread& t, const RcuListView& v, RcuListPhase p) {
  for (int i = 0; i < 100 && t.phase() != p; ++i) t.step(v);
  REQUIRE(t.phase() == p);
}
void step_to_barrier(Thread& t, const RcuListView& v, SrcuBarrierPhase p) {
  for (int i = 0; i < 100 && !(t.phase() == RcuListPhase::barrier && t.barrier_phase() == p); ++i)
    t.step(v);
  REQUIRE(t.barrier_phase() == p);
}
void run(Thread& t, const RcuListView& v) {
  for (int i = 0; i < 1000 && t.step(v) != StepStatus::done; ++i) {
  }
  REQUIRE(t.phase() == RcuListPhase::done);
}
bool freed(const RcuListStorage& st, std::uint32_t j) {
  return st.node[j] & kRcuListFreed;
}

}  // namespace

TEST_CASE("RCU list: Figure 4b with the conditional and the plain barrier, step by step",
          "[gelado][rcu]") {
  for (bool conditional : {true, false}) {
    INFO((conditional ? "conditional" : "plain"));
    RcuListStorage st(3);  // 0 -> 1 -> 2
    const RcuListView& v = st.view;
    Thread reader(99, conditional), w0(0, conditional), w1(1, conditional), w2(2, conditional);
    // The reader stands on node 0 inside the read side of epoch 0.
    step_to(reader, v, RcuListPhase::visit);
    CHECK(st.words[4] == 1);  // readers[0]
    // W0 unlinks node 0, takes the barrier (the stack: node 0), flips the epoch and waits for
    // the reader.
    step_to_barrier(w0, v, SrcuBarrierPhase::drain);
    CHECK(w0.step(v) == StepStatus::spinning);
    CHECK(st.words[0] == 1);         // head: node 1
    CHECK(st.prev[1] == kSrcuNone);  // node 1 is first
    CHECK(st.words[6] == kRcuHeld);
    CHECK(st.words[3] == 1);  // the epoch
    CHECK(st.words[7] == kSrcuNone);
    // W1 enters in epoch 1, unlinks node 1; conditional: it becomes the waiter; plain: it
    // spins on the held mutex.
    if (conditional) {
      step_to_barrier(w1, v, SrcuBarrierPhase::waiting);
      CHECK(w1.step(v) == StepStatus::spinning);
      CHECK(st.words[6] == (kRcuHeld | kRcuWaiter));
    } else {
      step_to(w1, v, RcuListPhase::barrier);
      CHECK(w1.step(v) == StepStatus::spinning);
      CHECK(w1.barrier_phase() == SrcuBarrierPhase::read);
      CHECK(st.words[6] == kRcuHeld);
    }
    CHECK(st.words[7] == 1);  // node 1 waits on the stack
    // W2 unlinks node 2: the list is empty at both ends.
    step_to(w2, v, RcuListPhase::barrier);
    CHECK(st.words[0] == kSrcuNone);
    CHECK(st.words[1] == kSrcuNone);
    CHECK(st.words[7] == 2);
    CHECK(st.rcu_next[2] == 1);
    if (conditional) {  // a barrier waits to flip: W2 returns at once, its node not yet freed
      CHECK(w2.step(v) == StepStatus::done);
      CHECK(w2.role() == RcuListRole::writer);
      CHECK(w2.stats().delegations == 1);
      CHECK(w2.stats().barriers == 0);
    } else {
      CHECK(w2.step(v) == StepStatus::spinning);
    }
    CHECK_FALSE(freed(st, 2));
    // The reader walks on over the unlinked (not freed) nodes 0, 1, 2 and leaves.
    run(reader, v);
    CHECK(reader.role() == RcuListRole::reader);
    CHECK(reader.stats().nodes_visited == 3);
    CHECK(reader.stats().saw_freed == 0);
    // W0 drains, frees node 0 alone, releases.
    run(w0, v);
    CHECK(w0.stats().barriers == 1);
    CHECK(w0.stats().callbacks == 1);
    CHECK(freed(st, 0));
    CHECK_FALSE(freed(st, 1));
    run(w1, v);
    if (conditional) {  // W1 took over and freed its node and W2's
      CHECK(w1.stats().callbacks == 2);
      CHECK(freed(st, 2));
    } else {
      run(w2, v);
      CHECK(w1.stats().callbacks + w2.stats().callbacks == 2);
      CHECK(w2.stats().barriers == 1);
    }
    CHECK(w1.stats().barriers == 1);
    CHECK(freed(st, 1));
    CHECK(st.words[3] == (conditional ? 2u : 3u));  // an epoch flip per full barrier
    RcuListSummary s;
    s.config = {4, 3, conditional};
    for (const Thread* t : {&reader, &w0, &w1, &w2})
      add_thread(s, t->role(), t->tag() == 99 ? 3 : t->tag(), t->stats());
    take_words(s, st);
    CHECK(verify_rcu_list(s).empty());
    CHECK(s.sum.barriers == (conditional ? 2u : 3u));
  }
}

TEST_CASE("RCU list: a reader that loads a freed node is caught", "[gelado][rcu]") {
  RcuListStorage st(2);
  Thread reader(7, true);
  step_to(reader, st.view, RcuListPhase::visit);
  st.node[1] |= kRcuListFreed;  // a barrier that did not wait for this reader
  run(reader, st.view);
  CHECK(reader.stats().saw_freed == 1);
  RcuListSummary s;
  s.config = {1, 0, true};
  add_thread(s, reader.role(), 7, reader.stats());
  CHECK(verify_rcu_list(s) == "readers loaded a freed node 1 times");
  // The words at the end: nodes not freed, the list not empty.
  RcuListSummary w;
  w.config = {1, 0, true};
  take_words(w, RcuListStorage(2));
  CHECK_FALSE(w.words_error.empty());
}

TEST_CASE("RCU list: the input vector is a permutation of the tags", "[gelado][rcu]") {
  for (std::uint32_t n : {1u, 2u, 97u, 4096u}) {
    const std::vector<std::uint32_t> a = rcu_list_tags(n, 1), b = rcu_list_tags(n, 2);
    const std::set<std::uint32_t> seen(a.begin(), a.end());
    CHECK(seen.size() == n);
    CHECK(*seen.rbegin() == n - 1);
    if (n > 64) CHECK(a != b);
  }
}

// Host threads on the shared words (each stepping its share of the benchmark's threads in
// turn, so a spinning barrier never blocks the reader or holder it waits for): every run
// verified, with both barriers.
TEST_CASE("RCU list: host threads on shared atomics, both barriers verified", "[gelado][rcu]") {
  for (bool conditional : {true, false})
    for (std::uint32_t ratio : {1u, 8u}) {
      INFO((conditional ? "conditional" : "plain") << " ratio " << ratio);
      const std::uint32_t n = 512;
      RcuListStorage st(n / ratio);
      const std::vector<std::uint32_t> tags = rcu_list_tags(n, 3);
      std::vector<Thread> threads;
      for (std::uint32_t t : tags) threads.emplace_back(t, conditional);
      {
        std::vector<std::jthread> pool;
        for (unsigned h = 0; h < 4; ++h)
          pool.emplace_back([&, h] {
            for (bool left = true; left;) {
              left = false;
              for (std::size_t i = h; i < threads.size(); i += 4)
                if (threads[i].step(st.view) != StepStatus::done) left = true;
            }
          });
      }
      RcuListSummary s;
      s.config = {n, n / ratio, conditional};
      for (const Thread& t : threads) add_thread(s, t.role(), t.tag(), t.stats());
      take_words(s, st);
      CHECK(verify_rcu_list(s).empty());
    }
}
