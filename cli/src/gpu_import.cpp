#include "gpu_import.hpp"

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <vector>

#include "alloclab/core/errors.hpp"
#include "alloclab/validation/tidy.hpp"

namespace alloclab::cli {

GpuImport import_gpu_rows(const std::string& dir, const std::string& option) {
  namespace fs = std::filesystem;
  GpuImport out;
  out.csv_path = (fs::path(dir) / "sweep.csv").string();
  if (!fs::exists(out.csv_path))
    throw InputError(option, out.csv_path + " not found (a directory written by `alloclab sweep`)");
  // Per point (its key's text), its gpu rows in file order; metrics in first-seen order.
  auto by_point = std::make_shared<std::map<std::string, std::vector<validation::TidyRow>>>();
  std::vector<std::string> metrics;
  for (auto& row : validation::read_tidy(out.csv_path)) {
    if (row.point.backend != "gpu") continue;
    if (std::find(metrics.begin(), metrics.end(), row.metric) == metrics.end())
      metrics.push_back(row.metric);
    (*by_point)[row.point.text()].push_back(std::move(row));
  }
  if (by_point->empty()) throw InputError(option, out.csv_path + " holds no gpu rows");
  const auto json_path = fs::path(dir) / "sweep.json";
  if (fs::exists(json_path)) {
    std::ifstream in(json_path);
    out.source = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (!out.source.is_object())
      throw InputError(option, json_path.string() + " is not a JSON object");
  }

  validation::Backend& b = out.backend;
  b.name = "gpu";
  b.metrics = metrics;
  // The device the rows name, where they all name one; else (rows from before the device column,
  // or from several GPUs) the device of the run's metadata.
  std::set<std::string> devices;
  for (const auto& [key, rows] : *by_point)
    for (const auto& row : rows) devices.insert(row.device);
  if (devices.size() == 1 && !devices.begin()->empty())
    b.device = *devices.begin();
  else if (out.source.is_object() && out.source.contains("device") &&
           out.source["device"].is_object())
    b.device = out.source["device"].value("name", std::string());
  b.applies = [by_point](const Scenario& s) {
    return by_point->count(validation::point_of(s, "gpu", "").text()) != 0;
  };
  // The record the rows were made from (rows_from_record's inverse): mean, _sd and _ci95 per
  // metric, trials = the rows' n, so the sweep writes the same rows again.
  const std::string csv = out.csv_path;
  b.evaluate = [by_point, csv](const Scenario& s) {
    const auto& rows = by_point->at(validation::point_of(s, "gpu", "").text());
    Record r;
    for (const auto& row : rows) {
      if (row.n != rows.front().n)
        throw std::runtime_error(csv + ": the gpu rows of " + row.point.text() +
                                 " disagree on the trial count n");
      if (row.mean)
        r.set(row.metric, *row.mean);
      else
        r.set(row.metric, std::monostate{});
      r.set(row.metric + "_sd", row.sd);
      r.set(row.metric + "_ci95", row.ci95);
    }
    r.set_int("trials", rows.front().n);
    return r;
  };
  return out;
}

}  // namespace alloclab::cli
