// Every paper's errata in one list, grouped by paper in the seeds' order: what `alloclab
// validate` prints and where `alloclab explain` looks errata up by key. Each paper's own list
// stays where its evidence is computed (errata.hpp, ouroboros_claims.hpp, gelado_errata.hpp,
// dynasoar_errata.hpp).
#pragma once

#include <string>
#include <vector>

#include "alloclab/validation/errata.hpp"

namespace alloclab::validation {

struct PaperErrata {
  std::string paper;  // "paper 000 (Pham et al., ICS'22)"
  std::vector<Erratum> errata;
};

std::vector<PaperErrata> all_errata();

}  // namespace alloclab::validation
