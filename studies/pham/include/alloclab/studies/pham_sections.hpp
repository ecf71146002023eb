// Paper 000's report sections (Pham et al., ICS'22), each built from the sweep's tidy rows or
// verdicts as a Section (render/document.hpp). Figures need gnuplot.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "alloclab/core/algorithm.hpp"
#include "alloclab/core/result.hpp"
#include "alloclab/render/document.hpp"
#include "alloclab/validation/claims.hpp"
#include "alloclab/validation/tidy.hpp"
#include "alloclab/validation/verdict.hpp"

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
Section errata_section(const std::vector<validation::Erratum>& errata);  // paper 000's

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
