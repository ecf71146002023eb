// Gallatin (McCoy & Pandey, PPoPP'24) as a study: its entry in the study table and its part of
// the report (the claims: the vEB step code and the simulator now, the GPU rows of DIR/gallatin/;
// the errata).
#include "alloclab/render/study_report.hpp"
#include "alloclab/studies/gallatin_claims.hpp"
#include "alloclab/studies/gallatin_errata.hpp"
#include "alloclab/validation/study.hpp"

namespace alloclab::studies::gallatin {
namespace {

render::StudyReport report(const render::StudyReportInputs& in) {
  render::StudyReport out;
  out.claims = validation::gallatin_claims(validation::read_gallatin_dir(in.dir));
  out.errata = validation::gallatin_errata();
  out.sections.push_back(render::claims_section(
      "gallatin-claims", "Gallatin: the paper's claims",
      "Each claim of McCoy & Pandey (PPoPP'24) that alloclab checks: the vEB tree's cost bounds "
      "run on its step code, the coverage arithmetic, the atomics per slice allocation from the "
      "model beside the simulator (evaluated now), and the paper's figures (utilisation, "
      "initialisation, warm-up, fragmentation) with the speed target against the public "
      "Gallatin, read from the GPU rows among DIR/gallatin/**.csv. studies/gallatin/README.md "
      "discusses each verdict.",
      out.claims));
  out.sections.push_back(
      render::errata_section("gallatin-errata", "Errata of Gallatin", out.errata));
  return out;
}

}  // namespace
}  // namespace alloclab::studies::gallatin

ALLOCLAB_REGISTER_STUDY((alloclab::validation::StudyEntry{
    .name = "gallatin",
    .label = "Gallatin (McCoy & Pandey, PPoPP'24)",
    .paper = {.authors = "McCoy and Pandey",
              .title = "Gallatin: A General-Purpose GPU Memory Manager",
              .venue = "PPoPP'24",
              .year = 2024,
              .doi = "10.1145/3627535.3638499"},
    .order = 40,
    .errata = &alloclab::validation::gallatin_errata,
    .statement_checks = nullptr,
    .statements_title = {}}))
ALLOCLAB_REGISTER_STUDY_REPORT((alloclab::render::StudyReportEntry{
    .study = "gallatin", .build = &alloclab::studies::gallatin::report}))
