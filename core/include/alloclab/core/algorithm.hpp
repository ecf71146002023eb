// The allocator registry: the one place where an allocator is named and where it says what it
// can do. Each backend (model/, cpu_sim/, gpu/) keeps its own table of entry points, filled from
// each allocator's own file (core/backend_table.hpp); dispatch is a lookup in that table, and the
// capability flags below are what the rest of the code reads instead of an allocator's name.
// Adding an allocator: docs/architecture.md.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "alloclab/core/bit_choice.hpp"
#include "alloclab/core/capabilities.hpp"

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
  ouro_p_s,      // Ouroboros variant P (Winter et al., ICS'20, Alg. 3) over standard array queues
  ouro_c_s,      // Ouroboros variant C (Winter et al., ICS'20, Alg. 4-5) over standard array queues
  ouro_p_va,     // Ouroboros variant P over virtualized array queues (Winter et al., §5.1)
  ouro_p_vl,     // Ouroboros variant P over virtualized linked-chunk queues (Winter et al., §5.2)
  ouro_c_va,     // Ouroboros variant C over virtualized array queues (Winter et al., §5.1)
  ouro_c_vl,     // Ouroboros variant C over virtualized linked-chunk queues (Winter et al., §5.2)
  gg_tbuddy,     // TBuddy (Gelado & Garland, PPoPP'19 §4.1): buddy tree, bulk semaphore per order
  bitmap_alloc,  // DynaSOAr's BitmapAlloc baseline (Springer & Masuhara, ECOOP'19 §6): one array
  dynasoar,      // DynaSOAr (Springer & Masuhara, ECOOP'19): typed blocks, hierarchical bitmaps
  dynasoar_nocoal,  // DynaSOAr without warp coalescing (the paper's DynaSOAr-NoCoal, Table 2)
  dynasoar_norot,   // DynaSOAr without bitmap rotation (plain ffs: the paper's -NoShift, Fig. 12c)
  gallatin,         // Gallatin (McCoy & Pandey, PPoPP'24): vEB trees of segments and blocks, slices
  gg_ualloc,  // UAlloc (Gelado & Garland, PPoPP'19 §4.2): arenas, bins of 8 B-1 KB, RCU free lists
  gg_malloc,  // Gelado & Garland's malloc (§4): UAlloc below 2 KB, TBuddy pages from 2 KB
  // Values from kAlgorithms.size() on are plug-ins (PluginTable below), known from configure time.
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

