// Ouroboros (Winter et al., ICS'20) as a study: its entry in the study table and its part of the
// report (the claims with their model, simulator and GPU evidence; the errata).
#include "alloclab/render/study_report.hpp"
#include "alloclab/studies/ouroboros_claims.hpp"
#include "alloclab/validation/study.hpp"

namespace alloclab::studies::ouroboros {
namespace {

render::StudyReport report(const render::StudyReportInputs& in) {
  render::StudyReport out;
  out.claims = validation::ouroboros_claims(in.workload_rows);
  out.errata = validation::ouroboros_errata();
  out.sections.push_back(render::claims_section(
      "ouroboros-claims", "Ouroboros: the paper's claims",
      "Each claim of Winter et al. (ICS'20) that alloclab checks: the sequential model and the "
      "simulator evaluated now (small points, named in each cell), the hardware read from the "
      "GPU rows of the six Ouroboros allocators among DIR/workloads/**.csv. "
      "studies/ouroboros/README.md discusses each verdict.",
      out.claims));
  out.sections.push_back(
      render::errata_section("ouroboros-errata", "Errata of Ouroboros", out.errata));
  return out;
}

}  // namespace
}  // namespace alloclab::studies::ouroboros

ALLOCLAB_REGISTER_STUDY((alloclab::validation::StudyEntry{
    .name = "ouroboros",
    .label = "Ouroboros (Winter et al., ICS'20)",
    .paper = {.authors = "Winter, Parger, Mlakar and Steinberger",
              .title = "Ouroboros: Virtualized Queues for Dynamic Memory Management on GPUs",
              .venue = "ICS'20",
              .year = 2020,
              .doi = "10.1145/3392717.3392742"},
    .order = 30,
    .errata = &alloclab::validation::ouroboros_errata,
    .statement_checks = nullptr,
    .statements_title = {}}))
ALLOCLAB_REGISTER_STUDY_REPORT((alloclab::render::StudyReportEntry{
    .study = "ouroboros", .build = &alloclab::studies::ouroboros::report}))
