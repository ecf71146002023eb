#include "alloclab/studies/gelado_claims.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "alloclab/cpu_sim/semaphore_bench.hpp"
#include "alloclab/cpu_sim/simulator.hpp"
#include "alloclab/model/semaphores.hpp"
#include "alloclab/validation/record_csv.hpp"
#include "alloclab/validation/speed_floor.hpp"

#include "gelado_fig7_gpu.hpp"

namespace alloclab::validation {
namespace {

using gelado::SemaphoreKind;

const char* const kNoGpuRows =
    "no GPU semaphore rows here (`alloclab semaphore --backend gpu --format csv` into "
    "DIR/semaphore/, `scripts/gpu.sh gelado-garland all OUT`)";

std::uint64_t count_of(const Record& r, const std::string& key) {
  return static_cast<std::uint64_t>(r.number(key).value_or(0));
}

// One lockstep run of Figure 5's benchmark.
sim::SemaphoreBenchRun lockstep(SemaphoreKind k, std::uint64_t n, std::uint32_t batch,
                                std::uint32_t grow_turns) {
  sim::SemaphoreBenchOptions o;
  o.config.kind = k;
  o.config.batch = batch;
  o.config.grow_turns = grow_turns;
  o.threads = n;
  return sim::run_semaphore_bench(o);
}

// The GPU rows at the default back-off, and the same point's other primitive.
struct GpuPoint {
  const Record* bulk = nullptr;
  const Record* counting = nullptr;
};
std::string point_key(const Record& r) {
  return fmt::format("{}|{}|{}|{}|{}", count_of(r, "N"), count_of(r, "batch"), count_of(r, "block"),
                     count_of(r, "units_per_request"), record_text(r, "device"));
}
std::vector<GpuPoint> gpu_points(const std::vector<Record>& rows) {
  std::vector<std::pair<std::string, GpuPoint>> points;
  for (const Record& r : rows) {
    if (record_text(r, "backend") != "gpu" || count_of(r, "backoff_max_ns") != 256) continue;
    const std::string key = point_key(r);
    auto it = std::find_if(points.begin(), points.end(), [&](auto& p) { return p.first == key; });
    if (it == points.end()) it = points.insert(points.end(), {key, GpuPoint{}});
    (record_text(r, "primitive") == "bulk" ? it->second.bulk : it->second.counting) = &r;
  }
  std::vector<GpuPoint> out;
  for (auto& [key, p] : points)
    if (p.bulk && p.counting) out.push_back(p);
  return out;
}
std::string device_of(const std::vector<GpuPoint>& points) {
  return points.empty() ? std::string() : record_text(*points.front().bulk, "device");
}

// counting kernel_ms / bulk kernel_ms (> 1: bulk faster) over the points with `units`.
struct Speedups {
  double lo = 0, hi = 0;
  std::size_t points = 0, bulk_faster = 0;
  std::string best;  // the point where bulk is furthest ahead
};
Speedups speedups(const std::vector<GpuPoint>& points, std::uint64_t units) {
  Speedups s;
  for (const GpuPoint& p : points) {
    if (count_of(*p.bulk, "units_per_request") != units) continue;
    const double b = p.bulk->number("kernel_ms").value_or(0);
    const double c = p.counting->number("kernel_ms").value_or(0);
    if (b <= 0 || c <= 0) continue;
    const double x = c / b;
    if (s.points == 0 || x > s.hi)
      s.best = fmt::format("N {}, batch {}, block {}: {:.3g} ms against {:.3g} ms",
                           count_of(*p.bulk, "N"), count_of(*p.bulk, "batch"),
                           count_of(*p.bulk, "block"), b, c);
    s.lo = s.points == 0 ? x : std::min(s.lo, x);
    s.hi = s.points == 0 ? x : std::max(s.hi, x);
    ++s.points;
    if (x > 1) ++s.bulk_faster;
  }
  return s;
}

// The floor of Figure 5's speed verdict: the bulk semaphore's kernel at each point of the
// paper's setting (one unit a thread) where it is slower than the counting one, against its CAS
// attempts a thread (cas_per_thread, every row counts them) at the GPU's atomic throughput.
std::vector<FloorPoint> figure5_floor_points(const std::vector<GpuPoint>& points) {
  std::string why;
  const auto rate = device_atomic_throughput(device_of(points), why);
  std::vector<FloorPoint> out;
  for (const GpuPoint& p : points) {
    if (count_of(*p.bulk, "units_per_request") != 1) continue;
    const double b = p.bulk->number("kernel_ms").value_or(0);
    const double c = p.counting->number("kernel_ms").value_or(0);
    if (b <= 0 || c <= 0 || c > b) continue;
    const std::string label = fmt::format("N {}, batch {}, block {}", count_of(*p.bulk, "N"),
                                          count_of(*p.bulk, "batch"), count_of(*p.bulk, "block"));
    out.push_back(floor_point(label, b, p.bulk->number("cas_per_thread"),
                              static_cast<double>(count_of(*p.bulk, "N")), rate, why,
                              "the bulk row's cas_per_thread, " + label));
  }
  return out;
}

}  // namespace

std::vector<Record> read_semaphore_dir(const std::string& dir) {
  return read_records_dir(dir, kSemaphoreDir);
}

std::vector<Record> read_ualloc_dir(const std::string& dir) {
  return read_records_dir(dir, kUAllocDir);
}

std::vector<ClaimCheck> gelado_claims(const std::vector<Record>& rows,
                                      const std::vector<Record>& ualloc_rows,
                                      const std::vector<Record>& rcu_rows) {
  std::vector<ClaimCheck> out;
  const std::vector<GpuPoint> gpu = gpu_points(rows);
  const std::string device = device_of(gpu);

  // §3.3: growth only when C + E - R < N, so exactly ceil(units / B) batches.
  {
    ClaimCheck c{"§3.3, Alg. 1",
                 "expected availability is C + E - R: a thread grows only when the units there and "
                 "promised do not cover the reservations and its own request",
                 "",
                 "",
                 "",
                 ""};
    const auto b = lockstep(SemaphoreKind::bulk, 4096, 64, 100);
    c.model =
        "a growth starts only when every unit grown or promised is spoken for: ceil(N / B) "
        "batches for N one-unit requests (N = 4096, B = 64: 64)";
    c.simulation = fmt::format(
        "lockstep, growth of 100 steps: {} batches, final C = {}, E = R = {}", b.summary.grew,
        b.summary.final_count, b.summary.final_expected + b.summary.final_reserved);
    std::size_t exact = 0, total = 0;
    for (const Record& r : rows)
      if (record_text(r, "backend") == "gpu" && record_text(r, "primitive") == "bulk") {
        ++total;
        if (count_of(r, "grew") == count_of(r, "batches_min")) ++exact;
      }
    c.hardware = total ? fmt::format("{}: {} of {} verified runs grew exactly ceil(N / B) batches",
                                     device, exact, total)
                       : kNoGpuRows;
    const bool exact_batches = b.summary.grew == 64 && (total == 0 || exact == total);
    c.verdict = exact_batches ? "holds" : "does not hold: more batches than needed";
    c.judgement = exact_batches ? Judgement::holds : Judgement::does_not_hold;
    out.push_back(c);
  }

  // §3.2 (after Kleinrock): a counting semaphore's batch finds more waiters than its size.
  {
    ClaimCheck c{"§3.2",
                 "with a counting semaphore the threads waiting when a batch arrives likely "
                 "outnumber the batch",
                 "",
                 "",
                 "-",
                 ""};
    const auto r = lockstep(SemaphoreKind::counting, 4096, 64, 0);
    double expected = 0;  // every unfinished thread but the grower waits behind it
    const std::uint64_t g = 64;
    for (std::uint64_t k = 0; k < g; ++k) expected += 4096.0 - static_cast<double>(k * 64) - 1;
    c.model = fmt::format(
        "everybody but the grower blocks: delivery k finds N - (k - 1) B - 1; "
        "mean {:.0f} for N = 4096, B = 64",
        expected / static_cast<double>(g));
    c.simulation = fmt::format("lockstep N = 4096, B = 64: {:.0f} waiters per delivery on average",
                               r.waiters_at_delivery);
    c.hardware = "not measured (a delivery's waiters need a global view of the threads)";
    c.verdict = r.waiters_at_delivery > 64 ? "holds (simulator)" : "does not hold";
    c.judgement =
        r.waiters_at_delivery > 64 ? Judgement::holds_qualified : Judgement::does_not_hold;
    out.push_back(c);
  }

  // §5.1 / Figure 5: bulk faster than counting.
  {
    ClaimCheck c{"§5.1, Fig. 5",
                 "bulk semaphores outperform counting semaphores due to concurrent batch "
                 "allocations (each thread one unit, batch 512, a batch grown with one atomic)",
                 "",
                 "",
                 "",
                 ""};
    const auto b0 = lockstep(SemaphoreKind::bulk, 4096, 64, 0);
    const auto c0 = lockstep(SemaphoreKind::counting, 4096, 64, 0);
    const auto b1 = lockstep(SemaphoreKind::bulk, 4096, 64, 1000);
    const auto c1 = lockstep(SemaphoreKind::counting, 4096, 64, 1000);
    c.model = fmt::format(
        "counting, lockstep: N + ceil(N / B) (L + 3) rounds = {} for N = 4096, "
        "B = 64, L = 1000 (each growth stops everybody)",
        model::counting_lockstep_rounds(4096, 64, 1000));
    c.simulation = fmt::format(
        "lockstep N = 4096, B = 64: a growth of one atomic: bulk {} rounds, counting {}; a growth "
        "of 1000 steps: bulk {}, counting {} ({:.1f}x)",
        b0.rounds, c0.rounds, b1.rounds, c1.rounds,
        static_cast<double>(c1.rounds) / static_cast<double>(b1.rounds));
    const Speedups one = speedups(gpu, 1), warp = speedups(gpu, 32);
    if (one.points == 0) {
      c.hardware = kNoGpuRows;
    } else {
      c.hardware = fmt::format(
          "{}, each thread one unit: counting time / bulk time {:.2f} .. {:.2f} over {} points "
          "(bulk faster at {}); warp leaders (32 units, not in the paper): {:.2f} .. {:.2f} over "
          "{} points, bulk furthest ahead at {}",
          device, one.lo, one.hi, one.points, one.bulk_faster, warp.lo, warp.hi, warp.points,
          warp.best);
    }
    const bool sim_holds = c1.rounds > b1.rounds;
    c.verdict = one.points == 0
                    ? (sim_holds ? "holds in the simulator when a growth takes time; GPU not "
                                   "measured"
                                 : "not reproduced: no design floor (no GPU rows); does not hold "
                                   "in the simulator")
                : one.bulk_faster * 2 < one.points
                    ? "the paper's setting is missed on this GPU (the CAS loop on one word "
                      "dominates both); holds where growths take time (simulator) or many "
                      "batches are grown at once (warp leaders, small batches)"
                    : "holds";
    // A speed claim: held in the simulator only, it is qualified; missed in the simulator's
    // rounds it is not reproduced (no time, so no floor); missed on the GPU, the floor rule
    // (validation/speed_floor.hpp) judges it by the bulk kernel's time against its atomics.
    c.judgement = one.points == 0
                      ? (sim_holds ? Judgement::holds_qualified : Judgement::not_reproduced)
                  : one.bulk_faster * 2 < one.points ? Judgement::not_reproduced
                                                     : Judgement::holds;
    if (one.points > 0 && one.bulk_faster * 2 < one.points) {
      const std::vector<FloorPoint> floors = figure5_floor_points(gpu);
      const FloorVerdict fv = judge_speed_miss(floors);
      c.hardware += "; the bulk semaphore against its design floor where it is slower: " +
                    floor_cells(floors);
      c.judgement = fv.judgement;
      c.verdict = fv.text + "; " + c.verdict;
    }
    out.push_back(c);
  }

  // §5.1: the concurrent batch allocations never reach requests / batch.
  {
    ClaimCheck c{"§5.1",
                 "the number of concurrent batch allocations never reaches its theoretical "
                 "maximum, requests / batch size",
                 "",
                 "",
                 "",
                 ""};
    c.model = fmt::format(
        "lockstep: a growth starts every B rounds and lasts L + 3, so min(ceil((L + 3) / B), "
        "ceil(N / B)) overlap: {} for N = 4096, B = 64, L = 1000; the maximum ceil(N / B) once "
        "L + 3 >= about N ({} for B = 16, L = 5000)",
        model::bulk_lockstep_peak_growers(4096, 64, 1000),
        model::bulk_lockstep_peak_growers(4096, 16, 5000));
    const auto b = lockstep(SemaphoreKind::bulk, 4096, 64, 1000);
    const auto longest = lockstep(SemaphoreKind::bulk, 4096, 16, 5000);
    c.simulation = fmt::format(
        "lockstep N = 4096: {} growers at once at B = 64, L = 1000 (of 64 batches); {} of 256 at "
        "B = 16, L = 5000",
        b.peak_growers, longest.peak_growers);
    std::uint64_t peak = 0, bound = 0;
    for (const GpuPoint& p : gpu) {
      const std::uint64_t x = count_of(*p.bulk, "peak_growers");
      if (x > peak) {
        peak = x;
        bound = count_of(*p.bulk, "batches_min");
      }
    }
    c.hardware = gpu.empty() ? std::string(kNoGpuRows)
                             : fmt::format(
                                   "{}: at most {} growers at once (that point's "
                                   "requests / batch: {})",
                                   device, peak, bound);
    const bool gpu_holds = gpu.empty() || peak < bound;
    // A count seen on the GPU: reaching the maximum there contradicts it. Without GPU rows there
    // is nothing to judge (the simulator reaches the maximum once a growth is long enough, so the
    // claim is the GPU's atomics); with them it holds, qualified where the simulator reaches it.
    c.judgement = gpu.empty()                   ? Judgement::not_measured
                  : !gpu_holds                  ? Judgement::does_not_hold
                  : longest.peak_growers == 256 ? Judgement::holds_qualified
                                                : Judgement::holds;
    c.verdict = gpu.empty()  ? "not measured on a GPU here; the algorithm itself reaches the "
                               "maximum once a growth outlasts the other threads' decisions "
                               "(simulator)"
                : !gpu_holds ? "does not hold on this GPU"
                : longest.peak_growers == 256
                    ? "holds on the GPU (its atomics' throughput is the limit, as the paper "
                      "says); the algorithm itself reaches the maximum once a growth outlasts "
                      "the other threads' decisions (simulator)"
                    : "holds";
    out.push_back(c);
  }

  // §5.1: throughput falls before the concurrency peaks.
  {
    ClaimCheck c{"§5.1",
                 "the allocation throughput starts decreasing before the number of concurrent "
                 "requests peaks (updates of R saturate the atomic throughput)",
                 "-",
                 "-",
                 "",
                 ""};
    const GpuPoint* lo = nullptr;
    const GpuPoint* hi = nullptr;
    for (const GpuPoint& p : gpu)
      if (count_of(*p.bulk, "units_per_request") == 1 && count_of(*p.bulk, "batch") == 512 &&
          count_of(*p.bulk, "block") == 256) {
        if (!lo || count_of(*p.bulk, "N") < count_of(*lo->bulk, "N")) lo = &p;
        if (!hi || count_of(*p.bulk, "N") > count_of(*hi->bulk, "N")) hi = &p;
      }
    if (lo && hi && lo != hi) {
      c.hardware = fmt::format(
          "{}, bulk, batch 512: {:.3g} units/s at N = {}, {:.3g} at N = {}; CAS attempts per "
          "thread {:.0f} and {:.0f}",
          device, lo->bulk->number("units_per_s").value_or(0), count_of(*lo->bulk, "N"),
          hi->bulk->number("units_per_s").value_or(0), count_of(*hi->bulk, "N"),
          lo->bulk->number("cas_per_thread").value_or(0),
          hi->bulk->number("cas_per_thread").value_or(0));
      c.verdict =
          "the decrease holds; in alloclab's implementation its cause is the CAS loop on "
          "the whole word, which the counting semaphore suffers alike";
      c.judgement = Judgement::holds_qualified;  // the decrease, not the paper's cause
    } else {
      c.hardware = kNoGpuRows;
      c.verdict = "not measured";
      c.judgement = Judgement::not_measured;
    }
    out.push_back(c);
  }

  // §1, §4.1: TBuddy holds at most two node locks.
  {
    ClaimCheck c{"§1, §4.1",
                 "the buddy tree requires locking at most two nodes for any update",
                 "lock coupling: a climb holds the node it leaves until it has its parent",
                 "",
                 "",
                 ""};
    const gelado_fig7::Figure fig = gelado_fig7::read_figure(ualloc_rows);
    c.hardware =
        fig.verified_runs > 0
            ? fmt::format(
                  "{}: {} verified gg-malloc runs of Figure 7 (TBuddy serves UAlloc's chunks, and "
                  "every request from 2 KB); a TBuddy operation holding more than two locks "
                  "fails a run's verification (gpu/src/gg_ualloc.cu counts it){}",
                  fig.device, fig.verified_runs,
                  fig.any_unverified ? "; some runs were not verified" : "")
            : "not measured: no gg-malloc rows of Figure 7 here (DIR/ualloc/: "
              "scripts/gpu.sh gelado-garland "
              "ualloc OUT)";
    Scenario s;
    s.algo = Algorithm::gg_tbuddy;
    s.N = 256;
    s.T = s.A = 1024;
    s.pages = 2;
    s.seed = 5;
    sim::SimOptions o;
    o.mode = sim::Mode::lockstep;
    bool ok = true;
    std::string what;
    try {
      (void)sim::run_once(s, o, 0);  // throws VerificationError past 2 locks
      what = fmt::format("{} requests of 2 pages on 1024 in lockstep", s.N);
    } catch (const std::exception& e) {
      ok = false;
      what = e.what();
    }
    c.simulation = what + (ok ? ": every operation checked, none held more than 2 locks" : "");
    c.verdict = !ok                                            ? "does not hold"
                : fig.verified_runs > 0 && !fig.any_unverified ? "holds (simulator and GPU)"
                                                               : "holds (simulator)";
    c.judgement = !ok                                            ? Judgement::does_not_hold
                  : fig.verified_runs > 0 && !fig.any_unverified ? Judgement::holds
                                                                 : Judgement::holds_qualified;
    out.push_back(c);
  }

  // The claims of UAlloc and malloc (gelado_malloc_claims.cpp).
  for (ClaimCheck& c : gelado_malloc_claims(ualloc_rows, rcu_rows)) out.push_back(std::move(c));
  return out;
}

}  // namespace alloclab::validation
