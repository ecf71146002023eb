// Every paper's errata in one list, grouped by study in the study table's order (study.hpp):
// what `alloclab validate` prints and where `alloclab explain` looks errata up by key. Each
// study's list stays in its own folder, where its evidence is computed.
#pragma once

#include <string>
#include <vector>

#include "alloclab/validation/claims.hpp"

namespace alloclab::validation {

struct PaperErrata {
  std::string paper;  // the study's label: "Paper 000 (Pham et al., ICS'22)"
  std::vector<Erratum> errata;
};

std::vector<PaperErrata> all_errata();

}  // namespace alloclab::validation
