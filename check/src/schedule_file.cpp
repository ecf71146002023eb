#include "alloclab/check/schedule_file.hpp"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "alloclab/check/explorer.hpp"
#include "alloclab/check/families.hpp"
#include "alloclab/core/errors.hpp"

#include <filesystem>
#include <iostream>

namespace alloclab::check {

void write_schedule(const std::string& path, const ScheduleFile& f) {
  std::ofstream o(path);
  if (!o) throw std::runtime_error("cannot write " + path);
  o << "# alloclab check: a violating schedule (replay: alloclab trace --schedule " << path
    << ")\n";
  o << "allocator " << f.c.allocator << "\n";
  o << "threads " << f.c.threads << "\n";
  o << "ops " << script_text(f.c.ops) << "\n";
  o << "pool " << f.c.pool << "\n";
  o << "rule " << (f.c.rule == Rule::printed ? "printed" : "alloclab") << "\n";
  if (f.c.torn_rmw) o << "inject torn-rmw\n";
  if (!f.c.null_check) o << "null-check off\n";
  o << "violation " << f.violation << "\n";
  o << "schedule";
  for (const auto t : f.schedule) o << ' ' << t;
  o << "\n";
}

ScheduleFile read_schedule(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument("--schedule: cannot read " + path);
  ScheduleFile f;
  std::string line;
  bool have_schedule = false, have_allocator = false;
  auto number = [&](const std::string& key, const std::string& v) -> std::uint64_t {
    if (v.empty() || v.size() > 9 || v.find_first_not_of("0123456789") != std::string::npos)
      throw std::invalid_argument("--schedule: " + path + ": '" + key + "' is not a count: '" + v +
                                  "'");
    return std::stoull(v);
  };
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const std::size_t sp = line.find(' ');
    const std::string key = line.substr(0, sp);
    const std::string value = sp == std::string::npos ? "" : line.substr(sp + 1);
    try {
      if (key == "allocator") {
        f.c.allocator = value;
        have_allocator = true;
      } else if (key == "threads") {
        f.c.threads = number(key, value);
      } else if (key == "ops") {
        f.c.ops = parse_script(value);
      } else if (key == "pool") {
        f.c.pool = number(key, value);
      } else if (key == "rule") {
        if (value != "printed" && value != "alloclab")
          throw std::invalid_argument("--schedule: " + path + ": rule '" + value + "'");
        f.c.rule = value == "printed" ? Rule::printed : Rule::alloclab;
      } else if (key == "inject") {
        f.c.torn_rmw = value == "torn-rmw";
      } else if (key == "null-check") {
        f.c.null_check = value != "off";
      } else if (key == "violation") {
        f.violation = value;
      } else if (key == "schedule") {
        std::istringstream s(value);
        std::string tok;
        while (s >> tok) f.schedule.push_back(number("schedule", tok));
        have_schedule = true;
      } else {
        throw std::invalid_argument("--schedule: " + path + ": unknown line '" + key + "'");
      }
    } catch (const std::invalid_argument& e) {
      const std::string w = e.what();
      if (w.rfind("--schedule", 0) == 0) throw;
      throw std::invalid_argument("--schedule: " + path + ": " + w);
    }
  }
  if (!have_allocator || !have_schedule)
    throw std::invalid_argument("--schedule: " + path +
                                " is not a schedule file of alloclab check (no allocator or "
                                "schedule line)");
  return f;
}

