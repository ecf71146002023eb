#include "alloclab/validation/all_errata.hpp"

#include "alloclab/validation/dynasoar_errata.hpp"
#include "alloclab/validation/gallatin_errata.hpp"
#include "alloclab/validation/gelado_errata.hpp"
#include "alloclab/validation/ouroboros_claims.hpp"

namespace alloclab::validation {

std::vector<PaperErrata> all_errata() {
  return {{"paper 000 (Pham et al., ICS'22)", paper000_errata()},
          {"seed 001 (Gelado & Garland, PPoPP'19)", gelado_errata()},
          {"seed 002 (Ouroboros, Winter et al., ICS'20)", ouroboros_errata()},
          {"seed 003 (Gallatin, McCoy & Pandey, PPoPP'24)", gallatin_errata()},
          {"seed 004 (DynaSOAr, Springer & Masuhara, ECOOP'19)", dynasoar_errata()}};
}

}  // namespace alloclab::validation
