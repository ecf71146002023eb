#include "alloclab/validation/all_errata.hpp"

#include "alloclab/validation/study.hpp"

namespace alloclab::validation {

std::vector<PaperErrata> all_errata() {
  std::vector<PaperErrata> out;
  for (const auto* study : StudyTable::instance().all())
    if (study->errata) out.push_back({std::string(study->label), study->errata()});
  return out;
}

}  // namespace alloclab::validation
