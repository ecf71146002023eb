// A workload: what every thread of a run asks an allocator to do (allocate objects of some bytes,
// free some of them, allocate again, until memory runs out). The description and its parsing are
// shared by every backend; how a byte request becomes pages is read from the registry
// (Capabilities::requests), never from an allocator's name. docs/workloads.md explains the
// families.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "alloclab/core/algorithm.hpp"
#include "alloclab/core/errors.hpp"
#include "alloclab/core/random_stream.hpp"
#include "alloclab/core/scenario.hpp"

namespace alloclab {

enum class WorkloadFamily {
  alloc,          // N objects of one size, then all freed
  mixed,          // as alloc, each thread's size a power of two drawn from [lo, hi]
  churn,          // R rounds: free a random fraction of the live objects, allocate them again
  oom,            // batches of B objects until a request fails
  fragmentation,  // N objects: highest minus lowest address handed out, over bytes requested
  scaling,        // alloc over an axis of N (by default 2^0 .. 2^20): the time-vs-threads curve
};

inline constexpr std::string_view kWorkloadFamilyNames =
    "alloc|mixed|churn|oom|fragmentation|scaling";

inline std::string_view workload_family_name(WorkloadFamily f) {
  switch (f) {
    case WorkloadFamily::alloc:
      return "alloc";
    case WorkloadFamily::mixed:
      return "mixed";
    case WorkloadFamily::churn:
      return "churn";
    case WorkloadFamily::oom:
      return "oom";
    case WorkloadFamily::fragmentation:
      return "fragmentation";
    case WorkloadFamily::scaling:
      return "scaling";
  }
  return "?";
}

inline WorkloadFamily parse_workload_family(const std::string& text) {
  for (auto f : {WorkloadFamily::alloc, WorkloadFamily::mixed, WorkloadFamily::churn,
                 WorkloadFamily::oom, WorkloadFamily::fragmentation, WorkloadFamily::scaling})
    if (workload_family_name(f) == text) return f;
  throw InputError("--workload",
                   "unknown workload '" + text + "' (" + std::string(kWorkloadFamilyNames) + ")");
}

// Request sizes: one size (lo == hi) or every power of two in [lo, hi] (both powers of two).
struct SizeSpec {
  std::uint64_t lo = 256, hi = 256;
  bool is_range() const { return lo != hi; }
  std::string text() const {
    return is_range() ? std::to_string(lo) + ".." + std::to_string(hi) : std::to_string(lo);
  }
};

struct Workload {
  WorkloadFamily family = WorkloadFamily::alloc;
  std::uint64_t N = 1;  // threads (alloc, mixed, churn, fragmentation: live objects)
  SizeSpec size;        // bytes per request
  std::uint64_t pool_bytes = 0;
  std::uint64_t page_bytes = 256;  // the page allocators' page; T = pool_bytes / page_bytes
  std::uint64_t rounds = 1;        // churn
  double free_fraction = 0.5;      // churn: fraction of live objects freed per round
  std::uint64_t batch = 1024;      // oom: objects per batch
  // oom: fraction of each batch's objects freed after it (--batch-free; 0: none). With 0.5 the
  // live set grows by half a batch per batch: Winter et al.'s churn test to out of memory
  // (ICS'20, §6.1.3), whose count is the batches until the first failure.
  double batch_free = 0;
  unsigned block = 256;       // GPU launch: threads per block (--block)
  bool warp_uniform = false;  // mixed: all lanes of a warp ask for the same size
  // --free: fraction of the pool's pages free at the start (1: an empty pool). The others are
  // used before the workload starts, chosen by the keyed permutation of pool.hpp as in every
  // command; the workload never frees them.
  double initial_free = 1.0;
  // Which free bit of a read word a thread claims (--bit-choice, core/bit_choice.hpp): lowest
  // (the papers') or what the allocator's Capabilities::bit_choices offer.
  BitChoice bit_choice = BitChoice::lowest;
  std::uint64_t seed = 1;
  // --types 60,64: objects of fixed types named by their byte sizes, on a typed heap (DynaSOAr's;
  // core/dynasoar/typed_workload.hpp); request i is of type (i mod k) + 1. Empty: objects of
  // `size` bytes in pages, as every allocator serves them. A typed workload's `size` is its largest
  // type and `page_bytes` its smallest (T_s, the slot DynaSOAr's blocks are made of).
  std::vector<std::uint64_t> type_bytes;
  bool typed() const { return !type_bytes.empty(); }
  std::uint64_t pages_total() const { return pool_bytes / page_bytes; }  // T
  std::uint64_t pages_free_at_start() const {                            // A
    return free_pages_of_fraction(initial_free, pages_total());
  }
};

// "256 B", "4 KiB", "64 MiB": bytes in the largest binary unit that divides them exactly, as
// `--size` and `--pool` are written (what parse_bytes reads, with a space).
inline std::string bytes_label(std::uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  std::size_t unit = 0;
  while (bytes != 0 && bytes % 1024 == 0 && unit + 1 < std::size(kUnits)) {
    bytes /= 1024;
    ++unit;
  }
  return std::to_string(bytes) + " " + kUnits[unit];
}

// "4096", "512MiB", "8GiB", "64KiB", "1TiB", "100B": a positive whole number of bytes (binary
// suffixes only, so that a page count divides evenly). InputError naming `parameter` otherwise.
inline std::uint64_t parse_bytes(const std::string& parameter, const std::string& text) {
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0 || digits > 19)
    throw InputError(parameter, "'" + text + "' is not a byte quantity (e.g. 4096, 64KiB, 8GiB)");
  const std::uint64_t value = std::stoull(text.substr(0, digits));
  const std::string unit = text.substr(digits);
  unsigned shift = 0;
  if (unit.empty() || unit == "B")
    shift = 0;
  else if (unit == "KiB")
    shift = 10;
  else if (unit == "MiB")
    shift = 20;
  else if (unit == "GiB")
    shift = 30;
  else if (unit == "TiB")
    shift = 40;
  else
    throw InputError(parameter, "unknown unit '" + unit + "' in '" + text +
                                    "' (B, KiB, MiB, GiB, TiB; powers of 1024)");
  if (value == 0) throw InputError(parameter, "must be at least one byte");
  if (shift && value > (~std::uint64_t{0} >> shift))
    throw InputError(parameter, "'" + text + "' does not fit in 64 bits");
  return value << shift;
}

