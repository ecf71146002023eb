// DynaSOAr (Springer & Masuhara, ECOOP'19) as a study: its entry in the study table, its part of
// the report (the claims: the models and the simulator's typed heap now, the GPU rows of
// DIR/dynasoar/; the errata) and its experiments (`wator`, `linux-scalability`).
#include "alloclab/render/study_report.hpp"
#include "alloclab/studies/dynasoar_claims.hpp"
#include "alloclab/studies/dynasoar_errata.hpp"
#include "alloclab/validation/study.hpp"

namespace alloclab::studies::dynasoar {
namespace {

render::StudyReport report(const render::StudyReportInputs& in) {
  render::StudyReport out;
  out.claims = validation::dynasoar_claims(validation::read_dynasoar_dir(in.dir));
  out.errata = validation::dynasoar_errata();
  out.sections.push_back(render::claims_section(
      "dynasoar-claims", "DynaSOAr: the paper's claims",
      "Each claim of Springer & Masuhara (ECOOP'19) that alloclab checks: the models of "
      "model/dynasoar.hpp and the simulator (the typed heap of 60/64 B objects, alloclab's Wa-Tor "
      "and linux-scalability, lockstep runs of the four allocators) evaluated now, the hardware "
      "read from the GPU alloc rows among DIR/dynasoar/**.csv. studies/dynasoar/README.md "
      "discusses each verdict.",
      out.claims));
  out.sections.push_back(
      render::errata_section("dynasoar-errata", "Errata of DynaSOAr", out.errata));
  return out;
}

}  // namespace
}  // namespace alloclab::studies::dynasoar

ALLOCLAB_REGISTER_STUDY((alloclab::validation::StudyEntry{
    .name = "dynasoar",
    .label = "DynaSOAr (Springer & Masuhara, ECOOP'19)",
    .paper = {.authors = "Springer and Masuhara",
              .title = "DynaSOAr: A Parallel Memory Allocator for Object-Oriented Programming on "
                       "GPUs with Efficient Memory Access",
              .venue = "ECOOP'19",
              .year = 2019,
              .doi = "10.4230/LIPIcs.ECOOP.2019.16"},
    .order = 50,
    .errata = &alloclab::validation::dynasoar_errata,
    .statement_checks = nullptr,
    .statements_title = {}}))
ALLOCLAB_REGISTER_STUDY_REPORT((alloclab::render::StudyReportEntry{
    .study = "dynasoar", .build = &alloclab::studies::dynasoar::report}))
