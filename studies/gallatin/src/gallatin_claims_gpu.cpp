#include "gallatin_claims_gpu.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "alloclab/validation/record_csv.hpp"
#include "alloclab/validation/speed_floor.hpp"

#include "alloclab/core/gallatin/layout.hpp"

namespace alloclab::validation::gallatin_gpu {
namespace {

namespace g = alloclab::gallatin;

const char* const kNoRows =
    "not measured: no GPU rows of Gallatin here (DIR/gallatin/**.csv: scripts/main-job.sh copies "
    "reports/data/<gpu>/gallatin-*/claims_*.csv and alloc.csv; scripts/gpu.sh gallatin all OUT "
    "makes them)";
const char* const kNoTime = "- (the simulator counts steps and atomics, not time)";
// The simulator's rows of these claims take minutes (2 GiB of 64 B slices is 2^25 requests), so
// they are not run by the report: scripts/sim-gallatin-claims.sh makes them (deterministic), and
// scripts/main-job.sh copies the newest committed run to DIR/gallatin/cpu-simulator/.
const char* const kNoSimRows =
    "not simulated here: no pre-booted simulator rows (scripts/sim-gallatin-claims.sh OUT makes "
    "them in a few minutes; reports/data/cpu-simulator/gallatin-claims-*/ holds the committed "
    "run)";

// The buffers of the GPU rows are sized for the SMs of an H100 SXM or H200 (the rows' notes:
// "block buffers sized for 132 SMs"): 132, 66, 33, 16, 8 and 4 slots from 16 B up (§4.3).
constexpr std::uint32_t kSms = 132;
constexpr double kPaperUtilisation = 0.891;  // §6.11, 256 B on 2 GB
constexpr double kPaperInitMs = 31;          // §6.4, on an A40
constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

// The public Gallatin on an H200, 2^20 threads x one allocation, 8 GiB pool (its default
// Gallatin<16MB, 16, 4096>): reports/peers/gallatin_bench.csv, N = 1048576, columns
// alloc_ms_median (of 5 repetitions on one instance) and alloc_ms_cold (the first of them). Its
// three points are copied here, so the claims read no file beside their rows.
struct PublicPoint {
  std::uint64_t size;
  double median_ms, first_ms;
};
constexpr PublicPoint kPublic[] = {
    {16, 0.09050, 0.10592}, {256, 0.76438, 0.89898}, {4096, 3.57558, 3.66291}};

std::uint64_t whole(const Record& r, const std::string& key) {
  return static_cast<std::uint64_t>(r.number(key).value_or(0));
}

// The verified rows of the first device that ran Gallatin (several GPUs' rows never mix).
struct Rows {
  std::string device;
  std::vector<Record> rows;
};
Rows usable(const std::vector<Record>& rows) {
  Rows out;
  for (const Record& r : rows)
    if (record_text(r, "allocator") == "gallatin" && record_text(r, "backend") != "sim" &&
        record_flag(r, "verified")) {
      out.device = record_text(r, "device");
      break;
    }
  for (const Record& r : rows)
    if (record_flag(r, "verified") && record_text(r, "device") == out.device) out.rows.push_back(r);
  return out;
}

// Gallatin's row of a workload, mode ("gpu": from the pristine pool; "gpu-warm": after a run and
// its frees on the same instance) and size; the pool when given.
const Record* find_row(const Rows& rs, const std::string& workload, const std::string& mode,
                       std::uint64_t size, std::uint64_t pool = 0) {
  for (const Record& r : rs.rows)
    if (record_text(r, "allocator") == "gallatin" && record_text(r, "workload") == workload &&
        record_text(r, "mode") == mode && whole(r, "size") == size &&
        (pool == 0 || whole(r, "pool_bytes") == pool))
      return &r;
  return nullptr;
}

// The simulator's verified row of Gallatin with the buffers pre-booted as the GPU's (mode
// "<mode>-preboot") of a workload, size and pool.
const Record* find_sim_row(const std::vector<Record>& all, const std::string& workload,
                           std::uint64_t size, std::uint64_t pool) {
  for (const Record& r : all)
    if (record_text(r, "allocator") == "gallatin" && record_text(r, "backend") == "sim" &&
        record_text(r, "mode").ends_with("-preboot") && record_flag(r, "verified") &&
        record_text(r, "workload") == workload && whole(r, "size") == size &&
        whole(r, "pool_bytes") == pool)
      return &r;
  return nullptr;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string pct(double x) {
  return fmt::format("{:.1f}%", 100 * x);
}

// The pre-boot (§4.3): class k's slots each take a block, from segments formatted for k, in
// class order from segment 0; segments_of[k] of them.
struct Preboot {
  g::Geometry geometry;
  std::uint32_t segments_of[g::kSizeClasses] = {};
  std::uint32_t total = 0, slots = 0;
};
Preboot preboot(std::uint64_t pool_bytes) {
  Preboot p;
  p.geometry.segments = static_cast<std::uint32_t>(pool_bytes / p.geometry.segment_bytes);
  for (unsigned k = 0; k < g::kSizeClasses; ++k) {
    const std::uint32_t per = p.geometry.blocks_per_segment(k);
    p.segments_of[k] = (g::buffer_slots(kSms, k) + per - 1) / per;
    p.total += p.segments_of[k];
    p.slots += g::buffer_slots(kSms, k);
  }
  return p;
}

// Utilisation at out of memory of class k: the other classes' pre-booted segments are never
// class k's (the upper bound); at most the class's slots x 4096 slices are stranded in the
// blocks its buffer slots still hold when the pool runs out (the lower bound).
struct Bounds {
  double lo = 0, hi = 0;
  std::uint32_t others = 0;
};
Bounds utilisation_bounds(std::uint64_t pool_bytes, std::uint64_t size) {
  const Preboot p = preboot(pool_bytes);
  const unsigned k = g::size_class_of(size);
  Bounds b;
  b.others = p.total - p.segments_of[k];
  const double pool = static_cast<double>(pool_bytes);
  b.hi = static_cast<double>(p.geometry.segments - b.others) *
         static_cast<double>(p.geometry.segment_bytes) / pool;
  b.lo = b.hi - static_cast<double>(g::buffer_slots(kSms, k)) *
                    static_cast<double>(p.geometry.slices_per_block * p.geometry.slice_bytes(k)) /
                    pool;
  return b;
}

}  // namespace

ClaimCheck utilisation(const std::vector<Record>& all) {
  constexpr std::uint64_t kPool = 2 * kGiB;  // 128 segments of 16 MiB
  ClaimCheck c{"§6.11, Fig. 6c",
               "89.1% of a 2 GB pool used at 256 B when memory runs out",
               "",
               kNoSimRows,
               "",
               ""};
  const Bounds b256 = utilisation_bounds(kPool, 256);
  const Preboot pb = preboot(kPool);
  c.model = fmt::format(
      "2 GiB = {} segments of 16 MiB; the pre-boot gives the 9 classes' {} buffer slots blocks "
      "from {} segments, {} of them another class's at 256 B, so at most {} segments serve "
      "256 B ({}); the blocks left in the class's {} slots strand at most {} x 4096 slices "
      "({} of the pool): [{}, {}]",
      pb.geometry.segments, pb.slots, pb.total, b256.others, pb.geometry.segments - b256.others,
      pct(b256.hi), g::buffer_slots(kSms, 4), g::buffer_slots(kSms, 4), pct(b256.hi - b256.lo),
      pct(b256.lo), pct(b256.hi));
  std::string simulated;
  std::optional<double> sim256;
  bool sim_inside = true;
  for (std::uint64_t size = 16; size <= 4096; size *= 4) {
    const Record* r = find_sim_row(all, "oom", size, kPool);
    if (!r || !r->number("utilisation")) continue;
    const double u = *r->number("utilisation");
    const Bounds b = utilisation_bounds(kPool, size);
    const bool in = u >= b.lo - 1e-9 && u <= b.hi + 1e-9;
    sim_inside = sim_inside && in;
    if (size == 256) sim256 = u;
    simulated += fmt::format("{}{} B {}{}", simulated.empty() ? "" : ", ", size, pct(u),
                             in ? "" : " (outside the model's bounds)");
  }
  if (!simulated.empty())
    c.simulation =
        "the simulator, sequential, its buffers pre-booted as the GPU's (132 SMs' "
        "slots), batches of 100,000 until a request fails: " +
        simulated + (sim_inside ? "; every size inside the model's bounds" : "");
  const Rows rs = usable(all);
  std::string sizes;
  std::vector<std::uint64_t> outside;
  std::optional<double> u256;
  for (std::uint64_t size = 16; size <= 4096; size *= 2) {
    const Record* r = find_row(rs, "oom", "gpu", size, kPool);
    if (!r || !r->number("utilisation")) continue;
    const double u = *r->number("utilisation");
    const Bounds b = utilisation_bounds(kPool, size);
    const bool in = u >= b.lo - 1e-9 && u <= b.hi + 1e-9;
    if (!in) outside.push_back(size);
    if (size == 256) u256 = u;
    sizes += fmt::format("{}{} B {} (model [{}, {}]{})", sizes.empty() ? "" : "; ", size, pct(u),
                         pct(b.lo), pct(b.hi), in ? "" : ", outside");
  }
  if (!u256) {
    c.hardware = rs.rows.empty() ? kNoRows : sizes.empty() ? "no oom rows at 2 GiB" : sizes;
    c.verdict = "not measured: no GPU row at 256 B on 2 GiB";
    c.judgement = Judgement::not_measured;
    return c;
  }
  c.hardware =
      fmt::format("{}, batches of 100,000 until a request fails, allocated bytes over the pool: {}",
                  rs.device, sizes);
  std::string where =
      outside.empty() ? "every size inside the model's bounds" : "outside the model's bounds at";
  for (const std::uint64_t s : outside) where += fmt::format(" {} B", s);
  const std::string paper_below =
      kPaperUtilisation < b256.lo
          ? "; the paper's 89.1% is below the model's lower bound, which does not explain it"
          : "";
  if (sim256)
    where += fmt::format("; the simulator {} at 256 B ({:+.2f} points from the GPU)", pct(*sim256),
                         100 * (*sim256 - *u256));
  if (std::abs(*u256 - kPaperUtilisation) <= 0.005) {
    c.verdict = fmt::format("holds: {} at 256 B (the paper 89.1%); {}", pct(*u256), where);
    c.judgement = Judgement::holds;
  } else if (*u256 > kPaperUtilisation) {
    c.verdict = fmt::format(
        "holds with a qualification: {} at 256 B, {:.1f} points above the paper's 89.1%; {}{}",
        pct(*u256), 100 * (*u256 - kPaperUtilisation), where, paper_below);
    c.judgement = Judgement::holds_qualified;
  } else {
    // A capacity claim: using less of the pool than the paper contradicts it.
    c.verdict =
        fmt::format("does not hold: {} at 256 B, under the paper's 89.1%; {}", pct(*u256), where);
    c.judgement = Judgement::does_not_hold;
  }
  return c;
}

ClaimCheck initialisation(const std::vector<Record>& all) {
  ClaimCheck c{"§6.4", "initialisation takes 31 ms (an A40)", "", kNoTime, "", ""};
  c.model =
      "the set-up writes every segment's tables (linear in the pool) and pre-boots 271 blocks "
      "from 13 segments (fixed): 4x the segments (8 GiB against 2 GiB) cost at most 4x";
  const Rows rs = usable(all);
  std::map<std::uint64_t, std::vector<double>> by_pool;
  for (const Record& r : rs.rows)
    if (record_text(r, "allocator") == "gallatin" && r.number("init_ms"))
      by_pool[whole(r, "pool_bytes")].push_back(*r.number("init_ms"));
  if (by_pool.empty()) {
    c.hardware = kNoRows;
    c.verdict = "not measured on a GPU here";
    c.judgement = Judgement::not_measured;
    return c;
  }
  std::string at;
  double worst = 0;
  std::map<std::uint64_t, double> medians;
  for (const auto& [pool, ms] : by_pool) {
    medians[pool] = median(ms);
    worst = std::max(worst, *std::max_element(ms.begin(), ms.end()));
    at += fmt::format("{}{:.3g} ms at {} GiB ({} runs)", at.empty() ? "" : ", ", medians[pool],
                      pool / kGiB, ms.size());
  }
  c.hardware = fmt::format("{}, init_ms (median): {}", rs.device, at);
  if (medians.count(2 * kGiB) && medians.count(8 * kGiB))
    c.hardware += fmt::format("; 8 GiB / 2 GiB = {:.1f}x", medians[8 * kGiB] / medians[2 * kGiB]);
  // A time claim: slower than the paper's 31 ms is alloclab's set-up missing it; the floor rule
  // (validation/speed_floor.hpp) has no floor for it (no requests, no atomics counted), so a
  // miss is not reproduced.
  c.judgement = worst <= kPaperInitMs ? Judgement::holds_qualified : Judgement::not_reproduced;
  c.verdict =
      worst <= kPaperInitMs
          ? fmt::format(
                "holds with a qualification: at most {:.3g} ms, within the paper's 31 ms; "
                "alloclab times its set-up kernels (tables and pre-boot) and the pristine pool's "
                "copy, not the pool's cudaMalloc, and the paper does not say what its 31 ms spans",
                worst)
          : fmt::format(
                "not reproduced: no design floor (the set-up serves no requests whose atomics a "
                "row counts); up to {:.3g} ms, over the paper's 31 ms",
                worst);
  return c;
}

ClaimCheck warm_up(const std::vector<Record>& all) {
  ClaimCheck c{"§6.9", "a warm-up changes the time by under 1% (2 KB: 2.13197 -> 2.15344 ms)",
               "",     kNoTime,
               "",     ""};
  c.model =
      "no change: the frees give every block and segment back (the state is checked at rest "
      "after every phase), so a warm run finds the trees as a fresh one does, save the blocks "
      "its buffer slots hold";
  const Rows rs = usable(all);
  const Record* cold = find_row(rs, "alloc", "gpu", 2048);
  const Record* warm = find_row(rs, "alloc", "gpu-warm", 2048);
  if (!cold || !warm || !cold->number("alloc_ms") || !warm->number("alloc_ms")) {
    c.hardware = rs.rows.empty() ? kNoRows : "no cold and warm rows at 2 KiB";
    c.verdict = "not measured on a GPU here";
    c.judgement = Judgement::not_measured;
    return c;
  }
  const double a = *cold->number("alloc_ms"), b = *warm->number("alloc_ms");
  const double change = b / a - 1;
  c.hardware = fmt::format("{}, 2^20 x 2 KiB: {:.3f} ms fresh, {:.3f} ms after a run ({:+.1f}%)",
                           rs.device, a, b, 100 * change);
  // The same on the reference workload's sizes, where there are rows (alloc.csv).
  std::string others, large;
  for (const std::uint64_t size : {16u, 256u, 4096u}) {
    const Record* x = find_row(rs, "alloc", "gpu", size);
    const Record* y = find_row(rs, "alloc", "gpu-warm", size);
    if (!x || !y || !x->number("alloc_ms") || !y->number("alloc_ms")) continue;
    const double d = *y->number("alloc_ms") / *x->number("alloc_ms") - 1;
    others += fmt::format("{}{} B {:+.1f}%", others.empty() ? "" : ", ", size, 100 * d);
    if (std::abs(d) > 0.05)
      large +=
          fmt::format("; at {} B the warm run takes {:.2f}x the fresh one's time", size, d + 1);
  }
  if (!others.empty()) c.hardware += "; 2^20 on 8 GiB: " + others;
  c.verdict = std::abs(change) < 0.01 ? "holds at 2 KiB"
              : std::abs(change) < 0.02
                  ? fmt::format(
                        "holds with a qualification: {:+.1f}% at 2 KiB, a little over 1% (the "
                        "paper's own figures give +1.0%)",
                        100 * change)
                  : fmt::format("does not hold: {:+.1f}% at 2 KiB", 100 * change);
  c.verdict += large;
  // The paper's figure is at 2 KB; a large change at the other sizes qualifies it. A time
  // claim: a miss is not reproduced.
  c.judgement = std::abs(change) < 0.01 && large.empty() ? Judgement::holds
                : std::abs(change) < 0.02                ? Judgement::holds_qualified
                                                         : Judgement::not_reproduced;
  return c;
}

ClaimCheck fragmentation_rank(const std::vector<Record>& all) {
  ClaimCheck c{"§6.10, Fig. 6",
               "third in fragmentation, after the Ouroboros family (the block buffers' wavefront)",
               "",
               kNoSimRows,
               "",
               ""};
  // 2^20 x 256 B on 8 GiB, as the rows: class 4 (blocks of 1 MiB, 16 a segment).
  constexpr std::uint64_t kN = 1 << 20, kSize = 256;
  const Preboot p = preboot(8 * kGiB);
  const unsigned k = g::size_class_of(kSize);
  const std::uint64_t per = p.geometry.blocks_per_segment(k);
  const std::uint64_t blocks = kN * kSize / p.geometry.block_bytes(k);
  std::uint32_t first = 0;  // the class's pre-boot segment: after the smaller classes'
  for (unsigned j = 0; j < k; ++j) first += p.segments_of[j];
  const std::uint64_t rest = blocks - std::min(blocks, p.segments_of[k] * per);
  const std::uint64_t end = p.total + (rest + per - 1) / per;  // fresh segments after pre-boot
  const double wavefront = static_cast<double>((end - first) * p.geometry.segment_bytes) /
                           static_cast<double>(kN * kSize);
  c.model = fmt::format(
      "address range over bytes requested, 2^20 x 256 B: the lowest slice in segment {} (the "
      "class's pre-boot segment), the other {} blocks of 1 MiB in segments {}..{} after the {} "
      "pre-booted: at least {} segments for {} of data, {:.3f}; Ouroboros' pages and the queue "
      "fill chunks from the first: 1",
      first, rest, p.total, end - 1, p.total, end - first, kN * kSize / p.geometry.segment_bytes,
      wavefront);
  if (const Record* r = find_sim_row(all, "fragmentation", kSize, 8 * kGiB);
      r && whole(*r, "N") == kN && r->number("fragmentation")) {
    const double f = *r->number("fragmentation");
    c.simulation = fmt::format(
        "the simulator, sequential, its buffers pre-booted as the GPU's, 2^20 x 256 B on 8 GiB: "
        "{:.4g} ({})",
        f,
        f >= wavefront - 1e-9 ? fmt::format("{:.1f}% over the wavefront", 100 * (f / wavefront - 1))
                              : "under the wavefront");
  }
  const Rows rs = usable(all);
  std::vector<std::pair<double, std::string>> order;
  for (const Record& r : rs.rows)
    if (record_text(r, "workload") == "fragmentation" && whole(r, "N") == kN &&
        whole(r, "size") == kSize && r.number("fragmentation"))
      order.emplace_back(*r.number("fragmentation"), record_text(r, "allocator"));
  std::sort(order.begin(), order.end());
  const auto it = std::find_if(order.begin(), order.end(),
                               [](const auto& o) { return o.second == "gallatin"; });
  if (it == order.end()) {
    c.hardware = rs.rows.empty() ? kNoRows : "no fragmentation row of Gallatin at 2^20 x 256 B";
    c.verdict = "not measured on a GPU here";
    c.judgement = Judgement::not_measured;
    return c;
  }
  std::string list;
  for (const auto& [f, name] : order)
    list += fmt::format("{}{} {:.4g}", list.empty() ? "" : "; ", name, f);
  c.hardware = fmt::format("{}, 2^20 x 256 B on 8 GiB, ascending: {}", rs.device, list);
  std::size_t ouro_before = 0, ouro_after = 0, after = 0;
  for (auto o = order.begin(); o != order.end(); ++o) {
    const bool ouro = o->second.starts_with("ouro");
    if (o < it) ouro_before += ouro ? 1 : 0;
    if (o > it) (ouro ? ouro_after : after) += 1;
  }
  const double f = it->first;
  const std::string vs_model =
      f >= wavefront - 1e-9 ? fmt::format("{:.3f}, {:.1f}% over the wavefront's {:.3f}", f,
                                          100 * (f / wavefront - 1), wavefront)
                            : fmt::format("{:.3f}, under the wavefront's {:.3f}", f, wavefront);
  const bool third = ouro_before > 0 && ouro_after == 0;
  // Qualified: only the order against Ouroboros (and the others built here) is checked.
  c.judgement = third ? Judgement::holds_qualified : Judgement::does_not_hold;
  if (third)
    c.verdict = fmt::format(
        "holds with a qualification: Gallatin ({}) ranks after the {} Ouroboros variants{}; "
        "the paper's RegEff, ScatterAlloc and XMalloc are not built, so only the order against "
        "Ouroboros (and the others here) is checked",
        vs_model, ouro_before, after > 0 ? " and before CUDA's malloc" : "");
  else
    c.verdict =
        fmt::format("does not hold: Gallatin ({}) is not after every Ouroboros variant", vs_model);
  return c;
}

ClaimCheck speed_against_public(const std::vector<Record>& all) {
  ClaimCheck c{"issue 14",
               "alloclab's Gallatin at least as fast as the public Gallatin on the same GPU "
               "(2^20 threads x 16/256/4096 B, 8 GiB pool)",
               "- (no time model for Gallatin)",
               kNoTime,
               "",
               ""};
  const Rows rs = usable(all);
  std::string cells, slower;
  std::size_t n = 0, faster = 0;
  std::string no_rate;
  const auto rate = device_atomic_throughput(rs.device, no_rate);
  std::vector<FloorPoint> floors;  // the cells where alloclab's Gallatin is slower
  for (const PublicPoint& p : kPublic)
    for (const bool warm : {false, true}) {
      const Record* r = find_row(rs, "alloc", warm ? "gpu-warm" : "gpu", p.size, 8 * kGiB);
      if (!r || whole(*r, "N") != (1u << 20) || !r->number("alloc_ms")) continue;
      const double ours = *r->number("alloc_ms"), theirs = warm ? p.median_ms : p.first_ms;
      const char* what = warm ? "warm against the public median" : "cold against its first run";
      ++n;
      std::string verdict;
      if (ours <= theirs) {
        ++faster;
        verdict = fmt::format("{:.2f}x faster", theirs / ours);
      } else {
        // The floor of this cell: alloclab's time against the atomics a request a row of the
        // same point counted (alloc_counters.csv, where the report is given it).
        std::optional<double> atomics;
        for (const Record& o : rs.rows)
          if (record_text(o, "allocator") == "gallatin" && record_text(o, "workload") == "alloc" &&
              record_text(o, "mode") == record_text(*r, "mode") && whole(o, "size") == p.size &&
              whole(o, "pool_bytes") == 8 * kGiB && o.number("atomics_per_op"))
            atomics = o.number("atomics_per_op");
        const std::string label = fmt::format("{} B {}", p.size, warm ? "warm" : "first run");
        floors.push_back(floor_point(label, ours, atomics, static_cast<double>(1u << 20), rate,
                                     no_rate, "the gallatin alloc rows at " + label));
        bump_fallback(floors.back(), rs.device, static_cast<double>(1u << 20),
                      static_cast<double>(p.size), !warm);
        verdict = fmt::format("{:.2f}x slower", ours / theirs);
        slower += fmt::format("{}{} B {}: {}", slower.empty() ? "" : "; ", p.size,
                              warm ? "warm" : "first run", verdict);
      }
      cells += fmt::format("{}{} B {}: {:.3g} / {:.3g} ms, {}", cells.empty() ? "" : "; ", p.size,
                           what, ours, theirs, verdict);
    }
  if (n == 0) {
    c.hardware = rs.rows.empty() ? kNoRows : "no alloc rows at 2^20 x 16/256/4096 B on 8 GiB";
    c.verdict = "not measured on a GPU here";
    c.judgement = Judgement::not_measured;
    return c;
  }
  c.hardware = fmt::format(
      "{}, alloc kernel (median of the trials; cold: from the pristine pool, warm: --warm) "
      "against reports/peers/gallatin_bench.csv (the public code, H200): {}",
      rs.device, cells);
  if (rs.device.find("H200") == std::string::npos) {
    c.verdict = "not comparable: the public Gallatin's numbers are from an H200";
    c.judgement = Judgement::not_measured;
  } else if (faster == n) {
    c.verdict = fmt::format("holds: faster in all {} cells", n);
    c.judgement = Judgement::holds;
  } else if (2 * faster >= n) {
    c.verdict =
        fmt::format("holds with a qualification: faster in {} of {} cells; {}", faster, n, slower);
    c.judgement = Judgement::holds_qualified;
  } else {
    // Issue 14's target, timed beside the public code's on the same GPU, counts in Gallatin's
    // part as a speed claim: slower, it is judged by the floor rule (validation/
    // speed_floor.hpp): near its design floor alloclab's Gallatin shows the design slower than
    // the public code (does not hold); far above it, the miss is alloclab's kernel.
    const FloorVerdict fv = judge_speed_miss(floors);
    c.hardware +=
        "; alloclab's Gallatin against its design floor where slower: " + floor_cells(floors);
    c.verdict = fmt::format("{}; faster in {} of {} cells; {}", fv.text, faster, n, slower);
    c.judgement = fv.judgement;
  }
  return c;
}

}  // namespace alloclab::validation::gallatin_gpu
