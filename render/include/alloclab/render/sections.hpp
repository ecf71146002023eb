// The report's sections, each built from the tidy rows (or the verdicts, or a time fit) as a
// Section (document.hpp). Figures need gnuplot.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "alloclab/core/algorithm.hpp"
#include "alloclab/core/result.hpp"
#include "alloclab/render/document.hpp"
#include "alloclab/validation/errata.hpp"
#include "alloclab/validation/ouroboros_claims.hpp"
#include "alloclab/validation/tidy.hpp"
#include "alloclab/validation/verdict.hpp"
#include "alloclab/validation/workload_rows.hpp"

namespace alloclab::render {

// ---- the paper's figures (paper_figures.cpp) ------------------------------------------------
// Figure 4 from the model, model vs simulation per algorithm and T, Figure 7 from hardware.
// Lowest-bit rows only; the parallel-rounds model has its own section.
Section paper_figures_section(const std::vector<validation::TidyRow>& rows);

// ---- models the paper lacks -------------------------------------------------------------------
// The parallel-rounds model against the sequential one, lockstep simulation and GPU
// (rounds_section.cpp). Empty where the rows hold no model(rounds) values.
Section rounds_section(const std::vector<validation::TidyRow>& rows);
// CoRW's warp chain and RW_malloc's runs and rounds (warp_chain_sections.cpp), one section each
// where the rows hold model values for the algorithm.
std::vector<Section> warp_chain_sections(const std::vector<validation::TidyRow>& rows);
// Collisions: the parallel-rounds collision model against lockstep simulation and GPU counts,
// and RW-BM's bit choices side by side (collisions_section.cpp). All bit choices' rows.
Section collisions_section(const std::vector<validation::TidyRow>& rows);
// The kernel-time model of a time_fit.json written by `alloclab fit-time` (time_fit_section.cpp).
Section time_fit_section(const nlohmann::json& time_fit);

// ---- workloads (workload_section.cpp) ---------------------------------------------------------
// "Allocators side by side": the survey's plots of the workload rows (simulator and GPU) of a
// report directory's workloads/, each followed by the rows it draws; says so where there are no
// rows, or no GPU rows.
Section workloads_section(const std::vector<validation::WorkloadRow>& rows);

// ---- verdicts (verdict_sections.cpp) ----------------------------------------------------------
// The claim a verdict checks: its check with the simulator mode named where the check does not
// ("model vs sim: tas" at a lockstep row -> "model vs sim (lockstep): tas").
std::string claim_of(const validation::Verdict& v);
// Anchor of the verdict table of one claim and allocator.
std::string verdict_anchor(const std::string& claim, Algorithm algo);

// Model / simulation / hardware side by side, one row per grid point.
Section comparison_section(const std::vector<validation::TidyRow>& rows);
// One table per claim and allocator (anchored by verdict_anchor), failed checks highlighted.
Section verdicts_section(const std::vector<validation::Verdict>& verdicts);
Section theorems_section(const std::vector<Record>& theorem_checks);
Section errata_section(const std::vector<validation::Erratum>& errata);
// Another paper's errata, in the same form.
Section errata_section(std::string anchor, std::string title,
                       const std::vector<validation::Erratum>& errata);
// A seed's claims (validation/ouroboros_claims.hpp): one row each, with the model's, the
// simulator's and the hardware's evidence and the verdict (claims_section.cpp).
Section claims_section(std::string anchor, std::string title, std::string intro,
                       const std::vector<validation::ClaimCheck>& claims);
// Gelado & Garland's Figure 5 from `alloclab semaphore --backend gpu` rows (DIR/semaphore/):
// units per second against N, log-log, the bulk and the counting semaphore, each thread for
// itself and warp leaders, at batch 512 and 256 threads a block (semaphore_figure.cpp); none
// without such rows.
std::optional<Figure> semaphore_figure(const std::vector<Record>& rows);

// The report's opening: the verdict counts per claim and allocator, each linked to its table;
// the Theorem 1/2 verdicts and the errata count, linked; and the sections that follow.
struct SectionLink {
  std::string id, title;
  std::size_t figures = 0;
};
Section summary_section(const std::vector<validation::Verdict>& verdicts,
                        const std::vector<Record>& theorem_checks, std::size_t errata,
                        const std::vector<SectionLink>& contents);

}  // namespace alloclab::render
