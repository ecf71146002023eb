// Tidy sweep data: one CSV row per (grid point, algorithm, backend, metric), with mean, standard
// deviation, 95% confidence half-width and sample count. Exact model values have sd = ci95 = 0
// and n = 1. This is the format `alloclab sweep` writes and `validate`/`report` read.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "alloclab/core/result.hpp"
#include "alloclab/core/scenario.hpp"

namespace alloclab::validation {

// Identifies one grid point of one algorithm on one backend. The algorithm and the bit choice
// are parsed once, when rows are read; everything downstream compares enums.
struct PointKey {
  Algorithm algo = Algorithm::rw;
  std::string backend;  // "model", "sim", "gpu"
  std::string mode;     // simulator mode, schedule for the model, "" where it does not apply
  std::uint64_t N = 0, A = 0, T = 0;
  unsigned w = 32, lanes = 32, pages = 1;
  // --bit-choice (core/bit_choice.hpp) where the allocator implements it
  // (Capabilities::bit_choices); lowest otherwise and for rows read from CSVs written before the
  // column existed.
  BitChoice bit_choice = BitChoice::lowest;

  std::string text() const;  // stable, unique: used for resume and grouping
  bool operator==(const PointKey&) const = default;
};

struct TidyRow {
  PointKey point;
  std::string metric;  // tas, was, was_bound, collisions, kernel_ms, ...
  std::optional<double> mean;
  double sd = 0;
  double ci95 = 0;
  std::uint64_t n = 1;
  // The device that measured the row (gpu rows: name and PCI bus id, e.g. "NVIDIA H200
  // (0000:19:00.0)"); "" for model and simulator rows and rows from before the column.
  std::string device;
};

inline constexpr const char* kTidyHeader =
    "algo,backend,mode,N,A,T,w,lanes,pages,bit_choice,metric,mean,sd,ci95,n,device";
// Earlier headers, still read; a resumed sweep rewrites such a file with the current header.
// Before the device column (device = ""):
inline constexpr const char* kTidyHeaderWithoutDevice =
    "algo,backend,mode,N,A,T,w,lanes,pages,bit_choice,metric,mean,sd,ci95,n";
// Before the bit_choice column too (e.g. reports/standard/sweep.csv; bit_choice = lowest):
inline constexpr const char* kTidyHeaderWithoutBitChoice =
    "algo,backend,mode,N,A,T,w,lanes,pages,metric,mean,sd,ci95,n";

void write_header(std::ostream& out);
void write_row(std::ostream& out, const TidyRow& row);

// Reads a tidy CSV. A torn last line (an interrupted write) is dropped, not an error; any other
// malformed line (an unknown algorithm or bit choice included) throws std::runtime_error naming
// the file and line.
std::vector<TidyRow> read_tidy(const std::string& path);

// Converts a backend's result record into tidy rows: every numeric field in `metrics` becomes a
// row; `<metric>_sd` and `<metric>_ci95` fields, and `trials`, fill sd, ci95 and n.
std::vector<TidyRow> rows_from_record(const PointKey& point, const Record& record,
                                      const std::vector<std::string>& metrics);

PointKey point_of(const Scenario& s, const std::string& backend, const std::string& mode);

}  // namespace alloclab::validation
