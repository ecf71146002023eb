// gg-tbuddy traced (Gelado & Garland, PPoPP'19 §4.1): TBuddy's splits and merges, the tree drawn
// level by level after each operation, from the simulator's record (cpu_sim/tbuddy_trace.hpp).
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "alloclab/cli/trace_table.hpp"
#include "alloclab/cli/value_list.hpp"
#include "alloclab/core/errors.hpp"
#include "alloclab/cpu_sim/tbuddy_trace.hpp"

namespace alloclab::gelado_tbuddy_trace {
namespace {

// gg-tbuddy: requests allocated in order and freed in reverse on a pool of T pages, the tree
// drawn level by level after each operation (cpu_sim/tbuddy_trace.hpp).
cli::TraceDocument run(const cli::TraceRequest& a) {
  cli::TraceDocument doc;
  doc.no_svg = "the TBuddy trace is drawn as text: no SVG";
  std::ostringstream out;
  if (a.grid.T.empty()) throw InputError("--T", "the pool's pages, a power of two (2 .. 64)");
  const auto Ts = cli::parse_count_list("--T", a.grid.T);
  if (Ts.size() != 1 || (Ts[0] & (Ts[0] - 1)) != 0)
    throw InputError("--T", "one pool of a power of two pages (2 .. 64)");
  std::uint32_t height = 0;
  while ((std::uint64_t{1} << height) < Ts[0]) ++height;
  if (a.requests.empty())
    throw InputError("--requests", "the pages of each request, e.g. --requests 1,2,1,4");
  const auto t = sim::trace_tbuddy(height, cli::parse_count_list("--requests", a.requests));
  {
    nlohmann::json j = {{"algo", "gg-tbuddy"}, {"T", Ts[0]}, {"levels_before", t.levels_before}};
    for (const auto& st : t.steps)
      j["steps"].push_back({{"what", st.what},
                            {"node", st.node},
                            {"first_page", st.first_page},
                            {"pages", st.pages},
                            {"splits", st.splits},
                            {"merges", st.merges},
                            {"levels", st.levels},
                            {"sem_counts", st.sem_counts}});
    doc.json = j;
  }
  out << fmt::format(
      "gg-tbuddy (Gelado & Garland's TBuddy, §4.1) on {} pages, one free block at the start: the "
      "requests allocated in order, then freed in reverse. The tree after each operation, root "
      "first, a letter a node: A Available (a free block), B Busy (held, or inside a held or free "
      "block), P Partial (a free block below it); sem[k] counts the Available blocks of order k "
      "(2^k pages).\n",
      Ts[0]);
  auto draw = [&](const std::vector<std::string>& levels) {
    std::string s;
    const std::size_t width = levels.back().size() * 2;
    for (std::size_t d = 0; d < levels.size(); ++d) {
      const std::size_t cell = width / levels[d].size();
      std::string row = fmt::format("  order {:>2} ", levels.size() - 1 - d);
      for (char c : levels[d])
        row += std::string((cell - 1) / 2, ' ') + c + std::string(cell - 1 - (cell - 1) / 2, ' ');
      s += row + '\n';
    }
    return s;
  };
  out << "\nbefore\n" << draw(t.levels_before);
  for (const auto& st : t.steps) {
    out << '\n' << st.what << ": ";
    if (st.node < 0)
      out << "no block: out of memory (each grower up the tree signalled its failure)";
    else
      out << fmt::format("pages {}..{}", st.first_page, st.first_page + st.pages - 1);
    if (st.splits) out << fmt::format(", {} split{}", st.splits, st.splits == 1 ? "" : "s");
    if (st.merges) out << fmt::format(", {} merge{}", st.merges, st.merges == 1 ? "" : "s");
    out << "\n" << draw(st.levels) << "  sem[0..]: ";
    for (std::size_t k = 0; k < st.sem_counts.size(); ++k)
      out << (k ? " " : "") << st.sem_counts[k];
    out << '\n';
  }
  out << "\nEvery step checked: two Available siblings never (I1), nothing Available below an "
         "Available node (I2), each semaphore equal to its Available nodes, the held and free "
         "blocks tiling the pool.\n";
  doc.text = out.str();
  return doc;
}

}  // namespace
}  // namespace alloclab::gelado_tbuddy_trace

ALLOCLAB_REGISTER_TRACE((alloclab::cli::TraceEntry{
    .name = "TBuddy's splits and merges",
    .study = "gelado-garland",
    .order = 20,
    .allocators = {"gg-tbuddy"},
    .figures = {},
    .options = {"--allocator", "--T", "--requests"},
    .help = "gg-tbuddy: TBuddy's splits and merges on --T pages (a power of two, 2 .. 64), the "
            "--requests allocated in order and freed in reverse, the tree after each",
    .example = "alloclab trace --allocator gg-tbuddy --T 16 --requests 1,2,1,4",
    .run = alloclab::gelado_tbuddy_trace::run}))
