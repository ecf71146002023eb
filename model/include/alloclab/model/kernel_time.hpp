// Kernel time predicted from the model: a device's committed kernel-time fit
// (reports/data/<device>/time_fit.json, written by `alloclab fit-time`) applied to the model's
// TAS and WAS. The fit itself (least squares, feature selection, held-out errors) is made in
// validation/ (validation/time_fit.hpp); this file only reads its result and evaluates
//
//     kernel_ms = alpha + sum_k beta_k * feature_k
//
// for the features the model gives (threads, probes, warp-steps, the critical path, and the
// bitmap features: bitmap bytes against the device's L2, threads per word). Collisions are a
// measured feature only: the fit applied here is each group's "model_only" fit, which never uses
// them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "alloclab/core/result.hpp"
#include "alloclab/core/scenario.hpp"

namespace alloclab::model {

// The work quantities kernel time is fitted to (one per candidate term of the fit).
enum class TimeFeature {
  threads,     // N: a fixed cost per request (launch, counters, the page write)
  probes,      // N*TAS: total steps of all threads (the memory system's throughput)
  warp_steps,  // warps*WAS: a warp holds its SM slot until its slowest lane is done
  was,         // WAS: the critical path when there are few warps
  collisions,  // failed atomic claims (measured only; the model-only fit leaves it out)
  // The bitmap features (`alloclab fit-time --bitmap-features`; the committed fits predate them).
  // Both follow from the pool's geometry alone - T pages in words of w bits, N threads - so the
  // model gives them at every point; they are 0 for an allocator whose steps read no bitmap.
  //
  // N*TAS*miss: the probes that miss the L2, N * TAS * m with m = l2_miss_fraction(B, L2) and
  //   B = bitmap_bytes(T, w). Why m = max(0, 1 - L2/B): every probe reads a uniformly random
  //   word, so whatever the replacement policy, in steady state the L2 holds at most L2 of the B
  //   bytes and a probe finds its line there with probability min(1, L2/B); the others pay a
  //   DRAM access (hundreds of ns, and a DRAM sector per probe in throughput) on top of the L2
  //   round trip that N*TAS already counts. B <= L2 (the whole bitmap fits): m = 0, the term
  //   vanishes. The L2 also holds the result slots (16 bytes per request with counters), so the
  //   knee can come before B = L2; the page-size study measures where it is (a fit can then use
  //   an effective L2 size, `fit-time --l2-bytes`).
  l2_miss_probes,
  // N/words: threads per word c = N / ceil(T/w), the expected number of threads whose probes land
  //   on one word (uniform probes). A critical-path term, like WAS: the threads that read one
  //   word at about the same time and target the same bit (lowest free bit) win one claim each
  //   round trip, so the last of them retries about c times, every retry one same-address atomic
  //   that its L2 slice serialises, and its warp waits for it. (Size-biased: a thread's own word
  //   holds on average c other threads besides it, Poisson.)
  threads_per_word,
  // N*N/words: N * c, twice the expected number of thread pairs that share a word (C(N,2)/words
  //   pairs): the throughput form of the same contention, each pair that reads the word before
  //   the other's claim lands costs one lost claim (an extra atomic) under the lowest-bit rule.
  word_pairs,
};

// "N", "N*TAS", "warps*WAS", "WAS", "collisions", "N*TAS*miss", "N/words", "N*N/words": the names
// time_fit.json uses.
const char* feature_name(TimeFeature f);
std::optional<TimeFeature> parse_feature(std::string_view name);
// The bitmap features above (computed from T, the word width and, for the miss term, the L2).
bool is_bitmap_feature(TimeFeature f);
// The features that need the device's L2 size (N*TAS*miss).
bool needs_l2_bytes(TimeFeature f);

// The pool's geometry behind the bitmap features.
// Bytes of a bitmap of T pages in words of w bits: ceil(T/w) words of w bits, rounded up to whole
// bytes (T = 2^29, w = 32: 2^24 words, 64 MiB). 0 when w = 0 (no bitmap).
std::uint64_t bitmap_bytes(std::uint64_t T, unsigned w);
// max(0, 1 - l2_bytes / bitmap_size): the fraction of uniformly random probes that miss an L2
// of l2_bytes (64 MiB on 50 MiB: 1 - 50/64 = 0.21875). 0 for an empty bitmap.
double l2_miss_fraction(std::uint64_t bitmap_size, std::uint64_t l2_bytes);
// N / ceil(T/w): threads per word (2^20 threads on T = 2^21, w = 32: 65,536 words, 16). 0 when
// w = 0.
double threads_per_word(std::uint64_t N, std::uint64_t T, unsigned w);

// What the features of one point are computed from (measured or modelled quantities).
struct FeatureInputs {
  std::uint64_t N = 0;
  unsigned lanes = 32;
  double tas = 0, was = 0, collisions = 0;
  std::uint64_t T = 0;         // pages of the pool
  unsigned word_bits = 0;      // bits per probed bitmap word (probed_word_bits); 0: no bitmap
  std::uint64_t l2_bytes = 0;  // the device's L2 (0: unknown)
};

// The width of the bitmap words the scenario's allocator probes at random (model_table.hpp's
// probed_word_bits); nullopt where its steps read no bitmap (the queue) or it has no model.
std::optional<unsigned> probed_word_bits(const Scenario& s);

// The feature's value; warps = ceil(N/lanes). Throws std::invalid_argument for N*TAS*miss at a
// point with a bitmap but no L2 size (the caller must know the device).
double feature_value(TimeFeature f, const FeatureInputs& in);
// The same for the five features that need no pool geometry (throws std::invalid_argument for a
// bitmap feature).
double feature_value(TimeFeature f, std::uint64_t N, unsigned lanes, double tas, double was,
                     double collisions);

// One group's applied fit: kernel_ms = alpha + sum of beta * feature.
struct KernelTimeFit {
  Algorithm algo = Algorithm::rw;
  unsigned w = 0;  // 0: the algorithm does not use bitmap words, any w matches
  unsigned pages = 1;
  double alpha_ms = 0;
  std::vector<std::pair<TimeFeature, double>> betas_ms;
};

// The fits of one device, as read from its time_fit.json.
struct DeviceTimeFits {
  std::string device_id;  // "nvidia-h200"
  // The L2 size the fit's bitmap features used (time_fit.json's "l2_bytes"); 0 when absent, and
  // then no fit may use N*TAS*miss.
  std::uint64_t l2_bytes = 0;
  std::vector<KernelTimeFit> fits;
};

// "NVIDIA H200" -> "nvidia-h200": lower case, runs of other characters become one '-'.
std::string device_slug(const std::string& name);

// The data directory: $ALLOCLAB_DATA_DIR if set, else the source tree's reports/data (compiled
// in). Each device has <dir>/<device-id>/time_fit.json.
std::string default_data_dir();
// Device ids under dir that have a time_fit.json, sorted.
std::vector<std::string> available_time_fit_devices(const std::string& data_dir);

// Reads the model-only fit of every group of <data_dir>/<slug(device)>/time_fit.json.
// InputError("--device", ...) listing the available devices if there is none; InputError if the
// file is not a time fit (schema alloclab-time-fit/1), names an unknown algorithm, its
// model-only fit uses a feature the model does not give, or uses N*TAS*miss without l2_bytes.
DeviceTimeFits load_time_fit(const std::string& data_dir, const std::string& device);

// The fit for the scenario's algorithm (and w where the algorithm uses bitmap words, and pages);
// nullptr if the device has none.
const KernelTimeFit* find_fit(const DeviceTimeFits& fits, const Scenario& s);

// Adds kernel_ms_predicted to a model record of scenario s: the device's fit applied to the
// record's tas and was (and to s's geometry and the fit's L2 size for the bitmap features). Null
// with a note where the device has no fit for the algorithm or the record lacks a quantity the fit
// needs.
void add_predicted_kernel_time(Record& record, const Scenario& s, const DeviceTimeFits& fits);

}  // namespace alloclab::model
