// Rendering result records: an aligned table for people, CSV and JSON for programs.
#pragma once

#include <CLI/CLI.hpp>

#include <iosfwd>
#include <string>
#include <vector>

#include "alloclab/core/result.hpp"

namespace alloclab::cli {

enum class Format { table, csv, json };

// Adds --format table|csv|json.
void add_format_option(CLI::App& cmd, Format& format);

// Columns are the union of the records' keys in first-seen order; a key a record lacks (a grid
// point that was not evaluated) is null there.
// table: aligned columns, nulls as "-", notes listed under the table.
// csv:   header = the columns, nulls empty, notes joined by "; ".
// json:  one array, one object per record with every column, nulls as null, notes as an array
//        of strings.
void write_records(std::ostream& out, const std::vector<Record>& records, Format format);

}  // namespace alloclab::cli
