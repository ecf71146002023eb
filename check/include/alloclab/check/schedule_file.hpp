// A violating schedule as a file (`alloclab check` writes it, `alloclab trace --schedule FILE`
// replays it) and its replay, step by step, as text, JSON or SVG.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

#include "alloclab/check/script_program.hpp"

namespace alloclab::check {

struct ScheduleFile {
  CheckCase c;
  std::string violation;
  std::vector<std::size_t> schedule;  // the thread of each access, from the initial state
};

// Text, one `key value` line each (allocator, threads, ops, pool, rule, torn-rmw, violation,
// schedule). Throws std::runtime_error when the file cannot be written.
void write_schedule(const std::string& path, const ScheduleFile& f);
// Throws std::invalid_argument ("--schedule: ...") on a missing or malformed file.
ScheduleFile read_schedule(const std::string& path);

enum class ReplayFormat { text, json };
// Replays f's schedule and writes every step; svg_path non-empty: also an SVG of the steps
// (one lane per thread). Returns the violation the replay met ("" if none).
std::string write_replay(std::ostream& out, const ScheduleFile& f, ReplayFormat format,
                         const std::string& svg_path);

// `alloclab trace --schedule FILE`: the replay on stdout (text or JSON); out_dir non-empty:
// also out_dir/schedule.svg. Bad input throws alloclab::InputError naming --schedule or --out.
void trace_schedule(const std::string& path, bool json, const std::string& out_dir);

}  // namespace alloclab::check
