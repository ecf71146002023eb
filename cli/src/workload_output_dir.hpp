// `alloclab workload --out DIR`: the rows of a run appended to
// DIR/workloads/<backend>/<family>.csv, the folder `validate DIR` and `report DIR` read
// (validation/workload_rows.hpp), and resumable: a point whose coordinates already have rows there
// is skipped, as `sweep` skips points already in its sweep.csv. Rows are appended a whole point at
// a time (all of a churn run's rounds), so a run killed mid-way leaves no half point.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "alloclab/core/result.hpp"

namespace alloclab::cli {

// The columns that say which measurement a row is (not what it measured): the same point run
// again has the same key. Rows keep them as the workload command writes them.
inline constexpr const char* kWorkloadCoordinateKeys[] = {
    "allocator",  "backend",       "mode",       "workload",     "N",
    "size",       "pool_bytes",    "page_bytes", "batch",        "batch_free",
    "rounds",     "free_fraction", "block",      "warp_uniform", "free",
    "bit_choice", "trials",        "repeats",    "seed"};

// Coordinates added after rows were first written, and the value a row without the column
// means, as the key prints it (rows written before --repeats were one repeat, before
// --bit-choice the lowest bit, before --batch-free no batch freed); `family`: the one family whose
// rows have the column (null: every family).
struct WorkloadCoordinateDefault {
  const char* key;
  const char* value;
  const char* family = nullptr;
};
inline constexpr WorkloadCoordinateDefault kWorkloadCoordinateDefaults[] = {
    {"repeats", "1"}, {"bit_choice", "lowest"}, {"batch_free", "0", "oom"}};

// The coordinates of a row, as one string (numbers compared as numbers: 1 and 1.0 are one; a
// missing coordinate of kWorkloadCoordinateDefaults is its default).
std::string workload_point_key(const Record& r);

class WorkloadOutputDir {
 public:
  // Reads the rows already in DIR/workloads/<backend>/<family>.csv, if any (InputError on --out
  // when it is not a workload CSV).
  WorkloadOutputDir(const std::string& dir, const std::string& backend, const std::string& family);
  const std::string& path() const { return path_; }
  bool has(const Record& coordinates) const { return keys_.count(workload_point_key(coordinates)); }
  // Appends one point's rows (the header first in a new file; InputError on --out when the file's
  // columns differ from these rows', e.g. written by another version).
  void append(const std::vector<Record>& rows);
  // InputError on --out when new rows could not be appended because the file predates a column
  // of kWorkloadCoordinateDefaults: said before a point runs, so no measurement is lost.
  void require_appendable() const;

 private:
  std::string path_;
  std::set<std::string> keys_;
  std::string header_;  // the existing file's header line, empty for a new file
  std::string family_;
};

}  // namespace alloclab::cli