namespace {

void write_svg(const std::string& path, const ScheduleFile& f, const ReplayResult& r) {
  std::ofstream o(path);
  if (!o) throw std::runtime_error("cannot write " + path);
  const int cell = 14, left = 80, top = 30;
  const int width = left + static_cast<int>(r.steps.size()) * cell + 20;
  const int height = top + static_cast<int>(f.c.threads) * 24 + 40;
  o << fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
      "font-family=\"sans-serif\" font-size=\"11\">\n",
      width, height);
  o << fmt::format("<text x=\"4\" y=\"16\">{}: {} thread(s) x {}, pool {} ({} accesses)</text>\n",
                   f.c.allocator, f.c.threads, script_text(f.c.ops), f.c.pool, r.steps.size());
  for (std::size_t t = 0; t < f.c.threads; ++t)
    o << fmt::format("<text x=\"4\" y=\"{}\">thread {}</text>\n", top + 24 * t + 14, t);
  for (std::size_t i = 0; i < r.steps.size(); ++i) {
    const auto& s = r.steps[i];
    const char* colour = s.access.kind == AccessKind::read    ? "#9ecae1"
                         : s.access.kind == AccessKind::write ? "#fdae6b"
                                                              : "#e6550d";
    o << fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"18\" fill=\"{}\"><title>step {}: "
        "thread {} {} {} ({})</title></rect>\n",
        left + static_cast<int>(i) * cell, top + 24 * static_cast<int>(s.thread), cell - 2, colour,
        i + 1, s.thread, access_kind_name(s.access.kind), s.where, s.doing);
  }
  o << fmt::format("<text x=\"4\" y=\"{}\">{}</text>\n", height - 10,
                   r.violation.empty() ? std::string("no violation") : r.violation);
  o << "</svg>\n";
}

}  // namespace

std::string write_replay(std::ostream& out, const ScheduleFile& f, ReplayFormat format,
                         const std::string& svg_path) {
  auto program = make_program(f.c);
  const ReplayResult r = replay(*program, f.schedule);
  if (!svg_path.empty()) write_svg(svg_path, f, r);
  if (format == ReplayFormat::json) {
    nlohmann::json j;
    j["allocator"] = f.c.allocator;
    j["threads"] = f.c.threads;
    j["ops"] = script_text(f.c.ops);
    j["pool"] = f.c.pool;
    j["rule"] = f.c.rule == Rule::printed ? "printed" : "alloclab";
    j["violation"] = r.violation;
    j["steps"] = nlohmann::json::array();
    for (const auto& s : r.steps)
      j["steps"].push_back({{"thread", s.thread},
                            {"access", access_kind_name(s.access.kind)},
                            {"location", s.where},
                            {"operation", s.doing},
                            {"state", s.state}});
    out << j.dump(1) << "\n";
    return r.violation;
  }
  out << fmt::format("{}: {} thread(s), each {}; pool {}; rule {}{}\n", f.c.allocator, f.c.threads,
                     script_text(f.c.ops), f.c.pool,
                     f.c.rule == Rule::printed ? "printed" : "alloclab",
                     f.c.torn_rmw ? "; injected bug: torn read-modify-writes" : "");
  out << fmt::format("{:>5}  {:>6}  {:<8} {:<5} {:<18} {}\n", "step", "thread", "op", "kind",
                     "location", "state after");
  for (std::size_t i = 0; i < r.steps.size(); ++i) {
    const auto& s = r.steps[i];
    out << fmt::format("{:>5}  {:>6}  {:<8} {:<5} {:<18} {}\n", i + 1, s.thread, s.doing,
                       access_kind_name(s.access.kind), s.where, s.state);
  }
  out << (r.violation.empty() ? std::string("no violation on this schedule")
                              : "violation: " + r.violation)
      << "\n";
  return r.violation;
}

void trace_schedule(const std::string& path, bool json, const std::string& out_dir) {
  ScheduleFile f;
  try {
    f = read_schedule(path);
  } catch (const std::invalid_argument& e) {
    throw InputError("--schedule",
                     std::string(e.what()).substr(std::string("--schedule: ").size()));
  }
  if (!out_dir.empty() && !std::filesystem::is_directory(out_dir))
    throw InputError("--out", "'" + out_dir + "' is not a directory");
  try {
    write_replay(std::cout, f, json ? ReplayFormat::json : ReplayFormat::text,
                 out_dir.empty() ? std::string() : out_dir + "/schedule.svg");
  } catch (const std::invalid_argument& e) {
    throw InputError("--schedule", path + ": " + e.what());
  }
}

}  // namespace alloclab::check
