// TBuddy (Gelado & Garland, PPoPP'19 §4.1) by hand: the index arithmetic, the checker on trees
// broken on purpose, and sequences on a pool of 8 pages (H = 3, nodes 1-15) in which every
// node's state and every semaphore is asserted after each operation, worked out from §4.1 and
// the rules in tbuddy.hpp (splitter keeps the left half, walk left-first with scatter 0).
// State strings list nodes 1..15: A Available, B Busy, P Partial.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "gelado_tbuddy_support.hpp"

using namespace tbuddy_test;

TEST_CASE("TBuddy index arithmetic (H = 3)", "[core][gelado][tbuddy]") {
  CHECK(tb_node_count(3) == 15);
  CHECK(tb_parent(9) == 4);
  CHECK(tb_parent(2) == 1);
  CHECK(tb_sibling(9) == 8);
  CHECK(tb_sibling(8) == 9);
  CHECK(tb_sibling(3) == 2);
  CHECK(tb_left(5) == 10);
  CHECK(tb_right(5) == 11);
  CHECK(tb_depth(1) == 0);
  CHECK(tb_depth(7) == 2);
  CHECK(tb_depth(8) == 3);
  CHECK(tb_height(3, 1) == 3);
  CHECK(tb_height(3, 3) == 2);
  CHECK(tb_height(3, 15) == 0);
  CHECK(tb_first(3, 0) == 8);
  CHECK(tb_first(3, 2) == 2);
  CHECK(tb_offset(3, 1) == 0);
  CHECK(tb_offset(3, 3) == 4);   // right half: pages 4-7
  CHECK(tb_offset(3, 5) == 2);   // pages 2-3
  CHECK(tb_offset(3, 13) == 5);  // page 5
  CHECK(tb_node(3, 5, 0) == 13);
  CHECK(tb_node(3, 6, 1) == 7);
  CHECK(tb_node(3, 0, 3) == 1);
  // A tall tree: H = 22, the last leaf.
  CHECK(tb_offset(22, (2u << 22) - 1) == (1u << 22) - 1);
  CHECK(tb_height(22, (2u << 22) - 1) == 0);
  CHECK(tbuddy_height_error("--pool", 22).empty());
  CHECK(tbuddy_height_error("--pool", 23).rfind("--pool: a pool of 2^23 pages", 0) == 0);
}

TEST_CASE("TBuddy checker finds broken trees", "[core][gelado][tbuddy]") {
  TBuddyStorage s(3);
  const TBuddyTree& t = s.tree;
  CHECK(states(t) == "ABBBBBBBBBBBBBB");
  CHECK(tbuddy_check(t, {}).empty());
  // The root Available and a block held: overlap (the pages also sum to 9).
  CHECK(tbuddy_check(t, {8}).find("overlaps") != std::string::npos);
  // I2: an Available root above an Available node.
  s.nodes[3] = node_word(NodeState::available, false);
  CHECK(tbuddy_check(t, {}).rfind("I2", 0) == 0);
  // I1: siblings 2 and 3 both Available under a Partial root (pages 8, sem[2] set to match).
  s.nodes[1] = node_word(NodeState::partial, false);
  s.nodes[2] = node_word(NodeState::available, false);
  s.sems[3] = 0;
  s.sems[2] = BulkWord::pack(SemCounters{2, 0, 0});
  CHECK(tbuddy_check(t, {}).rfind("I1", 0) == 0);
  // A semaphore that disagrees with the tree: 2 Busy, 3 Available, 2 held, sem[2] = 2.
  s.nodes[2] = node_word(NodeState::busy, false);
  CHECK(tbuddy_check(t, {2}).rfind("sem[2] = (2, 0, 0)", 0) == 0);
  s.sems[2] = BulkWord::pack(SemCounters{1, 0, 0});
  CHECK(tbuddy_check(t, {2}).empty());
  // A lost page: nothing held.
  CHECK(tbuddy_check(t, {}).find("sum to 4") != std::string::npos);
  // A Partial mark with no Available below, a lock left behind.
  s.nodes[2] = node_word(NodeState::partial, false);
  CHECK(tbuddy_check(t, {}).find("children say Busy") != std::string::npos);
  s.nodes[2] = node_word(NodeState::busy, true);
  CHECK(tbuddy_check(t, {2}).find("locked") != std::string::npos);
}

