// `alloclab trace`'s mechanisms: each one file, registered from where it belongs (an engine
// mechanism from cli/, a paper's from its study folder, studies/<name>/src/*_trace.cpp), as a
// study registers its subcommands (command_table.hpp). A mechanism is picked by --allocator or
// by --figure; its runner turns the options into a TraceDocument, which the trace command alone
// writes (text, JSON, DIR/trace.svg): one dispatch point (cli/src/trace_command.cpp).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "alloclab/cli/grid.hpp"
#include "alloclab/core/registration_table.hpp"

namespace alloclab::cli {

// The options of `alloclab trace` as given. `given` holds the long names of the options that
// were on the command line ("--requests"), so a runner can tell a default from a choice.
struct TraceRequest {
  std::string allocator = "rw";
  std::string figure;  // "" when not given
  std::string requests, ops, pool;
  std::uint32_t slots = 4;
  bool printed_check = false;
  GridOptions grid;
  std::uint64_t max_rounds = 50;
  std::set<std::string> given;
  bool has(const std::string& option) const { return given.count(option) != 0; }
};

// What a trace shows, in each of its renderings. The command prints `text` (--format table) or
// `json` (--format json) and, with --out DIR, writes `svg` to DIR/trace.svg; a mechanism that
// draws no picture leaves `svg` empty and --out is refused (no_svg says why, one line).
struct TraceDocument {
  std::string text;
  nlohmann::json json;
  std::string svg;
  std::string no_svg = "this trace is drawn as text: no SVG";
};

struct TraceEntry {
  std::string_view name;                     // the mechanism, e.g. "bulk semaphore"
  std::string_view study;                    // the study that brings it ("" for the engine's own)
  int order = 0;                             // place in --help and in error lists
  std::vector<std::string_view> allocators;  // --allocator values that pick it
  std::vector<std::string_view> figures;     // --figure values that pick it
  // Options it reads beyond --format, --out and --seed (which every trace takes); any other
  // option given beside it is refused, naming the option, rather than silently ignored.
  std::vector<std::string_view> options;
  std::string_view help;     // one line for --help: what it shows, and its options
  std::string_view example;  // a command line for --help ("" for none)
  TraceDocument (*run)(const TraceRequest&) = nullptr;
  std::string_view key() const { return name; }
};

// The mechanisms, by name; all() by order.
using TraceTable = RegistrationTable<TraceEntry>;

// The entry --figure (when given) or --allocator picks; throws InputError naming the option that
// picks nothing.
const TraceEntry& pick_trace(const TraceRequest& r);

// Runs the entry the options pick, after refusing any option it does not take: the one place
// every trace goes through (the command writes what it returns).
TraceDocument run_trace(const TraceRequest& r);

// --ops for the allocators' traces (gg-ualloc, gallatin, dynasoar): aS allocates S (bytes, or
// 4KiB-style; dynasoar: pages), aSxK K such requests at once (1 .. max_count), fI frees what the
// I-th a (from 0) allocated. InputError naming --ops on anything else, a free of an allocation
// not yet made or made free already, or an S outside [1, max_size].
struct TraceOp {
  bool alloc = true;
  std::uint64_t size = 0;   // a
  std::uint32_t count = 1;  // a: requests at once
  std::size_t target = 0;   // f: the index of the a it frees
};
std::vector<TraceOp> parse_trace_ops(const std::string& text, std::uint64_t max_size,
                                     std::uint32_t max_count, const std::string& example);

// A drawing of rows of cells, shared by the mechanisms' SVGs: each row a label and cells, each
// cell a colour and a character drawn in it (' ' for none); a legend line under it.
struct CellRow {
  std::string label;
  std::vector<std::pair<std::string, char>> cells;  // (fill colour, glyph)
};
std::string cell_rows_svg(const std::vector<CellRow>& rows, const std::string& legend);

}  // namespace alloclab::cli

// Registers a trace mechanism when the program starts (from the mechanism's own file).
#define ALLOCLAB_REGISTER_TRACE(entry) ALLOCLAB_REGISTER_IN(::alloclab::cli::TraceTable, entry)
