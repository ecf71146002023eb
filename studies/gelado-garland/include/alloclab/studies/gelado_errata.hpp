// The errata of seed 001 (Gelado & Garland, PPoPP'19: the bulk semaphore, TBuddy, UAlloc). Like
// those of paper 000 (paper000_errata.hpp) and of Ouroboros (ouroboros_claims.hpp), each is written
// once, here, and its evidence is computed each time by running alloclab's step machines on the
// host (core/gelado/*.hpp), never pasted. studies/gelado-garland/ explains each reading at length.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "alloclab/validation/claims.hpp"

namespace alloclab::validation {

std::vector<Erratum> gelado_errata();

// The replay behind the TBuddy merge erratum: on 8 pages (H = 3), leaves 9 and 11 free and the
// rest held, merger M2 frees 10 and try-waits sem[0] (its unit), a taker takes the last unit and
// claims 11, M2's CAS on 11 fails, and then M frees 8 and try-waits an empty sem[0] while its
// buddy 9 is Available and unlocked. wait_for_buddy = false is §4.1's printed rule (M falls
// back), true alloclab's (M keeps its locks and waits for a unit). Then everyone runs to its end.
struct TBuddyMergeReplay {
  bool scripted = false;  // every scripted step reached the phase the script expects
  std::string states;     // nodes 1..15 at rest: A(vailable), B(usy), P(artial)
  std::string check;      // tbuddy_check at rest with the taker's node held; "" when it holds
  std::uint32_t taker_node = 0;
  std::uint32_t merges = 0;       // M's merges
  std::uint32_t merge_waits = 0;  // M's repeated try-waits
  std::vector<int> sem_counts;    // sem[0..3]'s C at rest
};
TBuddyMergeReplay tbuddy_merge_replay(bool wait_for_buddy);

// The replay behind the spin-rule erratum: Fig. 1(b)'s start, eight wait(1, 4) from an empty
// word; T0 grows, T1-T3 reserve (C, E, R) = (0, 3, 3), then T3, T3, T4, T4, T3, T3 step as in
// the core test `Fig. 1(b) under the printed spin rule` (then T3 and T4 in turn), under the rule.
struct SpinRuleReplay {
  bool t3_left_spin = false;  // T3's spin read let it go although nothing had arrived
  int second_grower = -1;     // which thread made the second promise (Fig. 1(b): T4)
  std::int64_t expected = 0;  // E after the second promise
  std::uint32_t t3_releases = 0;
};
SpinRuleReplay spin_rule_replay(bool printed_rule);

}  // namespace alloclab::validation
