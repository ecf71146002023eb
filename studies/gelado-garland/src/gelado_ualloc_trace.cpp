// gg-ualloc traced (Gelado & Garland, PPoPP'19 §4.2): requests served one at a time by UAlloc's
// allocation and free step machines (core/gelado/ualloc_alloc.hpp, ualloc_free.hpp) with the host
// atomics policy, one arena; after each, the chunks TBuddy handed out with their bins (the
// special bins 0 and 1, the bins in use by class, the free ones) and each class's free list
// with its bulk semaphore (C, E, R), the bins filling and leaving the list as they do.
#include <fmt/format.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/gelado/ualloc_alloc.hpp"
#include "alloclab/core/gelado/ualloc_free.hpp"
#include "alloclab/core/gelado/ualloc_state.hpp"
#include "alloclab/core/ouroboros/host_atomics.hpp"
#include "alloclab/core/workload.hpp"
#include "alloclab/studies/gelado_traces.hpp"

namespace alloclab::gelado_ualloc_trace {
namespace {

using A = ouro::HostAtomics;
using namespace gelado;

constexpr std::uint32_t kChunkOrder = 6;  // 64 bins of 4 KB: alloclab's reading (ualloc.md)
constexpr int kStepBound = 1 << 20;       // one thread alone: a bound never reached

template <class Machine>
void run_alone(Machine& m, const UAllocView& v) {
  for (int i = 0; i < kStepBound && m.step(v) != StepStatus::done; ++i) {
  }
}

// Bin g's class digit in the chunk map: 'H' the chunk's special bins (its header and the tails),
// '0'..'7' the class of a bin in use, '.' a free bin.
char bin_glyph(const UAllocView& v, std::size_t g) {
  const std::uint32_t b = static_cast<std::uint32_t>(g % v.bins_per_chunk());
  if (b < kUAllocSpecialBins) return 'H';
  const std::uint32_t k = v.bin_class[g];
  return k < kUAllocClasses ? static_cast<char>('0' + k) : '.';
}

struct Snapshot {
  std::string text;
  nlohmann::json json;
  std::vector<cli::CellRow> rows;
};

Snapshot snapshot(const UAllocView& v, std::size_t chunks, const std::string& label,
                  const std::vector<bool>& class_used) {
  Snapshot s;
  s.json = {{"chunks", nlohmann::json::array()}, {"classes", nlohmann::json::array()}};
  for (std::size_t c = 0; c < chunks; ++c) {
    if (v.chunk_arena[c] == kNoBin) continue;
    std::string map;
    cli::CellRow row{fmt::format("{} chunk {}", label, c), {}};
    for (std::size_t b = 0; b < v.bins_per_chunk(); ++b) {
      const std::size_t g = c * v.bins_per_chunk() + b;
      const char glyph = bin_glyph(v, g);
      map += glyph;
      const bool full = glyph >= '0' && glyph <= '7' && bin_count(v.bin_count[g]) == 0;
      row.cells.push_back({glyph == 'H'   ? "#7f7f7f"
                           : glyph == '.' ? "#1f77b4"
                           : full         ? "#d62728"
                                          : "#2ca02c",
                           glyph == '.' ? ' ' : glyph});
    }
    s.text += fmt::format("  chunk {} (pages {}..{}): {}\n", c, c * v.bins_per_chunk(),
                          (c + 1) * v.bins_per_chunk() - 1, map);
    s.json["chunks"].push_back({{"chunk", c}, {"bins", map}});
    s.rows.push_back(row);
  }
  for (std::uint32_t k = 0; k < kUAllocClasses; ++k) {
    const std::uint32_t li = v.list(0, k);
    const SemCounters c = BulkWord::unpack(v.sems[li]);
    if (!class_used[k]) continue;
    std::string list;
    nlohmann::json jl = nlohmann::json::array();
    for (std::uint32_t g = v.heads[li]; g != kNoBin; g = v.bin_next[g]) {
      const std::uint32_t slots = ualloc_slots(k, g % v.bins_per_chunk());
      list += fmt::format(" -> bin {} ({} of {} free)", g, bin_count(v.bin_count[g]), slots);
      jl.push_back({{"bin", g}, {"free", bin_count(v.bin_count[g])}, {"slots", slots}});
    }
    s.text += fmt::format("  class {} ({} B): semaphore (C, E, R) = ({}, {}, {}), list{}\n", k,
                          ualloc_class_bytes(k), c.count, c.expected, c.reserved,
                          list.empty() ? std::string(" empty") : list);
    s.json["classes"].push_back({{"class", k},
                                 {"bytes", ualloc_class_bytes(k)},
                                 {"C", c.count},
                                 {"E", c.expected},
                                 {"R", c.reserved},
                                 {"list", jl}});
  }
  return s;
}

// How an allocation went, in UAlloc's terms, from the machine's own counts.
std::string alloc_path(const UAllocStats& s, const TBuddyStats& buddy) {
  if (s.waits_grew) {
    std::string from = s.chunk_refills ? fmt::format("a new chunk from TBuddy ({} split{})",
                                                     buddy.splits, buddy.splits == 1 ? "" : "s")
                                       : std::string("the first chunk on the arena's chunk list");
    return fmt::format(
        "wait returned -1 (grow): chunk mutex, a bin from {}, the bin initialised and linked, "
        "the grower keeps its slot and signals the others",
        from);
  }
  return fmt::format(
      "wait took a unit: SRCU read side, {} list node{} read, count decremented, {} bitmap "
      "word{} read, bit set{}",
      s.list_nodes, s.list_nodes == 1 ? "" : "s", s.bitmap_probes, s.bitmap_probes == 1 ? "" : "s",
      s.unlinks ? "; the bin is exhausted: unlinked from its list" : "");
}

}  // namespace
}  // namespace alloclab::gelado_ualloc_trace

