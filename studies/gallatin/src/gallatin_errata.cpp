#include "alloclab/studies/gallatin_errata.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <vector>

#include "alloclab/core/gallatin/layout.hpp"
#include "alloclab/core/gallatin/veb_tree.hpp"
#include "alloclab/core/scenario.hpp"
#include "alloclab/cpu_sim/simulator.hpp"

namespace alloclab::validation {

std::vector<Erratum> gallatin_errata() {
  namespace g = alloclab::gallatin;
  std::vector<Erratum> out;
  {  // §4.2: blocks of 4 KB to 16 MB, 1 to 256 a segment.
    const g::Geometry geo;
    std::string per;
    for (unsigned k = 0; k < g::kSizeClasses; ++k)
      per += fmt::format("{}{} B: {}", per.empty() ? "" : ", ", geo.slice_bytes(k),
                         geo.blocks_per_segment(k));
    out.push_back(Erratum{
        "§4.2, blocks",
        "blocks \"range in size from 4 KB to 16 MB, stepping in powers of two, meaning that a "
        "segment can be split into 1 to 256 blocks\"",
        fmt::format("a block is {} slices of its class, so blocks range from {} KiB (16 B "
                    "slices) to {} MiB (4096 B): {} to 1 blocks a segment, as §5.1's memory table "
                    "(\"a maximum of 256 blocks per segment\") has it",
                    geo.slices_per_block, geo.block_bytes(0) >> 10,
                    geo.block_bytes(g::kSizeClasses - 1) >> 20, geo.max_blocks()),
        fmt::format("alloclab's layout (core/gallatin/layout.hpp), blocks a 16 MiB segment per "
                    "slice size: {}; blocks of 4 KB would be {} a segment",
                    per, geo.segment_bytes / 4096),
        "gallatin-blocks"});
  }
  {  // Alg. 3 retries for ever when no block is left.
    Scenario s;
    s.algo = Algorithm::gallatin;
    s.A = s.T = std::uint64_t{1} << 20;  // one segment of 2^20 units of 16 B
    s.pages = 16;                        // 256 B slices: 65,536 fit
    s.N = 70000;
    s.seed = 7;
    sim::SimOptions o;
    o.mode = sim::Mode::sequential;
    const sim::RunResult r = sim::run_once(s, o, 0);
    out.push_back(Erratum{
        "§4.3, Alg. 3",
        "malloc retries (a block refill, then the slice again) until it gets a slice: on an "
        "exhausted pool it loops for ever",
        "every loop bounded (lost races by kRaceBound, waits by kWaitBound, vEB searches by "
        "their attempts): out of memory returns null, counted",
        fmt::format("the simulator, sequential: {} requests of 256 B on one 16 MiB segment: {} "
                    "served, {} returned null, and the run ended (as printed, the first request "
                    "to find no block would not return)",
                    s.N, s.N - r.failed, r.failed),
        "gallatin-alg3"});
  }
  {  // §6.9's "under 1%" from its own numbers.
    const double before = 2.13197, after = 2.15344;
    out.push_back(
        Erratum{"§6.9, warm-up",
                "a warm-up changes the time by \"less than 1%\" (2 KB: 2.13197 -> 2.15344 ms)",
                fmt::format("by its own numbers the change is {:+.3f}%, a little over 1%",
                            100 * (after / before - 1)),
                fmt::format("{} / {} = {:.5f}", after, before, after / before), "gallatin-warmup"});
  }
  {  // The public code's level count (the paper's is right).
    const std::uint64_t u = 64ull * 64 * 64;
    out.push_back(Erratum{
        "public code, the vEB tree's levels", "levels = (bitlen(U) - 1) / 6 + 1",
        "the paper's ceil(log64 U) levels (§3.2): the public count builds one level more whenever "
        "U is a power of 64",
        fmt::format("U = 64^3 segments (4 TiB): the paper's count {}, the public code's {} "
                    "(core/gallatin/veb_tree.hpp computes both)",
                    g::veb_levels_paper(u), g::veb_levels_public(u)),
        "gallatin-veb-levels"});
  }
  return out;
}

}  // namespace alloclab::validation
