// Which recorded sweep wrote each row of a sweep directory, for the report's "Made by". The
// sweep.json of a directory records every run's command line; expanding each command line into
// its grid with the sweep's own options (grid.hpp) gives the (point, backend) pairs it covers, and
// a resumed sweep skips pairs already present, so a row was written by the first run covering it.
#pragma once

#include <string>
#include <vector>

#include "alloclab/render/provenance.hpp"

namespace alloclab::cli {

// The words of a recorded command line: '...' literal, "..." with \" and \\ escapes, a backslash
// outside quotes escapes the next character, unquoted blanks separate words.
std::vector<std::string> shell_words(const std::string& line);

// The exact writer: a row maps to the first run whose grid and backends hold its (point, backend).
// A run whose command line cannot be expanded (not `alloclab sweep`, unknown options, an invalid
// grid) covers nothing known: a row it could have written (render::run_writes_source) before any
// run that surely wrote it stays untraced rather than guessed.
render::RowWriter sweep_row_writer(const std::vector<render::SweepRun>& runs);

}  // namespace alloclab::cli
