// What `alloclab sweep` runs for each allocator of --allocator, shared by the sweep itself
// (sweep_command.cpp) and by the report's provenance, which expands recorded sweep command lines
// into the rows they wrote (sweep_provenance.cpp): both must adjust the grid alike, or a row is
// traced to the wrong run.
#pragma once

#include <string>
#include <vector>

#include "alloclab/cli/grid.hpp"
#include "alloclab/core/comma_list.hpp"  // comma_items, for the callers of this header

namespace alloclab::cli {

// The runnable points of `grid` for `algo`, adjusted by its capabilities: where its steps read
// no bitmap words, the first --w only (other widths would repeat the same run); where its
// requests are not `pages`, pages = 1; the bit choice is an axis of RW-BM only.
std::vector<Scenario> sweep_points(const GridOptions& grid, Algorithm algo);

// The allocators of an allocator list (--allocator of sweep, measure, model, simulate): registry
// names, or `all` alone, which stands for every registered allocator that runs on at least one of
// `backends` (BackendKind bits), so scripts need not know the names. `all` mixed with names, an
// unknown name or an empty list is an InputError naming `option`. Whether a named allocator runs on
// the chosen backends is the caller's check.
std::vector<Algorithm> parse_algorithm_list(const std::vector<std::string>& items,
                                            unsigned backends, const std::string& option);

}  // namespace alloclab::cli
