// The seeds' join time from their isolated GPU runs and the replay (join_seed_prediction.hpp).
#include "alloclab/studies/join_seed_prediction.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "alloclab/core/errors.hpp"
#include "alloclab/studies/join_prediction.hpp"
#include "alloclab/validation/record_csv.hpp"

namespace alloclab::validation {
namespace fs = std::filesystem;

std::vector<IsolatedPoint> isolated_points(const std::vector<Record>& rows,
                                           const std::string& source) {
  using Key = std::tuple<std::string, std::uint64_t, std::uint64_t>;
  std::map<Key, std::pair<double, unsigned>> sums;
  for (const auto& r : rows) {
    if (record_text(r, "backend") != "gpu" || record_text(r, "workload") != "alloc" ||
        record_text(r, "mode") != "gpu" || !record_flag(r, "verified"))
      continue;
    const auto size = r.number("size"), n = r.number("N"), pool = r.number("pool_bytes"),
               ms = r.number("alloc_ms");
    if (!size || *size != static_cast<double>(kJoinPageBytes) || !n || *n <= 0 || !pool || !ms ||
        *ms <= 0 || *pool < 2 * *n * *size)
      continue;
    auto& [sum, runs] = sums[Key{record_text(r, "allocator"), static_cast<std::uint64_t>(*n),
                                 static_cast<std::uint64_t>(*pool)}];
    sum += *ms;
    ++runs;
  }
  std::vector<IsolatedPoint> out;
  for (const auto& [key, s] : sums)
    out.push_back({std::get<0>(key), std::get<1>(key), std::get<2>(key), s.first / s.second,
                   s.second, source});
  return out;
}

std::vector<IsolatedPoint> load_isolated_points(const std::string& data_dir,
                                                const std::string& device_id, std::string& why) {
  const fs::path dir = fs::path(data_dir) / device_id;
  const fs::path list = dir / "join_isolated.json";
  if (!fs::exists(list)) {
    why = "no " + list.string() + " (the isolated runs that calibrate the seeds' model)";
    return {};
  }
  std::ifstream in(list);
  const auto j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.contains("sources") || !j["sources"].is_array())
    throw InputError("join_isolated.json", list.string() + " has no \"sources\" array");
  std::vector<IsolatedPoint> out;
  for (const auto& s : j["sources"]) {
    const std::string rel = s.get<std::string>();
    std::vector<Record> rows;
    for (auto& r : read_records_csv((dir / rel).string())) rows.push_back(std::move(r.record));
    for (auto& p : isolated_points(rows, rel)) out.push_back(std::move(p));
  }
  return out;
}

const IsolatedPoint* nearest_isolated(const std::vector<IsolatedPoint>& points,
                                      const std::string& allocator, std::uint64_t N) {
  const IsolatedPoint* best = nullptr;
  double best_distance = INFINITY;
  for (const auto& p : points) {
    if (p.allocator != allocator) continue;
    const double d = std::abs(std::log(static_cast<double>(p.N) / static_cast<double>(N)));
    if (d < best_distance - 1e-12 || (d <= best_distance + 1e-12 && best && p.N > best->N)) {
      best = &p;
      best_distance = d;
    }
  }
  return best;
}

double isolated_rate_ms(const IsolatedPoint& iso, std::uint64_t requests, double q_join,
                        double q_iso) {
  return iso.alloc_ms * (static_cast<double>(requests) / static_cast<double>(iso.N)) *
         (q_join / q_iso);
}

JoinTrace isolated_trace(Algorithm a, const IsolatedPoint& iso, std::uint64_t resident) {
  JoinTrace t;
  t.algo = a;
  t.requests = iso.N;
  t.pages = iso.pool_bytes / kJoinPageBytes;
  t.lanes = 32;
  t.resident = std::clamp<std::uint64_t>(resident, 1, iso.N);
  return t;
}

bool SeedPrediction::judged() const {
  const auto cost = measured_cost();
  if (!cost || !join_ms || *cost <= kNoiseShare * *direct_ms) return false;
  return static_cast<double>(tuples) >= kJudgedFromTuples || *cost >= kDominantShare * *direct_ms;
}

namespace {

// A replay keyed by its trace and plan: skew 0 and 1 ask the same pages at one size, and an
// isolated point calibrates every size.
using ReplayKey = std::tuple<Algorithm, std::uint64_t, std::uint64_t, unsigned, std::uint64_t,
                             std::uint64_t, std::uint64_t>;
const SeedReplay& cached_replay(std::map<ReplayKey, SeedReplay>& cache, const JoinTrace& t,
                                const SeedReplayPlan& plan) {
  const ReplayKey key{t.algo, t.requests, t.pages, t.lanes, t.resident, plan.wave, plan.pool_units};
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, replay_seed_trace(t, plan)).first;
  return it->second;
}

}  // namespace

std::vector<SeedPrediction> predict_seed_join(const std::vector<Record>& rows,
                                              const std::vector<IsolatedPoint>& isolated,
                                              const SeedReplayLimits& limits) {
  const std::map<JoinPoint, double> direct = direct_join_ms(rows);
  std::map<ReplayKey, SeedReplay> cache;
  std::vector<SeedPrediction> out;
  for (const auto& r : rows) {
    Record verified = r;
    verified.set("verified", true);
    const auto would = seed_join_trace(verified);
    const auto measured = r.number("join_ms");
    if (!would || !measured) continue;
    SeedPrediction p;
    p.allocator = record_text(r, "allocator");
    p.tuples = would->tuples;
    p.skew = would->skew;
    p.requests = would->requests;
    p.measured_ms = *measured;
    p.getpage_cycles_per_call = r.number("getpage_cycles_per_call").value_or(0);
    if (const auto d = direct.find(join_point(r)); d != direct.end()) p.direct_ms = d->second;
    if (!seed_join_trace(r)) {
      p.note =
          record_flag(r, "out_of_memory")
              ? fmt::format("not replayed: out of memory, {} pages taken (not a complete join)",
                            static_cast<std::uint64_t>(r.number("pages_taken").value_or(0)))
              : "not replayed: the join was not verified";
      out.push_back(std::move(p));
      continue;
    }
    const JoinTrace& trace = *would;
    const IsolatedPoint* iso = nearest_isolated(isolated, p.allocator, trace.requests);
    std::optional<JoinTrace> iso_trace;
    std::uint64_t reference = std::min(trace.resident, trace.requests);  // the join's wave
    if (iso) {
      iso_trace = isolated_trace(trace.algo, *iso, trace.resident);
      reference = std::max(reference, iso_trace->resident);
    }
    try {
      p.replay = cached_replay(cache, trace, seed_replay_plan(trace, reference, limits));
      if (iso_trace)
        p.calibration =
            cached_replay(cache, *iso_trace, seed_replay_plan(*iso_trace, reference, limits));
    } catch (const InputError& e) {
      p.note = fmt::format("not replayed: its simulator takes no such pool ({})", e.what());
      out.push_back(std::move(p));
      continue;
    }
    if (!iso) {
      p.note = "no isolated 256 B GPU run of " + p.allocator +
               " on a mostly free pool (join_isolated.json): counts only";
    } else if (p.calibration->tas <= 0) {
      p.note = "the isolated run's replay counted no steps: counts only";
    } else {
      p.isolated = *iso;
      p.alloc_ms = isolated_rate_ms(*iso, trace.requests, p.replay->tas, p.calibration->tas);
      if (p.direct_ms)
        p.join_ms = *p.direct_ms + *p.alloc_ms;
      else
        p.note = "no verified Direct Output row at this size: no join time";
    }
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace alloclab::validation
