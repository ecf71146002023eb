// What the claims of seed 002 share (validation/src/ouroboros_claims*.cpp): the scenario of a
// one-class point, the model's and the simulator's numbers at it, the GPU rows by coordinates,
// and the ratios of two allocators' times. Internal to the validation module.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "alloclab/core/ouroboros/layout.hpp"
#include "alloclab/core/workload.hpp"
#include "alloclab/cpu_sim/simulator.hpp"
#include "alloclab/cpu_sim/workload_runner.hpp"
#include "alloclab/model/model.hpp"
#include "alloclab/studies/ouroboros_claims.hpp"
#include "alloclab/validation/speed_floor.hpp"

namespace alloclab::validation::ouro_claims {

inline constexpr Algorithm kP[] = {Algorithm::ouro_p_s, Algorithm::ouro_p_va, Algorithm::ouro_p_vl};
inline constexpr Algorithm kC[] = {Algorithm::ouro_c_s, Algorithm::ouro_c_va, Algorithm::ouro_c_vl};
inline const char* const kNoGpuRows =
    "no GPU rows of this allocator here (`alloclab workload --backend gpu`, "
    "`scripts/gpu.sh ouroboros measure OUT`)";

inline bool is_ouroboros(Algorithm a) {
  return caps(a).size_classes;
}

// N requests of `bytes` each (one size class) from an empty pool of `pool_bytes`.
inline Scenario point(Algorithm a, std::uint64_t N, std::uint64_t bytes, std::uint64_t pool_bytes) {
  Scenario s;
  s.algo = a;
  s.N = N;
  s.T = pool_bytes / ouro::kSmallestPageBytes;  // the pool in units of the smallest page
  s.A = s.T;
  s.pages = static_cast<unsigned>(bytes / ouro::kSmallestPageBytes);
  s.seed = 7;
  return s;
}

inline double model_number(const Scenario& s, const std::string& key) {
  return model::evaluate(s).number(key).value_or(0);
}

struct SimRun {
  double tas = 0;
  std::uint32_t max_steps = 0;                // the grower's request, sequentially
  std::map<std::string, double> per_request;  // RunResult::op_counts / N
};
inline SimRun simulate(const Scenario& s, sim::Mode mode) {
  sim::SimOptions o;
  o.mode = mode;
  const sim::RunResult r = sim::run_once(s, o, 0);
  SimRun out;
  double sum = 0;
  for (auto x : r.steps) sum += x;
  out.tas = sum / static_cast<double>(s.N);
  out.max_steps = r.steps.empty() ? 0 : *std::max_element(r.steps.begin(), r.steps.end());
  for (const auto& [count, total] : r.op_counts)
    out.per_request[count] = static_cast<double>(total) / static_cast<double>(s.N);
  return out;
}

// The GPU rows of one workload family, by (allocator, mode, size, pool), in the order read; a
// quantity is taken from the first of them that has it (a run with the counters off has times
// but no counts, one with them both).
using RowKey = std::tuple<Algorithm, std::string, std::uint64_t, std::uint64_t>;
struct SameRows {
  std::vector<const WorkloadRow*> rows;
  std::optional<double> number(const std::string& key) const {
    for (const auto* r : rows)
      if (const auto v = r->number(key)) return v;
    return std::nullopt;
  }
  const std::string& device() const { return rows.front()->device; }
  std::uint64_t pool_bytes() const { return rows.front()->pool_bytes; }
  std::optional<std::uint64_t> N() const { return rows.front()->N; }
};
inline std::map<RowKey, SameRows> gpu_rows(const std::vector<WorkloadRow>& rows,
                                           const std::string& workload) {
  std::map<RowKey, SameRows> out;
  for (const auto& r : rows)
    if (r.backend == "gpu" && r.workload == workload && is_ouroboros(r.allocator) && r.size_bytes)
      out[{r.allocator, r.mode, *r.size_bytes, r.pool_bytes}].rows.push_back(&r);
  return out;
}

// "a / b" ratios of two allocators' alloc_ms over the sizes and modes both have, as text, with
// the most extreme ratios.
struct Ratios {
  std::vector<std::string> items;
  double lo = 0, hi = 0;
  std::string device;
  bool any() const { return !items.empty(); }
};
inline Ratios alloc_ratios(const std::map<RowKey, SameRows>& alloc, Algorithm a, Algorithm b) {
  Ratios out;
  for (const auto& [key, row] : alloc) {
    const auto& [algo, mode, size, pool] = key;
    if (algo != a) continue;
    const auto other = alloc.find({b, mode, size, pool});
    if (other == alloc.end()) continue;
    const auto x = row.number("alloc_ms"), y = other->second.number("alloc_ms");
    if (!x || !y || *y <= 0) continue;
    const double ratio = *x / *y;
    out.lo = out.items.empty() ? ratio : std::min(out.lo, ratio);
    out.hi = out.items.empty() ? ratio : std::max(out.hi, ratio);
    out.items.push_back(fmt::format("{} B {}: {:.4g} / {:.4g} ms = {:.2f}x", size,
                                    mode == "gpu" ? "cold" : "warm", *x, *y, ratio));
    out.device = row.device();
  }
  return out;
}

inline std::string join(const std::vector<std::string>& items, const char* sep = "; ") {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : sep) + i;
  return out;
}

// The last round of a lockstep churn of 16384 objects of 256 B in 64 MiB, half of them freed and
// taken again: every request a hit (P), every page freed back on a queued chunk (C).
inline WorkloadPoint lockstep_churn_round(Algorithm a) {
  Workload w;
  w.family = WorkloadFamily::churn;
  w.N = 16384;
  w.size = {256, 256};
  w.pool_bytes = std::uint64_t{64} << 20;
  w.page_bytes = 256;
  w.rounds = 1;
  w.free_fraction = 0.5;
  sim::WorkloadOptions o;
  o.mode = sim::Mode::lockstep;
  return sim::run_workload(a, w, o, 0).points.back();
}

// The floor of a speed verdict (validation/speed_floor.hpp) at one GPU point: its alloc_ms
// against its counted atomics a request (a row of the same point with the counters on).
inline FloorPoint floor_point_of(const RowKey& key, const SameRows& row,
                                 const std::optional<AtomicThroughput>& rate,
                                 const std::string& no_rate) {
  const auto& [algo, mode, size, pool] = key;
  const std::string label = fmt::format("{} {} B {} in {} MiB", name(algo), size,
                                        mode == "gpu" ? "cold" : "warm", pool >> 20);
  const double requests = row.number("requests").value_or(static_cast<double>(row.N().value_or(0)));
  FloorPoint p =
      floor_point(label, row.number("alloc_ms").value_or(0), row.number("atomics_per_op"), requests,
                  rate, no_rate, "the GPU rows of " + label);
  bump_fallback(p, row.device(), requests, static_cast<double>(size), mode == "gpu");
  return p;
}

// Rows of the other files (ouroboros_claims_design.cpp, ouroboros_claims_speed.cpp).
ClaimCheck linked_queues_slower(const std::vector<WorkloadRow>& rows);
ClaimCheck resident_threads();
ClaimCheck size_classes(const std::vector<WorkloadRow>& rows);
ClaimCheck page_queue_constant(const std::vector<WorkloadRow>& rows);
ClaimCheck chunk_queue_worst_case();
ClaimCheck against_cuda_malloc(const std::vector<WorkloadRow>& rows);

}  // namespace alloclab::validation::ouro_claims
