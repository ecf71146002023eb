// The seeds' join traces replayed in the simulator, in its own units (join_seed_replay.hpp).
#include "alloclab/studies/join_seed_replay.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/probe_sequence.hpp"
#include "alloclab/cpu_sim/simulator.hpp"
#include "alloclab/validation/record_csv.hpp"

namespace alloclab::validation {
namespace {

std::uint64_t round_up(std::uint64_t x, std::uint64_t granule) {
  return granule == 0 ? x : (x + granule - 1) / granule * granule;
}

}  // namespace

std::optional<JoinTrace> seed_join_trace(const Record& row) {
  const auto algo = parse_algorithm(record_text(row, "allocator"));
  if (!algo || !caps(*algo).has(BackendKind::sim)) return std::nullopt;
  if (join_trace(row)) return std::nullopt;  // paper 000's: join_prediction.hpp predicts it
  // join_trace's reading of the row, with the allocator's one-page check left to the replay (its
  // simulator's page is not the join's).
  Record as_rw = row;
  as_rw.set("allocator", std::string("rw"));
  auto t = join_trace(as_rw);
  if (!t) return std::nullopt;
  t->algo = *algo;
  return t;
}

SeedUnits seed_units(Algorithm a) {
  const Capabilities& c = caps(a);
  SeedUnits u;
  u.unit_bytes = c.fixed_page_bytes != 0 ? c.fixed_page_bytes : kJoinPageBytes;
  u.units = static_cast<unsigned>(kJoinPageBytes / u.unit_bytes);
  u.granule = c.pool_granule_bytes / u.unit_bytes;
  return u;
}

std::string SeedReplayPlan::describe() const {
  const std::string unit = units.units == 1 ? std::string()
                                            : fmt::format(" of {} B units ({} a request)",
                                                          units.unit_bytes, units.units);
  const std::uint64_t pages = pool_units / units.units;
  const std::string capped =
      pool_capped
          ? fmt::format(", capped: {:.2g}% taken, the trace's {:.2g}%",
                        100.0 * static_cast<double>(requests()) / static_cast<double>(pages),
                        100 * trace_fill)
          : std::string();
  return fmt::format("lockstep, {} wave{} of {} (s = {:.3g}; the trace: {} wave{}) on {} pages{}{}",
                     waves, waves == 1 ? "" : "s", wave, factor, trace_waves,
                     trace_waves == 1 ? "" : "s", pages, unit, capped);
}

SeedReplayPlan seed_replay_plan(const JoinTrace& t, std::uint64_t reference_wave,
                                const SeedReplayLimits& limits) {
  SeedReplayPlan p;
  p.units = seed_units(t.algo);
  const std::uint64_t resident = std::clamp<std::uint64_t>(t.resident, 1, t.requests);
  reference_wave = std::max(reference_wave, resident);
  p.factor =
      std::min(1.0, static_cast<double>(limits.wave_cap) / static_cast<double>(reference_wave));
  p.trace_waves = (t.requests + resident - 1) / resident;
  p.wave = std::max<std::uint64_t>(
      std::min<std::uint64_t>(t.lanes, t.requests),
      static_cast<std::uint64_t>(std::llround(p.factor * static_cast<double>(resident))));
  p.waves = std::min(p.trace_waves, limits.waves_cap);
  // The pool the replayed requests fill to the trace's fraction N / T, in whole granules; waves
  // added back where the granule made it larger.
  const double fill = static_cast<double>(t.requests) / static_cast<double>(t.pages);
  const auto pages_for = [&](std::uint64_t requests) {
    return std::max<std::uint64_t>(
        requests, static_cast<std::uint64_t>(std::llround(static_cast<double>(requests) / fill)));
  };
  p.trace_fill = fill;
  p.pool_units = round_up(pages_for(p.requests()) * p.units.units, p.units.granule);
  const std::uint64_t cap =
      std::max(round_up(limits.max_pool_units, p.units.granule), p.units.granule);
  if (p.pool_units > cap) {
    p.pool_units = cap;
    p.pool_capped = true;
  }
  const auto fits = static_cast<std::uint64_t>(
      std::floor(fill * static_cast<double>(p.pool_units / p.units.units)));
  const std::uint64_t most_waves = std::max<std::uint64_t>(1, limits.max_requests / p.wave);
  p.waves = std::max(p.waves, std::min(most_waves, fits / p.wave));
  return p;
}

SeedReplay replay_seed_trace(const JoinTrace& t, const SeedReplayPlan& plan) {
  SeedReplay out;
  out.plan = plan;
  Scenario s = join_scenario(t);  // the join's word bits and lanes; in the simulator's units:
  s.N = plan.wave;
  s.A = s.T = plan.pool_units;
  s.pages = plan.units.units;
  sim::SimOptions o;
  o.mode = sim::Mode::lockstep;
  o.host_threads = 1;  // the report runs beside other work; each replay is small
  o.preboot = true;    // Gallatin's GPU pool is pre-booted (studies/gallatin/); others ignore it
  sim::check_input(s, o);
  const auto alloc = sim::make_allocator(s, o, s.seed);
  double steps = 0, warp_steps = 0, atomics = 0;
  std::uint64_t warps = 0;
  std::map<std::string, double> counts;
  std::vector<std::string> order;
  for (std::uint64_t k = 0; k < plan.waves; ++k) {
    const auto before = alloc->used_pages();
    const sim::RunResult r = alloc->allocate(trial_seed(s.seed, k + 1));
    sim::verify(s, o, r, before, alloc->used_pages());
    const sim::RunMetrics m = sim::metrics(s, r);
    steps += m.tas * static_cast<double>(s.N);
    warp_steps += m.was * static_cast<double>(warp_count(s));
    warps += warp_count(s);
    atomics += static_cast<double>(r.atomics_issued);
    for (const auto& [name, n] : r.op_counts) {
      if (!counts.contains(name)) order.push_back(name);
      counts[name] += static_cast<double>(n);
    }
    out.replayed += s.N;
    out.failed += r.failed;
  }
  const auto n = static_cast<double>(out.replayed);
  out.tas = steps / n;
  out.was = warp_steps / static_cast<double>(warps);
  out.atomics = atomics / n;
  for (const auto& name : order) out.counts.emplace_back(name, counts[name] / n);
  return out;
}

}  // namespace alloclab::validation