// The registry: one entry per allocator (adding one: docs/architecture.md).
inline constexpr auto kAlgorithms = std::to_array<AlgorithmInfo>({
    {Algorithm::queue,
     "queue",
     "FIFO queue of free pages (queue-based baseline, Eq. 1)",
     "one position in the queue: the thread served k-th takes k steps",
     {.requests = RequestKind::one_page, .bitmap_words = false}},
    {Algorithm::rw,
     "rw",
     "Random Walk over pages (Algorithm 1, Eq. 2-3)",
     "one probe of one random page",
     {.requests = RequestKind::one_page, .bitmap_words = false}},
    {Algorithm::rwbm,
     "rwbm",
     "Random Walk over a bitmap of w-bit words (Sec. 4.1, Eq. 4-5)",
     "one read of one random w-bit bitmap word",
     {.requests = RequestKind::one_page, .bit_choices = kEveryBitChoice}},
    {Algorithm::corw,
     "corw",
     "Collaborative Random Walk within a warp (Algorithm 2)",
     "one round of the warp's outer loop (every lane reads one random word per round)",
     {.requests = RequestKind::one_page,
      .warp_collective = true,
      .bit_choices = kOnlyLowest | bit_choice_bit(BitChoice::rotated)}},
    {Algorithm::rwmalloc,
     "rwmalloc",
     "RW_malloc: n consecutive pages per request (Algorithm 3)",
     "one round of the warp's outer loop (the warp reads L consecutive words)",
     {.requests = RequestKind::pages, .warp_collective = true}},
    {Algorithm::corw_lockmap,
     "corw-lockmap",
     "CoRW exactly as Algorithm 2, with its LockMap (simulator only)",
     "one round of the warp's outer loop (every lane reads one random word per round)",
     {.requests = RequestKind::one_page,
      .warp_collective = true,
      .backends = static_cast<unsigned>(BackendKind::sim)}},
    {Algorithm::cudamalloc,
     "cudamalloc",
     "CUDA's device malloc/free (vendor baseline, GPU only)",
     "",
     {.requests = RequestKind::bytes,
      .alignment_bytes = 16,
      .bitmap_words = false,
      .backends = static_cast<unsigned>(BackendKind::gpu)}},
    {Algorithm::ouro_p_s,
     "ouro-p-s",
     "Ouroboros page-index queues, standard rings (Winter et al., Alg. 3; pages = 16 B units)",
     "one memory operation on shared allocator state (semaphore, front/back, slot, chunk "
     "counter); in lockstep, one round of the lane's warp group",
     {.requests = RequestKind::pages,
      .bitmap_words = false,
      .fixed_page_bytes = 16,
      .size_classes = true}},
    {Algorithm::ouro_c_s,
     "ouro-c-s",
     "Ouroboros chunk-index queues with per-chunk bit masks, standard rings (Winter et al., "
     "Alg. 4-5; pages = 16 B units)",
     "one memory operation on shared allocator state (semaphore, front/back, queue slot, chunk "
     "count, mask word, flags); in lockstep, one round of the lane's warp group",
     {.requests = RequestKind::pages,
      .bitmap_words = false,
      .fixed_page_bytes = 16,
      .size_classes = true}},
    {Algorithm::ouro_p_va,
     "ouro-p-va",
     "Ouroboros page-index queues, virtualized arrays of Queue-Chunks (Winter et al., Alg. 3 and "
     "Sec. 5.1; pages = 16 B units)",
     "one memory operation on shared allocator state (semaphore, front/back, queue reference, "
     "Queue-Chunk item and count, chunk counter); in lockstep, one round of the lane's warp group",
     {.requests = RequestKind::pages,
      .bitmap_words = false,
      .fixed_page_bytes = 16,
      .size_classes = true,
      .queue_in_pool = true}},
    {Algorithm::ouro_p_vl,
     "ouro-p-vl",
     "Ouroboros page-index queues, virtualized linked Queue-Chunks with a trail of t = 10 "
     "(Winter et al., Alg. 3 and Sec. 5.2; pages = 16 B units)",
     "one memory operation on shared allocator state (semaphore, front/back, queue pointer, "
     "Queue-Chunk start, link, item and count, chunk counter); in lockstep, one round of the "
     "lane's warp group",
     {.requests = RequestKind::pages,
      .bitmap_words = false,
      .fixed_page_bytes = 16,
      .size_classes = true,
      .queue_in_pool = true,
      .queue_trail = 10}},
    {Algorithm::ouro_c_va,
     "ouro-c-va",
     "Ouroboros chunk-index queues with per-chunk bit masks, virtualized arrays of Queue-Chunks "
     "(Winter et al., Alg. 4-5 and Sec. 5.1; pages = 16 B units)",
     "one memory operation on shared allocator state (semaphore, front/back, queue reference, "
     "Queue-Chunk start, entry and count, chunk count, mask word, flags); in lockstep, one round "
     "of the lane's warp group",
     {.requests = RequestKind::pages,
      .bitmap_words = false,
      .fixed_page_bytes = 16,
      .size_classes = true,
      .queue_in_pool = true,
      .queue_on_demand = true}},
    {Algorithm::ouro_c_vl,
     "ouro-c-vl",
     "Ouroboros chunk-index queues with per-chunk bit masks, virtualized linked Queue-Chunks with "
     "a trail of t = 10 (Winter et al., Alg. 4-5 and Sec. 5.2; pages = 16 B units)",
     "one memory operation on shared allocator state (semaphore, front/back, queue pointer, "
     "Queue-Chunk start, link, entry and count, chunk count, mask word, flags); in lockstep, one "
     "round of the lane's warp group",
     {.requests = RequestKind::pages,
      .bitmap_words = false,
      .fixed_page_bytes = 16,
      .size_classes = true,
      .queue_in_pool = true,
      .queue_trail = 10,
      .queue_on_demand = true}},
    {Algorithm::gg_tbuddy,
     "gg-tbuddy",
     "TBuddy: a binary buddy tree with one bulk semaphore (batch 2) per order and lock coupling "
     "(Gelado & Garland, PPoPP'19 Sec. 4.1; n pages take a block of 2^ceil(log2 n))",
     "one memory operation on a node word or an order's semaphore word (a lock held or a wait is "
     "a step that spins); in lockstep, one per simulated thread per round",
     {.requests = RequestKind::pages,
      .bitmap_words = false,
      .backends = BackendKind::sim | BackendKind::gpu,
      .size_classes = true}},
    {Algorithm::bitmap_alloc,
     "bitmap-alloc",
     "BitmapAlloc: one object array with a hierarchical bitmap of its free slots, clear() to "
     "allocate and set() to free (Springer & Masuhara, ECOOP'19 Sec. 6 baseline)",
     "one memory operation on a bitmap word (a load of try_find_set, an atomic of try_clear, set "
     "or clear); in lockstep, one per simulated thread per round",
     {.requests = RequestKind::one_page,
      .bitmap_words = false,
      .backends = BackendKind::sim | BackendKind::gpu}},
    {Algorithm::dynasoar,
     "dynasoar",
     "DynaSOAr: typed objects in blocks of 64 slots, free/allocated/active hierarchical bitmaps, "
     "warp coalescing, bitmap rotation, r = 5 (Springer & Masuhara, ECOOP'19 Alg. 1-9; n pages "
     "= a type n times the smallest, n <= 64)",
     "one memory operation on the heap (a block's bitmap or type, a block-bitmap word); in "
     "lockstep, one per warp group of one type per round",
     {.requests = RequestKind::pages,
      .bitmap_words = false,
      .warp_collective = true,
      .backends = BackendKind::sim | BackendKind::gpu,
      .typed_blocks = true}},
    {Algorithm::dynasoar_nocoal,
     "dynasoar-nocoal",
     "DynaSOAr without warp coalescing: every lane reserves its own slot (the paper's "
     "DynaSOAr-NoCoal, Table 2)",
     "one memory operation on the heap (a block's bitmap or type, a block-bitmap word); in "
     "lockstep, one per simulated thread per round",
     {.requests = RequestKind::pages,
      .bitmap_words = false,
      .backends = BackendKind::sim | BackendKind::gpu,
      .typed_blocks = true}},
    {Algorithm::dynasoar_norot,
     "dynasoar-norot",
     "DynaSOAr without bitmap rotation: try_find_set and reserve take the first set or free bit "
     "(the paper's -NoShift, Fig. 12c)",
     "one memory operation on the heap (a block's bitmap or type, a block-bitmap word); in "
     "lockstep, one per warp group of one type per round",
     {.requests = RequestKind::pages,
      .bitmap_words = false,
      .warp_collective = true,
      .backends = BackendKind::sim | BackendKind::gpu,
      .typed_blocks = true}},
    {Algorithm::gallatin,
     "gallatin",
     "Gallatin: vEB trees over 16 MiB segments and blocks of 4096 slices of 16 B-4096 B, one "
     "atomicAdd per warp team (McCoy & Pandey, PPoPP'24 Alg. 1-4; pages = 16 B units; simulator, "
     "model and GPU)",
     "one attempt of Alg. 3's loop by the request's team (a read of its block-buffer slot and "
     "one atomicAdd on the block's counter, with a block refill when the slot needs one)",
     {.requests = RequestKind::pages,
      .bitmap_words = false,
      .backends = BackendKind::model | BackendKind::sim | BackendKind::gpu,
      .fixed_page_bytes = 16,
      .size_classes = true,
      .pool_granule_bytes = std::uint64_t{16} << 20}},
    {Algorithm::gg_ualloc,
     "gg-ualloc",
     "UAlloc: per-arena free lists of 4 KB bins (128 B headers, bitmaps of up to 512 slots) in "
     "chunks from TBuddy, a bulk semaphore per size, SRCU with delegation (Gelado & Garland, "
     "PPoPP'19 Sec. 4.2; pages = 8 B units, n <= 128 takes a slot of 2^ceil(log2 n))",
     "one memory operation on a semaphore, list, bin header, bitmap, chunk or RCU word (a critical "
     "section under a held mutex is one; TBuddy's steps for a chunk are its own); in lockstep, one "
     "per simulated thread per round",
     {.requests = RequestKind::pages,
      .bitmap_words = false,
      .backends = BackendKind::sim | BackendKind::gpu,
      .fixed_page_bytes = 8,
      .size_classes = true,
      .pool_granule_bytes = std::uint64_t{256} << 10}},
    {Algorithm::gg_malloc,
     "gg-malloc",
     "Gelado & Garland's malloc/free: sizes rounded up to a power of two, up to 1 KB from UAlloc, "
     "from 2 KB whole 4 KB pages from TBuddy; free dispatched by alignment (PPoPP'19 Sec. 4; "
     "pages = 8 B units)",
     "one memory operation of UAlloc or TBuddy (see gg-ualloc and gg-tbuddy)",
     {.requests = RequestKind::pages,
      .bitmap_words = false,
      .backends = BackendKind::sim | BackendKind::gpu,
      .fixed_page_bytes = 8,
      .size_classes = true,
      .pool_granule_bytes = std::uint64_t{256} << 10}},
});

