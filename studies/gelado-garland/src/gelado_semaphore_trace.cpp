// Figure 1 of Gelado & Garland (PPoPP'19) traced: eight threads each wait for one unit from an
// empty semaphore with batches of four, (a) on the counting semaphore (§3.2), (b) on the bulk
// semaphore (§3.3, Alg. 1-2). The schedule is the paper's prose, step by step (the same one
// core/tests/gelado_figure1_test.cpp works by hand); every step is the real step machine's
// (core/gelado/bulk_semaphore.hpp, counting_semaphore.hpp) through the host atomics policy.
#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "alloclab/core/gelado/bulk_semaphore.hpp"
#include "alloclab/core/gelado/counting_semaphore.hpp"
#include "alloclab/core/ouroboros/host_atomics.hpp"
#include "alloclab/studies/gelado_traces.hpp"

namespace alloclab::gelado_semaphore_trace {
namespace {

using A = ouro::HostAtomics;
using namespace gelado;

constexpr int kThreads = 8;
constexpr std::uint32_t kN = 1, kBatch = 4;

// One entry of the schedule: thread t steps its wait, or (deliver) its batch arrives.
struct Turn {
  int thread = 0;
  bool deliver = false;
};

// The prose's order. (a): T0 grows, T1-T7 block; T0's signal(4); T1-T3 take, T4 finds 0 and
// grows; T5-T7 block again; T4's signal; T5-T7 take. (b): T0 grows (E = 3); T1-T3 reserve and
// wait; T4 finds everything promised reserved and grows (E = 6) while T0 still grows; T5-T7
// reserve T4's units; T0's batch arrives; T1-T3 leave their wait, drop R and take; T5 looks and
// waits on; T4's batch arrives; T5-T7 take.
std::vector<Turn> schedule(bool bulk) {
  std::vector<Turn> s;
  auto steps = [&](int t, int n) {
    for (int i = 0; i < n; ++i) s.push_back({t});
  };
  if (!bulk) {
    steps(0, 2);
    for (int t = 1; t < 8; ++t) steps(t, 1);
    s.push_back({0, true});
    for (int t = 1; t <= 4; ++t) steps(t, 2);
    for (int t = 5; t < 8; ++t) steps(t, 1);
    s.push_back({4, true});
    for (int t = 5; t < 8; ++t) steps(t, 2);
    return s;
  }
  steps(0, 2);
  for (int t = 1; t <= 3; ++t) steps(t, 3);
  steps(4, 2);
  for (int t = 5; t <= 7; ++t) steps(t, 3);
  s.push_back({0, true});
  for (int t = 1; t <= 3; ++t) steps(t, 3);
  steps(5, 1);
  s.push_back({4, true});
  for (int t = 5; t <= 7; ++t) steps(t, 3);
  return s;
}

struct Event {
  int thread = 0;
  std::string what;
  std::int64_t c = 0, e = 0, r = 0;  // (a): c is S
  std::optional<int> returns;        // the value wait returned, at the step that ended it
  std::array<char, kThreads> states{};
};

// A thread's state in the drawing: '.' not yet, 'w' waiting, 'g' growing, 'u' holds its unit.
std::vector<Event> run_bulk() {
  std::uint64_t word = 0;
  std::vector<BulkWait<A>> t(kThreads, BulkWait<A>(kN, kBatch));
  std::array<char, kThreads> state;
  state.fill('.');
  std::vector<Event> out;
  for (const Turn& turn : schedule(true)) {
    Event ev;
    ev.thread = turn.thread;
    BulkWait<A>& w = t[static_cast<std::size_t>(turn.thread)];
    char& st = state[static_cast<std::size_t>(turn.thread)];
    if (turn.deliver) {
      const SemCounters before = bulk_grow_delivered<A>(word, kN, kBatch);
      ev.what = fmt::format("batch of {} arrives: keeps {}, signal({}, {}): C {} -> {}, E {} -> {}",
                            kBatch, kN, kBatch - kN, kBatch - kN, before.count,
                            before.count + static_cast<std::int32_t>(kBatch - kN), before.expected,
                            before.expected - (kBatch - kN));
      st = 'u';
    } else {
      const BulkWaitPhase phase = w.phase();
      const SemCounters seen = BulkWord::unpack(word);
      const StepStatus status = w.step(word);
      const SemCounters now = BulkWord::unpack(word);
      switch (phase) {
        case BulkWaitPhase::read:
          ev.what = fmt::format("wait({}, {}): reads ({}, {}, {})", kN, kBatch, seen.count,
                                seen.expected, seen.reserved);
          st = 'w';
          break;
        case BulkWaitPhase::cas:
          if (status == StepStatus::spinning) {
            ev.what = "its CAS finds the word changed: decides again";
          } else if (w.result().outcome == BulkWaitOutcome::took) {
            ev.what =
                fmt::format("C = {} >= N: takes 1 (CAS C -> {}), returns 0", seen.count, now.count);
            st = 'u';
          } else if (w.result().outcome == BulkWaitOutcome::grow) {
            ev.what =
                fmt::format("C + E - R = {} < N: grows (CAS E -> {}, promises {}), returns -1",
                            seen.count + seen.expected - seen.reserved, now.expected, kBatch - kN);
            st = 'g';
          } else {
            ev.what =
                fmt::format("C = {} < N <= C + E - R = {}: reserves (CAS R -> {})", seen.count,
                            seen.count + seen.expected - seen.reserved, now.reserved);
          }
          break;
        case BulkWaitPhase::spin:
          ev.what = w.phase() == BulkWaitPhase::spin
                        ? fmt::format("waits: C = {} < N and R = {} <= C + E = {}", now.count,
                                      now.reserved, now.count + now.expected)
                        : fmt::format("C = {} >= N: leaves its wait", now.count);
          break;
        case BulkWaitPhase::release:
          ev.what = fmt::format("drops its reservation (R -> {}) and decides again", now.reserved);
          break;
        case BulkWaitPhase::done:
          ev.what = "done";
          break;
      }
      if (status == StepStatus::done) ev.returns = paper_return_value(w.result().outcome);
    }
    const SemCounters c = BulkWord::unpack(word);
    ev.c = c.count;
    ev.e = c.expected;
    ev.r = c.reserved;
    ev.states = state;
    out.push_back(ev);
  }
  return out;
}

std::vector<Event> run_counting() {
  std::uint64_t word = counting_pack(0);
  std::vector<CountingWait<A>> t(kThreads, CountingWait<A>(kN));
  std::array<char, kThreads> state;
  state.fill('.');
  std::vector<Event> out;
  for (const Turn& turn : schedule(false)) {
    Event ev;
    ev.thread = turn.thread;
    CountingWait<A>& w = t[static_cast<std::size_t>(turn.thread)];
    char& st = state[static_cast<std::size_t>(turn.thread)];
    if (turn.deliver) {
      const std::int64_t before = counting_grow_delivered<A>(word, kN, kBatch, 0);
      ev.what = fmt::format("batch of {} arrives: signal({}): S {} -> {}", kBatch,
                            counting_unpack(word) - before, before, counting_unpack(word));
      st = 'u';
    } else {
      const CountingWaitPhase phase = w.phase();
      const std::int64_t seen = counting_unpack(word);
      const StepStatus status = w.step(word);
      const std::int64_t now = counting_unpack(word);
      if (phase == CountingWaitPhase::read)
        ev.what = status == StepStatus::spinning
                      ? fmt::format("wait({}): reads S = {}: a grower is at work, blocks", kN, seen)
                      : fmt::format("wait({}): reads S = {}", kN, seen);
      else if (w.result().outcome == CountingWaitOutcome::took)
        ev.what = fmt::format("S = {} >= N: takes 1 (CAS S -> {}), returns 1", seen, now);
      else if (w.result().outcome == CountingWaitOutcome::grow)
        ev.what = fmt::format("S = {} < N: grows (CAS S -> -1), returns {}", seen, seen);
      else
        ev.what = "its CAS finds S changed";
      st = w.result().outcome == CountingWaitOutcome::took   ? 'u'
           : w.result().outcome == CountingWaitOutcome::grow ? 'g'
                                                             : 'w';
      if (status == StepStatus::done) ev.returns = static_cast<int>(w.result().returned);
    }
    ev.c = counting_unpack(word);
    ev.states = state;
    out.push_back(ev);
  }
  return out;
}

const char* fill(char state) {
  switch (state) {
    case 'w':
      return "#ff7f0e";  // waiting
    case 'g':
      return "#9467bd";  // growing
    case 'u':
      return "#2ca02c";  // holds its unit
    default:
      return "#cccccc";
  }
}

}  // namespace
}  // namespace alloclab::gelado_semaphore_trace

