#include "alloclab/check/run_check.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <ostream>

#include "alloclab/check/families.hpp"
#include "alloclab/check/schedule_file.hpp"

namespace alloclab::check {

std::vector<CheckRow> run_checks(const CheckRequest& q) {
  std::vector<CheckRow> rows;
  // Every case is built first, so that bad input is reported before any exploration.
  std::vector<std::unique_ptr<ScriptProgram>> programs;
  for (const auto& name : q.allocators) {
    CheckCase c;
    c.allocator = name;
    c.threads = q.threads;
    c.ops = q.ops;
    c.pool = q.pool;
    c.rule = q.rule;
    c.torn_rmw = q.torn_rmw;
    c.null_check = q.null_check;
    programs.push_back(make_program(c));
    rows.push_back(CheckRow{c, {}, {}});
  }
  ExploreOptions o;
  o.preemptions = q.preemptions;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    rows[i].r = explore(*programs[i], o);
    if (rows[i].r.violation) {
      rows[i].schedule_path = q.out_dir + "/" + rows[i].c.allocator + ".schedule";
      write_schedule(rows[i].schedule_path, ScheduleFile{rows[i].c, rows[i].r.violation->message,
                                                         rows[i].r.violation->schedule});
    }
  }
  return rows;
}

namespace {
std::string bound_text(const CheckRequest& q) {
  return q.preemptions ? fmt::format("at most {} preemptions", *q.preemptions)
                       : std::string("exhaustive");
}
}  // namespace

void write_rows_text(std::ostream& out, const std::vector<CheckRow>& rows, const CheckRequest& q) {
  out << fmt::format("alloclab check: {} thread(s), each {}; pool {}; {}; rule {}{}\n", q.threads,
                     script_text(q.ops), q.pool, bound_text(q),
                     q.rule == Rule::printed ? "printed" : "alloclab",
                     q.torn_rmw ? "; injected bug: torn read-modify-writes" : "");
  out << fmt::format("{:<22} {:>11} {:>9} {:>9} {:>11} {:>8} {:>10} {:>9}  {}\n", "allocator",
                     "executions", "sleep-cut", "step-cut", "preempt-cut", "spin-cut", "steps",
                     "seconds", "result");
  for (const auto& row : rows) {
    const ExploreStats& s = row.r.stats;
    out << fmt::format("{:<22} {:>11} {:>9} {:>9} {:>11} {:>8} {:>10} {:>9.3f}  {}\n",
                       row.c.allocator, s.executions, s.sleep_blocked, s.pruned_bound,
                       s.pruned_preemption, s.spin_waits, s.steps, s.seconds,
                       row.r.violation ? "VIOLATION"
                       : s.complete    ? "ok"
                                       : "ok (incomplete)");
    if (row.r.violation) {
      out << fmt::format("  {}\n  shortest schedule found: {} accesses, written to {}\n",
                         row.r.violation->message, row.r.violation->schedule.size(),
                         row.schedule_path);
      for (const auto& k : row.r.kinds)
        if (k.message != row.r.violation->message)
          out << fmt::format("  also found ({} accesses): {}\n", k.schedule.size(), k.message);
    }
  }
  out << "Distinct states: not counted (no state hashing; the search is stateless).\n";
}

void write_rows_json(std::ostream& out, const std::vector<CheckRow>& rows, const CheckRequest& q) {
  nlohmann::json j;
  j["threads"] = q.threads;
  j["ops"] = script_text(q.ops);
  j["pool"] = q.pool;
  j["bound"] = bound_text(q);
  j["rule"] = q.rule == Rule::printed ? "printed" : "alloclab";
  j["null_check"] = q.null_check;
  j["torn_rmw"] = q.torn_rmw;
  j["results"] = nlohmann::json::array();
  for (const auto& row : rows) {
    const ExploreStats& s = row.r.stats;
    nlohmann::json r{{"allocator", row.c.allocator},
                     {"executions", s.executions},
                     {"sleep_set_cut", s.sleep_blocked},
                     {"pruned_step_bound", s.pruned_bound},
                     {"pruned_preemption_bound", s.pruned_preemption},
                     {"spin_waits_not_explored", s.spin_waits},
                     {"steps", s.steps},
                     {"max_depth", s.max_depth},
                     {"complete", s.complete},
                     {"seconds", s.seconds}};
    if (row.r.violation) {
      r["violation"] = row.r.violation->message;
      r["schedule_length"] = row.r.violation->schedule.size();
      r["schedule_file"] = row.schedule_path;
      r["kinds"] = nlohmann::json::array();
      for (const auto& k : row.r.kinds)
        r["kinds"].push_back({{"violation", k.message}, {"schedule_length", k.schedule.size()}});
    }
    j["results"].push_back(r);
  }
  out << j.dump(1) << "\n";
}

}  // namespace alloclab::check
