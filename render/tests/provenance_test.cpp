// Provenance of the report's figures: runs read from sweep.json in order, which runs can write
// which rows, and the runs a figure names.
#include <catch2/catch.hpp>

#include "alloclab/render/provenance.hpp"

using namespace alloclab;
using namespace alloclab::render;

namespace {
nlohmann::json three_runs() {
  // A GPU sweep, resumed by a model sweep and by a simulation in two modes (as the main job does).
  return {{"command_line", "alloclab sweep --backends gpu ..."},
          {"backends", "gpu"},
          {"sim_modes", "sequential"},
          {"git_commit", "abc"},
          {"device", {{"name", "GPU X"}, {"sm_count", 132}}},
          {"resumed",
           {{{"command_line", "alloclab sweep --backends model --modes rounds ..."},
             {"backends", "model"},
             {"sim_modes", "rounds"}},
            {{"command_line", "alloclab sweep --backends sim --modes sequential,lockstep ..."},
             {"backends", "sim"},
             {"sim_modes", "sequential,lockstep"}},
            {{"backends", "sim"}}}}};  // no command line: not a run the report can name
}

validation::PointKey key(const std::string& backend, const std::string& mode) {
  validation::PointKey p;
  p.backend = backend;
  p.mode = mode;
  return p;
}
}  // namespace

TEST_CASE("sweep runs are read in order: the first, then each resumed one",
          "[render][provenance]") {
  const auto runs = sweep_runs(three_runs());
  REQUIRE(runs.size() == 3);
  CHECK(runs[0].backends == "gpu");
  CHECK(runs[0].device == "GPU X");
  CHECK(runs[0].git_commit == "abc");
  CHECK(runs[1].modes == "rounds");
  CHECK(runs[2].modes == "sequential,lockstep");
  CHECK(sweep_runs(nlohmann::json::object()).empty());
}

TEST_CASE("which runs can write which rows", "[render][provenance]") {
  const auto runs = sweep_runs(three_runs());
  // The model writes its sequential rows always, its rounds rows only with --modes rounds.
  CHECK(run_writes_source(runs[1], "model", "sequential"));
  CHECK(run_writes_source(runs[1], "model", "rounds"));
  CHECK_FALSE(run_writes_source(runs[2], "model", "sequential"));
  CHECK(run_writes_source(runs[2], "sim", "lockstep"));
  CHECK_FALSE(run_writes_source(runs[2], "sim", "threads"));
  CHECK(run_writes_source(runs[0], "gpu", ""));
  CHECK_FALSE(run_writes_source(runs[0], "sim", "sequential"));
  // Without grids, a row is traced only where one run alone could have written it.
  const RowWriter writer = writer_by_source(runs);
  CHECK(writer(key("gpu", "")) == std::optional<std::size_t>(0));
  CHECK(writer(key("model", "rounds")) == std::optional<std::size_t>(1));
  CHECK(writer(key("sim", "lockstep")) == std::optional<std::size_t>(2));
  CHECK_FALSE(writer(key("sim", "threads")));
  auto two_model_runs = runs;
  two_model_runs.push_back(runs[1]);
  CHECK_FALSE(writer_by_source(two_model_runs)(key("model", "sequential")));
}

TEST_CASE("a figure names the runs that wrote its rows, once each, in run order",
          "[render][provenance]") {
  Provenance prov;
  prov.runs = sweep_runs(three_runs());
  Figure f;
  validation::PointKey p = key("sim", "lockstep");
  for (std::uint64_t N : {1024, 2048}) {
    p.N = N;
    f.rows.push_back(p);
    f.rows.push_back(p);  // a second metric of the same (point, backend): one row
  }
  f.rows.push_back(key("gpu", ""));
  f.rows.push_back(key("sim", "threads"));  // no run lists threads: untraced
  const MadeBy m = made_by(f, prov);
  CHECK(m.runs == std::vector<std::size_t>{0, 2});
  CHECK(m.untraced_rows == 1);
  CHECK(run_anchor(0) == "run-1");
}

TEST_CASE("the appendix lists every run with an anchor, and the other inputs",
          "[render][provenance]") {
  Provenance prov;
  prov.runs = sweep_runs(three_runs());
  prov.report_command = "alloclab report d";
  prov.other_inputs = {{"time_fit.json", "alloclab fit-time d -o d/time_fit.json"}};
  const Section s = provenance_appendix(prov, three_runs());
  CHECK(s.id == "provenance");
  std::string html;
  for (const auto& b : s.blocks)
    if (const auto* t = std::get_if<Table>(&b)) html += t->html();
  for (const char* anchor : {"id=\"run-1\"", "id=\"run-2\"", "id=\"run-3\""})
    CHECK(html.find(anchor) != std::string::npos);
  CHECK(html.find("id=\"run-4\"") == std::string::npos);
  CHECK(html.find("alloclab sweep --backends sim --modes sequential,lockstep ...") !=
        std::string::npos);
  CHECK(html.find("alloclab fit-time d -o d/time_fit.json") != std::string::npos);
  CHECK(html.find("alloclab report d") != std::string::npos);
  CHECK(html.find("<td class=\"l\">sm_count</td><td class=\"l\">132</td>") != std::string::npos);
}