namespace alloclab::studies {

cli::TraceDocument semaphore_figure1_trace(bool bulk) {
  using namespace gelado_semaphore_trace;
  const auto events = bulk ? run_bulk() : run_counting();
  cli::TraceDocument doc;
  std::string& text = doc.text;
  text = fmt::format(
      "Figure 1({}) of Gelado & Garland (PPoPP'19): {}, 8 threads T0-T7 each wait for 1 unit "
      "from an empty semaphore, batches of 4, in the order of the paper's prose ({}); every "
      "step is the step machine's ({}).\n{}\n",
      bulk ? "b" : "a", bulk ? "the bulk semaphore" : "the counting semaphore",
      bulk ? "§3.3" : "§3.2",
      bulk ? "core/gelado/bulk_semaphore.hpp" : "core/gelado/counting_semaphore.hpp",
      bulk ? "C: units free, E: units growers promised, R: units waiters reserved. wait(N, B) "
             "returns 0 to a taker, -1 to a grower."
           : "S: units free, -1 while a grower is at work (everybody else blocks). wait(N) "
             "returns N to a taker, the S it saw to a grower.");
  text += bulk ? "\nevent thread  C  E  R  returns  step\n" : "\nevent thread   S  returns  step\n";
  nlohmann::json j = {{"figure", bulk ? "1b" : "1a"},
                      {"semaphore", bulk ? "bulk" : "counting"},
                      {"threads", kThreads},
                      {"n", kN},
                      {"batch", kBatch},
                      {"events", nlohmann::json::array()}};
  std::vector<cli::CellRow> rows;
  int growers = 0, takers = 0;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const Event& ev = events[i];
    const std::string ret = ev.returns ? std::to_string(*ev.returns) : "";
    if (bulk)
      text += fmt::format("{:>5} T{}     {:>2} {:>2} {:>2}  {:>7}  {}\n", i + 1, ev.thread, ev.c,
                          ev.e, ev.r, ret, ev.what);
    else
      text += fmt::format("{:>5} T{}     {:>3}  {:>7}  {}\n", i + 1, ev.thread, ev.c, ret, ev.what);
    nlohmann::json je = {{"thread", ev.thread}, {"step", ev.what}};
    if (bulk) {
      je["C"] = ev.c;
      je["E"] = ev.e;
      je["R"] = ev.r;
    } else {
      je["S"] = ev.c;
    }
    je["returns"] = ev.returns ? nlohmann::json(*ev.returns) : nlohmann::json(nullptr);
    j["events"].push_back(je);
    const bool grew = ev.what.find("grows") != std::string::npos;
    growers += grew;
    takers += ev.what.find("takes 1") != std::string::npos;
    cli::CellRow row{
        bulk ? fmt::format("{:>2} T{} C={} E={} R={}", i + 1, ev.thread, ev.c, ev.e, ev.r)
             : fmt::format("{:>2} T{} S={}", i + 1, ev.thread, ev.c),
        {}};
    for (int t = 0; t < kThreads; ++t)
      row.cells.push_back({fill(ev.states[static_cast<std::size_t>(t)]),
                           t == ev.thread ? '*' : static_cast<char>('0' + t)});
    rows.push_back(row);
  }
  j["growers"] = growers;
  j["takers"] = takers;
  text += fmt::format(
      "\n{} growers for 8 requests of 1 unit with batches of 4 ({}); {} threads took a unit "
      "that a batch brought.{}\n",
      growers,
      bulk ? "the paper's bound, requests / batch size: T4 grows while T0's batch is still on "
             "its way"
           : "one after the other: T4 could grow only after T0's signal, and T5-T7 blocked twice",
      takers,
      bulk ? " The word ends at (0, 0, 0): every promise paid, every reservation served." : "");
  doc.json = j;
  doc.svg = cli::cell_rows_svg(rows,
                               "one row per event, a cell per thread (* the one that moved): grey "
                               "not yet, orange waiting, purple growing, green holds its unit");
  return doc;
}

}  // namespace alloclab::studies

