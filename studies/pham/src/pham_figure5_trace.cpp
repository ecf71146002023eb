// Figure 5 of paper 000 (Pham et al., ICS'22) traced: CoRW's warp sharing (Algorithm 2, lines
// 8-17), lane by lane, with the same function the simulator runs (cpu_sim/corw_share.hpp).
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "alloclab/cli/trace_table.hpp"
#include "alloclab/cpu_sim/corw_share.hpp"

namespace alloclab::pham_figure5_trace {
namespace {

// Figure 5 of paper 000: CoRW's warp sharing (Algorithm 2, lines 8-17), lane by lane, with the
// figure's own registers: w = 8, six lanes that all need a page; lane 1 read word 10 with free
// bits 0-2 (pages P1-P3 = 80-82), lane 2 word 20 with bits 3-4 (P4, P5 = 163, 164), lane 4 word
// 30 with bit 7 (P6 = 247), lanes 0, 3 and 5 found nothing. The same function the simulator runs
// (cpu_sim/corw_share.hpp; its test replays the figure value for value).
cli::TraceDocument run(const cli::TraceRequest&) {
  cli::TraceDocument doc;
  doc.no_svg = "Figure 5 is a table of lanes: no SVG";
  std::ostringstream out;
  const std::vector<sim::CorwLaneInput> lanes{{5, 0xff, true},  {10, 0xf8, true}, {20, 0xe7, true},
                                              {40, 0xff, true}, {30, 0x7f, true}, {50, 0xff, true}};
  const auto result = sim::corw_share(lanes, 8, true);
  const std::vector<std::pair<std::int64_t, const char*>> names{
      {80, "P1"}, {81, "P2"}, {82, "P3"}, {163, "P4"}, {164, "P5"}, {247, "P6"}};
  auto page = [&](std::int64_t p) -> std::string {
    for (const auto& [id, n] : names)
      if (id == p) return fmt::format("{} ({})", n, p);
    return p < 0 ? "-" : std::to_string(p);
  };
  nlohmann::json j = {{"figure", 5}, {"iterations", nlohmann::json::array()}};
  for (const auto& it : result.trace)
    j["iterations"].push_back(
        {{"b", it.b}, {"s", it.s}, {"t_prime", it.t_prime}, {"pageID", it.pageID}});
  j["pageID"] = result.pageID;
  doc.json = j;
  out << "Figure 5 (paper 000): CoRW's warp sharing, Algorithm 2 lines 8-17, w = 8, six lanes that "
         "all need a page.\nLane 1 read word 10 (free bits 0-2: P1-P3 = pages 80-82), lane 2 word "
         "20 (bits 3-4: P4, P5 = 163, 164), lane 4 word 30 (bit 7: P6 = 247); lanes 0, 3, 5 found "
         "nothing.\nEach iteration: b = the page a lane offers (its lowest free bit), s = how many "
         "lanes before it still need a page (line 12), t' = the lane whose page it receives (line "
         "13: the (s+1)-th lane that offers one), pageID after line 14.\n";
  for (std::size_t i = 0; i < result.trace.size(); ++i) {
    const auto& it = result.trace[i];
    out << fmt::format("\niteration {}\n  lane  offers b      s  t'  pageID\n", i + 1);
    for (std::size_t l = 0; l < lanes.size(); ++l) {
      std::string t = it.t_prime[l] < 0 ? "-" : std::to_string(it.t_prime[l]);
      if (i == 0 && l == 2) t += "*";
      out << fmt::format("  {:>4}  {:<12} {:>2}  {:<3} {}\n", l, page(it.b[l]), it.s[l], t,
                         page(it.pageID[l]));
    }
    if (i == 0)
      out << "  * the figure prints t' = 5 for lane 2; its own line 13 (fks(hasMask, 3) - 1 with "
             "hasMask = {1, 2, 4}) gives 4, and the page lane 2 receives, P6, is lane 4's: an "
             "erratum (studies/pham/errata.md)\n";
  }
  out << "\nEvery lane ends with a page: ";
  for (std::size_t l = 0; l < lanes.size(); ++l)
    out << (l ? ", " : "") << "lane " << l << " " << page(result.pageID[l]);
  out << ".\n";
  doc.text = out.str();
  return doc;
}

}  // namespace
}  // namespace alloclab::pham_figure5_trace

ALLOCLAB_REGISTER_TRACE((alloclab::cli::TraceEntry{
    .name = "paper 000's Figure 5 (CoRW's warp sharing)",
    .study = "pham",
    .order = 12,
    .allocators = {},
    .figures = {"5"},
    .options = {"--max-rounds"},
    .help = "--figure 5: paper 000's Figure 5, CoRW's warp sharing lane by lane, with the printed "
            "t' = 5 marked",
    .example = "alloclab trace --figure 5",
    .run = alloclab::pham_figure5_trace::run}))
