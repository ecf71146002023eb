#include "alloclab/studies/dynasoar_claims.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "alloclab/core/dynasoar/types.hpp"
#include "alloclab/core/errors.hpp"
#include "alloclab/core/random_stream.hpp"
#include "alloclab/cpu_sim/simulator.hpp"
#include "alloclab/cpu_sim/typed_apps.hpp"
#include "alloclab/model/dynasoar.hpp"
#include "alloclab/validation/record_csv.hpp"
#include "alloclab/validation/speed_floor.hpp"

namespace alloclab::validation {
namespace {

namespace dm = model::dynasoar;
using sim::TypedHeap;
using sim::TypedMode;
using sim::TypedRequest;

const char* const kNoDynasoarGpuRows =
    "no GPU rows here (DIR/dynasoar/**.csv: `scripts/gpu.sh dynasoar measure OUT`'s alloc.csv)";
const char* const kNoWatorRows =
    "not measured on a GPU here (DIR/dynasoar/**/*apps_wator*.csv: `scripts/gpu.sh dynasoar "
    "apps OUT`, `alloclab wator --backend gpu`)";

sim::TypedHeapOptions heap_of(const std::string& types, std::uint64_t blocks, TypedMode mode) {
  sim::TypedHeapOptions o;
  o.types = dynasoar::parse_types("--types", types);
  o.heap_bytes = blocks * o.types.block_bytes();
  o.mode = mode;
  return o;
}

// Mean steps a request and the named op count a request of one lockstep run of `algo`.
struct SimPoint {
  double steps = 0, reserves = 0, atomics = 0;
};
SimPoint lockstep_point(Algorithm algo) {
  Scenario s;
  s.algo = algo;
  s.N = 4096;
  s.T = 65536;
  s.A = s.T / 2;
  s.seed = 1;
  sim::SimOptions o;
  o.mode = sim::Mode::lockstep;
  const sim::RunResult r = sim::run_once(s, o, 0);
  SimPoint p;
  const double n = static_cast<double>(s.N);
  p.steps = static_cast<double>(std::accumulate(r.steps.begin(), r.steps.end(), 0.0)) / n;
  p.atomics = static_cast<double>(r.atomics_issued) / n;
  for (const auto& [name, v] : r.op_counts)
    if (name == "reserves") p.reserves = static_cast<double>(v) / n;
  return p;
}

std::string ratio_text(const TimeRatios& t) {
  return t.pairs == 0 ? std::string(kNoDynasoarGpuRows)
                      : fmt::format(
                            "{}: alloc kernel {:.1f}-{:.1f}x ({} pairs of verified rows, "
                            "2^20 objects of 16-256 B)",
                            t.device, t.lo, t.hi, t.pairs);
}

// `alloclab measure` rows (algo, per_thread, taken, failed: the linux-scalability runs) apart
// from the workload rows (allocator, workload, verified), both among DIR/dynasoar/**.csv.
bool is_measure_row(const Record& r) {
  return r.find("per_thread") != nullptr && r.text("algo").has_value();
}

// linux-scalability on the GPU: for each n, does every allocator serve min(N n, T) requests and
// fail exactly the rest? A run that broke the heap would have stopped (the heap is checked on the
// host after every phase), so a row is a verified run.
struct Scalability {
  std::string text;
  bool exact = true;
};
Scalability gpu_scalability(const std::vector<Record>& rows) {
  std::map<std::uint64_t, std::vector<const Record*>> by_n;
  std::string device;
  std::uint64_t threads = 0, slots = 0;
  for (const Record& r : rows) {
    by_n[static_cast<std::uint64_t>(r.number("per_thread").value_or(0))].push_back(&r);
    device = r.text("device").value_or(device);
    threads = static_cast<std::uint64_t>(r.number("N").value_or(0));
    slots = static_cast<std::uint64_t>(r.number("T").value_or(0));
  }
  Scalability out;
  if (rows.empty()) return out;
  out.text = fmt::format("{}, {} threads, a heap of {} slots of 64 B:", device, threads, slots);
  for (const auto& [n, rs] : by_n) {
    std::string algos, off;
    for (const Record* r : rs) {
      const auto N = static_cast<std::uint64_t>(r->number("N").value_or(0));
      const auto T = static_cast<std::uint64_t>(r->number("T").value_or(0));
      const auto taken = static_cast<std::uint64_t>(r->number("taken").value_or(0));
      const auto failed = static_cast<std::uint64_t>(r->number("failed").value_or(0));
      const std::uint64_t asked = N * n, served = std::min(asked, T);
      const std::string algo = r->text("algo").value_or("?");
      algos += (algos.empty() ? "" : ", ") + algo;
      if (taken != served || failed != asked - served) {
        out.exact = false;
        off += fmt::format("{}{} took {} and failed {} of {}", off.empty() ? "" : ", ", algo, taken,
                           failed, asked);
      }
    }
    const std::uint64_t asked = threads * n;
    out.text += fmt::format(
        " n = {} ({}): {}{}.", n, algos,
        asked <= slots ? fmt::format("{} requests, every one served", asked)
                       : fmt::format("{} requests, all {} slots served and exactly {} failed",
                                     asked, slots, asked - slots),
        off.empty() ? "" : "; but " + off);
  }
  return out;
}

// `alloclab wator|linux-scalability --backend gpu` rows (columns app and backend), apart from the
// workload and measure rows.
bool is_app_row(const Record& r) {
  return r.text("app").has_value() && r.text("backend").value_or("") == "gpu";
}

// Wa-Tor on the GPU, dynasoar's rows: per r the mean F over the second half of the iterations
// (a summary row's steady_fragmentation, or the mean of the per-iteration rows from iteration
// (last + 1) / 2 on, as the run computes it) and the kernel time an iteration.
struct WatorGpu {
  std::string text;
  std::map<unsigned, double> F, ms;
  bool verified = true;
};
WatorGpu gpu_wator(const std::vector<Record>& rows) {
  struct Acc {
    std::vector<std::pair<double, double>> it;  // iteration, F
    double ms = 0, n = 0, summary_F = -1, summary_ms = -1;
  };
  std::map<unsigned, Acc> by_r;
  std::string device;
  std::uint64_t cells = 0, last = 0;
  WatorGpu out;
  for (const Record& r : rows) {
    if (r.text("app").value_or("") != "wator" || r.text("allocator").value_or("") != "dynasoar")
      continue;
    out.verified = out.verified && record_flag(r, "verified");
    device = r.text("device").value_or(device);
    cells = static_cast<std::uint64_t>(r.number("cells").value_or(0));
    Acc& a = by_r[static_cast<unsigned>(r.number("retries").value_or(0))];
    if (const auto F = r.number("steady_fragmentation")) {
      a.summary_F = *F;
      a.summary_ms = r.number("ms_per_iteration").value_or(-1);
      last = std::max(last, static_cast<std::uint64_t>(r.number("iterations").value_or(0)));
    } else if (const auto i = r.number("iteration")) {
      a.it.emplace_back(*i, r.number("fragmentation").value_or(0));
      if (*i >= 1) {
        a.ms += r.number("kernel_ms").value_or(0);
        ++a.n;
      }
      last = std::max(last, static_cast<std::uint64_t>(*i));
    }
  }
  if (by_r.empty()) return out;
  std::string per_r;
  for (const auto& [r, a] : by_r) {
    double F = a.summary_F, ms = a.summary_ms;
    if (F < 0) {
      double sum = 0, n = 0;
      for (const auto& [i, f] : a.it)
        if (i >= static_cast<double>((last + 1) / 2)) {
          sum += f;
          ++n;
        }
      F = n > 0 ? sum / n : 0;
      ms = a.n > 0 ? a.ms / a.n : 0;
    }
    out.F[r] = F;
    out.ms[r] = ms;
    per_r += fmt::format("{}{:.1f}% (r = {}, {:.2f} ms of kernels an iteration)",
                         per_r.empty() ? "" : ", ", 100 * F, r, ms);
  }
  out.text = fmt::format(
      "{}, alloclab's Wa-Tor on the GPU (parallel_do kernels), {} cells, {} iterations, {}: mean "
      "F over iterations {}-{} = {}",
      device, cells, last, out.verified ? "every batch and iteration verified" : "NOT all verified",
      (last + 1) / 2, last, per_r);
  return out;
}

// linux-scalability on the GPU (`alloclab linux-scalability --backend gpu`): is the largest n
// the heap's capacity over the threads, and did the next n fail exactly the requests beyond it?
Scalability gpu_app_scalability(const std::vector<Record>& rows) {
  Scalability out;
  for (const Record& r : rows) {
    // A run stopped by --max-n (Fig. 14B's heap sweep) found no limit: not Fig. 14A's.
    if (r.text("app").value_or("") != "linux-scalability" || is_heap_sweep_row(r)) continue;
    auto num = [&r](const char* k) { return static_cast<std::uint64_t>(r.number(k).value_or(0)); };
    const std::uint64_t threads = num("threads"), cap = num("capacity"), n = num("n_max"),
                        next = num("next_n"), failed = num("next_failed");
    const std::string algo = r.text("allocator").value_or("?");
    const bool exact = record_flag(r, "verified") && threads * n <= cap &&
                       threads * (n + 1) > cap && (next == 0 || failed == threads * next - cap);
    out.exact = out.exact && exact;
    if (out.text.empty())
      out.text = fmt::format(
          "{}, ONE kernel of {} threads each allocating n objects of {} B in {} MiB, then one "
          "free kernel (alloclab linux-scalability --backend gpu):",
          r.text("device").value_or("?"), threads, num("object_bytes"), num("heap_bytes") >> 20);
    out.text += fmt::format(
        " {}{}: n = {}, {:.1f}% of the heap ({:.1f} ms alloc kernel, {:.1f} ms free), n = {} "
        "failed {} of {}{}.",
        algo, r.text("heap").value_or("") == "typed" ? " (typed heap)" : "", n,
        100 * r.number("utilisation").value_or(0), r.number("alloc_ms").value_or(0),
        r.number("free_ms").value_or(0), next, failed, threads * next,
        exact ? " (exactly those beyond the slots)" : " (NOT exactly those beyond the slots)");
  }
  return out;
}

}  // namespace

std::vector<Record> read_dynasoar_dir(const std::string& dir) {
  return read_records_dir(dir, kDynasoarDir);
}

TimeRatios alloc_time_ratios(const std::vector<Record>& rows, const std::string& slow) {
  // alloc_ms of each allocator per size, in row order (cold and warm runs pair by order).
  std::map<std::pair<std::string, double>, std::vector<double>> ms;
  TimeRatios out;
  for (const Record& r : rows) {
    if (r.text("workload").value_or("") != "alloc" || !record_flag(r, "verified")) continue;
    const auto t = r.number("alloc_ms");
    if (!t || *t <= 0) continue;
    ms[{r.text("allocator").value_or(""), r.number("size").value_or(0)}].push_back(*t);
    if (const auto d = r.text("device")) out.device = *d;
  }
  for (const auto& [key, fast] : ms) {
    if (key.first != "dynasoar") continue;
    const auto it = ms.find({slow, key.second});
    if (it == ms.end()) continue;
    for (std::size_t i = 0; i < std::min(fast.size(), it->second.size()); ++i) {
      const double x = it->second[i] / fast[i];
      out.lo = out.pairs == 0 ? x : std::min(out.lo, x);
      out.hi = out.pairs == 0 ? x : std::max(out.hi, x);
      ++out.pairs;
    }
  }
  return out;
}

namespace {
// The floor of a speed verdict (validation/speed_floor.hpp): the allocator's verified alloc
// rows, one point a size (its first timed row), against the atomics a request its rows counted.
std::vector<FloorPoint> alloc_floor_points(const std::vector<Record>& rows,
                                           const std::string& allocator) {
  std::map<double, const Record*> timed;
  std::map<double, double> atomics;
  std::string device;
  for (const Record& r : rows) {
    if (r.text("workload").value_or("") != "alloc" || !record_flag(r, "verified") ||
        r.text("allocator").value_or("") != allocator)
      continue;
    const double size = r.number("size").value_or(0);
    if (const auto a = r.number("atomics_per_op"); a && !atomics.count(size)) atomics[size] = *a;
    if (r.number("alloc_ms").value_or(0) > 0 && !timed.count(size)) timed[size] = &r;
    if (const auto d = r.text("device")) device = *d;
  }
  std::string why;
  const auto rate = device_atomic_throughput(device, why);
  std::vector<FloorPoint> out;
  for (const auto& [size, r] : timed) {
    const std::string label = fmt::format("{} {:.0f} B", allocator, size);
    const auto a = atomics.find(size);
    out.push_back(floor_point(label, *r->number("alloc_ms"),
                              a == atomics.end() ? std::nullopt : std::optional<double>(a->second),
                              r->number("requests").value_or(r->number("N").value_or(0)), rate, why,
                              "the alloc rows of " + label));
  }
  return out;
}
}  // namespace

std::vector<ClaimCheck> dynasoar_claims(const std::vector<Record>& dir_rows) {
  std::vector<ClaimCheck> out;
  // Workload rows; `measure` rows of linux-scalability; the applications' rows.
  std::vector<Record> gpu_rows, scalability_rows, app_rows;
  for (const Record& r : dir_rows)
    (is_app_row(r) ? app_rows : is_measure_row(r) ? scalability_rows : gpu_rows).push_back(r);
  bool gpu_verified = !gpu_rows.empty();
  for (const Record& r : gpu_rows) gpu_verified = gpu_verified && record_flag(r, "verified");
  bool apps_verified = true;
  for (const Record& r : app_rows) apps_verified = apps_verified && record_flag(r, "verified");
  std::string gpu_checked =
      gpu_rows.empty() ? std::string(kNoDynasoarGpuRows)
                       : fmt::format(
                             "{} GPU rows, {} verified (Def. 1 and every block on the host "
                             "after every phase)",
                             gpu_rows.size(), gpu_verified ? "all" : "not all");
  if (!app_rows.empty())
    gpu_checked += fmt::format(
        "; {} rows of the applications on the GPU's typed heap, {} verified (after every batch)",
        app_rows.size(), apps_verified ? "all" : "not all");

  {  // §3.2: block capacity.
    ClaimCheck c{"§3.2",
                 "N_T = floor(64 size(T_s) / size(T)); N_T < 32 above 2x the smallest; types "
                 "more than 64x the smallest are unsupported",
                 "",
                 "",
                 "-",
                 ""};
    const auto t = dynasoar::parse_types("--types", "60,64,100");
    c.model = fmt::format(
        "60, 64, 100 B: N = {}, {}, {} (block 64 x 60 B = 3840 B; 100 B wastes "
        "{} B of each block)",
        t.capacity(1), t.capacity(2), t.capacity(3), 3840 - t.capacity(3) * 100);
    TypedHeap h(heap_of("60,64", 2, TypedMode::sequential));
    std::vector<TypedRequest> batch(61, TypedRequest{2, 0});
    std::size_t in_first = 0;
    for (const auto& o : h.allocate(batch)) in_first += o && o->block == 0;
    bool refused = false;
    try {
      dynasoar::parse_types("--types", "60,3841");
    } catch (const InputError&) {
      refused = true;
    }
    c.simulation = fmt::format(
        "61 objects of 64 B beside a 60 B type: {} in the first block, the 61st in the second; "
        "3841 B beside 60 B {}",
        in_first, refused ? "refused (input error)" : "accepted");
    const bool capacity_holds = in_first == 60 && refused;
    c.verdict = capacity_holds ? "holds" : "does not hold";
    c.judgement = capacity_holds ? Judgement::holds : Judgement::does_not_hold;
    out.push_back(c);
  }

  {  // §4.1: Def. 1 and logarithmic find.
    ClaimCheck c{"§4.1, Def. 1",
                 "container consistency: each upper bit = OR of its 64 children (eventually, and "
                 "whenever no operation is in flight)",
                 "-",
                 "",
                 gpu_checked,
                 ""};
    c.simulation =
        "checked at rest after every batch of every run (Wa-Tor and linux-scalability below, "
        "the simulator's four allocators): no inconsistency (a run that found one would stop "
        "with exit 3)";
    const bool consistent = (gpu_rows.empty() || gpu_verified) && apps_verified;
    c.verdict = consistent ? "holds" : "does not hold on the GPU";
    c.judgement = consistent ? Judgement::holds : Judgement::does_not_hold;
    out.push_back(c);
  }
  {
    ClaimCheck c{
        "§4.1", "set bits are found with a logarithmic number of memory accesses", "", "", "-", ""};
    std::string sim_text, model_text;
    bool all = true;
    for (const std::uint64_t M : {1ull, 65ull, 4097ull}) {
      TypedHeap h(heap_of("64", M, TypedMode::sequential));
      h.allocate({TypedRequest{1, 0}});
      const dynasoar::DsCounts before = h.counts();
      h.allocate({TypedRequest{1, 0}});
      const unsigned loads = h.counts().bitmap.loads - before.bitmap.loads;
      const unsigned atomics = h.counts().bitmap.atomics - before.bitmap.atomics;
      all = all && loads == dm::try_find_set_cost(M).loads && atomics == 0;
      model_text +=
          fmt::format("{}M = {}: L = {}", model_text.empty() ? "" : "; ", M, dm::bitmap_levels(M));
      sim_text += fmt::format("{}M = {}: {} load{}, {} atomics", sim_text.empty() ? "" : "; ", M,
                              loads, loads == 1 ? "" : "s", atomics);
    }
    c.model = "try_find_set = L = ceil(log64 M) loads, no atomic; " + model_text;
    c.simulation = "a lookup that finds the active block: " + sim_text;
    c.verdict = all ? "holds" : "does not hold";
    c.judgement = all ? Judgement::holds : Judgement::does_not_hold;
    out.push_back(c);
  }

  {  // §6.3: no fragmentation by design but type-bound free slots.
    ClaimCheck c{"§6.3",
                 "no internal or external fragmentation by design: only free slots bound to a "
                 "block's type; F = sum (N_T - used) / sum N_T",
                 "",
                 "",
                 "-",
                 ""};
    TypedHeap h(heap_of("64", 200, TypedMode::lockstep));
    std::vector<TypedRequest> batch(200 * 64);
    for (std::uint64_t i = 0; i < batch.size(); ++i) batch[i] = TypedRequest{1, i / 32};
    std::vector<sim::TypedObject> gone;
    const PhiloxStream rng(7, StreamDomain::workload, 64);
    std::uint64_t k = 0;
    for (const auto& o : h.allocate(batch))
      if (o && rng.uniform01(k++) < 0.5) gone.push_back(*o);
    h.free(gone);
    TypedHeap typed(heap_of("60,64", 2, TypedMode::sequential));
    typed.allocate(std::vector<TypedRequest>(61, TypedRequest{2, 0}));
    const bool bound = !typed.allocate({TypedRequest{1, 0}})[0];
    c.model = fmt::format(
        "full blocks, each object freed with probability q: F = (q - q^N) / (1 - q^N) = {:.4f} "
        "at N = 64, q = 0.5",
        dm::thinned_fragmentation(64, 0.5));
    c.simulation = fmt::format(
        "200 full blocks of 64 B, half the objects freed at random: F = {:.4f}; 59 free slots "
        "of 64 B {} a 60 B object (type-bound)",
        h.fragmentation(), bound ? "cannot serve" : "served");
    const bool type_bound =
        bound && std::abs(h.fragmentation() - dm::thinned_fragmentation(64, 0.5)) < 0.03;
    c.judgement = type_bound ? Judgement::holds_qualified : Judgement::does_not_hold;
    c.verdict =
        type_bound
            ? "holds with a correction: free bytes are type-bound slots, plus 64 size(T_s) - "
              "N_T size(T) bytes at the end of each block of a type whose size does not divide "
              "it (internal)"
            : "does not hold";
    out.push_back(c);
  }

  {  // Fig. 13: Wa-Tor fragmentation and r.
    ClaimCheck c{"§6.3, Fig. 13",
                 "Wa-Tor: fragmentation about 18% after 500 iterations at r = 5; r = 2 halves it "
                 "against r = 1",
                 "-",
                 "",
                 kNoWatorRows,
                 ""};
    const WatorGpu gw = gpu_wator(app_rows);
    if (!gw.text.empty()) c.hardware = gw.text;
    double F[3] = {0, 0, 0};
    const unsigned rs[3] = {1, 2, 5};
    for (int i = 0; i < 3; ++i) {
      sim::WatorOptions o;
      o.heap = heap_of("60,64", 2048, TypedMode::lockstep);
      o.heap.retries = rs[i];
      o.width = o.height = 128;
      o.iterations = 500;
      F[i] = sim::run_wator(o).steady_fragmentation;
    }
    c.simulation = fmt::format(
        "alloclab's Wa-Tor (the authors' rules and constants), 128 x 128 cells, 500 iterations, "
        "lockstep, every batch verified: mean F over iterations 250-500 = {:.1f}% (r = 1), "
        "{:.1f}% (r = 2), {:.1f}% (r = 5); studies/dynasoar/: 300 x 300 cells give less",
        100 * F[0], 100 * F[1], 100 * F[2]);
    const bool halves = F[1] <= 0.6 * F[0];
    const bool near18 = F[2] < 0.25;
    // A figure measured on the paper's GPU, checked here in a smaller simulated sea: agreement is
    // qualified by the setting, and a miss cannot rule the paper's figure out.
    const Judgement sim_judgement =
        near18 && halves ? Judgement::holds_qualified : Judgement::not_reproduced;
    const std::string sim_verdict =
        fmt::format("{}: r lowers F ({}), {}",
                    near18 && halves ? "holds" : "does not hold in the simulator at this size",
                    F[2] < F[0] ? "r = 5 below r = 1" : "not monotonically",
                    halves ? "r = 2 about halves it" : "r = 2 does not halve it");
    if (gw.F.count(1) && gw.F.count(2) && gw.F.count(5)) {
      const double g1 = gw.F.at(1), g2 = gw.F.at(2), g5 = gw.F.at(5);
      const bool g_halves = g2 <= 0.6 * g1, g_near18 = g5 < 0.25;
      // The GPU decides where its rows are verified (a fragmentation figure: a miss does not
      // hold; near 18% without the halving holds in part); unverified rows leave the simulator's.
      c.judgement = !gw.verified           ? sim_judgement
                    : g_near18 && g_halves ? Judgement::holds
                    : g_near18             ? Judgement::holds_qualified
                                           : Judgement::does_not_hold;
      c.verdict = fmt::format(
          "on the GPU: {} (r = 5: {:.1f}%{}; r = 2 {} r = 1's {:.1f}%); in the simulator at 128 x "
          "128: {}",
          !gw.verified           ? "not all rows verified"
          : g_near18 && g_halves ? "holds"
          : g_near18             ? "holds in part"
                                 : "does not hold",
          100 * g5, g_near18 ? ", near the paper's 18%" : ", above the paper's 18%",
          g_halves ? "about halves" : "does not halve", 100 * g1, sim_verdict);
    } else {
      c.verdict = sim_verdict + (gw.F.empty() ? "" : "; the GPU rows lack r = 1, 2 or 5");
      c.judgement = sim_judgement;
    }
    out.push_back(c);
  }

  {  // Fig. 14A: linux-scalability.
    ClaimCheck c{"§6.4, Fig. 14A",
                 "linux-scalability (64 B, 1 GiB, 16,384 threads): DynaSOAr uses 96.9% of the "
                 "heap, BitmapAlloc 98.4%",
                 "-",
                 "",
                 "",
                 ""};
    const Scalability gpu = gpu_scalability(scalability_rows);
    const Scalability app = gpu_app_scalability(app_rows);
    c.hardware = !app.text.empty() ? app.text
                 : scalability_rows.empty()
                     ? "not measured at the paper's size here (DIR/dynasoar/**.csv: "
                       "reports/data/<gpu>/dynasoar-*/apps_linux_scalability.csv, `alloclab "
                       "linux-scalability --backend gpu`, studies/dynasoar/gpu-apps.md)"
                     : gpu.text;
    if (!app.text.empty() && !scalability_rows.empty()) c.hardware += " `measure`: " + gpu.text;
    sim::LinuxScalabilityOptions o;
    o.heap = heap_of("64", 256, TypedMode::lockstep);  // 1 MiB: 16,384 objects
    o.threads = 1024;
    const sim::LinuxScalabilityRun r = sim::run_linux_scalability(o);
    Scenario s;
    s.algo = Algorithm::bitmap_alloc;
    s.T = s.A = 4096;
    s.N = 4500;
    s.seed = 1;
    sim::SimOptions so;
    so.mode = sim::Mode::lockstep;
    const sim::RunResult b = sim::run_once(s, so, 0);
    c.simulation = fmt::format(
        "1024 threads on 1 MiB (256 blocks): n_max = {}, {:.1f}% of the heap, {} of {} slots "
        "when the first request failed, every block free after the frees: {}; BitmapAlloc, "
        "4500 requests on 4096 slots: {:.1f}% served",
        r.n_max, 100 * r.utilisation, r.allocated, r.capacity, r.blocks_left == 0 ? "yes" : "no",
        100.0 * static_cast<double>(b.taken) / static_cast<double>(s.T));
    const bool on_gpu = !scalability_rows.empty() || !app.text.empty();
    const bool lost = !gpu.exact || !app.exact;
    // No lost slot anywhere leaves nothing to set against the paper's layout overhead.
    c.judgement = lost ? Judgement::does_not_hold : Judgement::not_measured;
    c.verdict =
        lost ? "does not hold on the GPU: a run lost slots or served more than the heap holds"
             : std::string("not comparable: the allocators lose no slot in the simulator") +
                   (on_gpu ? " nor on the GPU" : "") +
                   " (out of memory is exact); the paper's 1.6-3.1% go to the heap's layout "
                   "(block headers, bitmaps), which alloclab keeps apart";
    out.push_back(c);
  }

  {  // §4.2: rotation and coalescing.
    const SimPoint d = lockstep_point(Algorithm::dynasoar);
    const SimPoint norot = lockstep_point(Algorithm::dynasoar_norot);
    const SimPoint nocoal = lockstep_point(Algorithm::dynasoar_nocoal);
    const TimeRatios rot = alloc_time_ratios(gpu_rows, "dynasoar-norot");
    const TimeRatios coal = alloc_time_ratios(gpu_rows, "dynasoar-nocoal");
    ClaimCheck r{"§4.2, Fig. 12c",
                 "bitmap rotation improves performance by an order of magnitude",
                 "-",
                 "",
                 ratio_text(rot),
                 ""};
    r.simulation = fmt::format(
        "4096 one-slot requests, half-full heap of 65,536, lockstep: {:.1f} steps a request "
        "without rotation, {:.1f} with ({:.1f}x)",
        norot.steps, d.steps, norot.steps / d.steps);
    r.verdict = rot.pairs == 0 ? "not measured on a GPU here; the simulator's steps agree"
                : rot.lo >= 8  ? "holds"
                : rot.hi >= 8  ? "holds at some sizes"
                               : "missed on the GPU";
    // A speed claim: no GPU rows leave it unmeasured (the simulator counts steps, not time); a
    // miss is judged by the floor rule on DynaSOAr's own kernel (the one claimed fast).
    r.judgement = rot.pairs == 0 ? Judgement::not_measured
                  : rot.lo >= 8  ? Judgement::holds
                  : rot.hi >= 8  ? Judgement::holds_qualified
                                 : Judgement::not_reproduced;
    if (rot.pairs > 0 && rot.hi < 8) {
      const std::vector<FloorPoint> floors = alloc_floor_points(gpu_rows, "dynasoar");
      const FloorVerdict fv = judge_speed_miss(floors);
      r.hardware += "; DynaSOAr against its design floor: " + floor_cells(floors);
      r.judgement = fv.judgement;
      r.verdict = fv.text + "; " + r.verdict;
    }
    out.push_back(r);
    ClaimCheck k{"§4.2-4.3, Table 2",
                 "warp coalescing: a leader reserves several slots with one atomicOr "
                 "(DynaSOAr against DynaSOAr-NoCoal)",
                 "one atomicOr for k lanes of one type: 1/k a request (1/32 for a full warp)",
                 "",
                 ratio_text(coal),
                 ""};
    k.simulation = fmt::format(
        "same point: {:.3f} atomicOrs (reserve) a request with coalescing, {:.2f} without; "
        "{:.1f} and {:.1f} steps",
        d.reserves, nocoal.reserves, d.steps, nocoal.steps);
    k.verdict = coal.pairs == 0 ? "holds in the simulator; not measured on a GPU here"
                : coal.lo > 2   ? "holds (the paper gives no factor)"
                                : "missed on the GPU";
    // The GPU column times DynaSOAr against DynaSOAr-NoCoal: a miss there is a speed miss,
    // judged by the floor rule on DynaSOAr's kernel.
    k.judgement = coal.pairs == 0 ? Judgement::holds_qualified
                  : coal.lo > 2   ? Judgement::holds
                                  : Judgement::not_reproduced;
    if (coal.pairs > 0 && coal.lo <= 2) {
      const std::vector<FloorPoint> floors = alloc_floor_points(gpu_rows, "dynasoar");
      const FloorVerdict fv = judge_speed_miss(floors);
      k.hardware += "; DynaSOAr against its design floor: " + floor_cells(floors);
      k.judgement = fv.judgement;
      k.verdict = fv.text + "; " + k.verdict;
    }
    out.push_back(k);
  }

  for (auto [where, claim, why] : std::initializer_list<std::array<const char*, 3>>{
           {"App. A.5, Def. 3, Lemma 5",
            "legal multisets of bitmap operations keep consistency and always progress; illegal "
            "ones deadlock",
            "not measured here: core/tests/dynasoar_schedules_test.cpp runs 300 random schedules "
            "of legal operations, all of which end consistent; illegal multisets are not run"},
           {"App. A.1",
            "linearization points: reserve at Alg. 6's atomicOr, free at Alg. 7's "
            "atomicAnd",
            "not measured: a design statement; the step machines hand out a slot at the "
            "atomicOr's result and free it at the atomicAnd (the App. A.3-A.4 case tests)"},
           {"§2.2", "global memory 400-800 cycles against 6-24 for arithmetic",
            "not measured: no latency micro-benchmark in alloclab"},
           {"§6.1-6.2, Fig. 10-11", "application speed-ups up to 3x; up to 2x larger problems",
            "not measured: the SMMO applications are not built"}})
    out.push_back(ClaimCheck{where, claim, "-", "-", "-", why, Judgement::not_measured});
  out.push_back(dynasoar_heap_size_claim(dir_rows));
  return out;
}

}  // namespace alloclab::validation
