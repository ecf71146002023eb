// Where the report's rows came from. A sweep directory is written by one `alloclab sweep` and
// extended by resumed ones (sweep.json: the first run, then "resumed", in order); a resumed sweep
// skips every (point, backend) already present, so each row was written by the first run whose
// grid holds it. A figure's "Made by" names those runs' commands only (usually one); the report's
// appendix lists every run with its device, commit and date.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "alloclab/render/document.hpp"
#include "alloclab/validation/tidy.hpp"

namespace alloclab::render {

struct SweepRun {
  std::string command_line;
  std::string backends;  // "model,sim"
  std::string modes;     // the sweep's --modes: simulator modes, and "rounds" for the model
  std::string git_commit, started_utc, compiler, device;
  std::uint64_t trials = 0, seed = 0;
};

// The runs recorded in sweep.json, in order (first run, then each resumed one); runs without a
// command line are skipped.
std::vector<SweepRun> sweep_runs(const nlohmann::json& sweep_metadata);

// Whether a run's backends and modes could have written rows of this backend and mode: the model
// writes mode "sequential" always and "rounds" where --modes lists it; the simulator writes the
// modes listed; the GPU has no mode.
bool run_writes_source(const SweepRun& run, const std::string& backend, const std::string& mode);

// The run (index into the runs) that wrote a (point, backend) pair; nullopt where unknown.
using RowWriter = std::function<std::optional<std::size_t>(const validation::PointKey&)>;

// Without the runs' grids: a row is traced to a run only where that run alone could have written
// its backend and mode (run_writes_source); otherwise it stays untraced. The CLI, which can
// expand the recorded command lines into grids, gives an exact writer instead.
RowWriter writer_by_source(const std::vector<SweepRun>& runs);

struct Provenance {
  std::vector<SweepRun> runs;
  RowWriter writer;  // empty: writer_by_source(runs)
  std::string report_command;
  // Other inputs of the report, each with the command that made it: (what, command).
  std::vector<std::pair<std::string, std::string>> other_inputs;
};

// The figure's "Made by": the commands of the runs that wrote its rows, in run order, or its own
// made_by; then the report command. With untraced rows it says so and points to the appendix.
struct MadeBy {
  std::vector<std::size_t> runs;  // indices into Provenance::runs
  std::size_t untraced_rows = 0;
};
MadeBy made_by(const Figure& figure, const Provenance& provenance);

// Anchor of run i in the appendix ("run-1" for the first).
std::string run_anchor(std::size_t run);

// The appendix: every run (command, backends, modes, trials, device, commit, start time), the
// report's other inputs and the command that made the report, and the device's metadata.
Section provenance_appendix(const Provenance& provenance, const nlohmann::json& sweep_metadata);

}  // namespace alloclab::render
