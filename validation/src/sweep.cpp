#include "alloclab/validation/sweep.hpp"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
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

namespace {

// The pairs a journal (run_sweep's comment) lists as started and not finished: key -> the
// description written beside it. A last line without its newline was torn by the stop: a torn
// "+" line's pair had not been handed out, a torn "-" line's counts as unfinished.
std::map<std::string, std::string> unfinished_in_journal(const std::string& path) {
  std::map<std::string, std::string> open;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line) && !in.eof()) {
    if (line.size() < 2) continue;
    const std::string rest = line.substr(1);
    const auto tab = rest.find('\t');
    const std::string key = rest.substr(0, tab);
    if (line[0] == '+')
      open[key] = tab == std::string::npos ? key : rest.substr(tab + 1);
    else if (line[0] == '-')
      open.erase(key);
  }
  return open;
}

}  // namespace

std::string sweep_job_lines(const std::vector<Scenario>& points,
                            const std::vector<Backend>& backends, SweepJob job) {
  const Scenario& s = points.at(job.point);
  const Backend& b = backends.at(job.backend);
  const Record rec = b.evaluate(s);
  std::ostringstream out;
  for (auto& row : rows_from_record(point_of(s, b.name, b.mode), rec, b.metrics)) {
    row.device = b.device;
    write_row(out, row);
  }
  return out.str();
}

SweepDealer::SweepDealer(const std::vector<SweepJob>& jobs, const std::vector<Backend>& backends) {
  for (std::size_t i = 0; i < jobs.size(); ++i)
    (backends.at(jobs[i].backend).needs_device ? device_ : other_).push_back(i);
}

std::optional<std::size_t> SweepDealer::take(bool has_device) {
  auto& line = has_device && !device_.empty() ? device_ : other_;
  if (line.empty()) return std::nullopt;
  const std::size_t i = line.front();
  line.pop_front();
  return i;
}

SweepSummary run_sweep(const std::vector<Scenario>& points, const std::vector<Backend>& backends,
                       const std::string& out_dir, const nlohmann::json& metadata,
                       const ProgressFn& progress, const SweepExecutor& executor) {
  namespace fs = std::filesystem;
  fs::create_directories(out_dir);
  SweepSummary summary;
  summary.csv_path = (fs::path(out_dir) / "sweep.csv").string();
  summary.json_path = (fs::path(out_dir) / "sweep.json").string();
  summary.journal_path = (fs::path(out_dir) / "sweep.journal").string();

  // Resume: every (point, backend) that already has rows is done, but for those the journal
  // says were started and not finished: their rows, whole or not, are dropped.
  const auto lost = unfinished_in_journal(summary.journal_path);
  for (const auto& [key, description] : lost) summary.lost_earlier.push_back(description);
  std::set<std::string> done;
  const bool resuming = fs::exists(summary.csv_path) && fs::file_size(summary.csv_path) > 0;
  if (resuming) {
    const auto rows = read_tidy(summary.csv_path);
    // Rewrite the file without a torn tail so appends start on a fresh line.
    std::ofstream clean(summary.csv_path, std::ios::trunc);
    write_header(clean);
    for (const auto& r : rows) {
      const std::string key = r.point.text();
      if (lost.count(key)) continue;
      done.insert(key);
      write_row(clean, r);
    }
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
    const Backend& b = backends[job.backend];
    return fmt::format("{} {}{} N={} A={} T={}", name(s.algo), b.name,
                       b.mode.empty() ? "" : "/" + b.mode, s.N, s.A, s.T);
  };
  auto key_of = [&](std::size_t job) {
    return point_of(points[jobs[job].point], backends[jobs[job].backend].name,
                    backends[jobs[job].backend].mode)
        .text();
  };
  std::ofstream journal(summary.journal_path, std::ios::trunc);
  if (!journal) throw std::runtime_error(summary.journal_path + ": cannot write");
  std::mutex journal_mutex;  // started() may come from any thread
  auto note = [&](char sign, std::size_t job, const std::string& text) {
    const std::lock_guard<std::mutex> lock(journal_mutex);
    journal << sign << key_of(job) << text << '\n';
    journal.flush();
    if (!journal) throw std::runtime_error(summary.journal_path + ": write failed");
  };
  if (!jobs.empty()) p.current = describe(jobs.front());
  p.lost_earlier = summary.lost_earlier;
  if (progress) progress(p);
  p.lost_earlier.clear();
  const SweepStarted started = [&](std::size_t job) {
    note('+', job, '\t' + describe(jobs.at(job)));
  };
  const SweepDone write = [&](std::size_t job, const std::string& lines) {
    csv << lines;
    csv.flush();  // a finished point survives an interruption
    if (!csv) throw std::runtime_error(summary.csv_path + ": write failed");
    note('-', job, "");
    ++summary.evaluated;
    ++p.done;
    p.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    p.eta_s = p.elapsed_s / static_cast<double>(p.done) * static_cast<double>(p.total - p.done);
    p.current = describe(jobs.at(job));
    if (progress && p.done < p.total) progress(p);
  };
  if (executor) {
    executor(jobs, started, write);
  } else {
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      started(i);
      write(i, sweep_job_lines(points, backends, jobs[i]));
    }
  }
  journal.close();
  fs::remove(summary.journal_path);  // every pair finished: nothing to say to a next run
  p.current.clear();
  if (progress) progress(p);
  return summary;
}

}  // namespace alloclab::validation
