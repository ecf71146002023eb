// A seed's claims as a report section: one row per claim, the evidence of each backend beside it.
#include "alloclab/render/sections.hpp"
#include "alloclab/render/table.hpp"

namespace alloclab::render {

Section claims_section(std::string anchor, std::string title, std::string intro,
                       const std::vector<validation::ClaimCheck>& claims) {
  Section s(std::move(anchor), std::move(title));
  s.paragraph(std::move(intro));
  Table t({"where", "claim", "model", "simulation", "hardware", "verdict"},
          std::vector<Align>(6, Align::left));
  for (const auto& c : claims)
    t.add_row({c.where, c.claim, c.model, c.simulation, c.hardware, c.verdict});
  s.table(std::move(t));
  return s;
}

}  // namespace alloclab::render
