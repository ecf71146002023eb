#include "workload_output_dir.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include <fmt/format.h>

#include "alloclab/cli/output.hpp"
#include "alloclab/core/errors.hpp"
#include "alloclab/validation/record_csv.hpp"

namespace alloclab::cli {

std::string workload_point_key(const Record& r) {
  std::string key;
  for (const char* k : kWorkloadCoordinateKeys) {
    key += k;
    key += '=';
    const FieldValue* v = r.find(k);
    if (!v) {
      for (const auto& d : kWorkloadCoordinateDefaults)
        if (std::string_view(d.key) == k) key += fmt::format("{}", d.value);
    } else if (const auto x = r.number(k)) {
      key += fmt::format("{}", *x);
    } else if (const auto* s = std::get_if<std::string>(v)) {
      key += *s;
    } else if (const auto* b = std::get_if<bool>(v)) {
      key += *b ? "true" : "false";
    }
    key += ';';
  }
  return key;
}

WorkloadOutputDir::WorkloadOutputDir(const std::string& dir, const std::string& backend,
                                     const std::string& family) {
  namespace fs = std::filesystem;
  const fs::path folder = fs::path(dir) / "workloads" / backend;
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) throw InputError("--out", "cannot create " + folder.string() + ": " + ec.message());
  path_ = (folder / (family + ".csv")).string();
  family_ = family;
  if (!fs::exists(path_) || fs::file_size(path_) == 0) return;
  try {
    for (const auto& row : validation::read_records_csv(path_))
      keys_.insert(workload_point_key(row.record));
  } catch (const std::runtime_error& e) {
    throw InputError("--out", std::string(e.what()) + " (not a workload CSV of this command)");
  }
  std::ifstream in(path_);
  std::getline(in, header_);
}

void WorkloadOutputDir::require_appendable() const {
  if (header_.empty()) return;
  for (const auto& d : kWorkloadCoordinateDefaults) {
    if (d.family && family_ != d.family) continue;
    const std::string key = d.key;
    const bool has_column = header_ == key || header_.starts_with(key + ",") ||
                            header_.find("," + key + ",") != std::string::npos ||
                            header_.ends_with("," + key);
    if (!has_column)
      throw InputError("--out", path_ + " was written before the " + key +
                                    " column: its rows are read, new ones cannot be added; give "
                                    "another directory");
  }
}

void WorkloadOutputDir::append(const std::vector<Record>& rows) {
  if (rows.empty()) return;
  std::ostringstream text;
  write_records(text, rows, Format::csv);
  std::string csv = text.str();
  const std::string header = csv.substr(0, csv.find('\n'));
  if (!header_.empty()) {
    if (header != header_)
      throw InputError("--out", path_ +
                                    " holds rows with other columns (written by another version "
                                    "or other options); give another directory");
    csv = csv.substr(csv.find('\n') + 1);
  }
  std::ofstream out(path_, std::ios::app);
  out << csv;
  if (!out) throw std::runtime_error("cannot write " + path_);
  header_ = header;
}

}  // namespace alloclab::cli
