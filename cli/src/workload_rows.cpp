#include "workload_rows.hpp"

#include <algorithm>

namespace alloclab::cli {

void PointSummary::add(const WorkloadPoint& p) {
  ++trials;
  round = p.round;
  requests += static_cast<double>(p.requests);
  allocs += static_cast<double>(p.allocs);
  failed += static_cast<double>(p.failed);
  freed += static_cast<double>(p.freed);
  live_bytes += static_cast<double>(p.live_bytes);
  init_s += p.init_seconds;
  alloc_s += p.alloc_seconds;
  free_s += p.free_seconds;
  atomics += static_cast<double>(p.atomics_issued);
  failed_claims += static_cast<double>(p.failed_claims);
  retries += static_cast<double>(p.retries);
  free_atomics += static_cast<double>(p.free_atomics_issued);
  has_atomic_counts = has_atomic_counts && p.has_atomic_counts;
  has_claim_counts = has_claim_counts && p.has_claim_counts;
  has_steps = has_steps && !p.steps.empty();
  std::vector<std::uint32_t> steps = p.steps;
  std::sort(steps.begin(), steps.end());
  if (!steps.empty()) {
    double sum = 0;
    for (auto s : steps) sum += s;
    steps_mean += sum / static_cast<double>(steps.size());
    // nearest rank: the ceil(0.99 n)-th smallest
    const std::size_t rank = (99 * steps.size() + 99) / 100;
    steps_p99 += steps[rank - 1];
    steps_max = std::max(steps_max, static_cast<double>(steps.back()));
  }
  has_op_counts = has_op_counts && !p.op_counts.empty();
  if (op_counts.empty())
    for (const auto& [count, total] : p.op_counts) op_counts.emplace_back(count, 0.0);
  for (std::size_t i = 0; i < p.op_counts.size() && i < op_counts.size(); ++i)
    op_counts[i].second += static_cast<double>(p.op_counts[i].second);
  live_objects += static_cast<double>(p.live_objects);
  has_typed_blocks = has_typed_blocks && p.typed_blocks.has_value();
  if (p.typed_blocks) {
    heap_blocks += static_cast<double>(p.typed_blocks->heap_blocks);
    blocks_in_use += static_cast<double>(p.typed_blocks->blocks_in_use);
    blocks_min += static_cast<double>(p.typed_blocks->blocks_min);
    slot_fragmentation += p.typed_blocks->slot_fragmentation;
  }
  if (address_range && p.address_range_bytes)
    *address_range += static_cast<double>(*p.address_range_bytes);
  else
    address_range.reset();
  if (count_at_failure && p.count_at_failure)
    *count_at_failure += static_cast<double>(*p.count_at_failure);
  else
    count_at_failure.reset();
  if (batches_at_failure && p.batches_at_failure)
    *batches_at_failure += static_cast<double>(*p.batches_at_failure);
  else
    batches_at_failure.reset();
}

Record coordinate_record(Algorithm algo, const Workload& w, const RowSource& backend,
                         std::uint64_t trials, unsigned repeats) {
  Record rec;
  rec.set("allocator", std::string(name(algo)));
  rec.set("backend", backend.name);
  rec.set("mode", backend.mode);
  rec.set("workload", std::string(workload_family_name(w.family)));
  if (w.family == WorkloadFamily::oom)
    rec.set_quantity("N", std::nullopt, "oom: batches of --batch until a request fails");
  else
    rec.set_int("N", w.N);
  if (w.typed()) {  // --types 60,64: the types are the sizes
    std::string types;
    for (const std::uint64_t b : w.type_bytes) {
      // Appended in two steps: GCC 12 sees a false overlap (-Wrestrict) in "," + to_string(b)
      // when this file shares its unity batch with some others.
      if (!types.empty()) types += ',';
      types += std::to_string(b);
    }
    rec.set("size", types);
  } else if (w.size.is_range())
    rec.set("size", w.size.text());
  else
    rec.set_int("size", w.size.lo);
  rec.set_int("pool_bytes", w.pool_bytes);
  rec.set_int("page_bytes", w.page_bytes);
  if (w.family == WorkloadFamily::oom) {
    rec.set_int("batch", w.batch);
    rec.set("batch_free", w.batch_free);
  }
  if (w.family == WorkloadFamily::churn) {
    rec.set_int("rounds", w.rounds);
    rec.set("free_fraction", w.free_fraction);
  }
  rec.set_int("block", w.block);
  rec.set("warp_uniform", w.warp_uniform);
  rec.set("free", w.initial_free);
  rec.set("bit_choice", std::string(name(w.bit_choice)));
  rec.set_int("trials", trials);
  rec.set_int("repeats", repeats);
  rec.set_int("seed", w.seed);
  return rec;
}

Record point_record(Algorithm algo, const Workload& w, const RowSource& backend, unsigned repeats,
                    const PointSummary& s, std::uint64_t bound, const std::string& device,
                    const std::vector<std::string>& run_notes) {
  const double K = static_cast<double>(s.trials);
  Record rec = coordinate_record(algo, w, backend, s.trials, repeats);
  if (w.family == WorkloadFamily::churn) rec.set_int("round", s.round);
  rec.set("requests", s.requests / K);
  rec.set("allocs", s.allocs / K);
  rec.set("alloc_ms", 1e3 * s.alloc_s / K);
  rec.set("free_ms", 1e3 * s.free_s / K);
  if (s.round == 0)
    rec.set("init_ms", 1e3 * s.init_s / K);
  else
    rec.set_quantity("init_ms", std::nullopt, "the pool is built once, before round 0");
  // The GPU: registers per thread of the kernels that ran (the register footprint of an
  // allocator's allocation and free code, with what its harness adds).
  if (backend.name == "gpu") {
    const char* no_registers = "not reported by this allocator's GPU entry";
    rec.set_quantity("alloc_registers",
                     s.alloc_registers ? std::optional<double>(*s.alloc_registers) : std::nullopt,
                     no_registers);
    rec.set_quantity("free_registers",
                     s.free_registers ? std::optional<double>(*s.free_registers) : std::nullopt,
                     no_registers);
  }
  rec.set_quantity("allocs_per_s",
                   s.alloc_s > 0 ? std::optional<double>(s.allocs / s.alloc_s) : std::nullopt,
                   "no allocation time measured");
  rec.set("failed", s.failed / K);
  rec.set("utilisation", s.live_bytes / K / static_cast<double>(w.pool_bytes));
  rec.set_quantity("address_range_bytes",
                   s.address_range ? std::optional<double>(*s.address_range / K) : std::nullopt,
                   "no object live");
  rec.set_quantity("fragmentation",
                   s.address_range && s.live_bytes > 0
                       ? std::optional<double>(*s.address_range / s.live_bytes)
                       : std::nullopt,
                   "no object live");
  if (w.family == WorkloadFamily::oom)
    rec.set_quantity(
        "count_at_failure",
        s.count_at_failure ? std::optional<double>(*s.count_at_failure / K) : std::nullopt,
        "no request failed");
  if (w.family == WorkloadFamily::oom)
    rec.set_quantity(
        "batches_at_failure",
        s.batches_at_failure ? std::optional<double>(*s.batches_at_failure / K) : std::nullopt,
        "no request failed");
  // Per allocation request (frees are not counted), summed over trials: docs/workloads.md.
  auto per_request = [&](double total, bool counted) {
    return counted && s.requests > 0 ? std::optional<double>(total / s.requests) : std::nullopt;
  };
  const std::string not_counted =
      w.typed()               ? "not counted on the typed heap (its own counts: *_per_request)"
      : backend.name == "gpu" ? "no per-request counters (--counters off, or CUDA's malloc)"
                              : "no request";
  rec.set_quantity("atomics_per_op", per_request(s.atomics, s.has_atomic_counts),
                   s.has_atomic_counts ? "no request" : not_counted);
  rec.set_quantity("atomics_per_free",
                   s.has_atomic_counts && s.freed > 0
                       ? std::optional<double>(s.free_atomics / s.freed)
                       : std::nullopt,
                   s.has_atomic_counts ? "nothing freed" : not_counted);
  const char* no_claims = s.has_claim_counts ? "no request"
                          : w.typed()        ? "not counted on the typed heap"
                                             : "no per-request counters";
  rec.set_quantity("failed_claims_per_op", per_request(s.failed_claims, s.has_claim_counts),
                   no_claims);
  rec.set_quantity("retries_per_op", per_request(s.retries, s.has_claim_counts), no_claims);
  const char* no_steps = w.typed() ? "not counted on the typed heap"
                                   : "steps not observable (no per-request counters)";
  rec.set_quantity("steps_mean",
                   s.has_steps ? std::optional<double>(s.steps_mean / K) : std::nullopt, no_steps);
  rec.set_quantity("steps_p99", s.has_steps ? std::optional<double>(s.steps_p99 / K) : std::nullopt,
                   no_steps);
  rec.set_quantity("steps_max", s.has_steps ? std::optional<double>(s.steps_max) : std::nullopt,
                   no_steps);
  // The allocator's own counts (WorkloadPoint::op_counts), per allocation request.
  if (s.has_op_counts)
    for (const auto& [count, total] : s.op_counts)
      rec.set_quantity(count + "_per_request", per_request(total, true), "no request");
  // The typed heap's blocks (--types): studies/dynasoar/, "Typed objects in alloclab workload".
  if (w.typed() && s.has_typed_blocks) {
    rec.set("live_objects", s.live_objects / K);
    rec.set("heap_blocks", s.heap_blocks / K);
    rec.set("blocks_in_use", s.blocks_in_use / K);
    rec.set("blocks_min", s.blocks_min / K);
    rec.set("slot_fragmentation", s.slot_fragmentation / K);
  }
  rec.set("verified", true);
  if (backend.name == "gpu") {
    rec.set("hung", false);  // hung_record's rows: true
    // false: its frees give nothing back (a bump allocator): the report's floor of times.
    rec.set("reuses_freed", caps(algo).frees);
  }
  rec.set("device", device);
  if (backend.name == "sim" && !w.typed())
    rec.notes.push_back(std::string(name(algo)) +
                        ": *_per_op = exact counts per allocation request (atomic RMWs on "
                        "the pool state, those that found their target taken, steps beyond "
                        "the first); a request that searches gives up after " +
                        std::to_string(bound) + " steps (--max-steps)");
  if (w.pages_free_at_start() < w.pages_total())
    rec.notes.push_back("pool prefilled: " + std::to_string(w.pages_free_at_start()) + " of " +
                        std::to_string(w.pages_total()) +
                        " pages free at the start (--free); the others, chosen by the pool's "
                        "keyed permutation, are never freed; utilisation counts the workload's "
                        "bytes only");
  for (const auto& n : run_notes) rec.notes.push_back(n);
  return rec;
}

Record hung_record(Algorithm algo, const Workload& w, const RowSource& backend,
                   std::uint64_t trials, unsigned repeats, const std::string& device,
                   const std::string& what) {
  PointSummary none;
  none.trials = trials;  // the point's coordinates: a resumed run does not run it again
  Record rec = point_record(algo, w, backend, repeats, none, 0, device, {});
  const Record coordinates = coordinate_record(algo, w, backend, trials, repeats);
  for (auto& [key, value] : rec.fields)
    if (!coordinates.find(key) && key != "round" && key != "device" && key != "reuses_freed")
      value = std::monostate{};
  rec.set("verified", false);
  rec.set("hung", true);
  rec.notes = {"hung: " + what + "; nothing of this point was measured, and the run ended here"};
  return rec;
}

}  // namespace alloclab::cli
