// Throughput bench (target `bench`): 2^20 threads, one page each, T = 2^25 pages (256 B pages in
// an 8 GiB pool), 50% free, w = 32. Kernel time = median of the repeats (CUDA events), each from
// the same pool; with and without per-thread counters. Compared with the hardware floor (one
// uncontended atomicOr per thread on a random word of a bitmap of the same size) and with the
// H200 references (reports/peers/: Ouroboros page queue 0.079 ms, Gallatin 0.764 ms, CUDA
// malloc 4173 ms). Every allocator the registry declares on the gpu backend gets a row (with and
// without counters where it has steps); one whose first run takes over a second (the vendor heap)
// is timed over 2 repeats after that run instead of `repeats` after 3 warm-ups.
// Usage: gpu_bench [--json FILE] [--repeats R] [--skip NAME[,NAME...]]
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "alloclab/core/comma_list.hpp"
#include "alloclab/gpu/measure.hpp"

using namespace alloclab;
using namespace alloclab::gpu;

int main(int argc, char** argv) {
  std::string json_path;
  unsigned repeats = 50;
  std::vector<Algorithm> skip;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--json") && i + 1 < argc) {
      json_path = argv[++i];
    } else if (!std::strcmp(argv[i], "--repeats") && i + 1 < argc) {
      const char* text = argv[++i];
      const auto [end, ec] = std::from_chars(text, text + std::strlen(text), repeats);
      if (ec != std::errc() || *end != '\0' || repeats < 1) {
        std::fprintf(stderr, "gpu_bench: --repeats: '%s' is not a whole number >= 1\n", text);
        return 2;
      }
    } else if (!std::strcmp(argv[i], "--skip") && i + 1 < argc) {
      for (const auto& item : comma_items(argv[++i])) {
        const auto a = parse_algorithm(item);
        if (!a) {
          std::fprintf(stderr, "gpu_bench: --skip: unknown allocator '%s'\n", item.c_str());
          return 2;
        }
        skip.push_back(*a);
      }
    } else {
      std::fprintf(stderr,
                   "gpu_bench: %s: unknown option or missing value (usage: gpu_bench "
                   "[--json FILE] [--repeats R] [--skip NAME[,NAME...]])\n",
                   argv[i]);
      return 2;
    }
  }
  try {
    const DeviceInfo dev = device_info();
    const std::uint64_t N = 1u << 20, T = 1ull << 25, A = T / 2;
    struct Row {
      std::string name;
      double ms;
      double tas;
      double was;
    };
    std::vector<Row> rows;
    const double floor_philox = atomic_floor_ms(N, T, true, repeats);
    const double floor_hash = atomic_floor_ms(N, T, false, repeats);
    rows.push_back({"floor: atomicOr, Philox word", floor_philox, 0, 0});
    rows.push_back({"floor: atomicOr, hashed word", floor_hash, 0, 0});
    for (Algorithm a : algorithms_on(BackendKind::gpu)) {
      if (std::find(skip.begin(), skip.end(), a) != skip.end()) continue;
      Scenario s;
      s.algo = a;
      s.N = N;
      s.A = A;
      s.T = T;
      s.seed = 1;
      const bool has_steps = !info(a).step_definition.empty();
      for (bool counters : {true, false}) {
        if (!has_steps && !counters) continue;
        MeasureOptions o;
        o.counters = counters;
        o.repeats = 1;
        o.warmup = 0;
        const auto first = measure(a, s, o);
        // A slow allocator: that run was its warm-up; a fast one, a probe only.
        const bool slow = first.kernel_ms > 1000.0;
        o.repeats = slow ? 2 : repeats;
        o.warmup = slow ? 0 : 3;
        const auto r = measure(a, s, o);
        rows.push_back({std::string(name(a)) + (!has_steps ? ""
                                                : counters ? " (counters)"
                                                           : " (no counters)"),
                        r.kernel_ms, counters ? r.tas : 0, counters ? r.was : 0});
      }
    }
    std::printf("gpu_bench on %s (driver %d, runtime %d, %d SMs, max SM clock %d MHz)\n",
                dev.name.c_str(), dev.driver_version, dev.runtime_version, dev.sm_count,
                dev.sm_clock_mhz);
    std::printf("N = 2^20 one-page requests, T = 2^25 (8 GiB of 256 B pages), 50%% free, w = 32\n");
    std::printf("%-32s %12s %14s %10s %8s %8s\n", "kernel", "ms", "allocs/s", "x floor", "TAS",
                "WAS");
    const double floor_ms = std::min(floor_philox, floor_hash);
    for (const auto& r : rows)
      std::printf("%-32s %12.4f %14.4g %10.2f %8.3f %8.3f\n", r.name.c_str(), r.ms,
                  static_cast<double>(N) / (r.ms * 1e-3), r.ms / floor_ms, r.tas, r.was);
    std::printf(
        "references (H200): Ouroboros page queue 0.079 ms, Gallatin 0.764 ms, CUDA malloc "
        "4173 ms\n");
    if (!json_path.empty()) {
      std::ofstream out(json_path);
      out << "{\"device\": \"" << dev.name << "\", \"driver_version\": " << dev.driver_version
          << ", \"runtime_version\": " << dev.runtime_version << ", \"N\": " << N
          << ", \"T\": " << T << ", \"A\": " << A << ", \"w\": 32, \"repeats\": " << repeats
          << ", \"rows\": [";
      for (std::size_t i = 0; i < rows.size(); ++i)
        out << (i ? ", " : "") << "{\"kernel\": \"" << rows[i].name
            << "\", \"kernel_ms\": " << rows[i].ms
            << ", \"allocs_per_s\": " << static_cast<double>(N) / (rows[i].ms * 1e-3)
            << ", \"ratio_to_floor\": " << rows[i].ms / floor_ms << ", \"tas\": " << rows[i].tas
            << ", \"was\": " << rows[i].was << "}";
      out << "]}\n";
    }
  } catch (const NoDevice& e) {
    std::fprintf(stderr, "gpu_bench: %s\n", e.what());
    return 4;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpu_bench: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