namespace alloclab::studies {

cli::TraceDocument ualloc_trace(const cli::TraceRequest& r) {
  using namespace gelado_ualloc_trace;
  const std::uint64_t pool =
      r.pool.empty() ? std::uint64_t{1} << 20 : parse_bytes("--pool", r.pool);
  const std::uint64_t chunk_bytes = std::uint64_t{kUAllocBinBytes} << kChunkOrder;
  if (!is_power_of_two(pool) || pool < chunk_bytes || pool > 16 * chunk_bytes)
    throw InputError("--pool", fmt::format("a traced pool is a power of two from 256 KiB (one "
                                           "chunk of 64 bins) to 4 MiB; got {} B",
                                           pool));
  const auto ops = cli::parse_trace_ops(r.ops, kUAllocMaxBytes, 64, "a1024x4,f0");
  std::uint32_t height = 0;
  while ((std::uint64_t{kUAllocBinBytes} << height) < pool) ++height;
  const std::size_t chunks = pool / chunk_bytes;
  UAllocStorage st(height, kChunkOrder, 1);
  const UAllocView& v = st.view;

  cli::TraceDocument doc;
  doc.text = fmt::format(
      "gg-ualloc (Gelado & Garland's UAlloc, §4.2) on a pool of {} ({} chunk{} of 64 bins of 4 "
      "KB, taken from TBuddy as needed), one arena, one request at a time on the step machines. "
      "A chunk's bins: H its special bins 0-1 (header and tails), a digit the class of a bin in "
      "use (class k: 8 B << k), '.' free. Each class's free list holds the bins with a free "
      "slot; its bulk semaphore counts them (C), with E and R 0 at rest.\n",
      bytes_label(pool), chunks, chunks == 1 ? "" : "s");
  nlohmann::json j = {{"algo", "gg-ualloc"}, {"pool", pool}, {"steps", nlohmann::json::array()}};
  std::vector<cli::CellRow> rows;
  std::vector<std::vector<std::uint64_t>> objects;  // per a: the offsets it got
  std::size_t step = 0;
  std::vector<bool> class_used(kUAllocClasses, false);
  auto record = [&](const std::string& what, nlohmann::json js) {
    Snapshot s = snapshot(v, chunks, fmt::format("{:>2}", ++step), class_used);
    const std::string check = ualloc_check(v, chunks);
    if (!check.empty()) throw std::logic_error("gg-ualloc trace: " + check);
    doc.text += "\n" + what + "\n" + s.text;
    js["state"] = s.json;
    j["steps"].push_back(js);
    rows.insert(rows.end(), s.rows.begin(), s.rows.end());
  };
  for (const cli::TraceOp& op : ops) {
    if (!op.alloc) {
      for (const std::uint64_t off : objects[op.target]) {
        if (off == kUAllocFailed) continue;
        UAllocFree<A> f(v, off);
        run_alone(f, v);
        const UAllocStats& s = f.stats();
        const UAllocPlace p = ualloc_place(static_cast<std::uint32_t>(off % v.chunk_bytes()));
        const std::string what = fmt::format(
            "free offset {} (bin {}): bit cleared, count + 1{}, signal(1, 0){}", off,
            off / v.chunk_bytes() * v.bins_per_chunk() + p.bin,
            s.relinks ? "; the bin was exhausted: linked back on its list" : "",
            s.retires ? fmt::format("; every slot free: retired, {} RCU barrier{}, given back to "
                                    "its chunk",
                                    s.barriers, s.barriers == 1 ? "" : "s")
                      : std::string());
        record(what, {{"op", fmt::format("f{}", op.target)},
                      {"offset", off},
                      {"relinks", s.relinks},
                      {"retires", s.retires},
                      {"reclaimed", s.reclaimed}});
      }
      continue;
    }
    objects.emplace_back();
    const std::uint32_t k = ualloc_class_of(static_cast<std::uint32_t>(op.size));
    class_used[k] = true;
    for (std::uint32_t i = 0; i < op.count; ++i) {
      UAllocAlloc<A> m(v, k, 0, 0);
      run_alone(m, v);
      const std::uint64_t off = m.result();
      objects.back().push_back(off);
      const UAllocStats& s = m.stats();
      std::string what;
      nlohmann::json js = {{"op", fmt::format("a{}", op.size)},
                           {"class", k},
                           {"grew", s.waits_grew != 0},
                           {"chunk_refills", s.chunk_refills},
                           {"unlinks", s.unlinks}};
      if (off == kUAllocFailed) {
        what = fmt::format(
            "alloc {} B (class {}): out of memory: TBuddy had no chunk; the grower "
            "signalled its failure (0, B - 1)",
            op.size, k);
        js["offset"] = nullptr;
      } else {
        const UAllocPlace p = ualloc_place(static_cast<std::uint32_t>(off % v.chunk_bytes()));
        const std::uint64_t bin = off / v.chunk_bytes() * v.bins_per_chunk() + p.bin;
        what = fmt::format(
            "alloc {} B (class {}, {} B slots, {} per bin): offset {}, bin {} slot "
            "{}. {}",
            op.size, k, ualloc_class_bytes(k), ualloc_batch(k), off, bin, ualloc_slot_of(p, k),
            alloc_path(s, m.buddy_stats()));
        js["offset"] = off;
        js["bin"] = bin;
        js["slot"] = ualloc_slot_of(p, k);
      }
      record(what, js);
    }
  }
  doc.text +=
      "\nAfter every step: UAlloc's checker at rest (each semaphore's C equal to the free slots "
      "its list offers, every listed bin marked L, every bin's count equal to its bitmap's free "
      "slots).\n";
  doc.json = j;
  doc.svg = cli::cell_rows_svg(rows,
                               "a row per chunk after each step: grey special bins, a bin in use "
                               "green (red when full) with its class, blue free");
  return doc;
}

}  // namespace alloclab::studies

ALLOCLAB_REGISTER_TRACE((alloclab::cli::TraceEntry{
    .name = "UAlloc's bins",
    .study = "gelado-garland",
    .order = 23,
    .allocators = {"gg-ualloc"},
    .figures = {},
    .options = {"--allocator", "--ops", "--pool"},
    .help = "gg-ualloc: UAlloc's chunks, bins and free lists filling as the --ops (bytes, 1 .. "
            "1024) are served one at a time; --pool 256KiB .. 4MiB (default 1MiB)",
    .example = "alloclab trace --allocator gg-ualloc --ops a1024x4,f0",
    .run = alloclab::studies::ualloc_trace}))
