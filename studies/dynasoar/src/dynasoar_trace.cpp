// DynaSOAr traced (Springer & Masuhara, ECOOP'19 §3-4, Alg. 1-2, 6-9): objects allocated and
// freed one operation at a time by the step machines the simulator and the GPU run
// (core/dynasoar/alloc.hpp, free.hpp) with the host atomics policy. After each, the block
// bitmaps (free, allocated[T], active[T]) level by level, and the bits the operation changed:
// a set that filled an empty container carries up a level (set-first), a clear that emptied one
// carries up too (clear-last). Rotation and coalescing follow the allocator chosen.
#include <fmt/format.h>

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "alloclab/cli/value_list.hpp"
#include "alloclab/core/dynasoar/alloc.hpp"
#include "alloclab/core/dynasoar/free.hpp"
#include "alloclab/core/dynasoar/heap_storage.hpp"
#include "alloclab/core/errors.hpp"
#include "alloclab/core/ouroboros/host_atomics.hpp"
#include "alloclab/studies/dynasoar_trace.hpp"

namespace alloclab::dynasoar_trace {
namespace {

using A = ouro::HostAtomics;
using dynasoar::HBitmap;
using dynasoar::Heap;

constexpr int kStepBound = 1 << 20;  // one operation alone: a bound never reached

// Bits of level l of an N-bit bitmap: N at level 0, then one a container of the level below.
std::uint64_t level_bits(std::uint64_t n, unsigned level) {
  return level == 0 ? n : dynasoar::hb_level_words(n, level - 1);
}

std::vector<std::string> levels_of(const HBitmap& b) {
  std::vector<std::string> out;
  for (unsigned l = b.levels(); l-- > 0;) {  // the top level first
    std::string row;
    for (std::uint64_t i = 0; i < level_bits(b.bits, l); ++i)
      row += (b.word(l, i / 64) >> (i % 64)) & 1u ? '1' : '.';
    out.push_back(row);
  }
  return out;
}

// The bitmaps shown: free, and allocated[n], active[n] of every type used so far.
std::map<std::string, HBitmap> bitmaps(const Heap& h, const std::set<unsigned>& types) {
  std::map<std::string, HBitmap> out{{"free", h.free()}};
  for (unsigned n : types) {
    out[fmt::format("allocated[{}]", n)] = h.allocated(n);
    out[fmt::format("active[{}]", n)] = h.active(n);
  }
  return out;
}

struct Change {
  std::string bitmap;
  unsigned level;  // 0: the blocks' own bits
  std::uint64_t bit;
  bool set;
};

// Every bit that differs between two captures of the same bitmaps, per level.
using Capture = std::map<std::string, std::vector<std::string>>;
Capture capture(const Heap& h, const std::set<unsigned>& types) {
  Capture c;
  for (const auto& [name, b] : bitmaps(h, types)) c[name] = levels_of(b);
  return c;
}
std::vector<Change> diff(const Capture& before, const Capture& after) {
  std::vector<Change> out;
  for (const auto& [name, rows] : after) {
    const auto it = before.find(name);
    for (std::size_t r = 0; r < rows.size(); ++r) {
      const unsigned level = static_cast<unsigned>(rows.size() - 1 - r);
      for (std::size_t i = 0; i < rows[r].size(); ++i) {
        const char was = it == before.end() ? '.' : it->second[r][i];
        if (was != rows[r][i]) out.push_back({name, level, i, rows[r][i] == '1'});
      }
    }
  }
  return out;
}

std::string changes_text(const std::vector<Change>& changes) {
  if (changes.empty()) return "no bitmap bit changed";
  std::string out;
  std::string last;
  for (const Change& c : changes) {
    if (c.bitmap != last)
      out += (out.empty() ? "" : "; ") + c.bitmap + ":";
    else
      out += ",";
    last = c.bitmap;
    out += fmt::format(" level {} bit {} {}", c.level, c.bit, c.set ? "set" : "cleared");
  }
  return out;
}

}  // namespace
}  // namespace alloclab::dynasoar_trace

