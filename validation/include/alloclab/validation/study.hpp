// The study table: one entry per paper alloclab holds, registered from the paper's own folder
// (studies/<name>/), as an allocator registers its backend entries (core/backend_table.hpp).
// `validate` and `explain` take every paper's errata from here; the report's part of a study is
// registered beside it at the render level (render/study_report.hpp). Nothing outside a study's
// folder names it (docs/architecture.md, "Studies").
#pragma once

#include <string>
#include <string_view>
#include <vector>

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
};

// "Pham et al., \"Dynamic Memory ...\", ICS'22 (2022), doi:10.1145/..."
std::string citation(const Paper& p);

class StudyTable {
 public:
  static StudyTable& instance();
  // Registers a study; a second study of the same name aborts at start-up (two folders claiming
  // one name).
  bool add(StudyEntry e);
  const StudyEntry* find(std::string_view name) const;
  // Every registered study, in `order`.
  std::vector<const StudyEntry*> all() const;

 private:
  StudyTable() = default;
  std::vector<StudyEntry> entries_;
};

}  // namespace alloclab::validation

#define ALLOCLAB_STUDY_CONCAT_(a, b) a##b
#define ALLOCLAB_STUDY_CONCAT(a, b) ALLOCLAB_STUDY_CONCAT_(a, b)
// Registers a study (or one of its parts) when the program starts. __COUNTER__, not __LINE__:
// a study's files may be compiled together as one unity translation unit.
// clang-format off
#define ALLOCLAB_REGISTER_STUDY_PART(table, entry)                                            \
  namespace {                                                                                 \
  [[maybe_unused]] const bool ALLOCLAB_STUDY_CONCAT(alloclab_study_part_, __COUNTER__) =    \
      table::instance().add(entry);                                                           \
  }
// clang-format on
#define ALLOCLAB_REGISTER_STUDY(entry) \
  ALLOCLAB_REGISTER_STUDY_PART(::alloclab::validation::StudyTable, entry)
