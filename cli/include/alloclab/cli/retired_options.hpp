// The option spellings issue 35 retired for one command-line vocabulary (docs/architecture.md,
// "One command-line vocabulary"). An old spelling is still recognised, only to fail: exit 2 and
// one line naming the new one ("alloclab: error: --algo is now --allocator"), never a silent
// alias. This table is the one place that knows them: the executable registers each entry on its
// subcommands, the vocabulary test runs every entry, and the rename notes list it.
// (Recorded command lines in committed data are history, not input: the report's provenance reads
// their old spellings itself, sweep_provenance.cpp.)
#pragma once

#include <CLI/CLI.hpp>

#include <stdexcept>
#include <string>
#include <string_view>

namespace alloclab::cli {

struct RetiredOption {
  std::string_view commands;   // the subcommands that spelled it so, a comma list
  std::string_view old_name;   // as it was typed: --algo, -o
  std::string_view new_name;   // the option that says it now
  std::string_view note = {};  // how the value changed with the name, where it did
};

inline constexpr RetiredOption kRetiredOptions[] = {
    {"model,simulate,measure,explain,trace", "--algo", "--allocator"},
    {"sweep", "--algos", "--allocator"},
    {"sweep", "--backends", "--backend"},
    {"measure,workload", "--heap-bytes", "--cuda-heap"},
    {"fit-time", "-o", "--out", "a directory: the fit goes to DIR/time_fit.json"},
    {"fit-time", "--output", "--out", "a directory: the fit goes to DIR/time_fit.json"},
    {"trace", "--svg", "--out", "a directory: the drawing goes to DIR/trace.svg"},
    {"join", "--pages", "--pool", "bytes, pages of 256 B: 2^27 pages = 32GiB"},
    {"wator,linux-scalability", "--heap", "--pool"},
    {"wator,linux-scalability", "--host-threads", "--threads"},
};

// "--algo is now --allocator", with the note in parentheses where there is one.
std::string retired_message(const RetiredOption& r);

// Whether `command` is one of r.commands.
bool retired_in(const RetiredOption& r, std::string_view command);

// A retired spelling on the command line (main: one line on stderr, exit 2).
class RetiredSpelling : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Registers every retired spelling of each subcommand of `app` on it, hidden from --help: given
// (with or without a value) it throws RetiredSpelling before any requirement is checked. Called
// once, after every subcommand was added.
void add_retired_options(CLI::App& app);

}  // namespace alloclab::cli
