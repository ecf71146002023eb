#include "alloclab/validation/speed_floor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "alloclab/model/kernel_time.hpp"
#include "alloclab/validation/record_csv.hpp"

namespace alloclab::validation {
namespace {

// "23", "1.41", "1234": three figures, never an exponent.
std::string factor_text(double x) {
  return x >= 100 ? fmt::format("{:.0f}", x) : fmt::format("{:.3g}", x);
}
std::string ms_text(double ms) {
  return ms >= 1000 ? fmt::format("{:.0f} ms", ms) : fmt::format("{:.3g} ms", ms);
}

bool is_bench_file(const std::filesystem::path& p) {
  const std::string name = p.filename().string();
  return p.extension() == ".json" &&
         (name.rfind("bench", 0) == 0 || name.rfind("gpu_bench", 0) == 0);
}

}  // namespace

std::optional<AtomicThroughput> load_atomic_throughput(const std::string& data_dir,
                                                       const std::string& device_slug,
                                                       std::string& why) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(data_dir) / device_slug;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    why = fmt::format("no measured atomic throughput: no {} (gpu_bench's output)", dir.string());
    return std::nullopt;
  }
  std::vector<fs::path> files;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
       it.increment(ec))
    if (it->is_regular_file() && is_bench_file(it->path())) files.push_back(it->path());
  std::sort(files.begin(), files.end());  // ties go to the first file in path order
  std::optional<AtomicThroughput> best;
  for (const fs::path& f : files) {
    std::ifstream in(f);
    const nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object() || !j.contains("rows") || !j["rows"].is_array()) continue;
    for (const auto& row : j["rows"]) {
      if (!row.is_object() || !row.contains("kernel") || !row["kernel"].is_string() ||
          !row.contains("allocs_per_s") || !row["allocs_per_s"].is_number())
        continue;
      const std::string kernel = row["kernel"].get<std::string>();
      if (kernel.rfind("floor:", 0) != 0) continue;
      const double rate = row["allocs_per_s"].get<double>();
      if (rate > 0 && (!best || rate > best->atomics_per_s))
        best =
            AtomicThroughput{rate, fmt::format("{}/{}, row \"{}\"", device_slug,
                                               fs::relative(f, dir, ec).generic_string(), kernel)};
    }
  }
  if (!best)
    why =
        fmt::format("no measured atomic throughput: no gpu_bench floor row (bench*.json) under {}",
                    dir.string());
  return best;
}

std::optional<AtomicThroughput> device_atomic_throughput(const std::string& device,
                                                         std::string& why) {
  if (device.empty()) {
    why = "no measured atomic throughput: the rows name no device";
    return std::nullopt;
  }
  // "NVIDIA H200 (0000:00:06.0)" -> nvidia-h200: the bus id is the machine's, not the model's.
  const std::string name = device.substr(0, device.find(" ("));
  return load_atomic_throughput(model::default_data_dir(), model::device_slug(name), why);
}

std::optional<BumpTime> device_bump_time(const std::string& device, double requests,
                                         double size_bytes, std::string& why) {
  namespace fs = std::filesystem;
  const std::string slug = model::device_slug(device.substr(0, device.find(" (")));
  const fs::path dir = fs::path(model::default_data_dir()) / slug;
  std::error_code ec;
  std::vector<fs::path> files;
  if (fs::is_directory(dir, ec))
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
         it.increment(ec))
      if (it->is_regular_file() && it->path().filename() == "alloc.csv" &&
          it->path().generic_string().find("/workloads/") != std::string::npos)
        files.push_back(it->path());
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    std::vector<CsvRecord> rows;
    try {
      rows = read_records_csv(f.string());
    } catch (const std::exception&) {
      continue;  // not a workload CSV
    }
    for (const CsvRecord& c : rows) {
      const Record& r = c.record;
      if (record_text(r, "allocator") == "ext-bump" && record_text(r, "mode") == "gpu" &&
          record_flag(r, "verified") && r.number("requests") == requests &&
          r.number("size") == size_bytes && r.number("alloc_ms").value_or(0) > 0)
        return BumpTime{
            *r.number("alloc_ms"),
            fmt::format("{}/{}, ext-bump", slug, fs::relative(f, dir, ec).generic_string())};
    }
  }
  why = fmt::format("no ext-bump row of {:.0f} x {:.0f} B under {}", requests, size_bytes,
                    dir.string());
  return std::nullopt;
}

void bump_fallback(FloorPoint& p, const std::string& device, double requests, double size_bytes,
                   bool cold) {
  if (p.floor || !cold) return;
  std::string why;
  if (const auto bump = device_bump_time(device, requests, size_bytes, why))
    p.floor = bump_floor(bump->ms, bump->source);
}

