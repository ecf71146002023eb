// cpu_sim benchmark: probes per second per core for RW at T = 2^25 (sequential mode, one host
// thread) and threads-mode scaling over 1..all cores. Run: cmake --build . --target bench
#include <algorithm>
#include <cstdio>
#include <thread>

#include "alloclab/cpu_sim/simulator.hpp"

using namespace alloclab;
using namespace alloclab::sim;

int main() {
  Scenario s;
  s.algo = Algorithm::rw;
  s.T = std::uint64_t{1} << 25;
  s.A = s.T / 1000;  // 0.1% free: ~1000 probes per request, probing dominates
  s.N = 4096;
  s.seed = 1;
  std::printf("cpu_sim_bench: RW, T=2^25, A=T/1000, N=%llu\n",
              static_cast<unsigned long long>(s.N));
  for (Mode m : {Mode::sequential, Mode::lockstep}) {
    SimOptions o;
    o.mode = m;
    double best = 0;
    for (int rep = 0; rep < 3; ++rep) {
      const RunResult r = run_once(s, o, static_cast<std::uint64_t>(rep));
      best = std::max(best, static_cast<double>(r.probes) / r.wall_seconds);
    }
    std::printf("  %-10s 1 host thread : %8.1f M probes/s\n", mode_name(m), best / 1e6);
  }
  const unsigned hc = std::max(1u, std::thread::hardware_concurrency());
  double base = 0;
  for (unsigned t = 1; t <= hc; t *= 2) {
    SimOptions o;
    o.mode = Mode::threads;
    o.host_threads = t;
    double best = 0;
    for (int rep = 0; rep < 3; ++rep) {
      const RunResult r = run_once(s, o, static_cast<std::uint64_t>(rep));
      best = std::max(best, static_cast<double>(r.probes) / r.wall_seconds);
    }
    if (t == 1) base = best;
    std::printf("  threads    %u host thread%s: %8.1f M probes/s (%.1f M/s per core, x%.2f)\n", t,
                t == 1 ? " " : "s", best / 1e6, best / 1e6 / t, best / base);
    if (t * 2 > hc && t != hc) t = hc / 2;  // also measure all cores when not a power of two
  }
  for (Algorithm a : {Algorithm::rwbm, Algorithm::corw}) {
    Scenario b = s;
    b.algo = a;
    b.A = s.T / 200;
    b.N = 2 * b.A / 3;
    const RunResult r = run_once(b, SimOptions{}, 0);
    std::printf("  %-5s sequential, A=T/200, N=2A/3: %8.1f M word reads/s\n",
                std::string(name(a)).c_str(), static_cast<double>(r.probes) / r.wall_seconds / 1e6);
  }
  return 0;
}
