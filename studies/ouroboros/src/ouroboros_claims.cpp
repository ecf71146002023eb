#include "alloclab/studies/ouroboros_claims.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "alloclab/core/ouroboros/bulk_semaphore.hpp"
#include "alloclab/core/ouroboros/index_queue.hpp"
#include "alloclab/core/ouroboros/layout.hpp"
#include "alloclab/core/workload.hpp"
#include "alloclab/cpu_sim/ouro_walk_replay.hpp"
#include "alloclab/cpu_sim/simulator.hpp"
#include "alloclab/cpu_sim/workload_runner.hpp"
#include "alloclab/model/model.hpp"
#include "alloclab/model/ouro_walk.hpp"
#include "ouroboros_claims_support.hpp"

namespace alloclab::validation {
namespace {

using namespace ouro_claims;

ClaimCheck chunk_allocation_constant(const std::vector<WorkloadRow>& rows) {
  ClaimCheck c{"§3.1", "Allocating a chunk is O(1)", "", "", "", ""};
  // One chunk of 256 B pages (32 requests), from pools of 16 MiB and 1 GiB.
  const std::uint64_t small = std::uint64_t{16} << 20, large = std::uint64_t{1} << 30;
  std::vector<std::string> model, sim;
  bool constant = true;
  for (Algorithm a : {Algorithm::ouro_p_s, Algorithm::ouro_c_s}) {
    const double m_small = model_number(point(a, 32, 256, small), "tas");
    const double m_large = model_number(point(a, 32, 256, large), "tas");
    const std::uint32_t s_small =
        simulate(point(a, 32, 256, small), sim::Mode::sequential).max_steps;
    const std::uint32_t s_large =
        simulate(point(a, 32, 256, large), sim::Mode::sequential).max_steps;
    constant = constant && m_small == m_large && s_small == s_large;
    model.push_back(
        fmt::format("{}: tas {:.4g} (16 MiB) and {:.4g} (1 GiB)", name(a), m_small, m_large));
    sim.push_back(
        fmt::format("{}: the grower's request {} and {} steps", name(a), s_small, s_large));
  }
  c.model = "32 requests of 256 B (one chunk), sequential: " + join(model);
  c.simulation = "sequential, the same: " + join(sim);
  std::vector<std::string> hw;
  for (const auto& [key, row] : gpu_rows(rows, "alloc")) {
    const auto& [algo, mode, size, pool] = key;
    const auto per_request = row.number("chunks_per_request");
    const auto requests = row.number("requests");
    if (mode != "gpu" || !per_request || !requests ||
        (algo != Algorithm::ouro_p_s && algo != Algorithm::ouro_c_s))
      continue;
    const double pages_per_chunk = static_cast<double>(ouro::kChunkBytes / size);
    hw.push_back(fmt::format("{} {} B: {:.0f} chunks grown, {:.0f} needed", name(algo), size,
                             *per_request * *requests, std::ceil(*requests / pages_per_chunk)));
  }
  c.hardware = hw.empty() ? std::string(kNoGpuRows)
                          : "cold, chunks grown against the chunks the pages need: " + join(hw);
  c.verdict = constant ? "holds: a grow costs the same whatever the pool's size"
                       : "does not hold: a grow's cost depends on the pool's size";
  c.judgement = constant ? Judgement::holds : Judgement::does_not_hold;
  return c;
}

ClaimCheck full_check() {
  ClaimCheck c{"§3.3, Alg. 1", "The queue is full when `old > size`", "", "", "-", ""};
  const std::uint32_t size = 4;
  const bool printed =
      ouro::index_queue_admits(static_cast<std::int32_t>(size), size, ouro::FullCheck::printed);
  const bool correct =
      ouro::index_queue_admits(static_cast<std::int32_t>(size), size, ouro::FullCheck::correct);
  c.model = fmt::format(
      "a ring of {} slots holding {}: the printed check {} a fifth enqueue, "
      "`old < size` {} it",
      size, size, printed ? "admits" : "refuses", correct ? "admits" : "refuses");
  c.simulation = "`core/tests/ouro_index_queue_test.cpp` replays the (size + 1)-th enqueue";
  c.verdict = printed && !correct ? "does not hold as printed (off by one; the public code checks "
                                    "`old < size`)"
                                  : "holds";
  c.judgement = printed && !correct ? Judgement::does_not_hold : Judgement::holds;
  return c;
}

ClaimCheck semaphore_range(const std::vector<WorkloadRow>& rows) {
  ClaimCheck c{"§3.4, §6", "C, E and R in 21 bits each; queues of 2,000,000 pages", "", "", "", ""};
  const std::int64_t paper = 2'000'000;
  c.model = fmt::format(
      "21 bits hold at most 2^21 - 1 = 2,097,151; with the count's bias C holds at most {} "
      "pages, so {} do {}fit; each class's queue holds 2^20 = {} pages by default",
      ouro::kMaxUnits, paper, ouro::sem_fits(paper, 0, 0) ? "" : "not ",
      ouro::kDefaultQueueCapacity);
  c.simulation = "the same range checks (`--queue-capacity` above it is an input error)";
  std::vector<std::string> hw;
  for (const auto& [key, row] : gpu_rows(rows, "oom")) {
    const auto& [algo, mode, size, pool] = key;
    // Pools with more 16 B pages than a class may hold: where its range, not the pool, stops it.
    if (size != 16 || algo != Algorithm::ouro_p_s ||
        pool / ouro::kSmallestPageBytes <= ouro::kDefaultQueueCapacity)
      continue;
    if (const auto n = row.number("count_at_failure"))
      hw.push_back(fmt::format("{} oom at 16 B in {}: the first failure after {:.0f} objects ({})",
                               name(algo), bytes_label(row.pool_bytes()), *n, row.device()));
  }
  c.hardware = hw.empty() ? kNoGpuRows : join(hw);
  c.verdict = ouro::sem_fits(paper, 0, 0)
                  ? "holds"
                  : "holds with a correction: a 21-bit count cannot hold the paper's "
                    "2,000,000-page queues";
  c.judgement = ouro::sem_fits(paper, 0, 0) ? Judgement::holds : Judgement::holds_qualified;
  return c;
}

// C's walk under concurrency (model/ouro_walk.hpp): the model at the GPU's scale, the replay and
// the simulator's churn rounds beside it, and the GPU's walks read through it.
constexpr std::uint64_t kH200ResidentThreads = 132 * 2048;  // SMs x resident threads per SM

std::string walk_model_text() {
  std::vector<std::string> at;
  for (std::uint64_t bytes : {16u, 256u, 4096u}) {
    const auto f = ouro::pages_per_chunk(
        ouro::page_class_of_units(static_cast<std::uint32_t>(bytes / ouro::kSmallestPageBytes)));
    at.push_back(
        fmt::format("{} B {:.4g}", bytes, model::walk_uniform(kH200ResidentThreads, f, 0)));
  }
  return fmt::format(
      "lanes starting together at front take the free pages in queue order, so c lanes over "
      "chunks of f free pages behind D dead entries walk D + (f q(q-1)/2 + r q)/c positions "
      "(q = floor(c/f), r = c - qf; about c/2f), and a churn round that frees pages on K queued "
      "chunks and takes them all again (K-1)/2; at {} lanes (an H200's resident threads) on "
      "fresh chunks: {}",
      kH200ResidentThreads, join(at, ", "));
}

std::string walk_simulation_text(double* churn_ratio) {
  std::vector<std::uint32_t> entries(8, 0);  // 8 holes, then chunks of 32 free pages of 256 B
  entries.resize(8 + 40, 32);
  const sim::WalkReplay replay = sim::replay_lanes_together(4, entries, 1000);
  const WorkloadPoint round = lockstep_churn_round(Algorithm::ouro_c_s);
  double walk = 0;
  for (const auto& [count, total] : round.op_counts)
    if (count == "traversal")
      walk = static_cast<double>(total) / static_cast<double>(round.requests);
  const double refill = model::walk_after_refill(16384 * 256 / ouro::kChunkBytes);
  *churn_ratio = walk / refill;
  return fmt::format(
      "1000 lanes together behind 8 holes on 256 B chunks of 32 free pages: replay {:.6g}, "
      "model {:.6g}; lockstep churn round, 16384 x 256 B (K = 512): walk {:.4g}, model {:.4g}",
      replay.mean_walk, model::walk_uniform(1000, 32, 8), walk, refill);
}

ClaimCheck c_slower_than_p(const std::vector<WorkloadRow>& rows) {
  ClaimCheck c{"§4.2, §6.1", "C is slower than P: front is not advanced as fast, so lanes walk",
               "",           "",
               "",           ""};
  const std::uint64_t pool = std::uint64_t{16} << 20;
  const double mp = model_number(point(Algorithm::ouro_p_s, 4096, 256, pool), "tas");
  const double mc = model_number(point(Algorithm::ouro_c_s, 4096, 256, pool), "tas");
  c.model = fmt::format(
      "sequential, 4096 x 256 B: tas C {:.4g}, P {:.4g} memory operations; traversal {:.0f}. "
      "Under concurrency: {}",
      mc, mp, model_number(point(Algorithm::ouro_c_s, 4096, 256, pool), "traversal"),
      walk_model_text());
  const SimRun sp = simulate(point(Algorithm::ouro_p_s, 4096, 256, pool), sim::Mode::lockstep);
  const SimRun sc = simulate(point(Algorithm::ouro_c_s, 4096, 256, pool), sim::Mode::lockstep);
  double churn_ratio = 0;
  c.simulation = fmt::format(
      "lockstep, 4096 x 256 B in 16 MiB: rounds per lane C {:.4g}, P {:.4g}; C's walk {:.3g} "
      "positions a request. {}",
      sc.tas, sp.tas, sc.per_request.count("traversal") ? sc.per_request.at("traversal") : 0.0,
      walk_simulation_text(&churn_ratio));
  const auto alloc = gpu_rows(rows, "alloc");
  const Ratios r = alloc_ratios(alloc, Algorithm::ouro_c_s, Algorithm::ouro_p_s);
  if (!r.any()) {
    c.hardware = kNoGpuRows;
    c.verdict = "not measured on a GPU here";
    c.judgement = Judgement::not_measured;
    return c;
  }
  // Cold walks read as lanes walking together on fresh chunks; warm walks start behind the holes
  // the warm-up's flashes left (one per chunk it used).
  std::vector<std::string> walk;
  for (const auto& [key, row] : alloc)
    if (std::get<0>(key) == Algorithm::ouro_c_s)
      if (const auto t = row.number("traversal_per_request")) {
        const bool cold = std::get<1>(key) == "gpu";
        const auto f = ouro::pages_per_chunk(ouro::page_class_of_units(
            static_cast<std::uint32_t>(std::get<2>(key) / ouro::kSmallestPageBytes)));
        const auto N = row.N().value_or(0);
        walk.push_back(
            cold ? fmt::format("{} B cold: {:.4g} (as {} lanes together)", std::get<2>(key), *t,
                               model::lanes_walking_together(*t, f))
                 : fmt::format("{} B warm: {:.4g} ({:.2f} of the {} holes ahead)", std::get<2>(key),
                               *t, *t / std::max<double>(1.0, static_cast<double>(N / f)), N / f));
      }
  // Churn rounds after the fill: the refill's (K - 1) / 2, K = the chunks the live set occupies.
  std::vector<std::string> churn;
  for (const auto& row : rows) {
    if (row.backend != "gpu" || row.workload != "churn" || row.allocator != Algorithm::ouro_c_s ||
        !row.size_bytes || *row.size_bytes > 256 || !row.N || row.round.value_or(0) != 1)
      continue;  // (at 16 and 256 B a round's frees leave every chunk partly used: all queued)
    const double freed = row.number("free_fraction").value_or(0);
    if (freed < 0.25 || freed > 0.75) continue;
    if (const auto t = row.number("traversal_per_request")) {
      const std::uint64_t K = *row.N * *row.size_bytes / ouro::kChunkBytes;
      churn.push_back(fmt::format("churn round 1, {} x {} B: walk {:.4g}, model (K-1)/2 = {:.4g}",
                                  *row.N, *row.size_bytes, *t, model::walk_after_refill(K)));
    }
  }
  c.hardware = fmt::format("{}, C / P: {}", r.device, join(r.items)) +
               (walk.empty() ? "" : "; C's walk, positions a request: " + join(walk)) +
               (churn.empty() ? "" : "; " + join(churn));
  c.verdict = (r.lo > 1 ? std::string("holds: C is slower at every size measured")
                        : fmt::format("holds in part: C / P from {:.2f}x to {:.2f}x", r.lo, r.hi)) +
              fmt::format(
                  "; the walk is the model's: lanes that start together pass every free page "
                  "ahead of theirs (replay exact, churn {:.3f} of the model in lockstep)",
                  churn_ratio);
  // Slower at some sizes only: a speed claim that holds in part.
  c.judgement = r.lo > 1 ? Judgement::holds : Judgement::holds_qualified;
  return c;
}

ClaimCheck virtualized_variance(const std::vector<WorkloadRow>& rows) {
  ClaimCheck c{
      "§6.1.1", "The virtualized queues (VA, VL) show little variance against S", "", "", "", ""};
  const std::uint64_t pool = std::uint64_t{16} << 20;
  std::vector<std::string> model, sim;
  for (const auto* family : {kP, kC}) {
    const double s_model = model_number(point(family[0], 4096, 256, pool), "tas");
    const double s_sim = simulate(point(family[0], 4096, 256, pool), sim::Mode::lockstep).tas;
    for (int v = 1; v < 3; ++v) {
      model.push_back(
          fmt::format("{} {:.2f}x", name(family[v]),
                      model_number(point(family[v], 4096, 256, pool), "tas") / s_model));
      sim.push_back(fmt::format(
          "{} {:.2f}x", name(family[v]),
          simulate(point(family[v], 4096, 256, pool), sim::Mode::lockstep).tas / s_sim));
    }
  }
  c.model = "sequential tas against S, 4096 x 256 B: " + join(model, ", ");
  c.simulation = "lockstep rounds per lane against S, 4096 x 256 B in 16 MiB: " + join(sim, ", ");
  const auto alloc = gpu_rows(rows, "alloc");
  std::vector<std::string> hw, far;
  std::vector<RowKey> far_points;  // the variants' points beyond 1.5x of S, for the floor
  std::string device;
  for (const auto* family : {kP, kC})
    for (int v = 1; v < 3; ++v) {
      const Ratios r = alloc_ratios(alloc, family[v], family[0]);
      if (!r.any()) continue;
      device = r.device;
      hw.push_back(fmt::format("{} / {}: {}", name(family[v]), name(family[0]), join(r.items)));
      if (r.hi > 1.5) far.push_back(fmt::format("{} up to {:.2f}x", name(family[v]), r.hi));
      for (const auto& [key, row] : alloc) {
        const auto& [algo, mode, size, bytes] = key;
        const auto s = alloc.find({family[0], mode, size, bytes});
        const auto x = row.number("alloc_ms");
        if (algo != family[v] || s == alloc.end() || !x) continue;
        const auto y = s->second.number("alloc_ms");
        if (y && *y > 0 && *x / *y > 1.5) far_points.push_back(key);
      }
    }
  if (hw.empty()) {
    c.hardware = kNoGpuRows;
    c.verdict = "not measured on a GPU here";
    c.judgement = Judgement::not_measured;
    return c;
  }
  c.hardware = device + ", alloc kernel: " + join(hw);
  c.judgement = Judgement::holds;
  c.verdict = "holds: every virtualized variant within 1.5x of S";
  if (!far.empty()) {
    // A speed claim alloclab's variants miss: judged by the floor rule (validation/
    // speed_floor.hpp), each far point of a variant against its counted atomics.
    std::string why;
    const auto rate = device_atomic_throughput(device, why);
    std::vector<FloorPoint> floors;
    for (const RowKey& key : far_points)
      floors.push_back(floor_point_of(key, alloc.at(key), rate, why));
    const FloorVerdict fv = judge_speed_miss(floors);
    c.hardware += "; the variants against their design floor: " + floor_cells(floors);
    c.judgement = fv.judgement;
    c.verdict = fv.text + "; the claim misses for " + join(far, ", ") +
                " (within 1.5x of S for the others)";
  }
  return c;
}

ClaimCheck static_sizes() {
  ClaimCheck c{"§5.1, §5.2",
               "VA's static size is 1/2048 of the queue; VL's is 3 pointers, with no size limit",
               "",
               "",
               "-",
               ""};
  const std::uint64_t pool = std::uint64_t{1} << 30;
  const double s = model_number(point(Algorithm::ouro_p_s, 1, 16, pool), "static_queue_bytes");
  const double va = model_number(point(Algorithm::ouro_p_va, 1, 16, pool), "static_queue_bytes");
  const double vl = model_number(point(Algorithm::ouro_p_vl, 1, 16, pool), "static_queue_bytes");
  c.model = fmt::format(
      "P, one class, 1 GiB pool: S's ring {:.0f} B, VA's references {:.0f} B (1/{:.0f}), VL's "
      "words {:.0f} B ({:.0f} words of 4 B)",
      s, va, va > 0 ? s / va : 0.0, vl, vl / 4);
  c.simulation =
      "the same layout (`core/ouroboros/queue_chunk.hpp`); the at-rest checks count "
      "the Queue-Chunks after every run";
  const bool fourth_word = vl / 4 > 3;
  c.verdict = fmt::format(
      "holds with corrections: VA needs ceil(capacity / 2048) + 2 references (1/{:.0f} here, "
      "1/2048 only in the limit) and Queue-Chunks from the pool; VL keeps {}",
      va > 0 ? s / va : 0.0, fourth_word ? "a fourth word (its trail count)" : "3 words");
  c.judgement = Judgement::holds_qualified;  // VA's ratio only in the limit, its chunks apart
  return c;
}

ClaimCheck utilisation_at_oom(const std::vector<WorkloadRow>& rows) {
  ClaimCheck c{"§6.1.3", "Utilisation at out of memory reaches 98.35% at 16 B", "", "-", "", ""};
  c.model = fmt::format(
      "a class holds at most {} pages (its semaphore's range): at 16 B at most {} of objects, "
      "so 100% of a pool up to that size and less beyond",
      ouro::kDefaultQueueCapacity,
      bytes_label(std::uint64_t{ouro::kDefaultQueueCapacity} * ouro::kSmallestPageBytes));
  std::vector<std::string> hw, below;
  for (const auto& [key, row] : gpu_rows(rows, "oom")) {
    const auto& [algo, mode, size, pool] = key;
    if (size != 16) continue;
    const auto u = row.number("utilisation");
    if (!u) continue;
    hw.push_back(
        fmt::format("{} {:.2f}% in {}", name(algo), 100 * *u, bytes_label(row.pool_bytes())));
    if (*u < 0.9835)
      below.push_back(fmt::format("{} in {}", name(algo), bytes_label(row.pool_bytes())));
  }
  if (hw.empty()) {
    c.hardware = kNoGpuRows;
    c.verdict = "not measured on a GPU here";
    c.judgement = Judgement::not_measured;
    return c;
  }
  c.hardware = join(hw, ", ");
  c.judgement = below.empty() ? Judgement::holds : Judgement::does_not_hold;  // a capacity
  c.verdict = below.empty() ? "holds in every pool measured"
                            : "does not hold for " + join(below, ", ") +
                                  " (a class's 2^20 pages, or the Queue-Chunks P over VA and VL "
                                  "keep for every page)";
  return c;
}

ClaimCheck address_range(const std::vector<WorkloadRow>& rows) {
  ClaimCheck c{"§6.1.3",
               "The address range of 100,000 allocations is the same for every variant, close to "
               "their size",
               "-",
               "-",
               "",
               ""};
  std::vector<std::string> hw;
  double lo = 0, hi = 0;
  for (const auto& [key, row] : gpu_rows(rows, "fragmentation")) {
    const auto range = row.number("address_range_bytes");
    if (!range || !row.N()) continue;
    const double ideal = static_cast<double>(*row.N()) * static_cast<double>(std::get<2>(key));
    const double ratio = *range / ideal;
    lo = hw.empty() ? ratio : std::min(lo, ratio);
    hi = hw.empty() ? ratio : std::max(hi, ratio);
    hw.push_back(fmt::format("{} {:.0f} B ({:.3f}x)", name(std::get<0>(key)), *range, ratio));
  }
  if (hw.empty()) {
    c.hardware = kNoGpuRows;
    c.verdict = "not measured on a GPU here";
    c.judgement = Judgement::not_measured;
    return c;
  }
  c.hardware = "fragmentation rows, range / (N x size): " + join(hw, ", ");
  c.judgement = hi <= 1.05 ? Judgement::holds : Judgement::holds_qualified;
  c.verdict = hi <= 1.05 ? "holds: every variant within 5% of the objects' size"
                         : fmt::format(
                               "holds in part: {:.3f}x to {:.3f}x of the objects' size "
                               "(the virtualized queues' Queue-Chunks lie among the pages)",
                               lo, hi);
  return c;
}

ClaimCheck churn_to_oom(const std::vector<WorkloadRow>& rows) {
  ClaimCheck c{"§6.1.3",
               "In the churn test (16 B, half of each batch freed: 50% growth) Ouroboros outlasts "
               "ScatterAlloc by about 200 and Halloc by about 300 iterations",
               "",
               "",
               "",
               ""};
  // An allocator that uses every page lasts 2P/B batches (b B/2 live after b batches; the
  // (2P/B)-th fails with the pool full).
  const std::uint64_t pool = std::uint64_t{1} << 20, batch = 4096;
  const std::uint64_t ideal = 2 * (pool / ouro::kSmallestPageBytes) / batch;
  c.model = fmt::format(
      "an allocator that uses every page of a {} pool lasts 2P/B = {} batches "
      "of {} x 16 B",
      bytes_label(pool), ideal, batch);
  std::vector<std::string> sim;
  for (const auto* family : {kP, kC})
    for (int v = 0; v < 3; ++v) {
      Workload w;
      w.family = WorkloadFamily::oom;
      w.size = {16, 16};
      w.pool_bytes = pool;
      w.page_bytes = ouro::kSmallestPageBytes;
      w.batch = batch;
      w.batch_free = 0.5;
      w.seed = 7;
      const WorkloadPoint p = sim::run_workload(family[v], w, {}, 0).points.front();
      sim.push_back(fmt::format("{} {}", name(family[v]),
                                p.batches_at_failure ? std::to_string(*p.batches_at_failure)
                                                     : std::string("none failed")));
    }
  c.simulation = "sequential, batches until the first failure: " + join(sim, ", ");
  std::vector<std::string> hw;
  for (const auto& r : rows)
    if (r.backend == "gpu" && r.workload == "oom" && is_ouroboros(r.allocator) &&
        r.number("batch_free").value_or(0) > 0)
      if (const auto b = r.number("batches_at_failure"))
        hw.push_back(fmt::format("{} {:.0f} batches of {:.0f} in {} ({})", name(r.allocator), *b,
                                 r.number("batch").value_or(0), bytes_label(r.pool_bytes),
                                 r.device));
  c.hardware = hw.empty() ? std::string(kNoGpuRows) + " with --batch-free" : join(hw);
  c.verdict =
      "not checkable here: ScatterAlloc and Halloc are not in alloclab; the batches "
      "each variant lasts are against the ideal 2P/B (the model column)";
  // The claim is against allocators alloclab does not build: the batches measured here are
  // shown, not judged.
  c.judgement = Judgement::not_measured;
  return c;
}

}  // namespace

std::vector<Erratum> ouroboros_errata() {
  std::vector<Erratum> out;
  const std::uint32_t size = 4;
  out.push_back(
      {"§3.3, Alg. 1 (enqueue)", "the queue is full when `old > size`",
       "full when old >= size: admit only while old < size (the public code's check)",
       fmt::format(
           "a ring of {} slots holding {}: the printed check {} a fifth enqueue, whose slot "
           "still holds a live page, so its CAS (Alg. 1 line 6) waits for ever "
           "(`index_queue_admits`; test `index queue: the printed full check admits a "
           "(size + 1)-th enqueue`; `alloclab check --allocator ouro-index-queue --N 1 --ops "
           "free --pool 1 --rule printed` finds the hang in 4 accesses). The correction is exact "
           "while the ring never has more pages than slots, as Ouroboros' page queues (their "
           "capacity): with more, neither check bounds the ring, since a dequeue that found it "
           "empty holds the count one low until it undoes (`alloclab check`, 4 threads x "
           "alloc,free on 2 slots: 3 pages in 2 slots, 22 accesses; docs/checking.md)",
           size, size,
           ouro::index_queue_admits(static_cast<std::int32_t>(size), size, ouro::FullCheck::printed)
               ? "admits"
               : "refuses"),
       "ouro-alg1-full-check"});
  const std::int64_t paper = 2'000'000;
  // The public code's count width, written out: it is not alloclab's kSemFieldBits (the paper's
  // 21). GPUPeople/Ouroboros, include/device/BulkSemaphore.cuh at commit
  // 5b600030ed65a88e55bfbb14569556cc66ac2d64: middle_mask_shift 25 (l. 51), the count biased by
  // null_value = 2^(25 - 1) (l. 83); its layout comment (l. 7) still says 20 + 1 bits.
  constexpr unsigned kPublicSemCountBits = 25;
  const std::int64_t public_most = (std::int64_t{1} << (kPublicSemCountBits - 1)) - 1;
  out.push_back(
      {"§3.4 and §6 (bulk semaphore, queue sizes)",
       "C, E and R in 21 bits each, with queues of 2,000,000 pages",
       fmt::format("a count that must also dip below zero (the fast path subtracts first) holds "
                   "at most {} pages in 21 bits with alloclab's bias of 2^19; queues of 2,000,000 "
                   "need a wider count, as the public code has (25-bit count and expected fields, "
                   "bias 2^24: at most {} pages, though its layout comment still says 20 + 1 "
                   "bits)",
                   ouro::kMaxUnits, public_most),
       fmt::format("{} {} into the packed word (`sem_fits`, `core/ouroboros/bulk_semaphore.hpp`); "
                   "the public code's widths: GPUPeople/Ouroboros, "
                   "`include/device/BulkSemaphore.cuh` at commit 5b600030, l. 51 and 83",
                   paper, ouro::sem_fits(paper, 0, 0) ? "fits" : "does not fit"),
       "ouro-21-bit-count"});
  out.push_back(
      {"§4.2, Alg. 4 (DEQUEUE)",
       "the thread that empties a chunk at position p moves front with atomicMax(front, p + 1)",
       "front may pass only entries some thread has read dead (alloclab: the walking lane's run, "
       "moved with a max and removed by that lane)",
       "with front at 0, a chunk with free pages at 0 and the chunk emptied at 1, atomicMax(front, "
       "2) leaves the pages at 0 counted by the semaphore but behind front, where no walk "
       "from front finds them (test `chunk queue: a lane moves front past the dead entries it "
       "read and removes them`)",
       "ouro-alg4-atomicmax"});
  const double vl = model_number(point(Algorithm::ouro_p_vl, 1, 16, std::uint64_t{1} << 30),
                                 "static_queue_bytes");
  out.push_back({"§5.2 (VLQ)", "the virtualized linked queue's static state is 3 pointers",
                 "4 words: front, back, old and the count of chunks between old and front that "
                 "deferred reclamation needs (the public code keeps it too)",
                 fmt::format("the model's static bytes of one VL class: {:.0f} ({:.0f} words of "
                             "4 B; `alloclab model --allocator ouro-p-vl`)",
                             vl, vl / 4),
                 "ouro-vlq-static"});
  return out;
}

std::vector<ClaimCheck> ouroboros_claims(const std::vector<WorkloadRow>& rows) {
  return {linked_queues_slower(rows),
          chunk_allocation_constant(rows),
          resident_threads(),
          size_classes(rows),
          full_check(),
          semaphore_range(rows),
          page_queue_constant(rows),
          c_slower_than_p(rows),
          chunk_queue_worst_case(),
          virtualized_variance(rows),
          static_sizes(),
          against_cuda_malloc(rows),
          utilisation_at_oom(rows),
          address_range(rows),
          churn_to_oom(rows)};
}

}  // namespace alloclab::validation
