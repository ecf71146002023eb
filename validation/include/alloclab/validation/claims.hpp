// What every study reports about its paper: the claims it checks (ClaimCheck, with a typed
// verdict) and the errors it found (Erratum). The renderer counts and colours verdicts by their
// Judgement; the words after it are the reason, shown, never parsed.
#pragma once

#include <string>
#include <string_view>

namespace alloclab::validation {

// The five verdicts a claim can get (docs/architecture.md, "Studies"). A speed claim that
// alloclab's implementation misses is does_not_hold only where the implementation is near what
// its design allows on that GPU; far above that floor it is not_reproduced (the rule and its
// floor: speed_floor.hpp, judge_speed_miss).
enum class Judgement {
  unset,            // no verdict given: a programming error, refused when rendered
  holds,            // the evidence agrees with the claim
  holds_qualified,  // it agrees within a stated qualification (a setting, a correction)
  not_reproduced,   // alloclab's evidence misses it, but cannot rule the paper out
  does_not_hold,    // the evidence contradicts it
  not_measured      // no evidence here (no rows, no GPU run, not comparable)
};

// "holds", "holds with qualification", "not reproduced", "does not hold", "not measured".
std::string_view judgement_name(Judgement j);
// Every judgement a claim may have, in the report's column order (unset excluded).
inline constexpr Judgement kJudgements[] = {Judgement::holds, Judgement::holds_qualified,
                                            Judgement::not_reproduced, Judgement::does_not_hold,
                                            Judgement::not_measured};

struct ClaimCheck {
  std::string where;                        // "§3.1"
  std::string claim;                        // the paper's words (or their gist)
  std::string model, simulation, hardware;  // the evidence of each backend ("-": none applies)
  std::string verdict;  // the verdict in words: the judgement with its reason and numbers
  Judgement judgement = Judgement::unset;  // set by every claim; the summary counts these
};

// An error found in a paper (or its public code): what it prints, what is right, the evidence.
struct Erratum {
  std::string where;      // "Sec. 4.1, Theorem 1"
  std::string printed;    // the claim as printed
  std::string corrected;  // what holds instead
  std::string evidence;   // numbers, with the command (or test) that shows them
  std::string key;        // short stable name ("eq1", "theorem1"): `explain` looks errata up by it
};

}  // namespace alloclab::validation
