#include "alloclab/render/workload_floor.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace alloclab::render {
namespace {

using validation::WorkloadRow;

// The coordinates two rows of one point share (see times_floor).
auto point_of(const WorkloadRow& r) {
  const auto number = [&](const char* key) { return r.number(key).value_or(-1); };
  const auto flag = [&](const char* key) {
    const auto* b = std::get_if<bool>(r.values.find(key));
    return b ? static_cast<int>(*b) : -1;
  };
  return std::make_tuple(r.workload, r.backend, r.mode, r.device, r.N.value_or(0), r.size,
                         r.pool_bytes, r.round.value_or(0), r.batch.value_or(0), number("block"),
                         flag("warp_uniform"), number("free"));
}

}  // namespace

bool is_floor_row(const WorkloadRow& r) {
  const auto* reuses = std::get_if<bool>(r.values.find("reuses_freed"));
  return reuses && !*reuses;
}

bool FloorRatios::any() const {
  return std::any_of(ratio.begin(), ratio.end(), [](const auto& x) { return x.has_value(); });
}

std::string FloorRatios::column() const {
  return floors.size() == 1 ? "× " + std::string(name(floors.front())) : "× floor";
}

FloorRatios times_floor(const std::vector<const WorkloadRow*>& rows,
                        const std::vector<WorkloadRow>& all) {
  // The fastest floor row of each point.
  std::map<decltype(point_of(all.front())), const WorkloadRow*> fastest;
  for (const auto& r : all) {
    const auto ms = r.number("alloc_ms");
    if (!is_floor_row(r) || !ms || *ms <= 0) continue;
    auto [it, fresh] = fastest.try_emplace(point_of(r), &r);
    if (!fresh && *ms < *it->second->number("alloc_ms")) it->second = &r;
  }
  FloorRatios out;
  for (const WorkloadRow* r : rows) {
    std::optional<double> ratio;
    const auto ms = r->number("alloc_ms");
    if (const auto it = fastest.find(point_of(*r)); it != fastest.end() && ms) {
      ratio = *ms / *it->second->number("alloc_ms");
      if (std::find(out.floors.begin(), out.floors.end(), it->second->allocator) ==
          out.floors.end())
        out.floors.push_back(it->second->allocator);
    }
    out.ratio.push_back(ratio);
  }
  std::sort(out.floors.begin(), out.floors.end());
  return out;
}

}  // namespace alloclab::render
