#include "alloclab/validation/sweep.hpp"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

namespace alloclab::validation {

std::string format_duration(double seconds) {
  if (!(seconds >= 0) || seconds > 1e8) return "?";
  const auto s = static_cast<long long>(seconds + 0.5);
  if (s >= 3600) return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
  if (s >= 60) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}s", s);
}

std::string sweep_job_lines(const std::vector<Scenario>& points,
                            const std::vector<Backend>& backends, SweepJob job) {
  const Scenario& s = points.at(job.point);
  const Backend& b = backends.at(job.backend);
  const Record rec = b.evaluate(s);
  std::ostringstream out;
  for (const auto& row : rows_from_record(point_of(s, b.name, b.mode), rec, b.metrics))
    write_row(out, row);
  return out.str();
}

SweepSummary run_sweep(const std::vector<Scenario>& points, const std::vector<Backend>& backends,
                       const std::string& out_dir, const nlohmann::json& metadata,
                       const ProgressFn& progress, const SweepExecutor& executor) {
  namespace fs = std::filesystem;
  fs::create_directories(out_dir);
  SweepSummary summary;
  summary.csv_path = (fs::path(out_dir) / "sweep.csv").string();
  summary.json_path = (fs::path(out_dir) / "sweep.json").string();

  // Resume: every (point, backend) that already has rows is done.
  std::set<std::string> done;
  const bool resuming = fs::exists(summary.csv_path) && fs::file_size(summary.csv_path) > 0;
  if (resuming) {
    const auto rows = read_tidy(summary.csv_path);
    for (const auto& r : rows) done.insert(r.point.text());
    // Rewrite the file without a torn tail so appends start on a fresh line.
    std::ofstream clean(summary.csv_path, std::ios::trunc);
    write_header(clean);
    for (const auto& r : rows) write_row(clean, r);
  }

  nlohmann::json meta = metadata;
  if (resuming && fs::exists(summary.json_path)) {
    std::ifstream in(summary.json_path);
    nlohmann::json first = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (!first.is_discarded()) {
      first["resumed"].push_back(metadata);
      meta = first;
    }
  }
  {
    std::ofstream mj(summary.json_path, std::ios::trunc);
    mj << meta.dump(2) << '\n';
  }

  std::ofstream csv(summary.csv_path, std::ios::app);
  if (!csv) throw std::runtime_error(summary.csv_path + ": cannot write");
  if (!resuming) write_header(csv);

  // The work list, in order, without the pairs already done or not applicable.
  std::vector<SweepJob> jobs;
  for (std::size_t i = 0; i < points.size(); ++i)
    for (std::size_t j = 0; j < backends.size(); ++j) {
      const Scenario& s = points[i];
      const Backend& b = backends[j];
      if (b.applies && !b.applies(s)) {
        ++summary.not_applicable;
        continue;
      }
      if (done.count(point_of(s, b.name, b.mode).text())) {
        ++summary.resumed;
        continue;
      }
      jobs.push_back({i, j});
    }

  const auto start = std::chrono::steady_clock::now();
  SweepProgress p;
  p.total = jobs.size();
  p.skipped_resumed = summary.resumed;
  auto describe = [&](const SweepJob& job) {
    const Scenario& s = points[job.point];
    return fmt::format("{} {} N={} A={} T={}", name(s.algo), backends[job.backend].name, s.N, s.A,
                       s.T);
  };
  if (!jobs.empty()) p.current = describe(jobs.front());
  if (progress) progress(p);
  const SweepDone write = [&](std::size_t job, const std::string& lines) {
    csv << lines;
    csv.flush();  // a finished point survives an interruption
    if (!csv) throw std::runtime_error(summary.csv_path + ": write failed");
    ++summary.evaluated;
    ++p.done;
    p.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    p.eta_s = p.elapsed_s / static_cast<double>(p.done) * static_cast<double>(p.total - p.done);
    p.current = describe(jobs.at(job));
    if (progress && p.done < p.total) progress(p);
  };
  if (executor) {
    executor(jobs, write);
  } else {
    for (std::size_t i = 0; i < jobs.size(); ++i)
      write(i, sweep_job_lines(points, backends, jobs[i]));
  }
  p.current.clear();
  if (progress) progress(p);
  return summary;
}

}  // namespace alloclab::validation
