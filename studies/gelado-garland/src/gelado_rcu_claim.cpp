// Seed 001's Figure 6 claim (Gelado & Garland, PPoPP'19 §5.2): "RCU delegation is 1.01% slower
// [at worst] ... speeding up the execution by as much as 14X". The model (model/rcu_delegation.hpp:
// the speed-up of the writers' barrier time is about the writers arriving during one barrier's
// hold), the simulator (`alloclab rcu` in lockstep with a bounded residency, both barriers, the
// model's barrier count for the arrivals seen beside the run's), and the GPU rows of `alloclab
// rcu --backend gpu` under DIR/rcu/ (scripts/gpu.sh gelado-garland rcu OUT).
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "alloclab/cpu_sim/rcu_list_bench.hpp"
#include "alloclab/model/rcu_delegation.hpp"
#include "alloclab/studies/gelado_claims.hpp"
#include "alloclab/validation/record_csv.hpp"
#include "alloclab/validation/speed_floor.hpp"

namespace alloclab::validation {
namespace {

// The simulator's points: N = 2048 threads, 128 resident at once (a GPU's occupancy: the paper's
// "occupying hardware resources"), 1 writer in `ratio` threads.
constexpr std::uint32_t kRcuThreads = 2048, kRcuResident = 128;
constexpr std::uint32_t kRcuRatios[] = {128, 32, 8, 2};

sim::RcuBenchRun rcu_lockstep(std::uint32_t ratio, bool conditional) {
  sim::RcuBenchOptions o;
  o.config = {kRcuThreads, kRcuThreads / ratio, conditional};
  o.resident = kRcuResident;
  return sim::run_rcu_bench(o);
}

}  // namespace

std::vector<Record> read_rcu_dir(const std::string& dir) {
  return read_records_dir(dir, kRcuDir);
}

ClaimCheck rcu_delegation_claim(const std::vector<Record>& rows) {
  ClaimCheck c{
      "§5.2, Fig. 6", "RCU delegation: at worst 1.01% slower, up to 14x faster", "", "", "", ""};
  c.model = fmt::format(
      "a barrier holds the RCU mutex D rounds; writers arriving every g rounds: full barriers "
      "2 + floor((W - 1) g / D), the writers' barrier time {:.1f}x shorter at D / g = 14 and "
      "{:.2f}x at g >= D (no two barriers overlap); never slower",
      model::evenly_spaced_speedup(10000, 1, 14), model::evenly_spaced_speedup(100, 20, 14));
  // The simulator, both barriers at each ratio.
  std::string points;
  double worst = 1e300, best = 0;
  bool verified = true, model_agrees = true;
  for (std::uint32_t ratio : kRcuRatios) {
    const sim::RcuBenchRun plain = rcu_lockstep(ratio, false), cond = rcu_lockstep(ratio, true);
    verified = verified && plain.verification.empty() && cond.verification.empty();
    const double x = static_cast<double>(plain.rounds) / static_cast<double>(cond.rounds);
    worst = std::min(worst, x);
    best = std::max(best, x);
    std::vector<double> arrivals;
    for (const sim::RcuBarrierTrace& b : cond.barriers)
      arrivals.push_back(static_cast<double>(b.arrival));
    const std::uint64_t m = model::conditional_barriers(arrivals, cond.mean_hold).barriers;
    const std::uint64_t s = cond.summary.sum.barriers;
    model_agrees = model_agrees && (m > s ? m - s : s - m) <= std::max<std::uint64_t>(2, s / 7);
    points += fmt::format("{}1:{} {:.2f}x ({} of {} barriers, model {})",
                          points.empty() ? "" : "; ", ratio, x, s, kRcuThreads / ratio, m);
  }
  c.simulation = fmt::format(
      "lockstep, N = {}, {} resident, rounds plain / conditional at writers:threads {}; every "
      "run verified: {}",
      kRcuThreads, kRcuResident, points, verified ? "yes" : "NO");
  // The GPU: the conditional rows' speed-up over the plain barrier at the same point.
  double gpu_worst = 1e300, gpu_best = 0;
  std::size_t gpu_points = 0, gpu_bad = 0;
  std::string device;
  for (const Record& r : rows) {
    if (record_text(r, "backend") != "gpu" || record_text(r, "barrier") != "conditional") continue;
    if (!record_flag(r, "verified")) {
      ++gpu_bad;
      continue;
    }
    const std::optional<double> x = r.number("speedup_vs_plain");
    if (!x) continue;
    ++gpu_points;
    gpu_worst = std::min(gpu_worst, *x);
    gpu_best = std::max(gpu_best, *x);
    if (device.empty()) device = record_text(r, "device");
  }
  c.hardware = gpu_points == 0 && gpu_bad ? fmt::format("{} GPU rows NOT verified", gpu_bad)
               : gpu_points
                   ? fmt::format(
                         "{}: {} points, kernel time plain / conditional {:.3f}x .. "
                         "{:.2f}x{}",
                         device, gpu_points, gpu_worst, gpu_best,
                         gpu_bad ? fmt::format("; {} rows NOT verified", gpu_bad) : "")
                   : "no GPU rows here (`alloclab rcu --backend gpu --format csv` into DIR/rcu/, "
                     "scripts/gpu.sh gelado-garland rcu OUT)";
  const bool sim_shape = verified && model_agrees && worst >= 0.99 && best >= 14;
  std::string v = sim_shape ? fmt::format(
                                  "holds in shape (simulator, rounds): never slower "
                                  "(worst {:.2f}x), up to {:.1f}x as the writers grow",
                                  worst, best)
                            : fmt::format(
                                  "does not hold in the simulator (worst {:.2f}x, best "
                                  "{:.1f}x, verified {}, model agrees {})",
                                  worst, best, verified, model_agrees);
  if (gpu_bad)
    v += "; GPU rows failed verification";
  else if (gpu_points == 0)
    v += "; the GPU's time not measured yet";
  else if (gpu_worst >= 0.98 && gpu_best >= 14)
    v += fmt::format("; holds on the GPU ({:.1f}% slower at worst, up to {:.1f}x)",
                     std::max(0.0, 100 * (1 / gpu_worst - 1)), gpu_best);
  else
    v += fmt::format("; on the GPU {:.1f}% slower at worst, up to {:.2f}x: {}",
                     std::max(0.0, 100 * (1 / gpu_worst - 1)), gpu_best,
                     gpu_best >= 14 ? "the worst case is past the paper's" : "short of 14x");
  c.verdict = v;
  // A time claim: the GPU's verified rows decide it; without them the simulator's rounds hold it
  // in shape only. A miss is alloclab's, with nothing showing its barrier at the design's floor.
  const Judgement sim_judgement =
      sim_shape ? Judgement::holds_qualified : Judgement::not_reproduced;
  c.judgement = gpu_bad || gpu_points == 0            ? sim_judgement
                : gpu_worst >= 0.98 && gpu_best >= 14 ? Judgement::holds
                                                      : Judgement::not_reproduced;
  if (!gpu_bad && gpu_points > 0 && !(gpu_worst >= 0.98 && gpu_best >= 14)) {
    // Missed on the GPU: the floor rule (validation/speed_floor.hpp) judges the conditional
    // barrier's kernel at each point against its atomics a thread (atomics_per_thread, where
    // the rows count them).
    std::string why;
    const auto rate = device_atomic_throughput(device, why);
    std::vector<FloorPoint> floors;
    for (const Record& r : rows)
      if (record_text(r, "backend") == "gpu" && record_text(r, "barrier") == "conditional" &&
          record_flag(r, "verified") && r.number("kernel_ms")) {
        const std::string label = fmt::format("1:{:.0f}, N {:.0f}", r.number("ratio").value_or(0),
                                              r.number("N").value_or(0));
        FloorPoint p =
            floor_point(label, *r.number("kernel_ms"), r.number("atomics_per_thread"),
                        r.number("N").value_or(0), rate, why, "the conditional row at " + label);
        if (!r.number("atomics_per_thread"))
          p.no_floor = "figure6.csv counts spins and steps, no atomics_per_thread";
        floors.push_back(std::move(p));
      }
    const FloorVerdict fv = judge_speed_miss(floors);
    c.judgement = fv.judgement;
    c.verdict = fv.text + "; " + c.verdict;
  }
  return c;
}

}  // namespace alloclab::validation
