// Fig. 14B of seed 004 (§6.4): a fixed problem on growing heaps, "DynaSOAr ... independent of the
// heap size". Three kinds of evidence, one row:
//  * model: the only part of an allocation that depends on the heap is the bitmap search, one
//    word a level, L = ceil(log64 blocks) (model/dynasoar.hpp); the row names L at each heap.
//  * simulator: linux-scalability at a fixed n on heaps of 64x apart, lockstep: memory operations
//    (bitmap and block loads and atomics) an allocation, which the model says grow by at most a
//    level's load and atomic per 64x.
//  * hardware: the GPU's `linux-scalability --max-n N --pool H1,H2,...` rows (DIR/dynasoar/**.csv,
//    scripts/gpu.sh dynasoar apps OUT's apps_heap_sweep.csv): the alloc kernel's median time per
//    heap. The claim holds where the slowest heap's median is within 25% of the fastest's.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "alloclab/core/dynasoar/types.hpp"
#include "alloclab/cpu_sim/typed_apps.hpp"
#include "alloclab/model/dynasoar.hpp"
#include "alloclab/studies/dynasoar_claims.hpp"
#include "alloclab/validation/record_csv.hpp"
#include "alloclab/validation/speed_floor.hpp"

namespace alloclab::validation {
namespace {

// Kernel time spread above which the time is not "independent of the heap size": a quarter,
// several times the run-to-run noise of one verified alloc kernel of ~1M objects on the H200.
constexpr double kFlatSpread = 1.25;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Memory operations an allocation of the simulator's linux-scalability at n objects a thread.
double sim_ops_per_alloc(std::uint64_t blocks, std::uint64_t threads, std::uint64_t n) {
  sim::LinuxScalabilityOptions o;
  o.heap.types = dynasoar::parse_types("--types", "64");
  o.heap.heap_bytes = blocks * o.heap.types.block_bytes();
  o.heap.mode = sim::TypedMode::lockstep;
  o.threads = threads;
  o.max_n = n;
  const sim::LinuxScalabilityRun r = sim::run_linux_scalability(o);
  const dynasoar::DsCounts& c = r.counts;
  const double ops = static_cast<double>(c.bitmap.loads) + c.bitmap.atomics + c.block_loads +
                     c.block_atomics + c.block_stores;
  return ops / static_cast<double>(std::max<std::uint64_t>(1, r.allocated));
}

}  // namespace

bool is_heap_sweep_row(const Record& r) {
  return r.text("app").value_or("") == "linux-scalability" && r.number("next_n") == 0.0;
}

ClaimCheck dynasoar_heap_size_claim(const std::vector<Record>& dir_rows) {
  ClaimCheck c{"§6.4, Fig. 14B",
               "a fixed problem on growing heaps: DynaSOAr's time is independent "
               "of the heap size",
               "",
               "",
               "",
               ""};
  // The heaps of the GPU rows (or the paper's 1-8 GiB of 64 B objects' 4 KiB blocks).
  std::map<std::uint64_t, std::vector<double>> ms;  // heap bytes -> alloc_ms (dynasoar, verified)
  std::map<std::uint64_t, double> atomics;  // heap bytes -> atomics a request, where counted
  std::uint64_t n = 0, threads = 0;
  std::string device;
  bool verified = true;
  for (const Record& r : dir_rows) {
    if (!is_heap_sweep_row(r) || r.text("allocator").value_or("") != "dynasoar") continue;
    verified = verified && record_flag(r, "verified");
    const auto heap = static_cast<std::uint64_t>(r.number("heap_bytes").value_or(0));
    ms[heap].push_back(r.number("alloc_ms").value_or(0));
    if (const auto a = r.number("atomics_per_op")) atomics[heap] = *a;
    n = static_cast<std::uint64_t>(r.number("n_max").value_or(0));
    threads = static_cast<std::uint64_t>(r.number("threads").value_or(0));
    device = r.text("device").value_or("?");
  }
  std::vector<std::uint64_t> heaps;
  for (const auto& [h, t] : ms) heaps.push_back(h);
  if (heaps.empty()) heaps = {std::uint64_t{1} << 30, std::uint64_t{8} << 30};
  const std::uint64_t block = 64 * 64;  // 64 slots of 64 B
  c.model = "the heap enters only through the bitmap search, one word a level:";
  for (const std::uint64_t h : heaps)
    c.model += fmt::format(" L = {} at {} MiB ({} blocks);",
                           model::dynasoar::bitmap_levels(h / block), h >> 20, h / block);
  c.model += " the rest of an allocation does not see the heap";

  // Simulator: 256 threads x 16 objects (1 MiB of objects) on 256, 16,384 and 1,048,576 blocks.
  const std::uint64_t sim_blocks[] = {256, 16384, 1048576};
  double ops[3];
  for (int i = 0; i < 3; ++i) ops[i] = sim_ops_per_alloc(sim_blocks[i], 256, 16);
  c.simulation = fmt::format(
      "linux-scalability, 256 threads x 16 objects of 64 B, lockstep, every batch verified: "
      "{:.2f} / {:.2f} / {:.2f} memory operations an allocation on 1 MiB / 64 MiB / 4 GiB "
      "(L = {} / {} / {})",
      ops[0], ops[1], ops[2], model::dynasoar::bitmap_levels(sim_blocks[0]),
      model::dynasoar::bitmap_levels(sim_blocks[1]), model::dynasoar::bitmap_levels(sim_blocks[2]));
  const double sim_spread = *std::max_element(ops, ops + 3) / *std::min_element(ops, ops + 3);

  if (ms.size() < 2) {
    c.hardware =
        "not measured: no GPU rows of a fixed n on two heaps or more (DIR/dynasoar/**.csv: "
        "`scripts/gpu.sh dynasoar apps OUT`'s apps_heap_sweep.csv, `alloclab linux-scalability "
        "--backend gpu --max-n 64 --pool 256MiB,1GiB,...`)";
    c.verdict = fmt::format("{} in the simulator (operations {:.2f}x apart); not measured on a GPU",
                            sim_spread <= kFlatSpread ? "holds" : "does not hold", sim_spread);
    // A time claim seen only through the simulator's operation counts.
    c.judgement =
        sim_spread <= kFlatSpread ? Judgement::holds_qualified : Judgement::not_reproduced;
    return c;
  }
  double lo = 1e300, hi = 0;
  std::uint64_t slowest = 0;
  c.hardware =
      fmt::format("{}, {} threads x {} objects of 64 B, median alloc kernel of {} runs:", device,
                  threads, n, ms.begin()->second.size());
  for (const auto& [h, t] : ms) {
    const double m = median(t);
    lo = std::min(lo, m);
    if (m > hi) slowest = h;
    hi = std::max(hi, m);
    c.hardware += fmt::format(" {:.3f} ms at {} MiB;", m, h >> 20);
  }
  c.hardware += verified ? " every run verified" : " NOT every run verified";
  const bool flat = hi / lo <= kFlatSpread;
  // The GPU's kernel times decide a time claim. A failed check is not reproduced; a spread heap
  // is a speed miss, judged by the floor rule (validation/speed_floor.hpp) at the slowest heap:
  // its time against the atomics a request its rows counted.
  c.judgement = verified && flat ? Judgement::holds : Judgement::not_reproduced;
  std::string floor_text;
  if (verified && !flat) {
    std::string why;
    const auto rate = device_atomic_throughput(device, why);
    const auto a = atomics.find(slowest);
    const std::string label = fmt::format("{} MiB", slowest >> 20);
    const FloorPoint p = floor_point(
        label, hi, a == atomics.end() ? std::nullopt : std::optional<double>(a->second),
        static_cast<double>(threads * n), rate, why, "the heap sweep's rows at " + label);
    const FloorVerdict fv = judge_speed_miss(p);
    c.hardware += "; the slowest heap against its design floor: " + floor_cells({p});
    c.judgement = fv.judgement;
    floor_text = fv.text + "; ";
  }
  c.verdict =
      !verified
          ? "does not hold: a run failed its checks"
          : floor_text + fmt::format(
                             "{} on the GPU (slowest heap {:.2f}x the fastest, {} allowed); {} in "
                             "the simulator ({:.2f}x)",
                             flat ? "holds" : "does not hold", hi / lo, kFlatSpread,
                             sim_spread <= kFlatSpread ? "holds" : "does not hold", sim_spread);
  return c;
}

}  // namespace alloclab::validation
