#include "alloclab/validation/record_csv.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace alloclab::validation {

std::optional<std::vector<std::string>> split_csv_record(const std::string& text) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c != '"')
        cells.back() += c;
      else if (i + 1 < text.size() && text[i + 1] == '"')
        cells.back() += text[++i];  // a doubled quote inside a quoted cell
      else
        quoted = false;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      cells.emplace_back();
    } else if (c != '\r') {  // tolerate CRLF files
      cells.back() += c;
    }
  }
  if (quoted) return std::nullopt;
  return cells;
}

namespace {

FieldValue typed_cell(const std::string& s) {
  if (s.empty()) return std::monostate{};
  if (s == "true") return true;
  if (s == "false") return false;
  const char* first = s.data();
  const char* last = s.data() + s.size();
  std::int64_t i = 0;
  if (auto [p, ec] = std::from_chars(first, last, i); ec == std::errc() && p == last) return i;
  double d = 0;
  if (auto [p, ec] = std::from_chars(first, last, d); ec == std::errc() && p == last) return d;
  return s;
}

}  // namespace

std::vector<CsvRecord> read_records_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open");
  std::vector<std::string> keys;
  std::vector<CsvRecord> out;
  std::string line, text;
  std::size_t line_no = 0, start = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (text.empty()) start = line_no;
    text += line;
    const auto cells = split_csv_record(text);
    if (!cells) {  // a quoted line break: the record goes on
      text += '\n';
      continue;
    }
    text.clear();
    if (keys.empty()) {
      keys = *cells;
      continue;
    }
    if (cells->size() == 1 && cells->front().empty()) continue;  // a blank line
    if (cells->size() != keys.size())
      throw std::runtime_error(fmt::format("{}:{}: expected {} cells (the header's), got {}", path,
                                           start, keys.size(), cells->size()));
    CsvRecord r;
    r.line = start;
    for (std::size_t k = 0; k < keys.size(); ++k) {
      if (keys[k] == "notes") {
        if (!(*cells)[k].empty()) r.record.notes.push_back((*cells)[k]);
      } else {
        r.record.set(keys[k], typed_cell((*cells)[k]));
      }
    }
    out.push_back(std::move(r));
  }
  if (!text.empty())
    throw std::runtime_error(fmt::format("{}:{}: a quoted cell is not closed", path, start));
  if (keys.empty()) throw std::runtime_error(path + ": empty file (no header)");
  return out;
}

std::vector<Record> read_records_dir(const std::string& dir, const std::string& subdir) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(dir) / subdir;
  if (!fs::is_directory(root)) return {};
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file() && e.path().extension() == ".csv") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::vector<Record> out;
  for (const auto& f : files)
    for (auto& r : read_records_csv(f.string())) out.push_back(std::move(r.record));
  return out;
}

bool record_flag(const Record& r, const std::string& key) {
  if (const auto* b = std::get_if<bool>(r.find(key))) return *b;
  return r.text(key).value_or("") == "true";
}

std::string record_text(const Record& r, const std::string& key) {
  return r.text(key).value_or("");
}

}  // namespace alloclab::validation
