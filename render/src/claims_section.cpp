// A study's claims and errata as report sections, and the table of studies' report parts.
#include <fmt/format.h>

#include <stdexcept>

#include "alloclab/render/study_report.hpp"
#include "alloclab/render/table.hpp"

namespace alloclab::render {

std::size_t JudgementCounts::of(validation::Judgement j) const {
  using validation::Judgement;
  switch (j) {
    case Judgement::holds:
      return holds;
    case Judgement::holds_qualified:
      return holds_qualified;
    case Judgement::not_reproduced:
      return not_reproduced;
    case Judgement::does_not_hold:
      return does_not_hold;
    case Judgement::not_measured:
      return not_measured;
    case Judgement::unset:
      break;
  }
  return 0;
}

JudgementCounts count_judgements(const std::vector<validation::ClaimCheck>& claims) {
  using validation::Judgement;
  JudgementCounts c;
  for (const auto& claim : claims) switch (claim.judgement) {
      case Judgement::holds:
        ++c.holds;
        break;
      case Judgement::holds_qualified:
        ++c.holds_qualified;
        break;
      case Judgement::not_reproduced:
        ++c.not_reproduced;
        break;
      case Judgement::does_not_hold:
        ++c.does_not_hold;
        break;
      case Judgement::not_measured:
        ++c.not_measured;
        break;
      case Judgement::unset:
        throw std::logic_error("claim without a judgement: " + claim.where + " " + claim.claim);
    }
  return c;
}

std::string study_anchor(std::string_view study) {
  return "study-" + std::string(study);
}

Section claims_section(std::string anchor, std::string title, std::string intro,
                       const std::vector<validation::ClaimCheck>& claims) {
  count_judgements(claims);  // refuses a claim without a judgement
  Section s(std::move(anchor), std::move(title));
  s.paragraph(std::move(intro));
  Table t({"where", "claim", "model", "simulation", "hardware", "judgement", "verdict"},
          std::vector<Align>(7, Align::left));
  for (const auto& c : claims)
    t.add_row({c.where, c.claim, c.model, c.simulation, c.hardware,
               std::string(validation::judgement_name(c.judgement)), c.verdict});
  s.table(std::move(t));
  return s;
}

Section errata_section(std::string anchor, std::string title,
                       const std::vector<validation::Erratum>& errata) {
  Section s(std::move(anchor), std::move(title));
  if (errata.empty()) {
    s.paragraph("None recorded.");
    return s;
  }
  Table t({"where", "printed", "corrected", "evidence"},
          {Align::left, Align::left, Align::left, Align::left});
  for (const auto& e : errata) t.add_row({e.where, e.printed, e.corrected, e.evidence});
  s.table(std::move(t));
  return s;
}

}  // namespace alloclab::render
