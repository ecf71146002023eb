// Reading the CSV files alloclab writes: tidy sweeps (tidy.hpp) and result records printed with
// `--format csv` (cli/output.hpp: a header of the records' keys then "notes"; a cell holding a
// comma, a quote or a line break is quoted with quotes doubled; a null is an empty cell). One
// reader for both, so a quoted note never shifts a column.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "alloclab/core/result.hpp"

namespace alloclab::validation {

// The cells of one CSV record. Quoted cells may hold commas, doubled quotes and line breaks;
// nullopt when a quoted cell is still open at the end of `text` (the record continues on the next
// line, or the file was cut).
std::optional<std::vector<std::string>> split_csv_record(const std::string& text);

// A record read back, with the file line it starts on (1 = the header).
struct CsvRecord {
  Record record;
  std::size_t line = 0;
};

// A file written by write_records(..., Format::csv). Each cell becomes the field of its column:
// empty -> null, "true"/"false" -> bool, a whole integer -> int64, a whole number -> double,
// anything else -> text. The "notes" column, when present, becomes the record's one note (the
// writer joined the notes with "; ", which notes may contain themselves, so they are not split).
// Throws std::runtime_error naming the file and line for a row with the wrong number of cells or
// an unterminated quote, and for a file without a header.
std::vector<CsvRecord> read_records_csv(const std::string& path);

// The records of every DIR/<subdir>/**.csv, files in path order (none when the directory is
// missing): the rows of `alloclab semaphore` and `alloclab join` a report is given.
std::vector<Record> read_records_dir(const std::string& dir, const std::string& subdir);

// A cell of a record read back as a flag: true for a bool true or the text "true" (a row of
// another writer), false otherwise (missing included).
bool record_flag(const Record& r, const std::string& key);
// A text cell of a record read back, "" when missing or not text.
std::string record_text(const Record& r, const std::string& key);

}  // namespace alloclab::validation
