// Per-run metrics (TAS, WAS, percentiles) and across-trial summaries (Student-t 95% CI).
#include <algorithm>
#include <atomic>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <mutex>

#include "detail.hpp"

namespace alloclab::sim {

RunMetrics metrics(const Scenario& s, const RunResult& r) {
  RunMetrics m;
  const std::size_t n = r.steps.size();
  if (n == 0) return m;
  double sum = 0;
  for (auto x : r.steps) sum += x;
  m.tas = sum / static_cast<double>(n);
  double wsum = 0;
  std::uint64_t warps = 0;
  for (std::size_t first = 0; first < n; first += s.lanes, ++warps) {
    std::uint32_t mx = 0;
    for (std::size_t i = first; i < std::min<std::size_t>(n, first + s.lanes); ++i)
      mx = std::max(mx, r.steps[i]);
    wsum += mx;
  }
  m.was = wsum / static_cast<double>(warps);
  if (r.service_order.size() == n) {  // sequential mode: warps of consecutive service positions
    double osum = 0;
    for (std::size_t first = 0; first < n; first += s.lanes) {
      std::uint32_t mx = 0;
      for (std::size_t k = first; k < std::min<std::size_t>(n, first + s.lanes); ++k)
        mx = std::max(mx, r.steps[r.service_order[k]]);
      osum += mx;
    }
    m.was_service_order = osum / static_cast<double>(warps);
  }
  std::vector<std::uint32_t> sorted(r.steps);
  std::sort(sorted.begin(), sorted.end());
  auto rank = [&](double q) {  // nearest-rank percentile
    const auto k = static_cast<std::size_t>(std::ceil(q * static_cast<double>(n)));
    return static_cast<double>(sorted[std::clamp<std::size_t>(k, 1, n) - 1]);
  };
  m.steps_p50 = rank(0.50);
  m.steps_p99 = rank(0.99);
  m.steps_max = sorted.back();
  m.probes_per_s = r.wall_seconds > 0 ? static_cast<double>(r.probes) / r.wall_seconds : 0.0;
  return m;
}

Summary summarize(const std::vector<double>& v) {
  Summary s;
  s.n = v.size();
  if (v.empty()) return s;
  double sum = 0;
  for (double x : v) sum += x;
  s.mean = sum / static_cast<double>(v.size());
  if (v.size() >= 2) {
    double ss = 0;
    for (double x : v) ss += (x - s.mean) * (x - s.mean);
    const double sd = std::sqrt(ss / static_cast<double>(v.size() - 1));
    const boost::math::students_t dist(static_cast<double>(v.size() - 1));
    const double t = boost::math::quantile(boost::math::complement(dist, 0.025));
    s.sd = sd;
    s.ci95 = t * sd / std::sqrt(static_cast<double>(v.size()));
  }
  return s;
}

TrialsResult run_trials(const Scenario& s, const SimOptions& options, std::uint64_t trials,
                        const std::function<void(std::uint64_t, std::uint64_t)>& progress) {
  std::vector<RunResult> runs(trials);
  std::atomic<std::uint64_t> done{0};
  if (options.mode == Mode::threads) {
    for (std::uint64_t t = 0; t < trials; ++t) {
      runs[t] = run_once(s, options, t);
      if (progress) progress(t + 1, trials);
    }
  } else {
    // Deterministic trials: spread them over host threads; each result is independent of it.
    SimOptions one = options;
    one.host_threads = 1;
    const unsigned workers = static_cast<unsigned>(
        std::min<std::uint64_t>(detail::resolve_host_threads(options.host_threads), trials));
    std::mutex progress_mutex;
    detail::parallel_for(trials, workers, [&](std::uint64_t t, unsigned) {
      runs[t] = run_once(s, one, t);
      const std::uint64_t d = ++done;
      if (progress) {
        std::lock_guard<std::mutex> lock(progress_mutex);
        progress(d, trials);
      }
    });
  }
  TrialsResult out;
  out.trials = trials;
  std::vector<double> tas, was, was_so, col, taken, failed, pps, wall;
  for (const auto& r : runs) {
    const RunMetrics m = metrics(s, r);
    tas.push_back(m.tas);
    was.push_back(m.was);
    if (m.was_service_order) was_so.push_back(*m.was_service_order);
    col.push_back(static_cast<double>(r.collisions));
    taken.push_back(static_cast<double>(r.taken));
    failed.push_back(static_cast<double>(r.failed));
    pps.push_back(m.probes_per_s);
    wall.push_back(r.wall_seconds);
    out.steps_p50 += m.steps_p50 / static_cast<double>(trials);
    out.steps_p99 += m.steps_p99 / static_cast<double>(trials);
    out.steps_max = std::max(out.steps_max, m.steps_max);
  }
  out.tas = summarize(tas);
  out.was = summarize(was);
  if (options.mode == Mode::sequential && was_so.size() == runs.size())
    out.was_service_order = summarize(was_so);
  out.collisions = summarize(col);
  out.taken = summarize(taken);
  out.failed = summarize(failed);
  out.probes_per_s = summarize(pps);
  out.wall_seconds = summarize(wall);
  for (std::size_t i = 0; i < runs.front().op_counts.size(); ++i) {
    std::vector<double> per_request;
    for (const auto& r : runs)
      per_request.push_back(static_cast<double>(r.op_counts[i].second) /
                            static_cast<double>(std::max<std::uint64_t>(s.N, 1)));
    out.op_counts_per_request.emplace_back(runs.front().op_counts[i].first, summarize(per_request));
  }
  return out;
}

}  // namespace alloclab::sim
