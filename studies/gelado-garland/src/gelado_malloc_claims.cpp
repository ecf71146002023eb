// Seed 001's claims about UAlloc and malloc (Gelado & Garland, PPoPP'19 §3.1, §5.2, §5.3): the
// failures at exhaustion of Figure 7 from the layout model (model/ualloc_exhaustion.hpp) and from
// the simulator running Figure 7's workload shape on a 1 MiB pool (gg-ualloc, gg-malloc); the
// throughput and failures on the GPU from Figure 7's GPU rows (gelado_fig7_gpu.hpp); Figure 6's
// RCU claim from gelado_rcu_claim.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "alloclab/cpu_sim/simulator.hpp"
#include "alloclab/model/ualloc_exhaustion.hpp"
#include "alloclab/studies/gelado_claims.hpp"
#include "alloclab/validation/speed_floor.hpp"

#include "alloclab/core/gelado/ualloc_pool.hpp"
#include "gelado_fig7_gpu.hpp"
#include "gelado_group_claim.hpp"

namespace alloclab::validation {
namespace {

constexpr std::uint64_t kPool = 1 << 20;  // 4 chunks of 256 KB, 2 of 512 KB
const char* const kNoGpu =
    "not measured: no gg-malloc rows of Figure 7 here (DIR/ualloc/: scripts/gpu.sh gelado-garland "
    "ualloc OUT)";

// Figure 7's shape in the simulator: pool / bytes requests of `bytes`, sequential, every unit
// free. Returns the failed fraction.
double simulated_failures(Algorithm a, std::uint64_t bytes, std::uint32_t chunk_bins) {
  const Scenario s = gelado::ualloc_exhaustion_scenario(a, kPool, bytes);
  sim::SimOptions o;
  o.chunk_bins = chunk_bins;
  const sim::RunResult r = sim::run_once(s, o, 0);
  return static_cast<double>(r.failed) / static_cast<double>(s.N);
}
std::string percent(double f) {
  return fmt::format("{:.1f}%", 100 * f);
}
std::string size_name(std::uint64_t b) {
  return b >= 1024 ? fmt::format("{} KB", b / 1024) : fmt::format("{} B", b);
}

// The floor of Figure 7's speed verdict: gg-malloc's timed kernel at each size against its
// atomics a request (the size's counted row) at the GPU's atomic throughput.
std::vector<FloorPoint> figure7_floor_points(const gelado_fig7::Figure& fig) {
  std::string why;
  const auto rate = device_atomic_throughput(fig.device, why);
  std::vector<FloorPoint> out;
  for (const auto& [size, p] : fig.points)
    if (p.speed_up() > 0)
      out.push_back(floor_point(size_name(size), p.gg_ms, p.atomics, static_cast<double>(p.threads),
                                rate, why, "the counted gg-malloc row at " + size_name(size)));
  return out;
}

// The paper's Figure 7 on the GPU: gg-malloc's speed-up over CUDA's malloc per size, and why it
// is slow where it is (the counted rows' waits).
ClaimCheck throughput(const gelado_fig7::Figure& fig) {
  ClaimCheck c{"§5.3, Fig. 7",
               "0.22x to 346x the throughput of CUDA malloc, mean 16.56x; CUDA faster only at "
               "2, 4, 64 and 128 KB",
               "- (no time model)",
               "- (the simulator counts steps, not time)",
               kNoGpu,
               "not measured",
               Judgement::not_measured};
  std::string cells, cuda_faster, waits;
  double sum = 0, lo = 0, hi = 0;
  std::size_t n = 0;
  for (const auto& [size, p] : fig.points) {
    if (p.counted)
      waits += fmt::format("{}{} {:.0f} semaphore and {:.0f} mutex spins, {:.0f} failed CAS",
                           waits.empty() ? "" : "; ", size_name(size), p.sem_spins, p.lock_spins,
                           p.failed_claims);
    const double x = p.speed_up();
    if (x == 0) continue;
    cells += fmt::format("{}{} {:.3g}x", cells.empty() ? "" : ", ", size_name(size), x);
    if (x < 1) cuda_faster += fmt::format("{}{}", cuda_faster.empty() ? "" : ", ", size_name(size));
    sum += x;
    lo = n == 0 ? x : std::min(lo, x);
    hi = n == 0 ? x : std::max(hi, x);
    ++n;
  }
  if (n == 0) return c;
  c.hardware = fmt::format(
      "{}, each thread one malloc, a pool just exhausted (2^20 threads to 512 B, 512 MiB at "
      "1 KB, {} from 2 KB; {}): CUDA's malloc time / gg-malloc's: {}; mean {:.3g}x over {} "
      "sizes{}",
      fig.device, fig.paper_setting ? "512 MiB" : "64 MiB",
      fig.paper_setting ? "each time the mean over blocks of 1 .. 1024 threads, as the paper"
                        : "blocks of 256",
      cells, sum / static_cast<double>(n), n,
      waits.empty() ? "" : "; a request's waits, counted: " + waits);
  const bool holds = lo >= 0.22 && hi <= 346 && sum / static_cast<double>(n) >= 16.56 * 0.9;
  // A speed claim alloclab's implementation misses is judged by the floor rule
  // (validation/speed_floor.hpp): gg-malloc's time at each size against its counted atomics.
  FloorVerdict floor;
  if (!holds) {
    const std::vector<FloorPoint> floors = figure7_floor_points(fig);
    floor = judge_speed_miss(floors);
    c.hardware += "; gg-malloc against its design floor: " + floor_cells(floors);
  }
  c.judgement = holds ? Judgement::holds : floor.judgement;
  c.verdict = holds
                  ? "holds"
                  : floor.text + ". " +
                        fmt::format(
                            "Missed in alloclab's implementation: {:.3g}x to {:.3g}x, mean "
                            "{:.3g}x; CUDA's malloc faster at {}. Each thread runs the step "
                            "machines with a fence around every atomic, and nearly every step is "
                            "a wait (the counts: on the semaphore while growers fill bins; at the "
                            "small sizes the growers of the requests that fail at exhaustion walk "
                            "TBuddy; studies/gelado-garland/ualloc-gpu.md)",
                            lo, hi, sum / static_cast<double>(n), cuda_faster);
  return c;
}

// The failed fraction at exhaustion on the GPU of the sizes given, beside the model's.
std::string gpu_failures(const gelado_fig7::Figure& fig, std::uint64_t from, std::uint64_t to) {
  std::string cells;
  for (const auto& [size, p] : fig.points)
    if (size >= from && size <= to && p.failed_fraction >= 0)
      cells += fmt::format("{}{} {}", cells.empty() ? "" : ", ", size_name(size),
                           percent(p.failed_fraction));
  return cells.empty() ? std::string(kNoGpu)
                       : fmt::format("{}, gg-malloc, Figure 7's workload: {}", fig.device, cells);
}

}  // namespace

std::vector<ClaimCheck> gelado_malloc_claims(const std::vector<Record>& ualloc_rows,
                                             const std::vector<Record>& rcu_rows) {
  std::vector<ClaimCheck> out;
  const gelado_fig7::Figure fig = gelado_fig7::read_figure(ualloc_rows);
  out.push_back(throughput(fig));
  out.push_back(collective_mutex_claim(fig));
  {  // 2 KB fails half; nothing from 4 KB up.
    ClaimCheck c{"§5.3, Fig. 7",
                 "50% of 2 KB requests fail at exhaustion; none above 4 KB",
                 "",
                 "",
                 kNoGpu,
                 ""};
    c.model = fmt::format(
        "a 2 KB request takes a 4 KB page of TBuddy (a bin holds one 2 KB object): {} fail; 4 KB "
        "to 512 KB: {} (a power-of-two pool of pages)",
        percent(model::gg_malloc_exhaustion(512ull << 20, 2048).failure_fraction()),
        percent(model::gg_malloc_exhaustion(512ull << 20, 4096).failure_fraction()));
    double above = 0;
    for (std::uint64_t b = 4096; b <= (512u << 10); b *= 4)
      above = std::max(above, simulated_failures(Algorithm::gg_malloc, b, 0));
    const double two = simulated_failures(Algorithm::gg_malloc, 2048, 0);
    c.simulation = fmt::format(
        "gg-malloc, Figure 7's workload on 1 MiB (sequential): 2 KB {} failed; 4, 16, 64, 256 "
        "KB at most {}",
        percent(two), percent(above));
    c.hardware = gpu_failures(fig, 2048, 512u << 10);
    const auto gpu_two = fig.points.find(2048);
    bool gpu_above = false, gpu_any = false;
    for (const auto& [size, p] : fig.points)
      if (size >= 4096 && p.failed_fraction >= 0) {
        gpu_any = true;
        gpu_above = gpu_above || p.failed_fraction > 0;
      }
    const bool gpu_holds = gpu_two != fig.points.end() && gpu_two->second.failed_fraction == 0.5 &&
                           gpu_any && !gpu_above;
    c.verdict = two != 0.5 || above != 0 ? "does not hold"
                : gpu_holds              ? "holds (model, simulator and GPU)"
                : gpu_any || gpu_two != fig.points.end()
                    ? "holds in the model and simulator; the GPU's rows differ"
                    : "holds (model and simulator)";
    // Figure 7 is a GPU figure: agreement of the model and simulator alone is qualified, as is
    // agreement the GPU's rows do not share.
    c.judgement = two != 0.5 || above != 0 ? Judgement::does_not_hold
                  : gpu_holds              ? Judgement::holds
                                           : Judgement::holds_qualified;
    out.push_back(c);
  }
  {  // UAlloc's sizes: "small" and "moderate" failures, from the layout.
    ClaimCheck c{"§5.3, Fig. 7",
                 "UAlloc's sizes fail a little (headers; <= 128 B) and moderately at 512 B and "
                 "1 KB (\"from a 4KB bin devoted to 1KB allocations, only 3KB are available\")",
                 "",
                 "",
                 kNoGpu,
                 ""};
    std::string model64, model128, sim64, sim128;
    bool agree = true;
    for (const std::uint64_t b : {8, 128, 256, 512, 1024}) {
      const double m = model::gg_malloc_exhaustion(kPool, b, 64).failure_fraction();
      const double s = simulated_failures(Algorithm::gg_ualloc, b, 64);
      agree = agree && std::abs(m - s) < 1e-12;
      model64 += fmt::format("{}{} B {}", model64.empty() ? "" : ", ", b, percent(m));
      sim64 += fmt::format("{}{} B {}", sim64.empty() ? "" : ", ", b, percent(s));
    }
    for (const std::uint64_t b : {8, 512, 1024}) {
      const double m = model::gg_malloc_exhaustion(kPool, b, 128).failure_fraction();
      const double s = simulated_failures(Algorithm::gg_ualloc, b, 128);
      agree = agree && std::abs(m - s) < 1e-12;
      model128 += fmt::format("{}{} B {}", model128.empty() ? "" : ", ", b, percent(m));
      sim128 += fmt::format("{}{} B {}", sim128.empty() ? "" : ", ", b, percent(s));
    }
    c.model = "failed = 1 - objects per chunk / (chunk / size); 64 bins (default): " + model64 +
              "; 128 bins: " + model128;
    c.simulation = "gg-ualloc, Figure 7's workload on 1 MiB, one arena: 64 bins: " + sim64 +
                   "; 128 bins: " + sim128;
    c.hardware = gpu_failures(fig, 8, 1024);
    if (c.hardware != kNoGpu)
      c.hardware +=
          " (an arena per SM, each using only its own bins; the model and the "
          "simulator have one arena)";
    c.verdict = agree ? "holds (model = simulator at every size): 3.1% is \"small\", 15% and 27% "
                        "\"moderate\"; 1 KB keeps 3 of 4 KB, as the paper says"
                      : "the simulator and the model disagree";
    // Judged on the model and simulator only (a GPU figure); their disagreement is alloclab's,
    // not evidence against the paper.
    c.judgement = agree ? Judgement::holds_qualified : Judgement::not_reproduced;
    out.push_back(c);
  }
  out.push_back(rcu_delegation_claim(rcu_rows));
  {  // §3.1: 5 GB.
    const double gib = 172032.0 / 32 * 512 * 1024 / (1u << 30);
    out.push_back(
        ClaimCheck{"§3.1", "32 threads per arena and 512 KB chunks preallocate up to 5 GB",
                   fmt::format("172,032 threads (GV100) / 32 per arena x 512 KB = {:.3g} GiB", gib),
                   "-", "-", "does not hold as printed: the arithmetic gives 2.6 GiB, not 5 GB",
                   Judgement::does_not_hold});
  }
  return out;
}

}  // namespace alloclab::validation
