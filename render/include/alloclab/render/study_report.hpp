// A study's part of the report, registered from the study's folder beside its StudyEntry
// (validation/study.hpp): given what the report directory holds, it returns the study's claims
// (for the report's opening summary, one row per study), its errata and its sections. The
// report (report.cpp) lays out every registered study in the table's order; it names none.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "alloclab/render/document.hpp"
#include "alloclab/validation/claims.hpp"
#include "alloclab/validation/study.hpp"
#include "alloclab/validation/tidy.hpp"
#include "alloclab/validation/verdict.hpp"
#include "alloclab/validation/workload_rows.hpp"

namespace alloclab::render {

// What `alloclab report DIR` read from DIR, for every study to take what it needs.
struct StudyReportInputs {
  std::string dir;
  const std::vector<validation::TidyRow>& rows;      // DIR/sweep.csv (all bit choices)
  const nlohmann::json& metadata;                    // DIR/sweep.json
  const std::vector<validation::Verdict>& verdicts;  // the sweep's and the workloads' verdicts
  const std::vector<validation::WorkloadRow>& workload_rows;  // DIR/workloads/**.csv
};

struct StudyReport {
  std::vector<validation::ClaimCheck> claims;  // every claim checked, with its judgement
  std::vector<validation::Erratum> errata;
  std::vector<Section> sections;  // in reading order; empty ones are dropped
  // Files the study read beyond sweep.csv and the workload rows: (what, the command that made
  // it), for the provenance appendix.
  std::vector<std::pair<std::string, std::string>> other_inputs;
};

struct StudyReportEntry {
  std::string_view study;  // validation::StudyEntry::name
  StudyReport (*build)(const StudyReportInputs&) = nullptr;
  std::string_view key() const { return study; }
};

// The studies' report parts, by study.
using StudyReportTable = RegistrationTable<StudyReportEntry>;

// The counts of a study's claims by judgement, as the summary shows them.
struct JudgementCounts {
  std::size_t holds = 0, holds_qualified = 0, not_reproduced = 0, does_not_hold = 0,
              not_measured = 0;
  std::size_t total() const {
    return holds + holds_qualified + not_reproduced + does_not_hold + not_measured;
  }
  std::size_t of(validation::Judgement j) const;
};
// Throws std::logic_error naming the claim when one has no judgement (a study's bug).
JudgementCounts count_judgements(const std::vector<validation::ClaimCheck>& claims);

// Anchor of a study's part of the report: "study-<name>".
std::string study_anchor(std::string_view study);

// A study's claims as a report section: one row per claim, the evidence of each backend beside
// it, the judgement and the verdict's words (claims_section.cpp).
Section claims_section(std::string anchor, std::string title, std::string intro,
                       const std::vector<validation::ClaimCheck>& claims);
// A study's errata: where, printed, corrected, evidence.
Section errata_section(std::string anchor, std::string title,
                       const std::vector<validation::Erratum>& errata);

}  // namespace alloclab::render

// Registers a study's report part when the program starts (from the study's own folder).
#define ALLOCLAB_REGISTER_STUDY_REPORT(entry) \
  ALLOCLAB_REGISTER_STUDY_PART(::alloclab::render::StudyReportTable, entry)
