// Workload bench (target `bench`): allocations per second per core of the simulator's workload
// path, `churn` in sequential mode on one host thread: N = 2^16 objects of 256 B on a pool of
// T = 2^20 pages of 256 B (256 MiB), free fraction 0.5, 10 rounds after the initial fill (the
// fill's 2^16 allocations plus 10 x 2^15). Three rates per allocator, each the best of the
// repeats (the same trial every repeat, so the repeats differ by machine noise only):
//   alloc      allocations / time inside Allocator::allocate (WorkloadPoint::alloc_seconds)
//   alloc+free allocations / (time inside allocate + time inside free)
//   run        allocations / wall time of the whole run_workload call (building the pool and
//              the always-on verification included)
// The target (docs/speed.md) is 10^7 allocations per second for `alloc`.
// Usage: workload_bench [--json FILE] [--repeats R] [--rounds R]
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "alloclab/cpu_sim/workload_runner.hpp"

using namespace alloclab;
using namespace alloclab::sim;

namespace {

bool parse_count(const char* text, std::uint64_t& out) {
  const auto [end, ec] = std::from_chars(text, text + std::strlen(text), out);
  return ec == std::errc() && *end == '\0' && out >= 1;
}

struct Row {
  std::string allocator;
  std::uint64_t allocs = 0, frees = 0;
  double alloc_s = 0, free_s = 0, run_s = 0;  // of the repeat with the best alloc rate
  double best_alloc_rate = 0, best_alloc_free_rate = 0, best_run_rate = 0;
};

}  // namespace

int main(int argc, char** argv) {
  std::string json_path;
  std::uint64_t repeats = 3, rounds = 10;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--json") && i + 1 < argc) {
      json_path = argv[++i];
    } else if (!std::strcmp(argv[i], "--repeats") && i + 1 < argc) {
      if (!parse_count(argv[++i], repeats)) {
        std::fprintf(stderr, "workload_bench: --repeats: '%s' is not a whole number >= 1\n",
                     argv[i]);
        return 2;
      }
    } else if (!std::strcmp(argv[i], "--rounds") && i + 1 < argc) {
      if (!parse_count(argv[++i], rounds)) {
        std::fprintf(stderr, "workload_bench: --rounds: '%s' is not a whole number >= 1\n",
                     argv[i]);
        return 2;
      }
    } else {
      std::fprintf(stderr,
                   "workload_bench: %s: unknown option or missing value (usage: workload_bench "
                   "[--json FILE] [--repeats R] [--rounds R])\n",
                   argv[i]);
      return 2;
    }
  }
  Workload w;
  w.family = WorkloadFamily::churn;
  w.N = std::uint64_t{1} << 16;
  w.size = {256, 256};
  w.page_bytes = 256;
  w.pool_bytes = (std::uint64_t{1} << 20) * w.page_bytes;
  w.free_fraction = 0.5;
  w.rounds = rounds;
  w.seed = 1;
  WorkloadOptions o;
  o.mode = Mode::sequential;
  o.host_threads = 1;

  std::vector<Row> rows;
  try {
    for (Algorithm a : algorithms_on(BackendKind::sim)) {
      Row row;
      row.allocator = std::string(name(a));
      for (std::uint64_t rep = 0; rep < repeats; ++rep) {
        const auto t0 = std::chrono::steady_clock::now();
        const WorkloadRun r = run_workload(a, w, o, 0);
        const double run_s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::uint64_t allocs = 0, frees = 0;
        double alloc_s = 0, free_s = 0;
        for (const auto& p : r.points) {
          allocs += p.allocs;
          frees += p.freed;
          alloc_s += p.alloc_seconds;
          free_s += p.free_seconds;
        }
        const double n = static_cast<double>(allocs);
        if (n / alloc_s > row.best_alloc_rate) {
          row.best_alloc_rate = n / alloc_s;
          row.allocs = allocs;
          row.frees = frees;
          row.alloc_s = alloc_s;
          row.free_s = free_s;
          row.run_s = run_s;
        }
        row.best_alloc_free_rate = std::max(row.best_alloc_free_rate, n / (alloc_s + free_s));
        row.best_run_rate = std::max(row.best_run_rate, n / run_s);
      }
      rows.push_back(row);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "workload_bench: error: %s\n", e.what());
    return 1;
  }

  std::printf(
      "workload_bench: churn, sequential, 1 host thread; N = 2^16 objects of 256 B, T = 2^20 "
      "pages of 256 B, free fraction 0.5, %llu rounds; best of %llu repeats\n",
      static_cast<unsigned long long>(rounds), static_cast<unsigned long long>(repeats));
  std::printf("%-13s %9s %9s %10s %10s %10s %12s %14s %12s %s\n", "allocator", "allocs", "frees",
              "alloc_ms", "free_ms", "run_ms", "alloc/s", "(alloc+free)/s", "run/s", ">= 1e7");
  for (const auto& r : rows)
    std::printf("%-13s %9llu %9llu %10.2f %10.2f %10.2f %12.4g %14.4g %12.4g %s\n",
                r.allocator.c_str(), static_cast<unsigned long long>(r.allocs),
                static_cast<unsigned long long>(r.frees), 1e3 * r.alloc_s, 1e3 * r.free_s,
                1e3 * r.run_s, r.best_alloc_rate, r.best_alloc_free_rate, r.best_run_rate,
                r.best_alloc_rate >= 1e7 ? "yes" : "no");
  if (!json_path.empty()) {
    std::ofstream out(json_path);
    out << "{\"workload\": \"churn\", \"mode\": \"sequential\", \"host_threads\": 1, \"N\": " << w.N
        << ", \"size\": " << w.size.lo << ", \"page_bytes\": " << w.page_bytes
        << ", \"T\": " << w.pages_total() << ", \"free_fraction\": " << w.free_fraction
        << ", \"rounds\": " << rounds << ", \"repeats\": " << repeats << ", \"rows\": [";
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const Row& r = rows[i];
      out << (i ? ", " : "") << "{\"allocator\": \"" << r.allocator
          << "\", \"allocs\": " << r.allocs << ", \"frees\": " << r.frees
          << ", \"alloc_ms\": " << 1e3 * r.alloc_s << ", \"free_ms\": " << 1e3 * r.free_s
          << ", \"run_ms\": " << 1e3 * r.run_s << ", \"allocs_per_s\": " << r.best_alloc_rate
          << ", \"allocs_per_alloc_free_s\": " << r.best_alloc_free_rate
          << ", \"allocs_per_run_s\": " << r.best_run_rate << "}";
    }
    out << "]}\n";
    if (!out) {
      std::fprintf(stderr, "workload_bench: --json: cannot write '%s'\n", json_path.c_str());
      return 2;
    }
  }
  return 0;
}