inline bool is_power_of_two(std::uint64_t x) {
  return x != 0 && (x & (x - 1)) == 0;
}

// "256" / "4KiB" (one size) or "16..4096" (every power of two from 16 to 4096).
inline SizeSpec parse_size(const std::string& parameter, const std::string& text) {
  const auto dots = text.find("..");
  if (dots == std::string::npos) {
    const std::uint64_t s = parse_bytes(parameter, text);
    return {s, s};
  }
  const std::uint64_t lo = parse_bytes(parameter, text.substr(0, dots));
  const std::uint64_t hi = parse_bytes(parameter, text.substr(dots + 2));
  if (lo > hi) throw InputError(parameter, "range '" + text + "': lower end above upper end");
  if (!is_power_of_two(lo) || !is_power_of_two(hi))
    throw InputError(parameter, "range '" + text +
                                    "': both ends must be powers of two (sizes are drawn "
                                    "from the powers of two between them)");
  return {lo, hi};
}

// A comma list of sizes or ranges: "16,256,4096" or "16..4096" or "256,16..64".
inline std::vector<SizeSpec> parse_size_list(const std::string& parameter,
                                             const std::string& text) {
  std::vector<SizeSpec> out;
  std::size_t from = 0;
  for (;;) {
    const auto comma = text.find(',', from);
    out.push_back(parse_size(parameter, text.substr(from, comma - from)));
    if (comma == std::string::npos) break;
    from = comma + 1;
  }
  return out;
}

// Thread `thread`'s request size: the single size, or a power of two drawn uniformly from
// [lo, hi] by the workload stream (the same on every backend and in every mode).
inline std::uint64_t request_bytes(const SizeSpec& s, std::uint64_t seed, std::uint64_t thread) {
  if (!s.is_range()) return s.lo;
  unsigned lo_log = 0, hi_log = 0;
  while ((std::uint64_t{1} << lo_log) < s.lo) ++lo_log;
  while ((std::uint64_t{1} << hi_log) < s.hi) ++hi_log;
  const std::uint64_t k =
      PhiloxStream(seed, StreamDomain::workload, thread).below(0, hi_log - lo_log + 1);
  return std::uint64_t{1} << (lo_log + k);
}

// The size thread `thread` of workload w asks for: request_bytes over the thread's own stream, or
// (--warp-uniform) over its warp's (threads 32k .. 32k+31 ask for the same size).
inline std::uint64_t thread_request_bytes(const Workload& w, std::uint64_t seed,
                                          std::uint64_t thread) {
  return request_bytes(w.size, seed, w.warp_uniform ? thread / 32 : thread);
}

