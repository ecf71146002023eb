#include "alloclab/studies/gelado_errata.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdint>
#include <string>
#include <vector>

#include "alloclab/core/gelado/bulk_semaphore.hpp"
#include "alloclab/core/gelado/tbuddy.hpp"
#include "alloclab/core/gelado/tbuddy_tree.hpp"
#include "alloclab/core/ouroboros/host_atomics.hpp"

namespace alloclab::validation {
namespace {

using namespace alloclab::gelado;
using A = alloclab::ouro::HostAtomics;

constexpr std::uint64_t kBound = 1u << 16;

std::string counters_text(SemCounters c) {
  return fmt::format("({}, {}, {})", c.count, c.expected, c.reserved);
}
std::string word_text(std::uint64_t w) {
  return counters_text(BulkWord::unpack(w));
}

// Nodes 1 .. 2^(H+1) - 1 as one letter each (A, B, P; lower case when locked).
std::string tree_states(const TBuddyTree& t) {
  std::string s;
  for (std::uint32_t i = 1; i <= tb_node_count(t.height); ++i) {
    const NodeState st = node_state(t.nodes[i]);
    char c = st == NodeState::available ? 'A' : st == NodeState::busy ? 'B' : 'P';
    if (node_locked(t.nodes[i])) c = static_cast<char>(c - 'A' + 'a');
    s += c;
  }
  return s;
}
std::vector<int> tree_sems(const TBuddyTree& t) {
  std::vector<int> c;
  for (std::uint32_t h = 0; h <= t.height; ++h) c.push_back(BulkWord::unpack(t.sems[h]).count);
  return c;
}

std::uint32_t alloc_alone(const TBuddyTree& t, std::uint32_t order) {
  TBuddyAlloc<A> a(order, 0);
  return tbuddy_run(a, t, kBound) ? a.node() : 0;
}
TBuddyStats free_alone(const TBuddyTree& t, std::uint32_t node) {
  TBuddyFree<A> f(t, node);
  tbuddy_run(f, t, kBound);
  return f.stats();
}

// Steps m until it reaches `phase` (at most 50 steps); false when it does not.
template <class M, class Phase>
bool step_until(M& m, const TBuddyTree& t, Phase phase) {
  for (int i = 0; i < 50 && m.phase() != phase; ++i) m.step(t);
  return m.phase() == phase;
}

// The state §4.1's free leaves after one merge with no recursion ("the parent block transitions
// from partial to available, and the thread signals the (n+1)th semaphore"), against alloclab's
// recursive free, from the same tree: leaves 9, 10 and 11 free (so 9 and 5 Available), 8 held.
struct RecursionReplay {
  std::string before, printed_states, printed_check, fixed_states, fixed_check;
  std::uint32_t fixed_merges = 0;
};
RecursionReplay recursion_replay() {
  RecursionReplay r;
  for (const bool printed : {true, false}) {
    TBuddyStorage s(3);
    const TBuddyTree& t = s.tree;
    for (std::uint32_t i = 0; i < 8; ++i) alloc_alone(t, 0);
    free_alone(t, 10);
    free_alone(t, 11);  // merges into 5
    free_alone(t, 9);
    r.before = tree_states(t);
    const std::vector<std::uint32_t> held = {12, 13, 14, 15};
    if (printed) {
      // The merge of 8 with 9 as printed: try-wait sem[0] takes 9's unit, the CAS makes 9 Busy,
      // the parent 4 becomes Available and sem[1] is signalled; nothing more.
      BulkTryWait<A> tw(1);
      while (tw.step(s.sems[0]) != StepStatus::done) {
      }
      s.nodes[9] = node_word(NodeState::busy, false);
      s.nodes[8] = node_word(NodeState::busy, false);
      s.nodes[4] = node_word(NodeState::available, false);
      bulk_signal<A>(s.sems[1], 1, 0);
      r.printed_states = tree_states(t);
      r.printed_check = tbuddy_check(t, held);
    } else {
      r.fixed_merges = free_alone(t, 8).merges;
      r.fixed_states = tree_states(t);
      r.fixed_check = tbuddy_check(t, held);
    }
  }
  return r;
}

}  // namespace

TBuddyMergeReplay tbuddy_merge_replay(bool wait_for_buddy) {
  TBuddyMergeReplay r;
  TBuddyStorage s(3);
  const TBuddyTree& t = s.tree;
  bool ok = true;
  for (std::uint32_t i = 0; i < 8; ++i) ok = ok && alloc_alone(t, 0) == 8 + i;
  free_alone(t, 9);
  free_alone(t, 11);
  TBuddyFree<A> m2(t, 10);
  ok = ok && step_until(m2, t, TBuddyFreePhase::cas_buddy);  // holds 10, 5 and a unit
  TBuddyAlloc<A> taker(0, 6);
  ok = ok && step_until(taker, t, TBuddyAllocPhase::lock_parent);  // the last unit; claimed 11
  ok = ok && step_until(m2, t, TBuddyFreePhase::resignal);         // its CAS on 11 failed
  TBuddyFree<A> m(t, 8, wait_for_buddy);
  ok = ok && step_until(m, t, TBuddyFreePhase::look_buddy);  // try-wait found C = 0
  m.step(t);
  if (!wait_for_buddy) ok = ok && tbuddy_run(m, t, 100);  // falls back: 8 Available
  ok = ok && tbuddy_run(m2, t, 100);
  ok = ok && tbuddy_run(m, t, 100);
  ok = ok && tbuddy_run(taker, t, 100);
  r.scripted = ok;
  r.states = tree_states(t);
  r.taker_node = taker.node();
  r.check = tbuddy_check(t, {taker.node(), 12, 13, 14, 15});
  r.merges = m.stats().merges;
  r.merge_waits = m.stats().merge_waits;
  r.sem_counts = tree_sems(t);
  return r;
}

SpinRuleReplay spin_rule_replay(bool printed_rule) {
  SpinRuleReplay r;
  const SpinExit rule = printed_rule ? SpinExit::printed : SpinExit::covered;
  std::uint64_t word = 0;
  std::vector<BulkWait<A>> th(8, BulkWait<A>(1, 4, rule));
  for (int i = 0; i <= 3; ++i) {  // T0 grows, T1-T3 reserve: (0, 3, 3)
    th[i].step(word);
    th[i].step(word);
  }
  // T3, T3, T4, T4, T3, T3 (the core test's interleaving), then T3 and T4 in turn, one step
  // each, until a second thread has grown.
  const int script[] = {3, 3, 4, 4, 3, 3};
  bool t3_done = false, t4_done = false;
  for (int k = 0; k < 40 && r.second_grower < 0; ++k) {
    const int i = k < 6 ? script[k] : k % 2 == 0 ? 3 : 4;
    bool& done = i == 3 ? t3_done : t4_done;
    if (done) continue;
    if (th[i].step(word) == StepStatus::done) {
      done = true;
      if (th[i].result().outcome == BulkWaitOutcome::grow) r.second_grower = i;
    }
    if (i == 3 && th[3].phase() == BulkWaitPhase::release) r.t3_left_spin = true;
  }
  r.expected = BulkWord::unpack(word).expected;
  r.t3_releases = th[3].result().releases;
  return r;
}

std::vector<Erratum> gelado_errata() {
  std::vector<Erratum> out;
  {  // Alg. 1: `C >= I`.
    const SemCounters c{1, 4, 0};
    const BulkDecision d = bulk_decide(c, 2, 4);
    out.push_back(
        {"§3.3, Alg. 1 (wait), second branch", "`else if Sem.C >= I`, then C -= N",
         "C >= N: I is defined nowhere; the branch subtracts N, and the text says \"greater or "
         "equal than the decrement value\"",
         fmt::format("wait(2, 4) on (C, E, R) = {}: with C >= N the decision is to {} ({} -> {}); "
                     "any I <= {} would take 2 of the 1 unit and leave C = {} (`bulk_decide`; "
                     "test `typo: Alg. 1's ...`)",
                     counters_text(c), d.role == BulkRole::reserve ? "reserve" : "not reserve",
                     counters_text(c), counters_text(d.next), c.count, c.count - 2),
         "gg-alg1-c-ge-i"});
  }
  {  // §3.3: signal adds I + B.
    std::uint64_t word = BulkWord::pack(SemCounters{0, 6, 6});
    const std::string before = word_text(word);
    bulk_signal<A>(word, 3, 3);
    const SemCounters after = BulkWord::unpack(word);
    out.push_back(
        {"§3.3, text on Alg. 2 (signal)",
         "signal \"increments the semaphore value by the sum of the inputs (I + B)\"",
         "C += N (Alg. 2); E -= B. N + B would count a batch twice",
         fmt::format("Fig. 1(b) after both promises, {}: T0's batch of 4 arrives, it keeps 1 "
                     "and signals (3, 3), giving {}, 3 units for T1-T3; adding N + B would give "
                     "C = {}, {} units no batch brought (`bulk_signal`; test `typo: signal(N, B) "
                     "adds N ...`)",
                     before, counters_text(after), 3 + 3, 3 + 3 - after.count),
         "gg-signal-i-plus-b"});
  }
  {  // §4.2: "returns zero, we allocate a new bin".
    std::uint64_t full = BulkWord::pack(SemCounters{2, 0, 0});
    std::uint64_t empty = 0;
    BulkWait<A> taker(1, 4), grower(1, 4);
    while (taker.step(full) != StepStatus::done) {
    }
    while (grower.step(empty) != StepStatus::done) {
    }
    out.push_back(
        {"§4.2 (UAlloc's allocation)", "\"If this operation returns zero, we allocate a new bin\"",
         "allocate on -1: Alg. 1 returns -1 to the grower and 0 to a thread that took its units "
         "(§4.1 grows on -1)",
         fmt::format("wait(1, 4) on (2, 0, 0) returns {} and leaves {} (the unit is taken, "
                     "nothing promised); on (0, 0, 0) it returns {} and leaves {} (a batch "
                     "promised). Growing on 0 would bring a bin no counter expects (test "
                     "`typo: wait returns -1 ...`)",
                     paper_return_value(taker.result().outcome), word_text(full),
                     paper_return_value(grower.result().outcome), word_text(empty)),
         "gg-return-zero-grows"});
  }
  {  // Alg. 1: the spin rule.
    const SpinRuleReplay p = spin_rule_replay(true), c = spin_rule_replay(false);
    out.push_back(
        {"§3.3, Alg. 1 (wait), the reservers' spin",
         "`while Sem.C < N and Sem.R < (Sem.C + Sem.E)`",
         "R <= C + E: a reserver covered exactly (R == C + E) keeps waiting, as T1-T3 do in "
         "Fig. 1(b) at (0, 3, 3)",
         fmt::format("Fig. 1(b)'s start, then T3, T3, T4, T4, T3, T3: with the printed "
                     "rule T3 {} its spin at (0, 3, 3) with nothing arrived, releases {} time(s), "
                     "and T{} becomes the second grower (E = {}); with R <= C + E T3 {}, and "
                     "T{} grows (E = {}), as the figure shows (`spin_rule_replay`; test `Fig. "
                     "1(b) under the printed spin rule ...`)",
                     p.t3_left_spin ? "leaves" : "stays in", p.t3_releases, p.second_grower,
                     p.expected, c.t3_left_spin ? "leaves too" : "keeps waiting", c.second_grower,
                     c.expected),
         "gg-spin-rule"});
  }
  {  // §4.1: the merge rule.
    const TBuddyMergeReplay p = tbuddy_merge_replay(false), f = tbuddy_merge_replay(true);
    out.push_back(
        {"§4.1 (TBuddy's free)",
         "\"Only the failure to decrement the batch semaphore guarantees that the merge cannot "
         "proceed\": a free whose try-wait fails falls back (its block Available)",
         "the converse does not hold: sem[n]'s units can be in flight (held by a taker still "
         "searching or by a merger before its CAS, or a signal not yet made) while the buddy is "
         "Available. alloclab's merger keeps its two locks and tries again until a unit comes "
         "or the buddy is claimed",
         fmt::format(
             "8 pages, leaves 9 and 11 free; M2 frees 10 and try-waits, a taker takes the last "
             "unit and claims 11, M2's CAS fails, then M frees 8 and finds sem[0] empty beside "
             "an Available 9. Printed rule, at rest: nodes {}, sem {}, checker: \"{}\". "
             "alloclab's rule: {} wait(s), {} merge, nodes {}, sem {}, checker: {} "
             "(`tbuddy_merge_replay`; test `TBuddy: the printed merge rule breaks I1 ...`)",
             p.states, p.sem_counts, p.check, f.merge_waits, f.merges, f.states, f.sem_counts,
             f.check.empty() ? std::string("holds") : "\"" + f.check + "\""),
         "gg-tbuddy-merge-rule"});
  }
  {  // §4.1: the merge does not recurse.
    const RecursionReplay r = recursion_replay();
    out.push_back(
        {"§4.1 (TBuddy's free), after a merge",
         "\"the parent block transitions from partial to available, and the thread signals the "
         "(n + 1)th semaphore\"",
         "the merged parent is freed at order n + 1 in turn (its own merge attempt), as the "
         "classical buddy free of §4.1 recurses",
         fmt::format(
             "8 pages, 9 and 5 Available, 8 held ({}); freeing 8 as printed: nodes {}, "
             "checker: \"{}\"; alloclab's recursive free: {} merges, nodes {}, checker: "
             "{} (the printed state written onto the same tree; `TBuddyFree` for alloclab's; test "
             "`Gelado & Garland errata: ...` in validation_tests)",
             r.before, r.printed_states, r.printed_check, r.fixed_merges, r.fixed_states,
             r.fixed_check.empty() ? std::string("holds") : "\"" + r.fixed_check + "\""),
         "gg-tbuddy-merge-recursion"});
  }
  {  // §4.2: the chunk's bins.
    const std::uint32_t chunk = 512 * 1024, bin = 4096, tracked = 64, special = 2, tails = 62;
    out.push_back(
        {"§4.2 (UAlloc's chunks)",
         "chunks of 512 KB in 4 KB bins; the chunk header's bitmap tracks \"the 64 bins in the "
         "chunk\"; 62 tails of 128 B",
         "inconsistent: one of the sizes is wrong. alloclab's UAlloc takes 64 bins (256 KB) by "
         "default, as three of the four numbers say; 128 bins (512 KB, the same 2 special bins "
         "and 62 tails, bins 64..127 without a tail) with --chunk-bins 128",
         fmt::format("{} KB / {} KB = {} bins, but the header tracks {}, and {} special bins + "
                     "{} tails (one per other bin) = {} bins, i.e. chunks of {} KB",
                     chunk / 1024, bin / 1024, chunk / bin, tracked, special, tails,
                     special + tails, (special + tails) * bin / 1024),
         "gg-ualloc-chunk-bins"});
  }
  return out;
}

}  // namespace alloclab::validation
