// Gelado & Garland (PPoPP'19) as a study: its entry in the study table, its part of the report
// (the claims: the simulator now, the GPU rows of DIR/semaphore/, DIR/ualloc/ and DIR/rcu/;
// Figure 5; the errata, replayed on the step machines now) and its experiments (`semaphore`,
// `rcu`).
#include "alloclab/render/study_report.hpp"
#include "alloclab/studies/gelado_claims.hpp"
#include "alloclab/studies/gelado_errata.hpp"
#include "alloclab/validation/study.hpp"
#include "semaphore_figure.hpp"

namespace alloclab::studies::gelado_garland {
namespace {

render::StudyReport report(const render::StudyReportInputs& in) {
  render::StudyReport out;
  const std::vector<Record> semaphore_rows = validation::read_semaphore_dir(in.dir);
  out.claims = validation::gelado_claims(semaphore_rows, validation::read_ualloc_dir(in.dir),
                                         validation::read_rcu_dir(in.dir));
  out.errata = validation::gelado_errata();
  render::Section claims = render::claims_section(
      "gelado-claims", "Gelado & Garland: the paper's claims",
      "Each claim of Gelado & Garland (PPoPP'19) that alloclab checks: Figure 5's two "
      "semaphores, TBuddy's locks, UAlloc's and malloc's failures at exhaustion (Figure 7, "
      "modelled from the bin layout) and Figure 6's RCU delegation (list benchmark), the "
      "simulator evaluated now (lockstep, a few thousand threads), the hardware read from the "
      "GPU rows of `alloclab semaphore` among DIR/semaphore/**.csv, of Figure 7 (gg-malloc and "
      "CUDA's malloc) among DIR/ualloc/**.csv and of `alloclab rcu` among DIR/rcu/**.csv. "
      "studies/gelado-garland/README.md discusses each verdict.",
      out.claims);
  claims.figure(render::semaphore_figure(semaphore_rows));
  out.sections.push_back(std::move(claims));
  out.sections.push_back(
      render::errata_section("gelado-errata", "Errata of Gelado & Garland", out.errata));
  return out;
}

}  // namespace
}  // namespace alloclab::studies::gelado_garland

ALLOCLAB_REGISTER_STUDY((alloclab::validation::StudyEntry{
    .name = "gelado-garland",
    .label = "Gelado & Garland (PPoPP'19)",
    .paper = {.authors = "Gelado and Garland",
              .title = "Throughput-Oriented GPU Memory Allocation",
              .venue = "PPoPP'19",
              .year = 2019,
              .doi = "10.1145/3293883.3295727"},
    .order = 20,
    .errata = &alloclab::validation::gelado_errata,
    .statement_checks = nullptr,
    .statements_title = {}}))
ALLOCLAB_REGISTER_STUDY_REPORT((alloclab::render::StudyReportEntry{
    .study = "gelado-garland", .build = &alloclab::studies::gelado_garland::report}))
