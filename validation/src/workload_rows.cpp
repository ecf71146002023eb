#include "alloclab/validation/workload_rows.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "alloclab/core/plugin_declaration.hpp"
#include "alloclab/validation/record_csv.hpp"

namespace alloclab::validation {

std::string WorkloadRow::source() const {
  if (backend != "sim") return device.empty() ? backend : device;
  return mode.empty() || mode == "sequential" ? "sim" : "sim " + mode;
}

std::string WorkloadRow::where() const {
  return fmt::format("{}:{}", file, line);
}

namespace {

// A field that must be a non-negative whole number (nullopt: null, where allowed).
std::optional<std::uint64_t> whole(const Record& r, const std::string& key, bool nullable,
                                   const std::string& where) {
  const FieldValue* v = r.find(key);
  if (v && std::holds_alternative<std::monostate>(*v) && nullable) return std::nullopt;
  if (const auto* i = v ? std::get_if<std::int64_t>(v) : nullptr; i && *i >= 0)
    return static_cast<std::uint64_t>(*i);
  throw std::runtime_error(where + ": " + key + " is not a whole number of at least 0");
}

std::string text(const Record& r, const std::string& key, const std::string& where) {
  if (const auto t = r.text(key)) return *t;
  throw std::runtime_error(where + ": " + key + " is not text");
}

}  // namespace

std::vector<WorkloadRow> read_workload_csv(const std::string& path, const std::string& display) {
  const std::string name = display.empty() ? path : display;
  std::vector<WorkloadRow> out;
  for (auto& [record, line] : read_records_csv(path)) {
    const std::string where = fmt::format("{}:{}", name, line);
    for (const char* key : kWorkloadRequiredKeys)
      if (!record.find(key))
        throw std::runtime_error(
            fmt::format("{}: no column '{}' (not an `alloclab workload "
                        "--format csv` file)",
                        name, key));
    WorkloadRow w;
    const std::string allocator = text(record, "allocator", where);
    auto algo = parse_algorithm(allocator);
    if (!algo && allocator.starts_with("ext-")) {
      // A plug-in this build was not configured with (docs/plugin-allocators.md): its rows still
      // read, under a name that runs nowhere here.
      Capabilities none = plugin_capabilities_by_name();
      none.backends = 0;
      algo = PluginTable::instance().declare(
          allocator, "a plug-in known here only from its rows (not built into this alloclab)",
          none);
    }
    if (!algo)
      throw std::runtime_error(
          fmt::format("{}: unknown allocator '{}' ({})", where, allocator, algorithm_names()));
    w.allocator = *algo;
    w.backend = text(record, "backend", where);
    w.mode = text(record, "mode", where);
    if (record.find("bit_choice")) w.bit_choice = text(record, "bit_choice", where);
    w.workload = text(record, "workload", where);
    w.device = text(record, "device", where);
    // One size is a whole number of bytes; a range (mixed) is text "lo..hi".
    if (const auto* s = std::get_if<std::string>(record.find("size"))) {
      if (s->find("..") == std::string::npos)
        throw std::runtime_error(where + ": size '" + *s + "' is neither bytes nor lo..hi");
      w.size = *s;
    } else {
      w.size_bytes = whole(record, "size", false, where);
      w.size = std::to_string(*w.size_bytes);
    }
    w.N = whole(record, "N", true, where);
    if (record.find("round")) w.round = whole(record, "round", true, where);
    if (record.find("batch")) w.batch = whole(record, "batch", true, where);
    w.pool_bytes = *whole(record, "pool_bytes", false, where);
    w.page_bytes = *whole(record, "page_bytes", false, where);
    if (w.pool_bytes == 0 || w.page_bytes == 0)
      throw std::runtime_error(where + ": pool_bytes and page_bytes must be positive");
    const auto* verified = std::get_if<bool>(record.find("verified"));
    if (!verified) throw std::runtime_error(where + ": verified is not true or false");
    w.verified = *verified;
    if (const auto* hung = std::get_if<bool>(record.find("hung"))) w.hung = *hung;
    w.values = std::move(record);
    w.file = name;
    w.line = line;
    out.push_back(std::move(w));
  }
  return out;
}

std::vector<WorkloadRow> read_workload_dir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  if (!fs::is_directory(dir)) return {};
  // Files are named from the directory's own name down ("workloads/sim/alloc.csv").
  fs::path base = fs::absolute(dir).lexically_normal();
  if (!base.has_filename()) base = base.parent_path();
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".csv") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::vector<WorkloadRow> out;
  for (const auto& f : files)
    for (auto& r : read_workload_csv(
             f.string(), fs::absolute(f).lexically_relative(base.parent_path()).generic_string()))
      out.push_back(std::move(r));
  return out;
}

}  // namespace alloclab::validation