DesignFloor atomics_floor(double atomics_per_request, double requests,
                          const AtomicThroughput& throughput, std::string_view rows) {
  if (!(atomics_per_request >= 0))
    throw std::invalid_argument("atomics_floor: atomics per request must be >= 0");
  if (!(requests > 0)) throw std::invalid_argument("atomics_floor: requests must be > 0");
  if (!(throughput.atomics_per_s > 0))
    throw std::invalid_argument("atomics_floor: the atomic throughput must be > 0");
  const double ms = atomics_per_request * requests / throughput.atomics_per_s * 1e3;
  return DesignFloor{
      ms, fmt::format("{:.4g} atomics a request ({}) x {:.0f} requests / {:.4g} atomics/s "
                      "(gpu_bench, {}) = {}",
                      atomics_per_request, rows, requests, throughput.atomics_per_s,
                      throughput.source, ms_text(ms))};
}

DesignFloor bump_floor(double bump_ms, std::string_view rows) {
  if (!(bump_ms > 0)) throw std::invalid_argument("bump_floor: the bump time must be > 0");
  return DesignFloor{bump_ms, fmt::format("a bump allocator on the same workload: {} ({})",
                                          ms_text(bump_ms), rows)};
}

FloorPoint floor_point(std::string label, double measured_ms,
                       std::optional<double> atomics_per_request, double requests,
                       const std::optional<AtomicThroughput>& throughput,
                       std::string_view no_throughput_why, std::string_view rows) {
  FloorPoint p{std::move(label), measured_ms, std::nullopt, ""};
  if (!atomics_per_request)
    p.no_floor = fmt::format("no atomics_per_op in {}", rows);
  else if (!throughput)
    p.no_floor = std::string(no_throughput_why);
  else if (!(requests > 0))
    p.no_floor = "no requests in the row";
  else
    p.floor = atomics_floor(*atomics_per_request, requests, *throughput, rows);
  return p;
}

FloorVerdict judge_speed_miss(const std::vector<FloorPoint>& points) {
  FloorVerdict v;
  if (points.empty()) {
    v.judgement = Judgement::not_reproduced;
    v.text = "not reproduced: the design floor cannot be computed (no timed rows)";
    return v;
  }
  const FloorPoint* worst = nullptr;
  std::vector<std::string> missing;
  for (const FloorPoint& p : points) {
    if (!p.floor) {
      missing.push_back(fmt::format("{} ({})", p.label, p.no_floor));
      continue;
    }
    if (!worst || p.factor() > worst->factor()) worst = &p;
  }
  v.factor = worst ? worst->factor() : 0;
  // "More than 2x": a factor of 2 within rounding (a floor computed from counts) is near.
  if (worst && worst->factor() > kFloorFactor * (1 + 1e-9)) {
    v.judgement = Judgement::not_reproduced;
    v.text = fmt::format(
        "not reproduced: implementation {}× above its design floor (at {}: {} measured, floor "
        "{}: {})",
        factor_text(worst->factor()), worst->label, ms_text(worst->measured_ms),
        ms_text(worst->floor->ms), worst->floor->how);
  } else if (!missing.empty()) {
    // The first three, so that a figure of many points keeps its verdict readable.
    std::string list;
    for (std::size_t i = 0; i < std::min<std::size_t>(3, missing.size()); ++i)
      list += (list.empty() ? "" : "; ") + missing[i];
    if (missing.size() > 3) list += fmt::format(" and {} more points", missing.size() - 3);
    v.judgement = Judgement::not_reproduced;
    v.text = fmt::format(
        "not reproduced: no design floor for {}{}", list,
        worst ? fmt::format(" (the others within {}× of theirs)", factor_text(worst->factor()))
              : std::string());
  } else {
    v.judgement = Judgement::does_not_hold;
    v.text = fmt::format(
        "does not hold: the implementation is within {}× of its design floor (at worst {}: {} "
        "measured, floor {}: {})",
        factor_text(worst->factor()), worst->label, ms_text(worst->measured_ms),
        ms_text(worst->floor->ms), worst->floor->how);
  }
  return v;
}

FloorVerdict judge_speed_miss(const FloorPoint& point) {
  return judge_speed_miss(std::vector<FloorPoint>{point});
}

std::string floor_cells(const std::vector<FloorPoint>& points) {
  std::string out;
  for (const FloorPoint& p : points)
    out += (out.empty() ? "" : "; ") +
           (p.floor ? fmt::format("{} {}× (floor {})", p.label, factor_text(p.factor()),
                                  ms_text(p.floor->ms))
                    : fmt::format("{} no floor ({})", p.label, p.no_floor));
  return out;
}

}  // namespace alloclab::validation
