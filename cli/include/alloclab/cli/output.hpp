// Rendering result records: an aligned table for people, CSV and JSON for programs, a Markdown
// table for notes.
#pragma once

#include <CLI/CLI.hpp>

#include <initializer_list>
#include <iosfwd>
#include <string>
#include <vector>

#include "alloclab/core/result.hpp"

namespace alloclab::cli {

enum class Format { table, csv, json, md };

// "table", "csv", "json", "md".
const char* format_name(Format format);

// Adds --format, the one output option of every command that prints rows: table|csv|json|md, or
// the part of it a command offers (`offered`, e.g. trace: table|json; table first, the default).
// A value outside it, or the retired `text` (now `table`), is bad input naming --format.
void add_format_option(CLI::App& cmd, Format& format,
                       std::initializer_list<Format> offered = {Format::table, Format::csv,
                                                                Format::json, Format::md});

// Columns are the union of the records' keys in first-seen order; a key a record lacks (a grid
// point that was not evaluated) is null there.
// table: aligned columns, nulls as "-", notes listed under the table.
// csv:   header = the columns, nulls empty, notes joined by "; ".
// json:  one array, one object per record with every column, nulls as null, notes as an array
//        of strings.
// md:    a Markdown table ('|' in a cell escaped, nulls as "-"), notes listed under it.
void write_records(std::ostream& out, const std::vector<Record>& records, Format format);

// Commands that run one long measurement after another stream their rows as CSV, so that a run
// cut short (a time limit, a killed job) keeps the rows it made: after each new row, call this
// with every row so far (`rows.back()` is the new one). It prints the new row (with the header
// before the first) where `format` is csv, and nothing otherwise; write_records then writes the
// other formats whole at the end. (Rows of one command have the same columns.)
void stream_csv_row(std::ostream& out, const std::vector<Record>& rows, Format format);

}  // namespace alloclab::cli