TEST_CASE("TBuddy: alloc order 0 splits down from the root, free merges back up",
          "[core][gelado][tbuddy]") {
  TBuddyStorage s(3);
  const TBuddyTree& t = s.tree;
  TBuddyStats st;
  // wait(sem[0]), wait(sem[1]), wait(sem[2]) each grow (E = 1); sem[3] takes the root. Then
  // each grower splits: 1 -> keeps 2, 3 Available; 2 -> keeps 4, 5 Available; 4 -> keeps 8, 9.
  CHECK(run_alloc(t, 0, 0, &st) == 8);
  CHECK(states(t) == "PPAPABBBABBBBBB");
  CHECK(sem_counts(t) == std::vector<int>{1, 1, 1, 0});
  CHECK(sems_quiet(t));
  CHECK(st.splits == 3);
  CHECK(st.max_locks_held == 2);
  CHECK(tbuddy_check(t, {8}).empty());
  // free(8): try-wait(sem[0]) takes 9's unit, CAS 9, 4 is the merged block; again with 5 at
  // order 1 and 3 at order 2; the root has no buddy: Available, signal sem[3].
  run_free(t, 8, &st);
  CHECK(states(t) == "ABBBBBBBBBBBBBB");
  CHECK(sem_counts(t) == std::vector<int>{0, 0, 0, 1});
  CHECK(st.merges == 3);
  CHECK(st.max_locks_held == 2);
  CHECK(tbuddy_check(t, {}).empty());
}

TEST_CASE("TBuddy: a hand-worked sequence on 8 pages", "[core][gelado][tbuddy]") {
  TBuddyStorage s(3);
  const TBuddyTree& t = s.tree;
  TBuddyStats st;
  CHECK(run_alloc(t, 0, 0) == 8);  // page 0
  CHECK(states(t) == "PPAPABBBABBBBBB");
  // alloc(0): sem[0] takes 9's unit; the walk 1 P, 2 P, 4 P, 8 B, 9 A claims 9. 4 becomes Busy
  // (both children Busy); 2 stays Partial (5 Available).
  CHECK(run_alloc(t, 0, 0, &st) == 9);
  CHECK(states(t) == "PPABABBBBBBBBBB");
  CHECK(sem_counts(t) == std::vector<int>{0, 1, 1, 0});
  CHECK(st.nodes_visited == 5);
  CHECK(st.propagations == 1);
  CHECK(tbuddy_check(t, {8, 9}).empty());
  // alloc(1): the walk 1, 2, 4 (Busy), 5 claims; 2 becomes Busy; 1 stays Partial (3).
  CHECK(run_alloc(t, 1, 0) == 5);
  CHECK(tb_offset(3, 5) == 2);
  CHECK(states(t) == "PBABBBBBBBBBBBB");
  CHECK(sem_counts(t) == std::vector<int>{0, 0, 1, 0});
  CHECK(tbuddy_check(t, {8, 9, 5}).empty());
  // alloc(0): sem[0] and sem[1] grow, sem[2] takes 3 (1 Busy); split 3 (7 Available, 3 and 1
  // Partial), split 6 (13 Available, 6 Partial); page 4.
  CHECK(run_alloc(t, 0, 0, &st) == 12);
  CHECK(states(t) == "PBPBBPABBBBBABB");
  CHECK(sem_counts(t) == std::vector<int>{1, 1, 0, 0});
  CHECK(st.splits == 2);
  CHECK(tbuddy_check(t, {8, 9, 5, 12}).empty());
  // free(5): its buddy 4 is Busy, but the merge is tried (§4.1): try-wait(sem[1]) takes 7's
  // unit, the CAS on 4 fails, the unit goes back; 5 Available, sem[1] = 2; 2 becomes Partial.
  run_free(t, 5, &st);
  CHECK(st.cas_failures == 1);
  CHECK(st.merges == 0);
  CHECK(states(t) == "PPPBAPABBBBBABB");
  CHECK(sem_counts(t) == std::vector<int>{1, 2, 0, 0});
  CHECK(tbuddy_check(t, {8, 9, 12}).empty());
  // free(8): the same at order 0 (13's unit, 9 Busy); 8 Available, 4 Partial.
  run_free(t, 8);
  CHECK(states(t) == "PPPPAPAABBBBABB");
  CHECK(sem_counts(t) == std::vector<int>{2, 2, 0, 0});
  CHECK(tbuddy_check(t, {9, 12}).empty());
  // free(9): merges 8 (4 is the block), then 5 (2 is the block); at order 2 try-wait finds
  // sem[2] empty and the buddy 3 Partial: 2 becomes Available, sem[2] = 1.
  run_free(t, 9, &st);
  CHECK(st.merges == 2);
  CHECK(st.merge_waits == 0);
  CHECK(states(t) == "PAPBBPABBBBBABB");
  CHECK(sem_counts(t) == std::vector<int>{1, 1, 1, 0});
  CHECK(tbuddy_check(t, {12}).empty());
  // free(12): merges 13, 7 and 2 up to the root.
  run_free(t, 12, &st);
  CHECK(st.merges == 3);
  CHECK(states(t) == "ABBBBBBBBBBBBBB");
  CHECK(sem_counts(t) == std::vector<int>{0, 0, 0, 1});
  CHECK(sems_quiet(t));
  CHECK(tbuddy_check(t, {}).empty());
}

