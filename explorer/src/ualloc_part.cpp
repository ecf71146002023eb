// The explorer's UAlloc part (parts.hpp): Gelado & Garland's UAlloc (PPoPP'19 §4.2) in one arena
// on a small TBuddy pool, requests served and freed one at a time by the core's step machines
// (core/gelado/ualloc_alloc.hpp, ualloc_free.hpp), the arena's chunks, bins and per-class
// semaphores and lists recorded after each, and ualloc_check (ualloc_state.hpp) after every one.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "alloclab/core/comma_list.hpp"
#include "alloclab/core/gelado/ualloc_alloc.hpp"
#include "alloclab/core/gelado/ualloc_free.hpp"
#include "alloclab/core/gelado/ualloc_state.hpp"
#include "alloclab/core/ouroboros/host_atomics.hpp"
#include "parts.hpp"

namespace alloclab::explorer {
namespace {

using nlohmann::json;
using namespace alloclab::gelado;
using Atomics = ouro::HostAtomics;  // the single-threaded policy in WebAssembly

constexpr std::uint32_t kChunkOrder = 6;  // 64 bins of 4 KB a chunk (alloclab's default)
constexpr std::uint32_t kStepBound = 1u << 20;

json stats_json(const UAllocStats& s) {
  return {{"memory_ops", s.memory_ops},
          {"list_nodes", s.list_nodes},
          {"bitmap_probes", s.bitmap_probes},
          {"refills", s.refills},
          {"chunk_refills", s.chunk_refills},
          {"unlinks", s.unlinks},
          {"relinks", s.relinks},
          {"retires", s.retires}};
}

}  // namespace

std::string ualloc_run(int height, const std::string& requests) {
  try {
    if (height < 6 || height > 8)
      throw std::invalid_argument("pool: 2^6 .. 2^8 pages of 4 KB (1 .. 4 chunks of 64 bins)");
    UAllocStorage storage(static_cast<std::uint32_t>(height), kChunkOrder, 1);
    const UAllocView& v = storage.view;
    const std::size_t chunks = std::size_t{1} << (height - kChunkOrder);
    struct Held {
      std::uint64_t offset = 0;
      std::uint32_t bytes = 0;  // the class's (0: freed, or never served)
    };
    std::vector<Held> held;
    json steps = json::array();
    auto snapshot = [&](json step) {
      json classes = json::array();
      for (std::uint32_t k = 0; k < kUAllocClasses; ++k) {
        const SemCounters c = BulkWord::unpack(v.sems[v.list(0, k)]);
        json list = json::array();
        for (std::uint32_t g = v.heads[v.list(0, k)], n = 0; g != kNoBin && n < 4096;
             g = v.bin_next[g], ++n)
          list.push_back(g);
        classes.push_back({{"C", c.count}, {"E", c.expected}, {"R", c.reserved}, {"list", list}});
      }
      json ch = json::array();
      for (std::size_t c = 0; c < chunks; ++c) {
        json bins = json::array();
        const bool taken = v.chunk_arena[c] != kNoBin;
        for (std::uint32_t b = 0; taken && b < v.bins_per_chunk(); ++b) {
          const std::uint32_t g = static_cast<std::uint32_t>(c << kChunkOrder) + b;
          const bool used = (v.chunk_bins[2 * c + b / 64] >> (b % 64)) & 1u;
          if (!used || v.bin_class[g] == kNoBin) {
            bins.push_back({{"bin", b}, {"used", used}});
            continue;
          }
          const std::uint32_t k = v.bin_class[g];
          bins.push_back({{"bin", b},
                          {"used", true},
                          {"class", k},
                          {"slots", ualloc_slots(k, b)},
                          {"free", bin_count(v.bin_count[g])},
                          {"listed", (v.bin_count[g] & kBinListed) != 0}});
        }
        ch.push_back({{"taken", taken}, {"bins", bins}});
      }
      step["classes"] = classes;
      step["chunks"] = ch;
      step["check"] = ualloc_check(v, chunks);
      steps.push_back(step);
    };
    snapshot({{"what", "start: no chunk taken"}});
    for (const std::string& t : comma_items(requests)) {
      if (held.size() >= 128) throw std::invalid_argument("requests: at most 128");
      if (t[0] == '-') {
        const std::size_t i = parse_number(t.substr(1));
        if (i >= held.size() || held[i].bytes == 0)
          throw std::invalid_argument("requests: -" + t.substr(1) + " frees nothing held");
        UAllocFree<Atomics> f(v, held[i].offset);
        std::uint32_t n = 0;
        while (f.step(v) != StepStatus::done)
          if (++n > kStepBound) throw std::runtime_error("a free alone did not finish");
        held[i].bytes = 0;
        held.push_back({});
        snapshot({{"what", "free request " + std::to_string(i)},
                  {"freed", i},
                  {"bin", f.bin()},
                  {"stats", stats_json(f.stats())}});
        continue;
      }
      const auto bytes = static_cast<std::uint32_t>(parse_number(t, 1u << 30));
      if (bytes < 1 || bytes > kUAllocMaxBytes)
        throw std::invalid_argument("requests: bytes 1 .. 1024 (" + t + ")");
      const std::uint32_t k = ualloc_class_of(bytes);
      UAllocAlloc<Atomics> a(v, k, 0, 0);
      std::uint32_t n = 0;
      while (a.step(v) != StepStatus::done)
        if (++n > kStepBound) throw std::runtime_error("an alloc alone did not finish");
      const bool ok = a.result() != kUAllocFailed;
      held.push_back({ok ? a.result() : 0, ok ? ualloc_class_bytes(k) : 0});
      json step = {{"what", std::to_string(bytes) + " B: class " + std::to_string(k) + " (" +
                                std::to_string(ualloc_class_bytes(k)) + " B)"},
                   {"class", k},
                   {"class_bytes", ualloc_class_bytes(k)},
                   {"stats", stats_json(a.stats())}};
      if (ok) {
        const std::uint64_t in_chunk = a.result() % v.chunk_bytes();
        const UAllocPlace p = ualloc_place(static_cast<std::uint32_t>(in_chunk));
        step["offset"] = a.result();
        step["chunk"] = a.result() / v.chunk_bytes();
        step["bin"] = p.bin;
        step["slot"] = ualloc_slot_of(p, k);
      } else {
        step["offset"] = nullptr;
      }
      snapshot(step);
    }
    return json{{"height", height}, {"chunk_bytes", v.chunk_bytes()}, {"steps", steps}}.dump();
  } catch (const std::exception& e) {
    return json{{"error", e.what()}}.dump();
  }
}

}  // namespace alloclab::explorer