namespace alloclab::gelado_semaphore_trace {
namespace {
cli::TraceDocument figure1a(const cli::TraceRequest&) {
  return studies::semaphore_figure1_trace(false);
}
cli::TraceDocument figure1b(const cli::TraceRequest&) {
  return studies::semaphore_figure1_trace(true);
}
}  // namespace
}  // namespace alloclab::gelado_semaphore_trace

ALLOCLAB_REGISTER_TRACE((alloclab::cli::TraceEntry{
    .name = "Gelado & Garland's Figure 1(a) (the counting semaphore)",
    .study = "gelado-garland",
    .order = 21,
    .allocators = {},
    .figures = {"1a"},
    .options = {},
    .help = "--figure 1a, 1b: Gelado & Garland's Figure 1, the counting (a) and the bulk (b) "
            "semaphore: 8 threads wait for a unit, batches of 4; S, or C, E and R, at each step",
    .example = "alloclab trace --figure 1a",
    .run = alloclab::gelado_semaphore_trace::figure1a}))
ALLOCLAB_REGISTER_TRACE((alloclab::cli::TraceEntry{
    .name = "Gelado & Garland's Figure 1(b) (the bulk semaphore)",
    .study = "gelado-garland",
    .order = 22,
    .allocators = {},
    .figures = {"1b"},
    .options = {},
    .help = "",
    .example = "alloclab trace --figure 1b",
    .run = alloclab::gelado_semaphore_trace::figure1b}))
