// The errata of seed 004 (Springer & Masuhara, ECOOP'19: DynaSOAr), in the form of paper 000's
// (errata.hpp): each written once, here, its evidence computed each time by running alloclab's
// step machines of the hierarchical bitmap on the host (core/dynasoar/hbitmap.hpp), never
// pasted. studies/dynasoar/ explains each reading.
#pragma once

#include <cstdint>
#include <vector>

#include "alloclab/validation/claims.hpp"

namespace alloclab::validation {

std::vector<Erratum> dynasoar_errata();

// One thread's clear() on a bitmap of `bits` bits with the first `set` of them set, run to its
// end alone: the loop as printed in §4.1.2 (`while ((i = try_find_set()) != FAIL &&
// try_clear(i)) {}; return i;`) or as intended (`... && !try_clear(i)`, alloclab's ClaimOp).
struct ClearReplay {
  std::uint64_t cleared = 0;    // bits the call cleared
  std::int64_t returned = 0;    // the position it returned (-1: FAIL)
  bool returned_owned = false;  // the returned bit is one this call cleared
};
ClearReplay clear_replay(std::uint64_t bits, std::uint64_t set, bool printed);

}  // namespace alloclab::validation