// try-wait finds sem[0] empty while the buddy is Available: a taker holds the unit. Falling back
// then could leave two Available buddies (I1) if the taker claimed another node; the merger
// waits, holding its two locks, until the buddy is claimed (locked) or a unit comes.
TEST_CASE("TBuddy: a merger waits while its buddy's unit is in flight", "[core][gelado][tbuddy]") {
  TBuddyStorage s(3);
  const TBuddyTree& t = s.tree;
  REQUIRE(run_alloc(t, 0, 0) == 8);  // 9 Available, sem[0] = 1
  TBuddyAlloc<A> taker(0, 0);
  TBuddyFree<A> merger(t, 8);
  CHECK(taker.step(t) == StepStatus::running);  // read the frees-in-flight word (0)
  CHECK(taker.step(t) == StepStatus::running);  // read sem[0] = (1, 0, 0)
  CHECK(taker.step(t) == StepStatus::running);  // took its unit: (0, 0, 0); the search is next
  CHECK(taker.phase() == TBuddyAllocPhase::search);
  CHECK(sem_counts(t) == std::vector<int>{0, 1, 1, 0});
  // The merger: count itself in flight (fetch-add), lock 8 (load, CAS), lock 4 (load, CAS),
  // try-wait (load: C = 0, empty), read 9: Available and unlocked, so it waits.
  for (int i = 0; i < 7; ++i) CHECK(merger.step(t) == StepStatus::running);
  CHECK(s.frees == 1);
  CHECK(merger.phase() == TBuddyFreePhase::look_buddy);
  CHECK(merger.step(t) == StepStatus::spinning);
  CHECK(merger.stats().merge_waits == 1);
  CHECK(states(t) == "PPApABBbABBBBBB");  // 4 and 8 locked
  // Another round of the wait: the same.
  CHECK(merger.step(t) == StepStatus::running);
  CHECK(merger.step(t) == StepStatus::running);
  CHECK(merger.step(t) == StepStatus::spinning);
  CHECK(merger.stats().merge_waits == 2);
  // The taker walks 1, 2, 4, 8 (Busy), 9 and claims 9; its parent 4 is locked.
  for (int i = 0; i < 5; ++i) CHECK(taker.step(t) == StepStatus::running);
  CHECK(taker.phase() == TBuddyAllocPhase::claim);
  CHECK(taker.step(t) == StepStatus::running);
  CHECK(states(t) == "PPApABBbaBBBBBB");
  CHECK(taker.step(t) == StepStatus::spinning);  // 4 is the merger's
  CHECK(taker.stats().lock_spins == 1);
  // The merger: try-wait empty again, 9 is locked now (claimed): fall back. 8 Available,
  // signal sem[0], out of flight, 4 stays Partial (9 still reads Available), release 8 and 4.
  StepStatus r = StepStatus::running;
  int steps = 0;
  while (r != StepStatus::done && steps < 20) r = merger.step(t), ++steps;
  CHECK(r == StepStatus::done);
  CHECK(steps == 9);
  CHECK(s.frees == kTBuddyFreeLeave + 1);  // none in flight, one finished
  CHECK(merger.stats().frees_ops == 2);
  CHECK(merger.stats().merges == 0);
  CHECK(merger.stats().max_locks_held == 2);
  CHECK(states(t) == "PPAPABBAaBBBBBB");
  CHECK(sem_counts(t) == std::vector<int>{1, 1, 1, 0});
  // The taker locks 4, writes 9 Busy; 4 stays Partial (8 Available).
  REQUIRE(tbuddy_run(taker, t, 100));
  CHECK(taker.node() == 9);
  CHECK(states(t) == "PPAPABBABBBBBBB");
  CHECK(tbuddy_check(t, {9}).empty());
}

