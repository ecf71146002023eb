#include "alloclab/studies/gallatin_claims.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "alloclab/core/gallatin/layout.hpp"
#include "alloclab/core/gallatin/veb_tree.hpp"
#include "alloclab/core/ouroboros/host_atomics.hpp"
#include "alloclab/cpu_sim/simulator.hpp"
#include "alloclab/model/model.hpp"
#include "alloclab/validation/record_csv.hpp"
#include "gallatin_claims_gpu.hpp"

namespace alloclab::validation {
namespace {

using V = gallatin::Veb<ouro::HostAtomics>;
const char* const kSameCode =
    "- (a bound of the step code, which the GPU runs unchanged: core/gallatin/veb_tree.hpp)";

// The largest cost of each vEB operation over random operations alone on a tree of `universe`.
struct VebWorst {
  unsigned levels = 0;
  std::uint32_t successor_loads = 0, successor_atomics = 0, update_atomics = 0, claim_atomics = 0;
  std::uint64_t operations = 0;
};
VebWorst veb_worst(std::uint64_t universe, int operations) {
  VebWorst w;
  w.levels = gallatin::veb_levels_paper(universe);
  gallatin::VebStorage st(universe);
  const gallatin::VebTree& t = st.tree;
  std::mt19937_64 rng(universe);
  for (int op = 0; op < operations; ++op) {
    gallatin::VebCounts c;
    const std::uint64_t x = rng() % universe;
    switch (rng() % 4) {
      case 0:
      case 1:
        V::insert(t, x, c);
        w.update_atomics = std::max(w.update_atomics, c.atomics);
        break;
      case 2:
        V::successor(t, x, c);
        w.successor_loads = std::max(w.successor_loads, c.loads);
        w.successor_atomics = std::max(w.successor_atomics, c.atomics);
        break;
      default:
        V::lock_offset(t, x, c);
        w.claim_atomics = std::max(w.claim_atomics, c.atomics);
        break;
    }
    ++w.operations;
  }
  return w;
}

Scenario point(std::uint64_t n, std::uint64_t segments, unsigned pages) {
  Scenario s;
  s.algo = Algorithm::gallatin;
  s.N = n;
  s.A = s.T = segments << 20;  // 2^20 pages of 16 B a segment
  s.pages = pages;
  s.seed = 3;
  return s;
}

// The GPU's per-request counters at the fragmentation point (2^20 x 256 B, counters on), where
// the rows have them: one team a warp, and the atomics its lanes issued (refills and restarts).
std::string gpu_atomics(const std::vector<Record>& rows) {
  for (const Record& r : rows) {
    if (r.text("allocator").value_or("") != "gallatin" ||
        r.text("workload").value_or("") != "fragmentation" || !record_flag(r, "verified") ||
        record_text(r, "backend") == "sim")  // the pre-booted simulator's rows sit beside them
      continue;
    const auto teams = r.number("teams_per_request"), atomics = r.number("atomics_per_op");
    if (teams && atomics)
      return fmt::format(
          "{}, 2^20 x 256 B: {:.6g} teams a request, {:.4g} atomics a request (refills and "
          "restarts included; the kernels count every lane's)",
          r.text("device").value_or("GPU"), *teams, *atomics);
  }
  return "not measured: no GPU counter rows here (DIR/gallatin/ claims_fragmentation.csv)";
}

}  // namespace

std::vector<Record> read_gallatin_dir(const std::string& dir) {
  return read_records_dir(dir, kGallatinDir);
}

std::vector<ClaimCheck> gallatin_claims(const std::vector<Record>& gpu_rows) {
  std::vector<ClaimCheck> out;

  {
    ClaimCheck c{"Abstract, §3.2, §7",
                 "insertions, deletions and successor operations in bounded (constant) time for "
                 "a given memory size",
                 "",
                 "",
                 kSameCode,
                 ""};
    const std::uint64_t u = 64ull * 64 * 64;  // 4 TiB of segments, or 2^18 blocks
    const VebWorst w = veb_worst(u, 20000);
    c.model = fmt::format(
        "a 64-ary tree of L = ceil(log64 U) levels: successor <= 2L - 1 loads and "
        "no atomic, insert and remove <= L atomics (U = 64^3: L = {})",
        w.levels);
    c.simulation = fmt::format(
        "{} random operations alone on U = 64^3 (the vEB step code): successor at most {} loads "
        "and {} atomics, insert at most {} atomics, claim at most {}",
        w.operations, w.successor_loads, w.successor_atomics, w.update_atomics, w.claim_atomics);
    const bool bounded = w.successor_loads <= 2 * w.levels - 1 && w.successor_atomics == 0 &&
                         w.update_atomics <= w.levels && w.claim_atomics <= w.levels;
    c.verdict = bounded ? "holds: bounded by L, which grows as log64 U (not log log U, as §3.2 "
                          "itself says of 64-bit nodes)"
                        : "does not hold: an operation exceeded its bound";
    c.judgement = bounded ? Judgement::holds : Judgement::does_not_hold;
    out.push_back(c);
  }

  {
    ClaimCheck c{
        "§4.1", "every leaf node covers 64 segments or 1 GB; a 3-level vEB tree covers up to 4 TB",
        "",     "",
        "-",    ""};
    const std::uint64_t seg = gallatin::kDefaultSegmentBytes;
    const std::uint64_t u3 = 64ull * 64 * 64;
    c.model = fmt::format("64 x 16 MiB = {} GiB; 64^3 x 16 MiB = {} TiB", (64 * seg) >> 30,
                          (u3 * seg) >> 40);
    c.simulation = fmt::format(
        "levels for 64^3 segments: the paper's ceil(log64 U) = {}, the public code's "
        "(bitlen(U) - 1) / 6 + 1 = {}",
        gallatin::veb_levels_paper(u3), gallatin::veb_levels_public(u3));
    c.verdict =
        "holds; the public code builds a fourth level exactly at 4 TB (and at every power "
        "of 64)";
    c.judgement = Judgement::holds;  // arithmetic: 64 x 16 MiB and 64^3 x 16 MiB
    out.push_back(c);
  }

  {
    ClaimCheck c{"§4.3",
                 "the minimum allocation cost is one atomic instruction",
                 "",
                 "",
                 gpu_atomics(gpu_rows),
                 ""};
    const Scenario s = point(65536, 16, 16);  // 65536 slices of 256 B on 16 segments
    const Record m = model::evaluate(s);
    const double one = m.number("atomics_per_request").value_or(0);
    const double teams = m.number("atomics_per_request_teams").value_or(0);
    double seq = 0, lock = 0;
    for (const sim::Mode mode : {sim::Mode::sequential, sim::Mode::lockstep}) {
      sim::SimOptions o;
      o.mode = mode;
      const sim::RunResult r = sim::run_once(s, o, 0);
      (mode == sim::Mode::sequential ? seq : lock) =
          static_cast<double>(r.atomics_issued) / static_cast<double>(s.N);
    }
    c.model = fmt::format(
        "one atomicAdd a team, 4 more a block refill (one per 4096 slices a buffer slot): {:.6g} "
        "atomics a request for teams of one, {:.6g} for warp teams (65536 x 256 B, 16 segments)",
        one, teams);
    c.simulation = fmt::format("sequential {:.6g}, lockstep {:.6g} atomics a request", seq, lock);
    const bool one_atomic = seq == one && lock == teams && seq < 1.01;
    c.judgement = one_atomic ? Judgement::holds : Judgement::does_not_hold;
    c.verdict = one_atomic
                    ? "holds: one atomic a slice for a team of one, 1/32 of one for a warp team, "
                      "plus refills"
                    : "does not hold at this point";
    out.push_back(c);
  }

  // The paper's figures and issue 14's speed target: the GPU's rows decide them.
  out.push_back(gallatin_gpu::utilisation(gpu_rows));
  out.push_back(gallatin_gpu::initialisation(gpu_rows));
  out.push_back(gallatin_gpu::warm_up(gpu_rows));
  out.push_back(gallatin_gpu::fragmentation_rank(gpu_rows));
  out.push_back(gallatin_gpu::speed_against_public(gpu_rows));
  return out;
}

}  // namespace alloclab::validation
