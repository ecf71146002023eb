// The explorer page's numbers (issue 16; the other studies' parts, issue 39: parts.hpp): alloclab's
// own model and simulator compiled to WebAssembly (Emscripten, embind), so that the page computes
// with the very functions the `alloclab` command uses; no JavaScript re-implementation. Every
// function returns JSON text, which the page parses. Built only where CMake finds emcc
// (explorer/CMakeLists.txt). The committed H200 rows the page draws are data, put into the page by
// the build (explorer/make_page.cmake), not computed here.
#include <emscripten/bind.h>

#include <exception>
#include <nlohmann/json.hpp>
#include <string>

#include "alloclab/core/scenario.hpp"
#include "alloclab/cpu_sim/trace.hpp"
#include "alloclab/model/model.hpp"
#include "alloclab/model/model_table.hpp"
#include "alloclab/model/rounds.hpp"
#include "parts.hpp"

namespace {

using alloclab::Scenario;
using nlohmann::json;

Scenario scenario(const std::string& algo, double N, double A, double T, int w) {
  const auto a = alloclab::parse_algorithm(algo);
  if (!a) throw std::invalid_argument("unknown algorithm " + algo);
  Scenario s;
  s.algo = *a;
  s.N = static_cast<std::uint64_t>(N);
  s.A = static_cast<std::uint64_t>(A);
  s.T = static_cast<std::uint64_t>(T);
  s.w = static_cast<unsigned>(w);
  return s;
}

json record_json(const alloclab::Record& r) {
  json j = json::object();
  for (const auto& [key, value] : r.fields) {
    if (const auto* d = std::get_if<double>(&value))
      j[key] = *d;
    else if (const auto* i = std::get_if<std::int64_t>(&value))
      j[key] = *i;
    else if (const auto* t = std::get_if<std::string>(&value))
      j[key] = *t;
    else
      j[key] = nullptr;  // undefined here (infinite or not applicable)
  }
  return j;
}

// The model at one point: the sequential record, and with rounds the parallel-rounds one
// (`alloclab model` and `alloclab model --schedule rounds`). {"error": ...} where the model
// refuses the point.
std::string model_point(const std::string& algo, double N, double A, double T, int w, bool rounds) {
  try {
    const Scenario s = scenario(algo, N, A, T, w);
    json j = {{"sequential", record_json(alloclab::model::evaluate(s))}};
    const auto* entry = alloclab::model::ModelTable::instance().find(s.algo);
    if (rounds && entry && entry->rounds)
      j["rounds"] = record_json(alloclab::model::evaluate_rounds(s));
    return j.dump();
  } catch (const std::exception& e) {
    return json{{"error", e.what()}}.dump();
  }
}

// A small lockstep run recorded round by round (`alloclab trace --format json`).
std::string trace_run(const std::string& algo, double N, double A, double T, int w, double seed) {
  try {
    Scenario s = scenario(algo, N, A, T, w);
    s.seed = static_cast<std::uint64_t>(seed);
    const auto t = alloclab::sim::trace_lockstep(s);
    json j = {{"used_before", t.used_before}, {"rounds", json::array()}};
    for (const auto& round : t.rounds) {
      json probes = json::array();
      for (const auto& p : round.probes)
        probes.push_back({{"thread", p.thread}, {"target", p.target}, {"won", p.won}});
      j["rounds"].push_back({{"probes", probes}, {"used_after", round.used_after}});
    }
    return j.dump();
  } catch (const std::exception& e) {
    return json{{"error", e.what()}}.dump();
  }
}

}  // namespace

EMSCRIPTEN_BINDINGS(alloclab_explorer) {
  emscripten::function("modelPoint", &model_point);
  emscripten::function("traceRun", &trace_run);
  // The other studies' parts (parts.hpp), over the core's step machines.
  emscripten::function("semaphoreRun", &alloclab::explorer::semaphore_run);
  emscripten::function("tbuddyRun", &alloclab::explorer::tbuddy_run);
  emscripten::function("uallocRun", &alloclab::explorer::ualloc_run);
  emscripten::function("queueRun", &alloclab::explorer::queue_run);
  emscripten::function("ouroWalk", &alloclab::explorer::ouro_walk);
  emscripten::function("ouroQueuesRun", &alloclab::explorer::ouro_queues_run);
  emscripten::function("gallatinRun", &alloclab::explorer::gallatin_run);
  emscripten::function("bitmapRun", &alloclab::explorer::bitmap_run);
  emscripten::function("heapRun", &alloclab::explorer::heap_run);
}