// The counterexample of studies/gelado-garland/ ("The merger's wait"), replayed: leaves 8 and 10
// held, their buddies 9 and 11 Available (sem[0] = 2), every other leaf held. M2 frees 10 and
// takes a unit (C = 1); a taker takes the other (C = 0) and claims 11 (scatter 6 walks 1, 2, 5,
// 11), so M2's CAS fails; before M2 signals back, M frees 8 and finds sem[0] empty. Under the
// printed rule M falls back: 8 and 9 both end Available (I1). Under alloclab's, M waits for M2's
// unit and merges.
TEST_CASE("TBuddy: the printed merge rule breaks I1 and the merger's wait keeps it",
          "[core][gelado][tbuddy]") {
  for (const bool wait_for_buddy : {false, true}) {
    TBuddyStorage s(3);
    const TBuddyTree& t = s.tree;
    for (std::uint32_t i = 0; i < 8; ++i) REQUIRE(run_alloc(t, 0, 0) == 8 + i);
    run_free(t, 9);
    run_free(t, 11);
    REQUIRE(states(t) == "PPBPPBBBABABBBB");
    REQUIRE(sem_counts(t) == std::vector<int>{2, 0, 0, 0});
    auto until = [&](auto& m, auto phase) {
      for (int i = 0; i < 50 && m.phase() != phase; ++i) m.step(t);
      REQUIRE(m.phase() == phase);
    };
    TBuddyFree<A> m2(t, 10);
    until(m2, TBuddyFreePhase::cas_buddy);  // holds 10 and 5, and a unit: C = 1
    TBuddyAlloc<A> taker(0, 6);
    until(taker, TBuddyAllocPhase::lock_parent);  // took the last unit, claimed 11
    CHECK(states(t) == "PPBPpBBBAbaBBBB");        // 10 (M2) and 11 (taker) locked
    CHECK(sem_counts(t) == std::vector<int>{0, 0, 0, 0});
    until(m2, TBuddyFreePhase::resignal);  // the CAS on 11 failed
    TBuddyFree<A> m(t, 8, wait_for_buddy);
    until(m, TBuddyFreePhase::look_buddy);  // try-wait found C = 0; 9 is Available, unlocked
    m.step(t);
    if (!wait_for_buddy) REQUIRE(tbuddy_run(m, t, 100));  // falls back: 8 Available
    REQUIRE(tbuddy_run(m2, t, 100));
    REQUIRE(tbuddy_run(m, t, 100));  // (waited for M2's unit, then merged)
    REQUIRE(tbuddy_run(taker, t, 100));
    CHECK(taker.node() == 11);
    if (wait_for_buddy) {
      CHECK(m.stats().merge_waits >= 1);
      CHECK(m.stats().merges == 1);
      CHECK(tbuddy_check(t, {11, 12, 13, 14, 15}).empty());
    } else {
      CHECK(states(t) == "PPBPPBBAAABBBBB");
      CHECK(tbuddy_check(t, {11, 12, 13, 14, 15}).rfind("I1: node 8", 0) == 0);
    }
  }
}

// The spurious null `alloclab check` found (studies/gelado-garland/tbuddy.md), replayed on 2
// pages: leaf 3 Available (sem[0] = 1), a free of leaf 2 takes 3's unit, merges, writes the root
// Available and stops before signalling sem[1]. An alloc of order 0 now finds sem[0] and sem[1]
// empty with no promise. Under the paper's rule (a tree view without the frees-in-flight word)
// it returns null, though the pool is free; under alloclab's it sees the free in flight, signals
// its failures, waits for the free to finish and starts again: it gets leaf 2.
TEST_CASE("TBuddy: a failure at order H while a free is in flight is not final",
          "[core][gelado][tbuddy]") {
  for (const bool ours : {false, true}) {
    TBuddyStorage s(1);
    const TBuddyTree& t = s.tree;
    TBuddyTree view = t;
    if (!ours) view.frees = nullptr;
    REQUIRE(run_alloc(t, 0, 0) == 2);
    REQUIRE(run_alloc(t, 0, 0) == 3);
    run_free(t, 3);
    REQUIRE(states(t) == "PBA");
    TBuddyFree<A> f(t, 2);
    for (int i = 0; i < 20 && f.phase() != TBuddyFreePhase::signal; ++i) f.step(t);
    REQUIRE(f.phase() == TBuddyFreePhase::signal);
    CHECK(states(t) == "ABB");                       // the root Available,
    CHECK(sem_counts(t) == std::vector<int>{0, 0});  // counted by no semaphore
    TBuddyAlloc<A> a(0, 0);
    std::uint64_t steps = 0;
    StepStatus r = StepStatus::running;
    while (r != StepStatus::done && steps < 100) {
      r = a.step(view);
      ++steps;
      if (r == StepStatus::spinning && a.phase() == TBuddyAllocPhase::frees_await) break;
    }
    if (!ours) {
      CHECK(r == StepStatus::done);
      CHECK(a.node() == 0);  // the spurious null
      REQUIRE(tbuddy_run(f, t, 100));
      CHECK(tbuddy_check(t, {}).empty());
      continue;
    }
    // Read the word (1 in flight), grow at 0 and 1 (2 steps each), read it again, signal the
    // failures at 1 and 0, then the wait's first read (unchanged: spinning): 9 steps.
    CHECK(steps == 9);
    CHECK(a.phase() == TBuddyAllocPhase::frees_await);
    CHECK(sems_quiet(t));
    CHECK(a.step(t) == StepStatus::spinning);  // the word has not changed
    REQUIRE(tbuddy_run(f, t, 100));            // the free signals sem[1] and leaves
    REQUIRE(tbuddy_run(a, t, 100));
    CHECK(a.node() == 2);
    CHECK(a.stats().restarts == 1);
    CHECK(tbuddy_check(t, {2}).empty());
  }
}
