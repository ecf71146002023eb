// The page-size study (target gpu_page_size_study; scripts/gpu.sh engine page-size runs it on a
// device): why the bitmap allocators are slower at 16 B and 4096 B pages than at 256 B pages of
// an 8 GiB pool. A fresh pool (A = T, every page free) and N = 2^20 threads, one page each; T
// pages from 2^21 (4096 B pages: 65,536 32-bit words, 16 threads per word) to 2^31 (4 B pages:
// a 256 MiB bitmap, over four times the 60 MiB L2 an H200 reports), so that the two effects show
// apart:
//   curve       every T: the atomic floor (Philox word; 32- and 64-bit words) and, counters on,
//               RW-BM and CoRW at w = 32 and 64 and RW - the L2 crossing (bitmap bytes T/8
//               against the L2) and the contention (N/words threads per word) as curves;
//   main        T = 2^21, 2^25, 2^29 (4096, 256, 16 B pages) also: the floor with a hashed word,
//               every allocator with counters off, the other bit choices of the allocators that
//               have them (Capabilities::bit_choices: RW-BM's random and rotated, CoRW's
//               rotated), counters on and off;
//   contention  T = 2^21 and fewer threads (N = 2^16..2^19): contention without changing the
//               bitmap;
//   candidate   at the main T, last: the bench's candidate kernels (candidate_kernels.hpp),
//               counters on and off.
// Each point: median kernel ms of `repeats` timed runs after `warmup` (every run from the same
// pristine pool, verified), TAS, WAS, steps percentiles and collisions of the last run (counters
// on), the ratio to the floor at the same N and T. JSON (schema alloclab-page-size-study/1,
// rewritten after every point, so a run cut short keeps what it measured) and one text line per
// point. `alloclab fit-time DIR --study FILE --bitmap-features` fits the kernel-time model's
// bitmap features to it (validation/page_size_study.hpp).
// Usage: gpu_page_size_study [--json FILE] [--repeats R] [--warmup W] [--log2-N n]
//          [--log2-T LIST] [--main-log2-T LIST] [--contention-log2-T t]
//          [--contention-log2-N LIST] [--pool-bytes B]
// Exit: 0; 2 bad input; 3 a point failed verification, 1 a point could not run (device memory)
// - the other points are still measured, the row says why; 1 a CUDA error (the study stops);
// 4 no CUDA device.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "alloclab/core/comma_list.hpp"
#include "alloclab/core/errors.hpp"
#include "alloclab/gpu/measure.hpp"
#include "candidate_kernels.hpp"

using namespace alloclab;
using namespace alloclab::gpu;
using nlohmann::json;

