// Seed 001's collective primitives (Gelado & Garland, PPoPP'19 §1, §4.2.2): "a whole thread block
// locks [the chunk list] together" and one list operation serves many allocations. alloclab's
// groups are a warp's (core/gelado/ualloc_chunk_group.hpp; studies/gelado-garland/ says why), so
// the row checks the part that carries over: growers served a chunk-mutex acquisition, from the
// model (at most 32, one chunk from TBuddy at most), the simulator's lockstep (a warp's growers
// that reach the mutex before it is taken) and the GPU's counted Figure 7 rows.
#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <vector>

#include "alloclab/core/gelado/ualloc_layout.hpp"
#include "alloclab/core/gelado/ualloc_pool.hpp"
#include "alloclab/cpu_sim/simulator.hpp"
#include "gelado_fig7_gpu.hpp"
#include "gelado_group_claim.hpp"

namespace alloclab::validation {

ClaimCheck collective_mutex_claim(const gelado_fig7::Figure& fig) {
  ClaimCheck c{"§4.2.2",
               "collective primitives: the chunk list's mutex is locked by a whole group at once, "
               "so one list operation serves many allocations",
               fmt::format("a group is a warp's growers at the mutex: 1 to 32 served by one "
                           "acquisition; a fresh chunk has {} free bins (64 - {} special), so a "
                           "group takes at most one chunk from TBuddy",
                           64 - gelado::kUAllocSpecialBins, gelado::kUAllocSpecialBins),
               "",
               "",
               ""};
  // Figure 7's shape at 1 KB (3 slots a bin, the most growers a request) on 1 MiB, lockstep.
  const Scenario s = gelado::ualloc_exhaustion_scenario(Algorithm::gg_ualloc, 1 << 20, 1024);
  sim::SimOptions o;
  o.mode = sim::Mode::lockstep;
  const sim::RunResult r = sim::run_once(s, o, 0);
  std::uint64_t grew = 0, locks = 0;
  for (const auto& [name, v] : r.op_counts) {
    if (name == "waits_grew") grew = v;
    if (name == "chunk_locks") locks = v;
  }
  const double sim_group = locks ? static_cast<double>(grew) / static_cast<double>(locks) : 0;
  c.simulation = fmt::format(
      "gg-ualloc, {} threads of 1 KB on 1 MiB, lockstep: {} growers, {} chunk-mutex "
      "acquisitions ({:.2f} growers an acquisition)",
      s.N, grew, locks, sim_group);
  std::string cells;
  double gpu_hi = 0;
  std::uint64_t at = 0;  // the size of the largest group
  for (const auto& [size, p] : fig.points) {
    if (!p.counted || p.chunk_locks <= 0 || size > gelado::kUAllocMaxBytes) continue;
    const double g = p.grew / p.chunk_locks;
    if (g > gpu_hi) {
      gpu_hi = g;
      at = size;
    }
    cells += fmt::format("{}{} B {:.2f}", cells.empty() ? "" : ", ", size, g);
  }
  c.hardware = cells.empty()
                   ? "not measured: no counted gg-malloc rows with chunk_locks (DIR/ualloc/: "
                     "scripts/gpu.sh gelado-garland ualloc's fig7-counts.csv)"
                   : fmt::format("{}, Figure 7's counted rows, growers an acquisition: {}",
                                 fig.device, cells);
  // Where growers are rare (8 B: one a bin of 512 requests) a group is one grower and there is
  // nothing to share; the claim is that growers waiting together share the acquisition.
  const bool sim_holds = sim_group > 1;
  c.judgement = cells.empty() ? (sim_holds ? Judgement::holds_qualified : Judgement::does_not_hold)
                : sim_holds && gpu_hi > 1 ? Judgement::holds_qualified  // a warp's, not a block's
                                          : Judgement::does_not_hold;
  c.verdict =
      cells.empty() ? fmt::format("{} in the simulator; not measured on the GPU",
                                  sim_holds ? "holds for a warp's group" : "does not hold")
      : sim_holds && gpu_hi > 1
          ? fmt::format(
                "holds for a warp's group (not a block's): {:.2f} growers an acquisition "
                "in the simulator, up to {:.2f} on the GPU (at {} B); where growers are "
                "rare a group is one",
                sim_group, gpu_hi, at)
          : fmt::format("does not hold: groups of one (simulator {:.2f}, GPU at most {:.2f})",
                        sim_group, gpu_hi);
  return c;
}

}  // namespace alloclab::validation