// kAlgorithms is indexed by the enum.
static_assert([] {
  for (std::size_t i = 0; i < kAlgorithms.size(); ++i)
    if (static_cast<std::size_t>(kAlgorithms[i].id) != i) return false;
  return true;
}());

// Allocators known only when alloclab is configured: the plug-ins (docs/plugin-allocators.md),
// named "ext-<name>", GPU only. The constexpr table above stays the registry of alloclab's own
// allocators (its tests and tables read it as it is); a plug-in gets the Algorithm value
// kAlgorithms.size() + i, and info(), parse_algorithm() and algorithms_on() below read this table
// after the constexpr one. Files generated at configure time (cmake/AlloclabPlugins.cmake)
// declare each plug-in found when the program starts; nothing is declared afterwards.
class PluginTable {
 public:
  static PluginTable& instance() {
    static PluginTable table;  // constructed on first use: safe from any static initialiser
    return table;
  }
  // The plug-in called `name`: declared with `description` and `caps` on the first call, the
  // first declaration's value on later ones (which change nothing). A name of alloclab's own
  // registry is a build mistake: it aborts with a message.
  Algorithm declare(std::string_view name, std::string_view description, const Capabilities& caps) {
    if (const auto known = find(name)) return *known;
    for (const auto& a : kAlgorithms)
      if (a.name == name) {
        std::fprintf(stderr, "alloclab: plug-in '%.*s' has the name of a registry allocator\n",
                     static_cast<int>(name.size()), name.data());
        std::abort();
      }
    const auto id = static_cast<Algorithm>(kAlgorithms.size() + entries_.size());
    Entry& e = entries_.emplace_back();  // a deque: earlier entries (and their views) stay put
    e.name = name;
    e.description = description;
    e.info = {id, e.name, e.description, "", caps};
    return id;
  }
  // Replaces a declared plug-in's description and capabilities (its GPU file knows the
  // declarations of its header; a build without CUDA declares it by name only).
  void refine(Algorithm a, std::string_view description, const Capabilities& caps) {
    Entry& e = entries_.at(static_cast<std::size_t>(a) - kAlgorithms.size());
    e.description = description;
    e.info.description = e.description;
    e.info.caps = caps;
  }
  const AlgorithmInfo* find(Algorithm a) const {
    const auto i = static_cast<std::size_t>(a);
    if (i < kAlgorithms.size() || i - kAlgorithms.size() >= entries_.size()) return nullptr;
    return &entries_[i - kAlgorithms.size()].info;
  }
  std::optional<Algorithm> find(std::string_view name) const {
    for (const auto& e : entries_)
      if (e.name == name) return e.info.id;
    return std::nullopt;
  }
  // Every plug-in, in name order.
  std::vector<Algorithm> by_name() const {
    std::vector<const Entry*> sorted;
    for (const auto& e : entries_) sorted.push_back(&e);
    std::sort(sorted.begin(), sorted.end(),
              [](const Entry* x, const Entry* y) { return x->name < y->name; });
    std::vector<Algorithm> out;
    for (const Entry* e : sorted) out.push_back(e->info.id);
    return out;
  }

