#include "alloclab/cli/sweep_grid.hpp"

#include <sstream>

#include "alloclab/cli/value_list.hpp"

namespace alloclab::cli {

std::vector<Scenario> sweep_points(const GridOptions& grid, Algorithm algo) {
  GridOptions g = grid;
  g.bit_choice_rwbm_only = true;  // allocators without a bit choice: once, with lowest
  if (!caps(algo).bitmap_words && !g.w_list.empty())
    g.w_list = std::to_string(parse_count_list("--w", g.w_list).front());
  if (caps(algo).requests != RequestKind::pages) g.pages = 1;
  return expand_grid(g, algo, GridUse::runnable);
}

std::vector<std::string> comma_items(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

}  // namespace alloclab::cli
