// The hash join's page-request trace replayed in the simulator and put through the model
// (join_replay.hpp).
#include "alloclab/studies/join_replay.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/probe_sequence.hpp"
#include "alloclab/cpu_sim/simulator.hpp"
#include "alloclab/model/model.hpp"
#include "alloclab/model/model_table.hpp"
#include "alloclab/validation/record_csv.hpp"

namespace alloclab::validation {
namespace {

std::uint64_t count(const Record& r, const std::string& key) {
  const auto v = r.number(key);
  return v && *v > 0 ? static_cast<std::uint64_t>(std::llround(*v)) : 0;
}

}  // namespace

std::optional<JoinTrace> join_trace(const Record& row) {
  if (!record_flag(row, "verified")) return std::nullopt;
  const auto algo = parse_algorithm(record_text(row, "allocator"));
  if (!algo || !caps(*algo).has(BackendKind::sim)) return std::nullopt;  // direct, or GPU only
  // Here: the page allocators with a model of steps (paper 000's), whose prediction the
  // kernel-time fit makes. The seeds' allocators (no time fit of their steps; lockstep replays
  // at this scale would take minutes of the report, gg-tbuddy's alone 50 s; simulators that
  // count 16 B units or take whole 16 MiB segments) are replayed by join_seed_replay.hpp.
  const Capabilities& c = caps(*algo);
  if (!c.has(BackendKind::model) || c.fixed_page_bytes != 0 || c.pool_granule_bytes != 0)
    return std::nullopt;
  JoinTrace t;
  t.algo = *algo;
  t.tuples = count(row, "tuples");
  t.skew = row.number("skew").value_or(0);
  t.requests = count(row, "getpage_calls");
  t.pages = count(row, "pages");
  if (t.requests == 0 || t.pages == 0 || t.requests > t.pages) return std::nullopt;
  if (const std::uint64_t warp_calls = count(row, "getpage_warp_calls"); warp_calls > 0) {
    const double lanes = static_cast<double>(t.requests) / static_cast<double>(warp_calls);
    t.lanes = static_cast<unsigned>(std::clamp(std::llround(lanes), 1LL, 32LL));
  } else {
    t.lanes = 32;
    t.assumed.push_back("32 lanes asking together (no getpage_warp_calls)");
  }
  if (const std::uint64_t resident = count(row, "resident_probe_threads"); resident > 0) {
    t.resident = resident;
  } else {
    t.resident = std::max(count(row, "probe_threads"), t.requests);
    t.assumed.push_back("every probe thread resident, one wave (no resident_probe_threads)");
  }
  try {
    sim::SimOptions o;
    o.mode = sim::Mode::lockstep;
    sim::check_input(join_scenario(t), o);
  } catch (const InputError&) {
    return std::nullopt;  // its simulator serves no one-page requests over this pool
  }
  return t;
}

Scenario join_scenario(const JoinTrace& t) {
  Scenario s;
  s.algo = t.algo;
  s.N = t.requests;
  s.A = s.T = t.pages;
  s.w = kJoinWordBits;
  s.lanes = t.lanes;
  s.pages = 1;
  return s;
}

ReplayScale replay_scale(const JoinTrace& t, const ReplayLimits& limits) {
  const double n = static_cast<double>(t.requests), T = static_cast<double>(t.pages);
  ReplayScale sc;
  sc.factor = std::min({1.0, static_cast<double>(limits.max_requests) / n,
                        static_cast<double>(limits.max_pages) / T});
  const std::uint64_t resident = std::clamp<std::uint64_t>(t.resident, 1, t.requests);
  sc.waves = (t.requests + resident - 1) / resident;
  const double scaled_requests = std::max(1.0, std::round(sc.factor * n));
  sc.wave = std::max<std::uint64_t>(
      std::min<std::uint64_t>(t.lanes, t.requests),
      static_cast<std::uint64_t>(std::llround(scaled_requests / static_cast<double>(sc.waves))));
  sc.requests = sc.wave * sc.waves;
  // The pool keeps the fill fraction of the requests actually replayed (N' / T' = N / T).
  sc.pages = std::max<std::uint64_t>(
      sc.requests,
      static_cast<std::uint64_t>(std::llround(static_cast<double>(sc.requests) * T / n)));
  return sc;
}

ReplaySteps replay_join_trace(const JoinTrace& t, const ReplayLimits& limits) {
  ReplaySteps out;
  out.scale = replay_scale(t, limits);
  Scenario s = scaled_scenario(t, out.scale);
  s.N = out.scale.wave;
  sim::SimOptions o;
  o.mode = sim::Mode::lockstep;
  o.host_threads = 1;  // the report runs beside other work; each trial is small
  double steps = 0, warp_steps = 0;
  std::uint64_t warps = 0;
  const std::uint64_t trials = std::max<std::uint64_t>(
      1, (limits.min_requests_replayed + out.scale.requests - 1) / out.scale.requests);
  for (std::uint64_t trial = 0; trial < trials; ++trial) {
    const std::uint64_t trial_root = trial_seed(s.seed, trial);
    const auto alloc = sim::make_allocator(s, o, trial_root);
    for (std::uint64_t k = 0; k < out.scale.waves; ++k) {
      const auto before = alloc->used_pages();
      const sim::RunResult r = alloc->allocate(trial_seed(trial_root, k + 1));
      sim::verify(s, o, r, before, alloc->used_pages());
      const sim::RunMetrics m = sim::metrics(s, r);
      const std::uint64_t wave_warps = warp_count(s);
      steps += m.tas * static_cast<double>(s.N);
      warp_steps += m.was * static_cast<double>(wave_warps);
      warps += wave_warps;
      out.replayed += s.N;
      out.failed += r.failed;
    }
  }
  out.trials = trials;
  out.tas = steps / static_cast<double>(out.replayed);
  out.was = warp_steps / static_cast<double>(warps);
  return out;
}

Scenario scaled_scenario(const JoinTrace& t, const ReplayScale& scale) {
  Scenario s = join_scenario(t);
  s.N = scale.requests;
  s.A = s.T = scale.pages;
  return s;
}

std::optional<ModelSteps> join_model_steps(const Scenario& s) {
  if (!caps(s.algo).has(BackendKind::model)) return std::nullopt;
  Record record;
  try {
    record = model::evaluate(s);
  } catch (const InputError&) {
    return std::nullopt;
  }
  const auto tas = record.number("tas"), was = record.number("was");
  if (!tas || !was) return std::nullopt;
  return ModelSteps{*tas, *was, s};
}

}  // namespace alloclab::validation
