// ouro-p-s traced (Ouroboros, Winter et al., ICS'20 §3.3, Alg. 1): its base index queue on a
// ring of a few slots, the wrap-around and, with --printed-check, the paper's full check admitting
// one enqueue too many, from the simulator's record (cpu_sim/queue_trace.hpp).
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "alloclab/cli/trace_table.hpp"
#include "alloclab/core/errors.hpp"
#include "alloclab/cpu_sim/queue_trace.hpp"

namespace alloclab::ouroboros_queue_trace {
namespace {

// ouro-p-s: its base index queue (Alg. 1) on a ring of a few slots, the wrap-around and, with
// --printed-check, the paper's full check admitting one enqueue too many
// (cpu_sim/queue_trace.hpp).
cli::TraceDocument run(const cli::TraceRequest& a) {
  cli::TraceDocument doc;
  doc.no_svg = "the queue trace is drawn as text: no SVG";
  std::ostringstream out;
  if (a.ops.empty()) throw InputError("--ops", "the operations, e.g. --ops e,e,e,d,d,e,e,e");
  const auto steps = sim::trace_index_queue(a.slots, a.ops, a.printed_check);
  {
    nlohmann::json j = {
        {"algo", "ouro-p-s"}, {"slots", a.slots}, {"printed_check", a.printed_check}};
    for (const auto& st : steps)
      j["steps"].push_back({{"what", st.what},
                            {"outcome", st.outcome},
                            {"fill_count", st.fill_count},
                            {"front", st.front},
                            {"back", st.back},
                            {"slots", st.slots},
                            {"stuck", st.stuck}});
    doc.json = j;
  }
  out << fmt::format(
      "ouro-p-s's index queue (Ouroboros, §3.3, Alg. 1) on a ring of {} slots, one operation at a "
      "time: front and back count positions for ever, the slot is the position mod {}; '.' is the "
      "deletion marker (an empty slot). Full check: {}.\n",
      a.slots, a.slots,
      a.printed_check ? "as printed, `old > size` (admits a (size + 1)-th enqueue)"
                      : "`old < size` (alloclab's, and the public code's)");
  for (const auto& st : steps) {
    out << '\n' << st.what << ": " << st.outcome << "\n  ";
    for (std::size_t i = 0; i < st.slots.size(); ++i)
      out << '[' << (st.slots[i] < 0 ? std::string(".") : std::to_string(st.slots[i])) << ']';
    out << fmt::format("  fill {}, front {} (slot {}), back {} (slot {})\n", st.fill_count,
                       st.front, st.front % a.slots, st.back, st.back % a.slots);
  }
  if (!steps.empty() && steps.back().stuck)
    out << "\nThe printed check let this enqueue in with all " << a.slots
        << " slots full: an erratum of Alg. 1 (studies/pham/errata.md). With `old < size` it is "
           "refused (full) and undone.\n";
  doc.text = out.str();
  return doc;
}

}  // namespace
}  // namespace alloclab::ouroboros_queue_trace

ALLOCLAB_REGISTER_TRACE((alloclab::cli::TraceEntry{
    .name = "Ouroboros' index queue",
    .study = "ouroboros",
    .order = 40,
    .allocators = {"ouro-p-s"},
    .figures = {},
    .options = {"--allocator", "--slots", "--ops", "--printed-check"},
    .help = "ouro-p-s: its index queue wrapping around a ring of --slots (2 .. 16), the --ops "
            "e (enqueue) and d (dequeue) one at a time; --printed-check: Alg. 1's full check as "
            "printed",
    .example = "alloclab trace --allocator ouro-p-s --slots 4 --ops e,e,e,d,d,e,e,e,d,d,d,d",
    .run = alloclab::ouroboros_queue_trace::run}))