namespace alloclab::studies {

cli::TraceDocument dynasoar_trace(const cli::TraceRequest& r) {
  using namespace dynasoar_trace;
  namespace ds = ::alloclab::dynasoar;
  const bool rotate = r.allocator != "dynasoar-norot", coalesce = r.allocator != "dynasoar-nocoal";
  std::uint64_t pages = 8192;
  if (!r.grid.T.empty()) {
    const auto Ts = cli::parse_count_list("--T", r.grid.T);
    if (Ts.size() != 1) throw InputError("--T", "one heap of pages (64 .. 16384)");
    pages = Ts[0];
  }
  if (pages < 64 || pages > 16384 || pages % 64 != 0)
    throw InputError("--T", fmt::format("a traced heap is whole blocks of 64 pages, 64 .. 16384 "
                                        "pages; got {}",
                                        pages));
  const auto ops = cli::parse_trace_ops(r.ops, ds::kMaxTypePages, 64, "a32,a32,a32,f0,f1");
  ds::HeapStorage storage(pages, std::vector<bool>(pages, false));
  const Heap& h = storage.heap;
  ds::AllocConfig cfg;
  cfg.rotate = rotate;
  const unsigned seed = static_cast<unsigned>(r.grid.seed % 64);

  cli::TraceDocument doc;
  doc.text = fmt::format(
      "{} (Springer & Masuhara's DynaSOAr, §3-4): a heap of {} pages in {} block{} of 64 slots, "
      "rotation {}, coalescing {}{}. aN[xK]: K lanes of one warp (warp = the a's index) each "
      "ask an object of N pages (type N: 64 / N slots a block){}; fI frees what the I-th a got. "
      "Bitmaps, top level first: free (a bit per free block), allocated[N] (blocks of type N), "
      "active[N] (blocks of type N with a free slot); a bit of level l + 1 is set when its "
      "container of 64 bits on level l has one set.\n",
      r.allocator, pages, h.blocks, h.blocks == 1 ? "" : "s", rotate ? "on" : "off",
      coalesce ? "on" : "off",
      rotate ? fmt::format(" (seed {}: a warp's lookups start at bit (seed + warp) mod 64, the "
                           "seed one more at each retry)",
                           seed)
             : "",
      coalesce ? ", served by the warp's leader in as few atomicOr as the block allows"
               : ", each lane on its own");
  nlohmann::json j = {{"algo", r.allocator},  {"pages", pages},
                      {"blocks", h.blocks},   {"rotate", rotate},
                      {"coalesce", coalesce}, {"steps", nlohmann::json::array()}};
  std::set<unsigned> types;
  std::vector<std::vector<std::pair<std::uint64_t, unsigned>>> objects;  // per a: (block, slot)
  std::vector<unsigned> type_of;
  std::vector<cli::CellRow> rows;
  std::map<std::pair<std::uint64_t, unsigned>, bool> live;
  std::size_t step = 0;
  for (const cli::TraceOp& op : ops) {
    ds::DsCounts c;
    std::string what;
    nlohmann::json js;
    const Capture before = capture(h, types);
    if (op.alloc) {
      const auto n = static_cast<unsigned>(op.size);
      types.insert(n);
      const auto warp = static_cast<unsigned>(objects.size());
      objects.emplace_back();
      type_of.push_back(n);
      const unsigned machines = coalesce ? 1 : op.count, want = coalesce ? op.count : 1;
      unsigned failed = 0;
      for (unsigned m = 0; m < machines; ++m) {
        ds::AllocOp<A> a(n, want, warp, seed, cfg);
        for (int i = 0; i < kStepBound && !a.finished(); ++i) {
          a.step(h, c);
          if (!a.pending()) continue;
          for (std::uint64_t mask = a.pending_mask(); mask != 0; mask &= mask - 1) {
            const unsigned slot = bits::count_trailing_zeros(mask);
            objects.back().push_back({a.pending_block(), slot});
            live[{a.pending_block(), slot}] = true;
          }
          a.take();
        }
        failed += a.remaining();
      }
      what = fmt::format("warp {}: {} lane{} ask{} an object of {} page{} (type {}, {} a block): ",
                         warp, op.count, op.count == 1 ? "" : "s", op.count == 1 ? "s" : "", n,
                         n == 1 ? "" : "s", n, ds::block_capacity(n));
      nlohmann::json got = nlohmann::json::array();
      for (const auto& [bid, slot] : objects.back()) {
        what += fmt::format("block {} slot {} (page {}), ", bid, slot,
                            ds::slot_first_page(bid, slot, n));
        got.push_back(
            {{"block", bid}, {"slot", slot}, {"page", ds::slot_first_page(bid, slot, n)}});
      }
      if (failed) what += fmt::format("{} out of memory, ", failed);
      what += fmt::format(
          "{} lookup{} of active[{}] ({} found nothing), {} block{} initialised from free, {} "
          "atomicOr on a block's slots",
          c.lookups, c.lookups == 1 ? "" : "s", n, c.lookup_fails, c.blocks_initialised,
          c.blocks_initialised == 1 ? "" : "s", c.reserves);
      js = {{"op", fmt::format("a{}x{}", n, op.count)},
            {"warp", warp},
            {"objects", got},
            {"failed", failed},
            {"lookups", c.lookups},
            {"lookup_fails", c.lookup_fails},
            {"blocks_initialised", c.blocks_initialised},
            {"reserves", c.reserves}};
    } else {
      const unsigned n = type_of[op.target];
      unsigned deleted = 0;
      for (const auto& [bid, slot] : objects[op.target]) {
        ds::DeallocOp<A> f(bid, slot, n);
        for (int i = 0; i < kStepBound && !f.finished(); ++i) f.step(h, c);
        if (f.double_free()) throw std::logic_error("dynasoar trace: a double free");
        deleted += f.deleted_block();
        live.erase({bid, slot});
      }
      what = fmt::format(
          "free what warp {} got ({} object{} of type {}): {} block{} emptied and "
          "deleted (invalidated, back to free)",
          op.target, objects[op.target].size(), objects[op.target].size() == 1 ? "" : "s", n,
          deleted, deleted == 1 ? "" : "s");
      js = {{"op", fmt::format("f{}", op.target)}, {"deleted_blocks", deleted}};
    }
    const Capture after = capture(h, types);
    const auto changes = diff(before, after);
    what += fmt::format(". Bits changed: {}; {} bitmap level{} worked on, {} bitmap atomic{}.",
                        changes_text(changes), c.bitmap.levels, c.bitmap.levels == 1 ? "" : "s",
                        c.bitmap.atomics, c.bitmap.atomics == 1 ? "" : "s");
    nlohmann::json jc = nlohmann::json::array();
    for (const Change& ch : changes)
      jc.push_back({{"bitmap", ch.bitmap}, {"level", ch.level}, {"bit", ch.bit}, {"set", ch.set}});
    js["changes"] = jc;
    js["bitmap_levels"] = c.bitmap.levels;
    js["bitmap_atomics"] = c.bitmap.atomics;
    js["bitmaps"] = after;
    j["steps"].push_back(js);
    doc.text += fmt::format("\n{}\n", what);
    ++step;
    for (const auto& [name, levels] : after) {
      for (std::size_t l = 0; l < levels.size(); ++l) {
        doc.text += fmt::format("  {:<14} level {}: {}\n", l == 0 ? name : "",
                                levels.size() - 1 - l, levels[l]);
        cli::CellRow row{fmt::format("{:>2} {} L{}", step, name, levels.size() - 1 - l), {}};
        for (std::size_t i = 0; i < levels[l].size() && i < 128; ++i)
          row.cells.push_back({levels[l][i] == '1' ? "#2ca02c" : "#dddddd", ' '});
        rows.push_back(row);
      }
    }
    const std::string check = storage.check_slots([&](std::uint64_t b, unsigned k, unsigned) {
      return live.count({b, k}) != 0;
    });
    if (!check.empty()) throw std::logic_error("dynasoar trace: " + check);
  }
  doc.text +=
      "\nAfter every step: the heap's checker at rest (every bitmap's levels consistent, Def. 1; "
      "each block's slots the objects held; free, allocated and active as its slots say).\n";
  doc.json = j;
  doc.svg = cli::cell_rows_svg(rows,
                               "after each step, each bitmap's levels (top first; the "
                               "first 128 bits): green set, grey clear");
  return doc;
}

}  // namespace alloclab::studies

ALLOCLAB_REGISTER_TRACE((alloclab::cli::TraceEntry{
    .name = "DynaSOAr's hierarchical bitmaps",
    .study = "dynasoar",
    .order = 60,
    .allocators = {"dynasoar", "dynasoar-norot", "dynasoar-nocoal"},
    .figures = {},
    .options = {"--allocator", "--ops", "--T"},
    .help = "dynasoar, dynasoar-norot, dynasoar-nocoal: the bitmaps free, allocated[N] and "
            "active[N] level by level as objects of N pages are allocated and freed (--ops aN[xK], "
            "fI; --T 64 .. 16384 pages, default 8192), the bits each operation set or cleared",
    .example = "alloclab trace --allocator dynasoar-norot --ops a32,a32,a32,f0,f1",
    .run = alloclab::studies::dynasoar_trace}))
