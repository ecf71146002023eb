// Seed 002's claims about its design (§3.1 threads, §3.2 size classes, §4.1 the page queue's
// cost, §4.2 the chunk queue's worst case), checked from the layout, the model and the simulator,
// with the GPU rows where they say something.
#include <fmt/format.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "alloclab/core/ouroboros/bulk_semaphore.hpp"
#include "alloclab/core/ouroboros/config.hpp"
#include "alloclab/core/ouroboros/layout.hpp"
#include "alloclab/core/workload.hpp"
#include "alloclab/cpu_sim/simulator.hpp"
#include "alloclab/cpu_sim/workload_runner.hpp"
#include "alloclab/model/ouro_tickets.hpp"
#include "ouroboros_claims_support.hpp"

namespace alloclab::validation::ouro_claims {

namespace {
constexpr std::uint64_t kThreadsPerSm = 2048;  // resident threads per SM, Volta to Hopper
}  // namespace

ClaimCheck resident_threads() {
  ClaimCheck c{"§3.1", "Up to 172k threads are active at once (GV100)", "", "-", "-", ""};
  const std::uint64_t negative = std::uint64_t{1} << 19;  // the count's bias, bulk_semaphore.hpp
  static_assert(ouro::kSemCountBias == (std::int32_t{1} << 19));
  c.model = fmt::format(
      "{} resident threads an SM: a full GV100 (84 SMs) {}, the TITAN V (80 SMs) {}, an H100 SXM "
      "(132 SMs) and an H200 {}; every request in flight can dip the semaphore's count once, and "
      "alloclab's count has {} below zero",
      kThreadsPerSm, 84 * kThreadsPerSm, 80 * kThreadsPerSm, 132 * kThreadsPerSm, negative);
  c.verdict = fmt::format(
      "holds: 84 x {} = {} (the paper's GPU ran 80 SMs: {}); the counters' range is sized for "
      "the H200's {}",
      kThreadsPerSm, 84 * kThreadsPerSm, 80 * kThreadsPerSm, 132 * kThreadsPerSm);
  c.judgement = Judgement::holds;  // arithmetic on the GV100's SMs
  return c;
}

ClaimCheck size_classes(const std::vector<WorkloadRow>& rows) {
  ClaimCheck c{"§3.2", "An 8 KiB chunk and 10 queues give pages of 16 B to 8 KiB", "", "", "", ""};
  c.model =
      fmt::format("chunk {} B, {} classes: class k has pages of {} x 2^k B, {} to {} B",
                  ouro::kChunkBytes, ouro::kPageClasses, ouro::kSmallestPageBytes,
                  ouro::kSmallestPageBytes, ouro::kSmallestPageBytes << (ouro::kPageClasses - 1));
  // One request of every class, each allocator of the two variants, from a 1 MiB pool.
  std::vector<std::string> failed;
  for (Algorithm a : {Algorithm::ouro_p_s, Algorithm::ouro_c_s})
    for (unsigned k = 0; k < ouro::kPageClasses; ++k) {
      const Scenario s = point(a, 64, ouro::kSmallestPageBytes << k, std::uint64_t{1} << 20);
      const sim::RunResult r = sim::run_once(s, sim::SimOptions{}, 0);
      if (r.failed != 0)
        failed.push_back(fmt::format("{} {} B", name(a), ouro::kSmallestPageBytes << k));
    }
  c.simulation = failed.empty()
                     ? "sequential: 64 requests of each of the 10 sizes served by ouro-p-s and "
                       "ouro-c-s from 1 MiB, every run verified"
                     : "sequential: not served: " + join(failed);
  std::set<std::uint64_t> sizes;
  std::string device;
  for (const auto& r : rows)
    if (r.backend == "gpu" && is_ouroboros(r.allocator) && r.size_bytes && r.verified) {
      sizes.insert(*r.size_bytes);
      device = r.device;
    }
  std::vector<std::string> served;
  for (auto s : sizes) served.push_back(fmt::format("{}", s));
  c.hardware = sizes.empty() ? std::string(kNoGpuRows)
                             : fmt::format("{}: verified rows at {} B", device, join(served, ", "));
  c.verdict = failed.empty() ? "holds" : "does not hold: some class is not served";
  c.judgement = failed.empty() ? Judgement::holds : Judgement::does_not_hold;
  return c;
}

ClaimCheck page_queue_constant(const std::vector<WorkloadRow>& rows) {
  ClaimCheck c{"§4.1", "The page queue allocates in O(1) while it holds free pages", "", "", "",
               ""};
  // Requests of 16 B filling 1 and 10 chunks, from pools of 16 MiB and 1 GiB: the mean cost per
  // request stays the same (each chunk's grow and its 511 hits cost alike).
  std::vector<double> model, simulated;
  for (std::uint64_t pool : {std::uint64_t{16} << 20, std::uint64_t{1} << 30})
    for (std::uint64_t n : {512u, 5120u}) {
      model.push_back(model_number(point(Algorithm::ouro_p_s, n, 16, pool), "tas"));
      simulated.push_back(
          simulate(point(Algorithm::ouro_p_s, n, 16, pool), sim::Mode::sequential).tas);
    }
  const bool constant =
      std::all_of(model.begin(), model.end(), [&](double v) { return v == model.front(); }) &&
      simulated == model;
  c.model = fmt::format(
      "ouro-p-s, 512 and 5120 requests of 16 B from 16 MiB and from 1 GiB: tas {:.6g}, {:.6g}, "
      "{:.6g}, {:.6g} memory operations. A hit's atomics: the semaphore's subtraction and the "
      "ticket on front, on words every request shares, and its slot's exchange; paper 000's "
      "queue model applies to the tickets, with one ticket a warp group: {:.6g} atomics a request "
      "(g = 32, {:.6g} alone), and 2^20 requests wait {:.1f} positions on front on average "
      "against the queue model's {:.1f} (model/ouro_tickets.hpp)",
      model[0], model[1], model[2], model[3], model::ouro_p_hit_atomics_per_request(32),
      model::ouro_p_hit_atomics_per_request(1),
      model::ouro_p_ticket_positions(std::uint64_t{1} << 20, 32),
      model::ouro_p_ticket_positions(std::uint64_t{1} << 20, 1));
  const WorkloadPoint hits = lockstep_churn_round(Algorithm::ouro_p_s);
  c.simulation = fmt::format(
      "sequential, the same points: {:.6g}, {:.6g}, {:.6g}, {:.6g}; lockstep churn round of "
      "16384 x 256 B (every request a hit): {:.6g} atomics a request",
      simulated[0], simulated[1], simulated[2], simulated[3],
      static_cast<double>(hits.atomics_issued) / static_cast<double>(hits.requests));
  std::vector<std::string> hw;
  for (const auto& [key, row] : gpu_rows(rows, "alloc")) {
    const auto& [algo, mode, size, pool] = key;
    if (algo != Algorithm::ouro_p_s || mode != "gpu-warm") continue;
    if (const auto steps = row.number("steps_mean"))
      hw.push_back(fmt::format("{} B {:.3g} ({:.4g} atomics)", size, *steps,
                               row.number("atomics_per_op").value_or(0)));
  }
  c.hardware = hw.empty()
                   ? std::string(kNoGpuRows)
                   : "warm (every request finds a page), memory operations a request: " + join(hw);
  c.verdict = constant ? "holds: a request's cost depends on neither the pool nor the requests "
                         "before it (without contention: under a burst of grows reservers wait, "
                         "and the tickets on front queue as paper 000's queue, one a warp group)"
                       : "does not hold: the cost grows";
  // O(1) without contention: under a burst of grows the reservers and front's tickets wait.
  c.judgement = constant ? Judgement::holds_qualified : Judgement::does_not_hold;
  return c;
}

ClaimCheck chunk_queue_worst_case() {
  ClaimCheck c{
      "§4.2", "The chunk queue's worst case is the page queue's size (a free page a chunk)",
      "",     "-",
      "-",    ""};
  // The paper's 2 GiB pool: 262,144 chunks.
  const std::uint64_t chunks = (std::uint64_t{2} << 30) / ouro::kChunkBytes;
  const std::uint64_t ring = ouro::chunk_ring_capacity(chunks);
  c.model = fmt::format(
      "a chunk is in its queue at most once, so C's queue holds at most the pool's chunks: {} for "
      "2 GiB, as many as a page queue holds when each chunk has one free page; alloclab's C ring "
      "has {} entries of 8 B ({} KiB) a class, P's {} of 4 B ({} KiB)",
      chunks, ring, ring * 8 / 1024, ouro::kDefaultQueueCapacity,
      std::uint64_t{ouro::kDefaultQueueCapacity} * 4 / 1024);
  c.verdict =
      "holds: one entry a chunk bounds C's queue by the chunks, which equals the pages only when "
      "every chunk has a single free page";
  c.judgement = Judgement::holds;  // one entry a chunk, by construction
  return c;
}

}  // namespace alloclab::validation::ouro_claims
