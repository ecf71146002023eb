// The study table: one entry per paper alloclab holds, registered from the paper's own folder
// (studies/<name>/), as an allocator registers its backend entries (core/backend_table.hpp).
// `validate` and `explain` take every paper's errata from here; the report's part of a study is
// registered beside it at the render level (render/study_report.hpp). Nothing outside a study's
// folder names it (docs/architecture.md, "Studies").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "alloclab/core/registration_table.hpp"
#include "alloclab/core/result.hpp"
#include "alloclab/validation/claims.hpp"

namespace alloclab::validation {

// The paper a study checks, cited as the docs cite it.
struct Paper {
  std::string_view authors;  // "Pham et al."
  std::string_view title;
  std::string_view venue;  // "ICS'22"
  int year = 0;
  std::string_view doi;  // "10.1145/3524059.3532379"
};

struct StudyEntry {
  std::string_view name;   // folder and CLI name: "ouroboros"
  std::string_view label;  // how the report names it: "Ouroboros (Winter et al., ICS'20)"
  Paper paper;
  int order = 0;  // place in the report and in lists (the seeds' order)
  // Where the paper (or its public code) is wrong, the evidence computed now; may be null.
  std::vector<Erratum> (*errata)() = nullptr;
  // The paper's statements checked numerically without any data (paper 000's Theorems 1 and 2),
  // one record each, printed by `validate` under `statements_title`; may be null.
  std::vector<Record> (*statement_checks)() = nullptr;
  std::string_view statements_title;
  std::string_view key() const { return name; }
};

// "Pham et al., \"Dynamic Memory ...\", ICS'22 (2022), doi:10.1145/..."
std::string citation(const Paper& p);

// The studies, by name; all() in `order`. A second study of one name aborts at start-up.
using StudyTable = RegistrationTable<StudyEntry>;

}  // namespace alloclab::validation

// Registers a study (or one of its parts) when the program starts.
#define ALLOCLAB_REGISTER_STUDY_PART(table, entry) ALLOCLAB_REGISTER_IN(table, entry)
#define ALLOCLAB_REGISTER_STUDY(entry) \
  ALLOCLAB_REGISTER_STUDY_PART(::alloclab::validation::StudyTable, entry)
