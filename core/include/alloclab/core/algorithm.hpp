// The algorithm registry: the one place where an allocator is named. Adding an allocator means
// one line here, plus one file per backend (model/, cpu_sim/, gpu/) that implements it.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace alloclab {

enum class Algorithm {
  queue,     // FIFO of free page ids: one shared head counter (the Ouroboros-style baseline).
  rw,        // Random Walk, paper 000 Algorithm 1: probe one random page per step.
  rwbm,      // RW over a bitmap (§4.1): probe one random w-bit word per step.
  corw,      // Collaborative RW (Algorithm 2): a warp probes L words per round and shares bits.
  rwmalloc,  // RW_malloc (Algorithm 3): n consecutive pages per request.
  // CoRW exactly as Algorithm 2, with its LockMap (a lane that finds its word locked only
  // consumes). Simulator only: the GPU kernel `corw` claims lock-free. Appended last so that
  // the values above keep matching gpu::Kernel.
  corw_lockmap,
};

struct AlgorithmInfo {
  Algorithm id;
  std::string_view name;         // the CLI spelling
  std::string_view description;  // one line for --help
  bool uses_bitmap_words;        // --w matters
  bool multi_page;               // --pages matters
  // What one "step" is for this algorithm (the unit of TAS and WAS).
  std::string_view step_definition;
};

inline constexpr std::array<AlgorithmInfo, 6> kAlgorithms{{
    {Algorithm::queue, "queue", "FIFO queue of free pages (queue-based baseline, Eq. 1)", false,
     false, "one position in the queue: the thread served k-th takes k steps"},
    {Algorithm::rw, "rw", "Random Walk over pages (Algorithm 1, Eq. 2-3)", false, false,
     "one probe of one random page"},
    {Algorithm::rwbm, "rwbm", "Random Walk over a bitmap of w-bit words (Sec. 4.1, Eq. 4-5)", true,
     false, "one read of one random w-bit bitmap word"},
    {Algorithm::corw, "corw", "Collaborative Random Walk within a warp (Algorithm 2)", true, false,
     "one round of the warp's outer loop (every lane reads one random word per round)"},
    {Algorithm::rwmalloc, "rwmalloc", "RW_malloc: n consecutive pages per request (Algorithm 3)",
     true, true, "one round of the warp's outer loop (the warp reads L consecutive words)"},
    {Algorithm::corw_lockmap, "corw-lockmap",
     "CoRW exactly as Algorithm 2, with its LockMap (simulator only)", true, false,
     "one round of the warp's outer loop (every lane reads one random word per round)"},
}};

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

inline std::optional<Algorithm> parse_algorithm(std::string_view text) {
  for (const auto& a : kAlgorithms)
    if (a.name == text) return a.id;
  return std::nullopt;
}

// "queue|rw|rwbm|corw|rwmalloc|corw-lockmap", or the subset given.
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

}  // namespace alloclab
