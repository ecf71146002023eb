// The floor of the side-by-side tables' times: how many times slower than an allocator that does
// nothing but hand out memory each row is. Floor rows are those whose allocator never reuses
// freed memory (column `reuses_freed` false: a bump allocator such as the plug-in ext-bump, one
// atomic add per request, the empirical floor of a device allocator on that GPU); the report adds
// a column "× <floor>" to every table of times where floor rows exist for the same point.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "alloclab/validation/workload_rows.hpp"

namespace alloclab::render {

// Whether row r is a floor row (it says reuses_freed = false).
bool is_floor_row(const validation::WorkloadRow& r);

// Each of `rows`: its alloc_ms over the smallest alloc_ms of the floor rows in `all` measured at
// the same point (workload, backend, mode, device, N, size, pool bytes, round, batch, block,
// warp_uniform, free: the page size, the bit choice, trials and seed may differ); nullopt where
// there is none or a time is missing. `floors`: the floor allocators used, in registry order.
struct FloorRatios {
  std::vector<std::optional<double>> ratio;  // one per row
  std::vector<Algorithm> floors;
  bool any() const;
  // "× ext-bump" (one floor allocator), "× floor" otherwise.
  std::string column() const;
};
FloorRatios times_floor(const std::vector<const validation::WorkloadRow*>& rows,
                        const std::vector<validation::WorkloadRow>& all);

}  // namespace alloclab::render