// Pages one request of `bytes` takes from allocator `algo` (registry: Capabilities::requests):
// one_page: 1 for a request up to one page, larger is an InputError naming --size and the
// allocator; pages: ceil(bytes / page), rounded up to a power of two for allocators of size
// classes; bytes: the pages the object spans in the workload's unit.
inline std::uint64_t pages_for_request(Algorithm algo, std::uint64_t bytes,
                                       std::uint64_t page_bytes) {
  if (bytes == 0) throw InputError("--size", "must be at least one byte");
  if (page_bytes == 0) throw InputError("--page-bytes", "must be at least one byte");
  const std::uint64_t pages = (bytes + page_bytes - 1) / page_bytes;
  if (caps(algo).requests == RequestKind::one_page && pages > 1)
    throw InputError(
        "--size", std::to_string(bytes) + " bytes is more than one page (" +
                      std::to_string(page_bytes) + " B, --page-bytes) and " +
                      std::string(name(algo)) + " serves one page per request; larger requests: " +
                      algorithm_names(algorithms_where(algorithms_on(), [](const Capabilities& c) {
                        return c.requests != RequestKind::one_page;
                      })));
  if (caps(algo).size_classes) {
    std::uint64_t cls = 1;
    while (cls < pages) cls <<= 1;
    return cls;
  }
  return pages;
}

// The checks every backend makes before running a workload (InputError naming the parameter).
inline void check_workload(const Workload& w);

// Workload w as allocator `algo` runs it: with its own page size where it has one
// (Capabilities::fixed_page_bytes: Ouroboros counts 16 B units), else unchanged. The command
// line applies this to every point, so a row records the page size that was used; every backend's
// runner applies it too.
inline Workload workload_for(Algorithm algo, Workload w) {
  if (const std::uint64_t fixed = caps(algo).fixed_page_bytes) w.page_bytes = fixed;
  return w;
}

// The workload's own checks and what the registry says `algo` can do with it (its bit choices);
// every backend calls this first.
inline void check_workload_for(Algorithm algo, const Workload& w) {
  check_workload(workload_for(algo, w));
  if (const auto why = why_no_bit_choice(algo, w.bit_choice))
    throw InputError("--bit-choice", *why);
}

inline void check_workload(const Workload& w) {
  if (w.N < 1) throw InputError("--N", "need at least one thread");
  if (w.size.lo == 0) throw InputError("--size", "must be at least one byte");
  if (w.size.lo > w.size.hi) throw InputError("--size", "lower end above upper end");
  if (w.size.is_range() && w.family != WorkloadFamily::mixed)
    throw InputError("--size", "a size range " + w.size.text() + " is for --workload mixed; " +
                                   std::string(workload_family_name(w.family)) +
                                   " takes one size per run (a list gives several runs)");
  if (w.page_bytes == 0) throw InputError("--page-bytes", "must be at least one byte");
  if (w.pool_bytes < w.size.hi)
    throw InputError("--pool", std::to_string(w.pool_bytes) +
                                   " bytes is smaller than one object (" +
                                   std::to_string(w.size.hi) + " B)");
  if (w.pool_bytes < w.page_bytes)
    throw InputError("--pool", std::to_string(w.pool_bytes) + " bytes is smaller than one page (" +
                                   std::to_string(w.page_bytes) + " B, --page-bytes)");
  if (!(w.free_fraction >= 0.0 && w.free_fraction <= 1.0))
    throw InputError("--free-fraction", "must be in [0, 1]");
  if (!(w.initial_free > 0.0 && w.initial_free <= 1.0))
    throw InputError("--free",
                     "must be in (0, 1] (the fraction of the pool's pages free at the "
                     "start)");
  if (w.pages_free_at_start() < 1)
    throw InputError("--free", "leaves no free page: round(f * T) = 0 for the pool's " +
                                   std::to_string(w.pages_total()) + " pages");
  if (w.family == WorkloadFamily::oom && w.batch < 1)
    throw InputError("--batch", "need at least one object per batch");
  if (!(w.batch_free >= 0.0 && w.batch_free < 1.0))
    throw InputError("--batch-free",
                     "must be in [0, 1) (1 would free every batch: the pool "
                     "never fills)");
  if (w.batch_free > 0 && w.family != WorkloadFamily::oom)
    throw InputError("--batch-free", "is for --workload oom");
  // A CUDA block holds 1..1024 threads; whole warps keep the warp-collective allocators' lanes
  // in one warp.
  if (w.block < 32 || w.block > 1024 || w.block % 32 != 0)
    throw InputError("--block", std::to_string(w.block) +
                                    " threads per block: must be a multiple of 32 in [32, 1024]");
  if (w.warp_uniform && w.family != WorkloadFamily::mixed)
    throw InputError("--warp-uniform",
                     "is for --workload mixed (the other families ask for "
                     "one size, the same in every lane already)");
}

}  // namespace alloclab
