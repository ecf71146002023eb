#include "alloclab/cli/sweep_grid.hpp"

#include <algorithm>
#include <sstream>

#include "alloclab/cli/value_list.hpp"
#include "alloclab/core/errors.hpp"

namespace alloclab::cli {

std::vector<Scenario> sweep_points(const GridOptions& grid, Algorithm algo) {
  GridOptions g = grid;
  g.bit_choice_where_supported = true;  // each runs the choices it implements (lowest if none)
  if (!caps(algo).bitmap_words && !g.w_list.empty())
    g.w_list = std::to_string(parse_count_list("--w", g.w_list).front());
  if (caps(algo).requests != RequestKind::pages) g.pages = 1;
  auto points = expand_grid(g, algo, GridUse::runnable);
  if (caps(algo).requests == RequestKind::bytes) {
    // A and T mean nothing to an allocator of bytes (its heap is sized for the requests): one
    // point per N, not the same measurement repeated for every free fraction and pool size.
    std::vector<Scenario> once;
    for (const auto& s : points)
      if (std::none_of(once.begin(), once.end(), [&](const Scenario& o) { return o.N == s.N; }))
        once.push_back(s);
    points = std::move(once);
  }
  return points;
}

std::vector<Algorithm> parse_algorithm_list(const std::vector<std::string>& items,
                                            unsigned backends, const std::string& option) {
  if (items.empty()) throw InputError(option, "no algorithm given");
  if (std::find(items.begin(), items.end(), "all") != items.end()) {
    if (items.size() != 1)
      throw InputError(option, "`all` stands alone: give all, or a list of names");
    std::vector<Algorithm> out;
    for (const auto& a : kAlgorithms)
      if ((a.caps.backends & backends) != 0) out.push_back(a.id);
    return out;
  }
  std::vector<Algorithm> out;
  for (const auto& n : items) {
    const auto algo = parse_algorithm(n);
    if (!algo)
      throw InputError(option, "unknown algorithm '" + n + "' (all, " + algorithm_names() + ")");
    out.push_back(*algo);
  }
  return out;
}

}  // namespace alloclab::cli
