// The allocator registry: the one place where an allocator is named and where it says what it
// can do. Each backend (model/, cpu_sim/, gpu/) keeps its own table of entry points, filled from
// each allocator's own file (core/backend_table.hpp); dispatch is a lookup in that table, and the
// capability flags below are what the rest of the code reads instead of an allocator's name.
// Adding an allocator: docs/architecture.md.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace alloclab {

// One value per allocator, in the order of kAlgorithms below (new ones go at the end).
enum class Algorithm {
  queue,         // FIFO of free page ids: one shared head counter (the Ouroboros-style baseline)
  rw,            // Random Walk, paper 000 Algorithm 1: probe one random page per step
  rwbm,          // RW over a bitmap (paper 000 §4.1): probe one random w-bit word per step
  corw,          // Collaborative RW (paper 000 Algorithm 2): a warp probes L words per round
  rwmalloc,      // RW_malloc (paper 000 Algorithm 3): n consecutive pages per request
  corw_lockmap,  // CoRW exactly as Algorithm 2, with its LockMap (simulator only)
  cudamalloc,    // CUDA's device-side malloc/free: the vendor baseline (GPU only)
};

// The backends an allocator can run on (a bit set).
enum class BackendKind : unsigned { model = 1u, sim = 2u, gpu = 4u };
constexpr unsigned operator|(BackendKind a, BackendKind b) {
  return static_cast<unsigned>(a) | static_cast<unsigned>(b);
}
constexpr unsigned operator|(unsigned a, BackendKind b) {
  return a | static_cast<unsigned>(b);
}
inline constexpr unsigned kAllBackends = BackendKind::model | BackendKind::sim | BackendKind::gpu;
std::string_view backend_kind_name(BackendKind b);

// What one request may ask for.
enum class RequestKind {
  one_page,  // exactly one page (a request up to one page takes one page)
  pages,     // n consecutive pages (--pages n)
  bytes,     // any number of bytes (the page size is only the unit of the workload)
};

// What the code reads about an allocator instead of its name.
struct Capabilities {
  RequestKind requests = RequestKind::one_page;
  // Address alignment every successful request is promised, in bytes; 0 = one page.
  std::uint64_t alignment_bytes = 0;
  bool frees = true;         // it has a free operation (pages or objects can come back)
  bool bitmap_words = true;  // --w (bits per bitmap word) matters
  // A warp serves its lanes together (the lanes are a hardware warp): the GPU needs lanes = 32.
  bool warp_collective = false;
  unsigned backends = kAllBackends;  // BackendKind bits
  bool has(BackendKind b) const { return (backends & static_cast<unsigned>(b)) != 0; }
};

struct AlgorithmInfo {
  Algorithm id;
  std::string_view name;         // the CLI spelling
  std::string_view description;  // one line for --help
  // What one "step" is for this algorithm (the unit of TAS and WAS); empty where steps are not
  // observable (cudamalloc).
  std::string_view step_definition;
  Capabilities caps;
};

// One entry per allocator, its fields packed as in AlgorithmInfo (clang-format would give each
// field a line).
// clang-format off
inline constexpr std::array<AlgorithmInfo, 7> kAlgorithms{{
    {Algorithm::queue, "queue", "FIFO queue of free pages (queue-based baseline, Eq. 1)",
     "one position in the queue: the thread served k-th takes k steps",
     {RequestKind::one_page, 0, true, false, false, kAllBackends}},
    {Algorithm::rw, "rw", "Random Walk over pages (Algorithm 1, Eq. 2-3)",
     "one probe of one random page",
     {RequestKind::one_page, 0, true, false, false, kAllBackends}},
    {Algorithm::rwbm, "rwbm", "Random Walk over a bitmap of w-bit words (Sec. 4.1, Eq. 4-5)",
     "one read of one random w-bit bitmap word",
     {RequestKind::one_page, 0, true, true, false, kAllBackends}},
    {Algorithm::corw, "corw", "Collaborative Random Walk within a warp (Algorithm 2)",
     "one round of the warp's outer loop (every lane reads one random word per round)",
     {RequestKind::one_page, 0, true, true, true, kAllBackends}},
    {Algorithm::rwmalloc, "rwmalloc", "RW_malloc: n consecutive pages per request (Algorithm 3)",
     "one round of the warp's outer loop (the warp reads L consecutive words)",
     {RequestKind::pages, 0, true, true, true, kAllBackends}},
    {Algorithm::corw_lockmap, "corw-lockmap",
     "CoRW exactly as Algorithm 2, with its LockMap (simulator only)",
     "one round of the warp's outer loop (every lane reads one random word per round)",
     {RequestKind::one_page, 0, true, true, true, static_cast<unsigned>(BackendKind::sim)}},
    {Algorithm::cudamalloc, "cudamalloc", "CUDA's device malloc/free (vendor baseline, GPU only)",
     "", {RequestKind::bytes, 16, true, false, false, static_cast<unsigned>(BackendKind::gpu)}},
}};
// clang-format on

// kAlgorithms is indexed by the enum.
static_assert([] {
  for (std::size_t i = 0; i < kAlgorithms.size(); ++i)
    if (static_cast<std::size_t>(kAlgorithms[i].id) != i) return false;
  return true;
}());

inline const AlgorithmInfo& info(Algorithm a) {
  return kAlgorithms[static_cast<std::size_t>(a)];
}
inline std::string_view name(Algorithm a) {
  return info(a).name;
}
inline const Capabilities& caps(Algorithm a) {
  return info(a).caps;
}

inline std::optional<Algorithm> parse_algorithm(std::string_view text) {
  for (const auto& a : kAlgorithms)
    if (a.name == text) return a.id;
  return std::nullopt;
}

// Every registered allocator that runs on backend b (all of them for b == nullopt).
inline std::vector<Algorithm> algorithms_on(std::optional<BackendKind> b = std::nullopt) {
  std::vector<Algorithm> out;
  for (const auto& a : kAlgorithms)
    if (!b || a.caps.has(*b)) out.push_back(a.id);
  return out;
}

// "queue|rw|rwbm|...", or the subset given.
inline std::string algorithm_names(const std::vector<Algorithm>& subset = {}) {
  std::string out;
  for (const auto& a : kAlgorithms) {
    bool listed = subset.empty();
    for (auto s : subset) listed = listed || (s == a.id);
    if (!listed) continue;
    if (!out.empty()) out += '|';
    out += a.name;
  }
  return out;
}

inline std::string_view backend_kind_name(BackendKind b) {
  switch (b) {
    case BackendKind::model:
      return "model";
    case BackendKind::sim:
      return "sim";
    case BackendKind::gpu:
      return "gpu";
  }
  return "?";
}

}  // namespace alloclab
