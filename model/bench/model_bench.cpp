// model_bench: time a 10,000-point sweep of the whole model (every quantity `alloclab model`
// prints, the exact sequential WAS included) with N up to 1e5, on one core.
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "alloclab/model/model.hpp"

int main() {
  using clock = std::chrono::steady_clock;
  // 25 N values log-spaced on [1, 1e5] x 20 free fractions on [0.001, 0.5] x 20 T on [1e5, 2^32]
  // (10,000 points), for rw and for rwbm (w = 32).
  std::vector<std::uint64_t> Ns, Ts;
  std::vector<double> fractions;
  for (int i = 0; i < 25; ++i)
    Ns.push_back(static_cast<std::uint64_t>(std::llround(std::pow(1e5, i / 24.0))));
  for (int i = 0; i < 20; ++i) fractions.push_back(0.5 * std::pow(0.002, i / 19.0));
  for (int i = 0; i < 20; ++i)
    Ts.push_back(
        static_cast<std::uint64_t>(std::llround(1e5 * std::pow(4294967296.0 / 1e5, i / 19.0))));
  for (auto algo : {alloclab::Algorithm::rw, alloclab::Algorithm::rwbm}) {
    std::size_t points = 0;
    double checksum = 0.0;
    const auto t0 = clock::now();
    double slowest = 0.0;
    for (auto T : Ts)
      for (double f : fractions)
        for (auto N : Ns) {
          alloclab::Scenario s;
          s.algo = algo;
          s.T = T;
          s.A = static_cast<std::uint64_t>(std::llround(f * static_cast<double>(T)));
          s.N = N <= s.A ? N : s.A;  // keep N <= A (the model needs it)
          const auto p0 = clock::now();
          const auto r = alloclab::model::evaluate(s);
          slowest = std::max(slowest, std::chrono::duration<double>(clock::now() - p0).count());
          checksum += r.number("was").value_or(0.0);
          ++points;
        }
    const double secs = std::chrono::duration<double>(clock::now() - t0).count();
    std::printf(
        "model_bench %-4s: %zu points in %.3f s (%.1f us/point, slowest point %.2f ms), checksum "
        "%.6g\n",
        std::string(alloclab::name(algo)).c_str(), points, secs,
        1e6 * secs / static_cast<double>(points), 1e3 * slowest, checksum);
  }
  return 0;
}