namespace {

constexpr const char* kUsage =
    "usage: gpu_page_size_study [--json FILE] [--repeats R] [--warmup W] [--log2-N n] "
    "[--log2-T LIST] [--main-log2-T LIST] [--contention-log2-T t] [--contention-log2-N LIST] "
    "[--pool-bytes B]";

struct Options {
  std::string json_path;
  unsigned repeats = 25;  // the issue asks for medians of >= 20
  unsigned warmup = 3;
  unsigned log2_N = 20;
  std::vector<unsigned> log2_T = {21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31};
  std::vector<unsigned> main_log2_T = {21, 25, 29};
  unsigned contention_log2_T = 21;
  std::vector<unsigned> contention_log2_N = {16, 17, 18, 19};
  std::uint64_t pool_bytes = 1ull << 33;  // 8 GiB: page bytes = pool_bytes / T (a label only)
};

// A whole number in [lo, hi], or nullopt.
template <typename U>
std::optional<U> parse_number(const std::string& text, U lo, U hi) {
  U v{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < lo || v > hi)
    return std::nullopt;
  return v;
}

// Exits 2 with one line naming the option on bad input.
Options parse_options(int argc, char** argv) {
  Options o;
  auto bad = [](const std::string& option, const std::string& why) {
    std::fprintf(stderr, "gpu_page_size_study: %s: %s\n", option.c_str(), why.c_str());
    std::exit(2);
  };
  auto list = [&](const std::string& option, const char* text, unsigned lo, unsigned hi) {
    std::vector<unsigned> out;
    for (const auto& item : comma_items(text)) {
      const auto v = parse_number<unsigned>(item, lo, hi);
      if (!v)
        bad(option, "'" + item + "' is not a whole number in [" + std::to_string(lo) + ", " +
                        std::to_string(hi) + "]");
      out.push_back(*v);
    }
    if (out.empty()) bad(option, "an empty list");
    return out;
  };
  // T: 2^10 .. 2^31 pages (the pools keep T < 2^32); N: 2^5 .. 2^24 threads.
  for (int i = 1; i < argc; ++i) {
    const std::string opt = argv[i];
    if (i + 1 >= argc) bad(opt, std::string("unknown option or missing value (") + kUsage + ")");
    const char* v = argv[++i];
    if (opt == "--json") {
      o.json_path = v;
    } else if (opt == "--repeats") {
      o.repeats = list(opt, v, 1, 100000).front();
    } else if (opt == "--warmup") {
      o.warmup = list(opt, v, 0, 1000).front();
    } else if (opt == "--log2-N") {
      o.log2_N = list(opt, v, 5, 24).front();
    } else if (opt == "--log2-T") {
      o.log2_T = list(opt, v, 10, 31);
    } else if (opt == "--main-log2-T") {
      o.main_log2_T = list(opt, v, 10, 31);
    } else if (opt == "--contention-log2-T") {
      o.contention_log2_T = list(opt, v, 10, 31).front();
    } else if (opt == "--contention-log2-N") {
      o.contention_log2_N = list(opt, v, 5, 24);
    } else if (opt == "--pool-bytes") {
      const auto b = parse_number<std::uint64_t>(v, 1, ~std::uint64_t{0});
      if (!b) bad(opt, std::string("'") + v + "' is not a whole number >= 1");
      o.pool_bytes = *b;
    } else {
      bad(opt, std::string("unknown option (") + kUsage + ")");
    }
  }
  return o;
}

bool contains(const std::vector<unsigned>& v, unsigned x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

double sample_sd(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  double mean = 0, ss = 0;
  for (double x : v) mean += x;
  mean /= static_cast<double>(v.size());
  for (double x : v) ss += (x - mean) * (x - mean);
  return std::sqrt(ss / static_cast<double>(v.size() - 1));
}

class Study {
 public:
  Study(const Options& o, const DeviceInfo& dev) : o_(o), dev_(dev) {
    doc_ = {{"schema", "alloclab-page-size-study/1"},
            {"device",
             {{"name", dev.name},
              {"driver_version", dev.driver_version},
              {"runtime_version", dev.runtime_version},
              {"sm_count", dev.sm_count},
              {"sm_clock_mhz", dev.sm_clock_mhz},
              {"mem_clock_mhz", dev.mem_clock_mhz},
              {"global_mem_bytes", dev.global_mem_bytes},
              {"l2_bytes", dev.l2_bytes}}},
            {"settings",
             {{"pool", "fresh: A = T, every page free"},
              {"pool_bytes", o.pool_bytes},
              {"repeats", o.repeats},
              {"warmup", o.warmup},
              {"seed", 1},
              {"kernel_ms", "median of the timed repeats (CUDA events around the kernel)"},
              {"floor",
               "atomic_floor_ms: one atomicOr per thread on a random word, Philox or "
               "hashed word, w-bit words; median of the repeats"},
              {"ratio_to_floor", "kernel_ms / the Philox floor with 32-bit words, same N and T"},
              {"ratio_to_floor_same_w",
               "kernel_ms / the Philox floor with the row's word width, same N and T"}}},
            {"rows", json::array()}};
  }

  // The floor at (N, T, w); returns its ms.
  double floor(const char* set, std::uint64_t N, unsigned log2_T, unsigned w, bool philox) {
    const std::uint64_t T = 1ull << log2_T;
    const double ms = atomic_floor_ms(N, T, philox, o_.repeats, w);
    json row = geometry(set, "floor", N, T, w);
    row["kernel"] = std::string("floor ") + (philox ? "philox" : "hash");
    row["variant"] = philox ? "philox" : "hash";
    row["counters"] = false;
    row["kernel_ms"] = ms;
    if (philox) floor_ms_[{N, T, w}] = ms;
    add(row, ms, nullptr);
    return ms;
  }

  // One allocator (registry) or candidate point.
  void point(const char* set, Algorithm algo, std::optional<bench::Candidate> candidate,
             BitChoice choice, unsigned w, std::uint64_t N, unsigned log2_T, bool counters) {
    const std::uint64_t T = 1ull << log2_T;
    Scenario s;
    s.algo = algo;
    s.N = N;
    s.A = T;
    s.T = T;
    s.w = w;
    s.seed = 1;
    s.bit_choice = choice;
    MeasureOptions mo;
    mo.counters = counters;
    mo.repeats = o_.repeats;
    mo.warmup = o_.warmup;
    json row = geometry(set, candidate ? "candidate" : "allocator", N, T, w);
    row["algo"] = std::string(name(algo));
    const std::string variant =
        candidate ? std::string(bench::candidate_name(*candidate)) : std::string(name(choice));
    row["variant"] = variant;
    row["bit_choice"] = std::string(name(choice));
    row["kernel"] = candidate                     ? variant
                    : caps(algo).has_bit_choice() ? std::string(name(algo)) + " " + variant
                                                  : std::string(name(algo));
    row["counters"] = counters;
    try {
      const MeasureResult r =
          candidate ? bench::measure_candidate(*candidate, s, mo) : measure(algo, s, mo);
      row["kernel_ms"] = r.kernel_ms;
      row["kernel_ms_sd"] = sample_sd(r.kernel_ms_all);
      row["kernel_ms_min"] = *std::min_element(r.kernel_ms_all.begin(), r.kernel_ms_all.end());
      row["kernel_ms_max"] = *std::max_element(r.kernel_ms_all.begin(), r.kernel_ms_all.end());
      row["kernel_ms_all"] = r.kernel_ms_all;
      const auto stat = [&](double v) { return r.has_steps ? json(v) : json(nullptr); };
      row["tas"] = stat(r.tas);
      row["was"] = stat(r.was);
      row["steps_p50"] = stat(r.steps_p50);
      row["steps_p99"] = stat(r.steps_p99);
      row["steps_max"] = stat(r.steps_max);
      row["collisions"] = stat(static_cast<double>(r.collisions));
      row["collisions_per_request"] =
          stat(static_cast<double>(r.collisions) / static_cast<double>(N));
      row["taken"] = r.taken;
      row["failed"] = r.failed;
      row["setup_ms"] = r.setup_ms;
      row["free_ms"] = r.free_ms;
      row["notes"] = r.notes;
      add(row, r.kernel_ms, &r);
    } catch (const VerificationError& e) {
      // Recorded, and the study goes on: the exit status says it (3).
      row["error"] = std::string("verification: ") + e.what();
      ++verification_failures_;
      add(row, NAN, nullptr);
    } catch (const InputError& e) {
      // E.g. not enough free device memory for this point: recorded, the study goes on (exit 1).
      row["error"] = std::string("input: ") + e.what();
      ++other_failures_;
      add(row, NAN, nullptr);
    } catch (const CudaError& e) {
      // A kernel fault leaves the context unusable: record it, write the file, stop.
      row["error"] = std::string("CUDA: ") + e.what();
      add(row, NAN, nullptr);
      throw;
    }
  }

  unsigned verification_failures() const { return verification_failures_; }
  unsigned other_failures() const { return other_failures_; }

 private:
  json geometry(const char* set, const char* kind, std::uint64_t N, std::uint64_t T, unsigned w) {
    const std::uint64_t words = (T + w - 1) / w;
    return {{"set", set},
            {"kind", kind},
            {"w", w},
            {"lanes", 32},
            {"N", N},
            {"A", T},
            {"T", T},
            {"log2_T", static_cast<unsigned>(std::log2(static_cast<double>(T)))},
            {"page_bytes", static_cast<double>(o_.pool_bytes) / static_cast<double>(T)},
            {"words", words},
            {"bitmap_bytes", words * (w / 8)},
            {"bitmap_over_l2",
             static_cast<double>(words * (w / 8)) / static_cast<double>(dev_.l2_bytes)},
            {"threads_per_word", static_cast<double>(N) / static_cast<double>(words)}};
  }

  void add(json& row, double ms, const MeasureResult* r) {
    const auto floor_at = [&](unsigned w) {
      const auto it =
          floor_ms_.find({row["N"].get<std::uint64_t>(), row["T"].get<std::uint64_t>(), w});
      return it == floor_ms_.end() ? NAN : it->second;
    };
    const auto number = [](double x) { return std::isnan(x) ? json(nullptr) : json(x); };
    const double floor_ms = floor_at(32), floor_w_ms = floor_at(row["w"].get<unsigned>());
    row["floor_ms"] = number(floor_ms);
    row["ratio_to_floor"] = number(ms / floor_ms);
    row["floor_same_w_ms"] = number(floor_w_ms);
    row["ratio_to_floor_same_w"] = number(ms / floor_w_ms);
    std::printf("%-10s %-16s w=%2u T=2^%-2u %7.0f B N=%-8llu %-3s %9.4f ms x%5.2f",
                row["set"].get<std::string>().c_str(), row["kernel"].get<std::string>().c_str(),
                row["w"].get<unsigned>(), row["log2_T"].get<unsigned>(),
                row["page_bytes"].get<double>(),
                static_cast<unsigned long long>(row["N"].get<std::uint64_t>()),
                row["counters"].get<bool>() ? "c" : "-", ms, ms / floor_ms);
    if (r && r->has_steps)
      std::printf("  TAS %.3f WAS %.3f p99 %u coll/req %.3f", r->tas, r->was, r->steps_p99,
                  static_cast<double>(r->collisions) / static_cast<double>(row["N"].get<double>()));
    if (row.contains("error")) std::printf("  ERROR %s", row["error"].get<std::string>().c_str());
    std::printf("\n");
    std::fflush(stdout);
    doc_["rows"].push_back(row);
    if (!o_.json_path.empty()) {
      std::ofstream out(o_.json_path);
      out << doc_.dump(1) << '\n';
      if (!out) throw std::runtime_error("cannot write " + o_.json_path);
    }
  }

  const Options& o_;
  DeviceInfo dev_;
  json doc_;
  // The Philox floors by (N, T, w): the rows' references.
  std::map<std::tuple<std::uint64_t, std::uint64_t, unsigned>, double> floor_ms_;
  unsigned verification_failures_ = 0, other_failures_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse_options(argc, argv);
  try {
    const DeviceInfo dev = device_info();
    std::printf("gpu_page_size_study on %s (driver %d, runtime %d, %d SMs, L2 %llu bytes)\n",
                dev.name.c_str(), dev.driver_version, dev.runtime_version, dev.sm_count,
                static_cast<unsigned long long>(dev.l2_bytes));
    std::printf("fresh pool (A = T), %llu B pool for the page sizes, median of %u repeats\n",
                static_cast<unsigned long long>(o.pool_bytes), o.repeats);
    Study study(o, dev);
    std::set<unsigned> all_T(o.log2_T.begin(), o.log2_T.end());
    all_T.insert(o.main_log2_T.begin(), o.main_log2_T.end());
    all_T.insert(o.contention_log2_T);
    const std::uint64_t N = 1ull << o.log2_N;
    // The allocators of the curve: (algorithm, w); RW has 32-bit words whatever w says.
    const std::pair<Algorithm, unsigned> curve_kernels[] = {{Algorithm::rwbm, 32},
                                                            {Algorithm::rwbm, 64},
                                                            {Algorithm::corw, 32},
                                                            {Algorithm::corw, 64},
                                                            {Algorithm::rw, 32}};
    for (unsigned t : all_T) {
      const bool on_curve = contains(o.log2_T, t), main_point = contains(o.main_log2_T, t);
      if (on_curve || main_point) {
        const char* set = on_curve ? "curve" : "main";
        for (unsigned w : {32u, 64u}) study.floor(set, N, t, w, true);
        for (auto [algo, w] : curve_kernels)
          study.point(set, algo, std::nullopt, BitChoice::lowest, w, N, t, true);
      }
      if (main_point) {
        for (unsigned w : {32u, 64u}) study.floor("main", N, t, w, false);
        for (auto [algo, w] : curve_kernels)
          study.point("main", algo, std::nullopt, BitChoice::lowest, w, N, t, false);
        std::set<Algorithm> with_choices;  // each curve allocator's other bit choices, once
        for (auto [algo, w] : curve_kernels)
          if (caps(algo).has_bit_choice()) with_choices.insert(algo);
        for (Algorithm algo : with_choices)
          for (BitChoice choice : {BitChoice::random, BitChoice::rotated})
            if (caps(algo).chooses(choice))
              for (unsigned w : {32u, 64u})
                for (bool counters : {true, false})
                  study.point("main", algo, std::nullopt, choice, w, N, t, counters);
      }
      if (t == o.contention_log2_T) {
        for (unsigned n : o.contention_log2_N) {
          if (n == o.log2_N) continue;
          const std::uint64_t Nc = 1ull << n;
          for (unsigned w : {32u, 64u}) study.floor("contention", Nc, t, w, true);
          for (auto [algo, w] : curve_kernels)
            if (algo != Algorithm::rw)
              study.point("contention", algo, std::nullopt, BitChoice::lowest, w, Nc, t, true);
        }
      }
    }
    // The candidate kernels last: a fault in one of them (they are new code) cannot cost the
    // registry kernels' points, which are already written.
    for (unsigned t : o.main_log2_T)
      for (bench::Candidate c : bench::kCandidates)
        for (unsigned w : {32u, 64u})
          for (bool counters : {true, false})
            study.point("candidate", bench::candidate_base(c), c, BitChoice::lowest, w, N, t,
                        counters);
    if (study.verification_failures()) {
      std::fprintf(stderr, "gpu_page_size_study: %u point(s) failed verification (see 'error')\n",
                   study.verification_failures());
      return 3;
    }
    if (study.other_failures()) {
      std::fprintf(stderr, "gpu_page_size_study: %u point(s) could not run (see 'error')\n",
                   study.other_failures());
      return 1;
    }
  } catch (const NoDevice& e) {
    std::fprintf(stderr, "gpu_page_size_study: %s\n", e.what());
    return 4;
  } catch (const InputError& e) {
    std::fprintf(stderr, "gpu_page_size_study: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpu_page_size_study: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
