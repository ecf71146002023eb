// Paper 000 (Pham et al., ICS'22: RW, RW-BM, CoRW, RW_malloc, the queue, the TAS/WAS model) as a
// study: its entry in the study table (its errata, its Theorems 1-2 checked numerically) and
// its part of the report (its own summary, the paper's figures, the models it lacks, model vs
// simulation vs hardware point by point, the theorems, the collisions, the errata).
#include <fmt/format.h>

#include <map>

#include "alloclab/model/model.hpp"
#include "alloclab/render/study_report.hpp"
#include "alloclab/studies/paper000_errata.hpp"
#include "alloclab/studies/pham_sections.hpp"
#include "alloclab/validation/study.hpp"

namespace alloclab::studies::pham {
namespace {

using validation::ClaimCheck;
using validation::Judgement;
using validation::Outcome;

// The sweep's comparisons as claims, one per check (model vs simulation, model vs hardware, a
// bound): the paper's model holds where every point passes, holds with a qualification where
// some depart for a reason the data explain, and does not hold where one fails unexplained.
std::vector<ClaimCheck> comparison_claims(const std::vector<validation::Verdict>& verdicts) {
  struct Tally {
    std::size_t pass = 0, explained = 0, fail = 0;
  };
  std::vector<std::string> order;
  std::map<std::string, Tally> tallies;
  for (const auto& v : verdicts) {
    const std::string claim = render::claim_of(v);
    if (!tallies.count(claim)) order.push_back(claim);
    auto& t = tallies[claim];
    t.pass += v.outcome == Outcome::pass;
    t.explained += v.outcome == Outcome::expected_departure;
    t.fail += v.outcome == Outcome::fail;
  }
  std::vector<ClaimCheck> out;
  for (const auto& claim : order) {
    const Tally& t = tallies.at(claim);
    ClaimCheck c;
    c.where = "Sec. 4 (the model), Sec. 5";
    c.claim = claim;
    c.model = c.simulation = c.hardware = "-";
    c.judgement = t.fail ? Judgement::does_not_hold
                         : (t.explained ? Judgement::holds_qualified : Judgement::holds);
    c.verdict = fmt::format("{} points pass, {} depart for a reason the data explain, {} fail",
                            t.pass, t.explained, t.fail);
    out.push_back(std::move(c));
  }
  return out;
}

// Theorems 1 and 2 at the corner they speak of (A = N, and A = N + 1 for Theorem 2, whose V is
// infinite at A = N): Theorem 1 as printed, and Theorem 2 read as a limit of V' - V/w.
std::vector<ClaimCheck> theorem_claims() {
  const std::uint64_t T = 1000000, N = 5000;
  const unsigned w = 32, lanes = 32;
  std::vector<ClaimCheck> out;
  const auto t1 = model::check_theorem1(N, N, T, w);
  const bool t1_holds = t1.residual && *t1.residual == 0.0;
  out.push_back({"Sec. 4.1, Theorem 1", "lim_{A->N} U' = U/w", "-", "-", "-", t1.verdict,
                 t1_holds ? Judgement::holds : Judgement::does_not_hold});
  const auto t2 = model::check_theorem2(N, N + 1, T, w, lanes);
  const bool t2_limit = t2.residual && t2.lhs && std::abs(*t2.residual) <= 1e-6 * std::abs(*t2.lhs);
  out.push_back(
      {"Sec. 4.2, Theorem 2", "lim_{A->N} V' = V/w + (w-1)/(2w)", "-", "-", "-",
       "read as lim (V' - V/w) = (w-1)/(2w), since V and V' are infinite at A = N: " + t2.verdict,
       t2_limit ? Judgement::holds_qualified : Judgement::does_not_hold});
  return out;
}

render::StudyReport report(const render::StudyReportInputs& in) {
  render::StudyReport out;
  // The paper's figures and tables show the lowest-bit RW-BM; other bit choices appear only in
  // the collisions section.
  std::vector<validation::TidyRow> lowest = in.rows;
  std::erase_if(
      lowest, [](const validation::TidyRow& r) { return r.point.bit_choice != BitChoice::lowest; });
  const auto theorems = validation::theorem_checks();
  out.errata = validation::paper000_errata();
  out.claims = comparison_claims(in.verdicts);
  for (auto& c : theorem_claims()) out.claims.push_back(std::move(c));

  std::vector<render::Section> body;
  body.push_back(render::paper_figures_section(lowest));
  body.push_back(render::rounds_section(lowest));
  for (auto& s : render::warp_chain_sections(lowest)) body.push_back(std::move(s));
  body.push_back(render::comparison_section(lowest));
  body.push_back(render::verdicts_section(in.verdicts));
  body.push_back(render::theorems_section(theorems));
  body.push_back(render::collisions_section(in.rows));
  body.push_back(render::errata_section(out.errata));
  std::erase_if(body, [](const render::Section& s) { return s.empty(); });
  std::vector<render::SectionLink> contents;
  for (const auto& s : body) contents.push_back({s.id, s.title, s.figure_count()});
  out.sections.push_back(
      render::summary_section(in.verdicts, theorems, out.errata.size(), contents));
  for (auto& s : body) out.sections.push_back(std::move(s));
  return out;
}

}  // namespace
}  // namespace alloclab::studies::pham

ALLOCLAB_REGISTER_STUDY((alloclab::validation::StudyEntry{
    .name = "pham",
    .label = "Paper 000: Pham et al. (ICS'22)",
    .paper = {.authors = "Pham, Mou, Li, Ramachandran, Tu, Yuan and Xu",
              .title = "Dynamic Memory Management in Massively Parallel Systems: A Case on GPUs",
              .venue = "ICS'22",
              .year = 2022,
              .doi = "10.1145/3524059.3532387"},
    .order = 10,
    .errata = [] { return alloclab::validation::paper000_errata(); },
    .statement_checks = &alloclab::validation::theorem_checks,
    .statements_title = "Theorems 1 and 2 of paper 000, checked numerically"}))
ALLOCLAB_REGISTER_STUDY_REPORT((alloclab::render::StudyReportEntry{
    .study = "pham", .build = &alloclab::studies::pham::report}))