 private:
  struct Entry {
    std::string name, description;
    AlgorithmInfo info{};
  };
  PluginTable() = default;
  std::deque<Entry> entries_;
};

inline bool is_plugin(Algorithm a) {
  return static_cast<std::size_t>(a) >= kAlgorithms.size();
}

inline const AlgorithmInfo& info(Algorithm a) {
  if (!is_plugin(a)) return kAlgorithms[static_cast<std::size_t>(a)];
  if (const AlgorithmInfo* p = PluginTable::instance().find(a)) return *p;
  std::fprintf(stderr, "alloclab: no allocator has the value %zu\n", static_cast<std::size_t>(a));
  std::abort();  // a value nobody declared: a programming error
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
  return PluginTable::instance().find(text);
}

// Every allocator that runs on backend b (all of them for b == nullopt): the registry's, in its
// order, then the plug-ins, by name.
inline std::vector<Algorithm> algorithms_on(std::optional<BackendKind> b = std::nullopt) {
  std::vector<Algorithm> out;
  for (const auto& a : kAlgorithms)
    if (!b || a.caps.has(*b)) out.push_back(a.id);
  for (Algorithm p : PluginTable::instance().by_name())
    if (!b || caps(p).has(*b)) out.push_back(p);
  return out;
}

// Those of `from` whose capabilities satisfy `pred`, e.g. the ones on the simulator that take
// --pages: algorithms_where(algorithms_on(BackendKind::sim),
//                           [](const Capabilities& c) { return c.requests == RequestKind::pages; })
template <class Pred>
std::vector<Algorithm> algorithms_where(const std::vector<Algorithm>& from, Pred pred) {
  std::vector<Algorithm> out;
  for (auto a : from)
    if (pred(caps(a))) out.push_back(a);
  return out;
}

