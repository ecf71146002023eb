// `alloclab sweep`: runs a grid of scenarios on every requested backend and writes tidy data
// (DIR/sweep.csv) plus the run's metadata (DIR/sweep.json). Each (point, backend) is appended and
// flushed as soon as it is done, so an interrupted sweep resumes where it stopped: points already
// in sweep.csv are skipped.
#pragma once

#include <deque>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "alloclab/core/result.hpp"
#include "alloclab/core/scenario.hpp"
#include "alloclab/validation/tidy.hpp"

namespace alloclab::validation {

// A backend as the sweep sees it: which points it can evaluate, and how.
struct Backend {
  std::string name;    // "model", "sim", "gpu"
  std::string mode;    // simulator mode or model schedule; "" if none
  std::string device;  // the device this process measures on, written in each row; "" if none
  bool needs_device = false;  // evaluates on a GPU: a distributed sweep deals it to GPU ranks only
  std::vector<std::string> metrics;                 // record keys written as tidy rows
  std::function<bool(const Scenario&)> applies;     // false: silently not evaluated
  std::function<Record(const Scenario&)> evaluate;  // may throw; the sweep stops then
};

struct SweepProgress {
  std::size_t done = 0, total = 0, skipped_resumed = 0;
  double elapsed_s = 0, eta_s = 0;
  std::string current;
  // In the first call only: the pairs an earlier run lost (SweepSummary::lost_earlier).
  std::vector<std::string> lost_earlier;
};

using ProgressFn = std::function<void(const SweepProgress&)>;

struct SweepSummary {
  std::size_t evaluated = 0;       // (point, backend) pairs run now
  std::size_t resumed = 0;         // pairs found already done in sweep.csv
  std::size_t not_applicable = 0;  // pairs a backend does not cover
  // The pairs an earlier run of this sweep had started and not finished (its journal, below),
  // described as the progress line does: lost then, run again now.
  std::vector<std::string> lost_earlier;
  std::string csv_path, json_path, journal_path;
};

// One (point, backend) pair of a sweep's work list: indices into run_sweep's `points` and
// `backends`, which every process of a distributed sweep builds alike from the same arguments.
struct SweepJob {
  std::size_t point = 0, backend = 0;
};

// The tidy rows of one job as sweep.csv lines (evaluate, then rows_from_record): what any
// process computes for a job, so that where it ran does not change a byte of the file.
std::string sweep_job_lines(const std::vector<Scenario>& points,
                            const std::vector<Backend>& backends, SweepJob job);

// Runs `jobs`: calls started(i) when jobs[i] is handed to a thread or process (from any thread,
// before its rows can arrive), then done(i, lines of jobs[i]) once per job, on the calling
// thread, in any order. The default runs them one after another; a distributed sweep deals them
// to processes.
using SweepStarted = std::function<void(std::size_t job)>;
using SweepDone = std::function<void(std::size_t job, const std::string& lines)>;
using SweepExecutor = std::function<void(const std::vector<SweepJob>& jobs,
                                         const SweepStarted& started, const SweepDone& done)>;

// The jobs of a distributed sweep waiting for a process, in two lines: those of a backend that
// needs a device (Backend::needs_device) and the rest, each in work-list order. A process with a
// device takes from the device line first (only such processes can), one without takes the rest.
// Not thread-safe: the caller guards it.
class SweepDealer {
 public:
  SweepDealer(const std::vector<SweepJob>& jobs, const std::vector<Backend>& backends);
  // The next job's index into `jobs` for a process with or without a device; nullopt when
  // nothing is left that it can run.
  std::optional<std::size_t> take(bool has_device);
  std::size_t waiting() const { return device_.size() + other_.size(); }

 private:
  std::deque<std::size_t> device_, other_;
};

// metadata: versions, seed, device, command line... written to sweep.json (on resume the first
// run's metadata is kept and this run is appended under "resumed").
//
// DIR/sweep.journal records each pair as it starts ("+" and its key) and once its rows are in
// sweep.csv ("-"): a pair started and not finished when a run stopped (killed, a rank that died)
// was lost, whatever rows of it reached sweep.csv. The next run drops those rows, runs the pair
// again and says which they were (SweepSummary::lost_earlier); a run that ends removes the
// journal.
SweepSummary run_sweep(const std::vector<Scenario>& points, const std::vector<Backend>& backends,
                       const std::string& out_dir, const nlohmann::json& metadata,
                       const ProgressFn& progress, const SweepExecutor& executor = {});

// "1h02m", "3m05s", "12s"
std::string format_duration(double seconds);

}  // namespace alloclab::validation
