// `alloclab trace`: a mechanism shown step by step, for teaching (issues 16, 39). The mechanisms
// are a table (cli/trace_table.hpp), each one file where it belongs (a paper's in its study
// folder); this file declares the options, and is the one place a trace is dispatched
// (run_trace) and written: the text, the JSON record, the SVG in DIR/trace.svg.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>

#include "alloclab/check/schedule_file.hpp"  // --schedule: alloclab check's replay
#include "alloclab/cli/commands.hpp"
#include "alloclab/cli/grid.hpp"
#include "alloclab/cli/output.hpp"
#include "alloclab/cli/trace_table.hpp"
#include "alloclab/core/errors.hpp"

namespace alloclab::cli {
namespace {

struct TraceArgs {
  TraceRequest request;
  Format format = Format::table;  // table: the trace as text; json: its record
  std::string out;
  std::string schedule;  // a schedule file of `alloclab check` (check/), replayed instead
};

void write(const TraceArgs& a, const TraceDocument& d) {
  if (!a.out.empty()) {
    if (d.svg.empty()) throw InputError("--out", d.no_svg);
    std::error_code ec;
    std::filesystem::create_directories(a.out, ec);
    const std::string path = (std::filesystem::path(a.out) / "trace.svg").string();
    std::ofstream f(path);
    if (!f || !(f << d.svg)) throw InputError("--out", "cannot write " + path);
  }
  if (a.format == Format::json)
    std::cout << d.json.dump() << '\n';
  else
    std::cout << d.text;
}

std::string mechanisms_help() {
  std::string out;
  for (const TraceEntry* e : TraceTable::instance().all())
    if (!e->help.empty()) out += "\n  " + std::string(e->help);
  for (const TraceEntry* e : TraceTable::instance().all())
    if (!e->example.empty()) out += "\nExample: " + std::string(e->example);
  return out;
}

// What --allocator and --figure pick, from the table: "rw, rwbm (RW and RW-BM in lockstep), ...".
template <class Keys>
std::string picks(Keys keys) {
  std::string out;
  for (const TraceEntry* e : TraceTable::instance().all()) {
    std::string these;
    for (std::string_view k : keys(*e)) these += (these.empty() ? "" : ", ") + std::string(k);
    if (!these.empty())
      out += (out.empty() ? "" : "; ") + these + " (" + std::string(e->name) + ")";
  }
  return out;
}

}  // namespace

void add_trace_command(CLI::App& app) {
  auto args = std::make_shared<TraceArgs>();
  TraceRequest& r = args->request;
  auto* cmd = app.add_subcommand(
      "trace",
      "A mechanism replayed step by step on a small case, for teaching, by the same code the "
      "simulator runs: the text on the terminal, --format json for the record, --out DIR for a "
      "drawing in DIR/trace.svg (where the mechanism has one). --allocator or --figure picks "
      "it:" +
          mechanisms_help());
  cmd->add_option(
         "--allocator", r.allocator,
         "the mechanism, by allocator: " + picks([](const TraceEntry& e) { return e.allocators; }))
      ->capture_default_str();
  cmd->add_option("--ops", r.ops,
                  "ouro-p-s: e (enqueue the next page index) and d (dequeue), e.g. e,e,e,d,d,e; "
                  "gg-ualloc, gallatin, dynasoar: aS (allocate S: bytes; dynasoar: pages of the "
                  "type), aSxK (K requests at once: a warp's team or coalesced lanes) and fI "
                  "(free what the I-th a allocated), e.g. a16x4,a64,f0");
  cmd->add_option("--slots", r.slots, "ouro-p-s: the ring's slots (2 .. 16)")
      ->capture_default_str();
  cmd->add_flag("--printed-check", r.printed_check,
                "ouro-p-s: Alg. 1's full check as printed (`old > size`) instead of `old < size`");
  cmd->add_option("--requests", r.requests,
                  "gg-tbuddy: the pages of each request, in order (e.g. 1,2,1,4); they are freed "
                  "in reverse order after");
  cmd->add_option("--pool", r.pool,
                  "gg-ualloc, gallatin: the pool's bytes (e.g. 512KiB); see each trace's default");
  add_grid_options(*cmd, r.grid);
  cmd->add_option("--seed", r.grid.seed,
                  "the run's seed (with --figure 3: where the search for a crossing starts; "
                  "dynasoar: the rotation's seed)")
      ->capture_default_str();
  cmd->add_option("--figure", r.figure,
                  "a paper's figure: " + picks([](const TraceEntry& e) { return e.figures; }));
  cmd->add_option("--out", args->out, "DIR: also draw the trace as DIR/trace.svg");
  cmd->add_option("--max-rounds", r.max_rounds, "rounds printed (text; rw, rwbm)")
      ->capture_default_str();
  // A trace is a narrative and a drawing, not rows: no csv or md.
  cmd->add_option("--schedule", args->schedule,
                  "FILE: replay a schedule `alloclab check` wrote, access by access, instead of a "
                  "mechanism (--out DIR: also DIR/schedule.svg)");
  add_format_option(*cmd, args->format, {Format::table, Format::json});
  cmd->get_option("--format")
      ->description("table (the trace as text) or json (its record: every step)");
  cmd->callback([args, cmd] {
    for (CLI::Option* o : cmd->get_options())
      if (o->count() > 0) args->request.given.insert(o->get_name());
    if (!args->schedule.empty()) {
      // A schedule is its own trace: the mechanism's options have nothing to act on.
      for (const std::string& given : args->request.given)
        if (given != "--schedule" && given != "--format" && given != "--out")
          throw InputError(given, "not with --schedule (the schedule file says what runs)");
      return check::trace_schedule(args->schedule, args->format == Format::json, args->out);
    }
    write(*args, run_trace(args->request));
  });
}

}  // namespace alloclab::cli