// "queue|rw|rwbm|...": the names of `subset` in registry order, plug-ins last ("(none)" when it
// is empty).
inline std::string algorithm_names(const std::vector<Algorithm>& subset) {
  std::string out;
  for (Algorithm a : algorithms_on()) {
    bool listed = false;
    for (auto s : subset) listed = listed || (s == a);
    if (!listed) continue;
    if (!out.empty()) out += '|';
    out += name(a);
  }
  return out.empty() ? "(none)" : out;
}
// Every registered allocator's name.
inline std::string algorithm_names() {
  return algorithm_names(algorithms_on());
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

// Why `a` cannot run bit choice `c` ("corw takes --bit-choice lowest|rotated, not random"), or
// nullopt where it can: the one message of every backend's input check and of the CLI.
inline std::optional<std::string> why_no_bit_choice(Algorithm a, BitChoice c) {
  if (caps(a).chooses(c)) return std::nullopt;
  std::string why = std::string(name(a)) + " takes --bit-choice " +
                    bit_choice_names(caps(a).bit_choices) + ", not " + std::string(name(c));
  std::string others;
  for (const auto& o : kAlgorithms) {
    if (!o.caps.chooses(c)) continue;
    if (!others.empty()) others += ", ";
    others += o.name;
    others += ": ";
    others += bit_choice_names(o.caps.bit_choices);
  }
  return why + " (" + others + ")";
}

// "model, sim, gpu": the backends an allocator runs on, for messages.
inline std::string backends_of(Algorithm a) {
  std::string out;
  for (auto b : {BackendKind::model, BackendKind::sim, BackendKind::gpu})
    if (caps(a).has(b))
      out += std::string(out.empty() ? "" : ", ") + std::string(backend_kind_name(b));
  return out;
}

}  // namespace alloclab
