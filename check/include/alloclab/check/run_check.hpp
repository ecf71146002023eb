// `alloclab check` without its command line: the cases of a list of families explored, their
// numbers as text or JSON, and each violation's schedule written to a file.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "alloclab/check/explorer.hpp"
#include "alloclab/check/script_program.hpp"

namespace alloclab::check {

struct CheckRequest {
  std::vector<std::string> allocators;  // family names (families())
  std::size_t threads = 3;
  std::vector<ScriptOp> ops;
  std::uint64_t pool = 4;
  std::optional<unsigned> preemptions;  // none: exhaustive
  Rule rule = Rule::alloclab;
  bool torn_rmw = false;
  bool null_check = true;
  std::string out_dir = ".";  // where violating schedules go: DIR/<allocator>.schedule
};

struct CheckRow {
  CheckCase c;
  ExploreResult r;
  std::string schedule_path;  // written when r.violation
};

// Throws std::invalid_argument naming the parameter when a case does not fit its family.
std::vector<CheckRow> run_checks(const CheckRequest& q);
void write_rows_text(std::ostream& out, const std::vector<CheckRow>& rows, const CheckRequest& q);
void write_rows_json(std::ostream& out, const std::vector<CheckRow>& rows, const CheckRequest& q);

}  // namespace alloclab::check
