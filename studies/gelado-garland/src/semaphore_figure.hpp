// Gelado & Garland's Figure 5 from `alloclab semaphore --backend gpu` rows (DIR/semaphore/):
// units per second against N, log-log, the bulk and the counting semaphore, each thread for
// itself and warp leaders, at batch 512 and 256 threads a block; none without such rows.
#pragma once

#include <optional>
#include <vector>

#include "alloclab/core/result.hpp"
#include "alloclab/render/document.hpp"

namespace alloclab::render {

std::optional<Figure> semaphore_figure(const std::vector<Record>& rows);

}  // namespace alloclab::render
