// Seed 001's errata (Gelado & Garland, PPoPP'19): each erratum's evidence, replayed on the step
// machines, holds what it claims, and the replays behind it say so in their own fields.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "alloclab/studies/gelado_errata.hpp"

using namespace alloclab::validation;

namespace {
bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}
const Erratum& by_key(const std::vector<Erratum>& all, const std::string& key) {
  for (const auto& e : all)
    if (e.key == key) return e;
  FAIL("no erratum " << key);
  return all.front();
}
}  // namespace

TEST_CASE("Gelado & Garland: the printed merge rule breaks I1, alloclab's does not",
          "[validation][gelado]") {
  const TBuddyMergeReplay printed = tbuddy_merge_replay(false);
  CHECK(printed.scripted);
  CHECK(printed.taker_node == 11);
  CHECK(printed.merges == 0);
  CHECK(printed.states == "PPBPPBBAAABBBBB");  // 8, 9 and 10 Available
  CHECK(printed.check.rfind("I1: node 8", 0) == 0);
  CHECK(printed.sem_counts == std::vector<int>{3, 0, 0, 0});

  const TBuddyMergeReplay fixed = tbuddy_merge_replay(true);
  CHECK(fixed.scripted);
  CHECK(fixed.taker_node == 11);
  CHECK(fixed.merges == 1);
  CHECK(fixed.merge_waits >= 1);
  CHECK(fixed.check.empty());
  CHECK(fixed.states.substr(3, 1) == "A");  // node 4, the merged 8 and 9
}

TEST_CASE("Gelado & Garland: the printed spin rule swaps Fig. 1(b)'s second grower",
          "[validation][gelado]") {
  const SpinRuleReplay printed = spin_rule_replay(true);
  CHECK(printed.t3_left_spin);
  CHECK(printed.t3_releases >= 1);
  CHECK(printed.second_grower == 3);
  CHECK(printed.expected == 6);
  const SpinRuleReplay covered = spin_rule_replay(false);
  CHECK_FALSE(covered.t3_left_spin);
  CHECK(covered.t3_releases == 0);
  CHECK(covered.second_grower == 4);
  CHECK(covered.expected == 6);
}

TEST_CASE("Gelado & Garland errata: the evidence computed from the step machines",
          "[validation][gelado]") {
  const auto all = gelado_errata();
  REQUIRE(all.size() == 7);
  for (const auto& e : all) {
    CHECK_FALSE(e.where.empty());
    CHECK_FALSE(e.printed.empty());
    CHECK_FALSE(e.corrected.empty());
    CHECK_FALSE(e.evidence.empty());
    CHECK(e.key.rfind("gg-", 0) == 0);
  }
  // Alg. 1: wait(2, 4) on (1, 4, 0) reserves; an I <= 1 would take 2 of 1 unit.
  CHECK(has(by_key(all, "gg-alg1-c-ge-i").evidence, "reserve ((1, 4, 0) -> (1, 4, 2))"));
  CHECK(has(by_key(all, "gg-alg1-c-ge-i").evidence, "leave C = -1"));
  // signal(3, 3) on (0, 6, 6) gives (3, 3, 6); N + B would count 3 units twice.
  CHECK(has(by_key(all, "gg-signal-i-plus-b").evidence, "giving (3, 3, 6)"));
  CHECK(has(by_key(all, "gg-signal-i-plus-b").evidence, "C = 6, 3 units no batch brought"));
  // 0 to the taker, -1 to the grower.
  CHECK(has(by_key(all, "gg-return-zero-grows").evidence, "returns 0 and leaves (1, 0, 0)"));
  CHECK(has(by_key(all, "gg-return-zero-grows").evidence, "returns -1 and leaves (0, 3, 0)"));
  // The spin rule.
  const auto& spin = by_key(all, "gg-spin-rule").evidence;
  CHECK(has(spin, "T3 leaves its spin"));
  CHECK(has(spin, "T3 becomes the second grower (E = 6)"));
  CHECK(has(spin, "T3 keeps waiting, and T4 grows (E = 6)"));
  // The merge rule: I1 broken as printed, the merged node 4 with the wait.
  const auto& merge = by_key(all, "gg-tbuddy-merge-rule").evidence;
  CHECK(has(merge,
            "Printed rule, at rest: nodes PPBPPBBAAABBBBB, sem [3, 0, 0, 0], checker: "
            "\"I1: node 8 and its sibling are both Available\""));
  CHECK(has(merge, "1 merge, nodes PPBAPBBBBABBBBB"));  // 4 merged; 10 fell back
  CHECK(has(merge, "checker: holds"));
  // No recursion: 4 and 5 both Available as printed; alloclab merges twice, up to node 2.
  const auto& rec = by_key(all, "gg-tbuddy-merge-recursion").evidence;
  CHECK(has(rec, "checker: \"I1: node 4 and its sibling are both Available\""));
  CHECK(has(rec, "2 merges, nodes PABBBBBBBBBBBBB, checker: holds"));
  // UAlloc's chunk: 128 bins against 64.
  CHECK(has(by_key(all, "gg-ualloc-chunk-bins").evidence, "512 KB / 4 KB = 128 bins"));
  CHECK(has(by_key(all, "gg-ualloc-chunk-bins").evidence, "chunks of 256 KB"));
}
