// Paper 000's hash-join case study (Pham et al., ICS'22, §5.2.3, Figure 12) as a study: its
// entry in the study table, its part of the report (the claims from the GPU join rows of
// DIR/join/, each row's page-request trace through the model and replayed in the simulator,
// then through the device's committed kernel-time fit; Figure 12 redrawn) and its experiment
// (`join`).
#include "alloclab/model/kernel_time.hpp"
#include "alloclab/render/study_report.hpp"
#include "alloclab/studies/join_claims.hpp"
#include "alloclab/studies/join_figure.hpp"
#include "alloclab/studies/join_prediction.hpp"
#include "alloclab/studies/join_seed_prediction.hpp"
#include "alloclab/validation/study.hpp"

namespace alloclab::studies::hash_join {
namespace {

render::StudyReport report(const render::StudyReportInputs& in) {
  render::StudyReport out;
  const std::vector<Record> join_rows = validation::read_join_dir(in.dir);
  std::string no_fit;
  const auto fits = join_rows.empty()
                        ? std::nullopt
                        : validation::join_time_fits(join_rows, model::default_data_dir(), no_fit);
  const auto predictions = validation::predict_join(join_rows, fits ? &*fits : nullptr);
  // The seeds' allocators: their traces replayed in their own units, predicted from their own
  // isolated GPU runs (reports/data/<device>/join_isolated.json).
  std::string join_device;
  for (const auto& r : join_rows)
    if (const auto d = r.text("device")) join_device = *d;
  std::string no_isolated = join_rows.empty() ? "no join rows" : "";
  std::vector<validation::IsolatedPoint> isolated;
  if (!join_device.empty())  // "NVIDIA H200 (0000:00:06.0)" -> nvidia-h200
    isolated = validation::load_isolated_points(
        model::default_data_dir(),
        model::device_slug(join_device.substr(0, join_device.find(" ("))), no_isolated);
  const auto seeds = validation::predict_seed_join(join_rows, isolated);
  out.claims = validation::join_claims(join_rows, predictions, no_fit);
  out.claims.push_back(validation::seed_prediction_claim(seeds, join_device, no_isolated));
  render::Section join = render::claims_section(
      "join-claims", "Case study: hash join (paper 000, Figure 12)",
      "The partitioned GPU hash join whose probe threads take 256-byte output pages from each "
      "allocator (`alloclab join`), against Direct Output (one atomic counter): the claims of "
      "Pham et al. §5.2.3 and the allocators ranked, read from DIR/join/**.csv. Every run's "
      "output is checked against a host reference join. The model and simulator columns: each "
      "row's page-request trace (its GETPAGE calls on a pool all free at the start) through "
      "the model and replayed in the simulator (scaled, keeping the fill fraction), the steps "
      "per GETPAGE turned into milliseconds by the device's committed kernel-time fit and "
      "added to Direct Output's measured join. studies/hash-join/README.md discusses them.",
      out.claims);
  for (double skew : {0.0, 1.0})
    join.figure(render::join_figure(join_rows, predictions, skew, seeds));
  if (!predictions.empty()) {
    join.paragraph(
        "Every row's prediction: the steps per GETPAGE of the model (sequential schedule) and "
        "of the simulator's replay (lockstep waves), both at the replayed point (the trace "
        "scaled, keeping its fill fraction, waves and lanes), GETPAGE's time from the model's "
        "steps through the device's kernel-time fit (its constant left out), and the join "
        "time predicted as Direct Output's measured join plus it, with its error.");
    join.table(render::join_prediction_table(predictions));
  }
  if (!seeds.empty()) {
    join.paragraph(
        "The seeds' allocators, every row: its trace replayed in lockstep waves in the "
        "simulator's own units (scaled: the wave, the waves and the pool as the row says), the "
        "replayed counts per GETPAGE beside the GPU's cycles per GETPAGE, and the isolated-rate "
        "model: the allocator's isolated GPU run of 256 B requests (ms / requests) x the join's "
        "requests x the join replay's steps over the isolated run's replayed steps, added to "
        "Direct Output's join. Judged within 15% on the join from 1M tuples on, or where the "
        "allocator costs at least 10x Direct Output's join; never where it costs within 2% of "
        "it.");
    join.table(render::join_seed_table(seeds));
  }
  out.sections.push_back(std::move(join));
  return out;
}

}  // namespace
}  // namespace alloclab::studies::hash_join

ALLOCLAB_REGISTER_STUDY((alloclab::validation::StudyEntry{
    .name = "hash-join",
    .label = "Hash join (Pham et al., ICS'22, Figure 12)",
    .paper = {.authors = "Pham, Mou, Li, Ramachandran, Tu, Yuan and Xu",
              .title = "Dynamic Memory Management in Massively Parallel Systems: A Case on GPUs "
                       "(Sec. 5.2.3, the hash join)",
              .venue = "ICS'22",
              .year = 2022,
              .doi = "10.1145/3524059.3532387"},
    .order = 60,
    .errata = nullptr,
    .statement_checks = nullptr,
    .statements_title = {}}))
ALLOCLAB_REGISTER_STUDY_REPORT((alloclab::render::StudyReportEntry{
    .study = "hash-join", .build = &alloclab::studies::hash_join::report}))
