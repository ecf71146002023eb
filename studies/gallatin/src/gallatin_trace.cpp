// Gallatin traced (McCoy & Pandey, PPoPP'24 §4, Alg. 1-4): the path of each team's request
// through the segment tree, the block trees and a block's slices, run by the real operations
// (core/gallatin/allocator.hpp: Ops::malloc_team, Ops::free_slices) with the host atomics policy,
// one team at a time: which buffer slot and block served it, the team's one atomicAdd on the
// block's malloc counter, the segment a fresh block came from, and the vEB trees' levels and
// atomics the request touched. After each step the trees' bits, level by level.
#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/gallatin/allocator.hpp"
#include "alloclab/core/gallatin/state_check.hpp"
#include "alloclab/core/ouroboros/host_atomics.hpp"
#include "alloclab/core/workload.hpp"
#include "alloclab/studies/gallatin_trace.hpp"

namespace alloclab::gallatin_trace {
namespace {

using Op = gallatin::Ops<ouro::HostAtomics>;
using gallatin::Counts;
using gallatin::Geometry;
using gallatin::State;
using gallatin::VebTree;

// A tree's bits, a line per level (root first), each level's bits up to what it covers.
std::vector<std::string> levels_of(const VebTree& t) {
  std::vector<std::string> out;
  for (unsigned l = 0; l < t.levels; ++l) {
    std::uint64_t bits = t.universe;
    for (unsigned k = l + 1; k < t.levels; ++k) bits = (bits + 63) / 64;
    std::string row;
    for (std::uint64_t i = 0; i < bits; ++i)
      row += (t.words[t.offset[l] + i / 64] >> (i % 64)) & 1u ? '1' : '.';
    out.push_back(row);
  }
  return out;
}

std::string levels_text(const std::string& name, const VebTree& t) {
  std::string out;
  const auto rows = levels_of(t);
  for (std::size_t l = 0; l < rows.size(); ++l)
    out += fmt::format("  {:<13} level {}: {}\n", l == 0 ? name : "", l, rows[l]);
  return out;
}

}  // namespace
}  // namespace alloclab::gallatin_trace

namespace alloclab::studies {

cli::TraceDocument gallatin_trace(const cli::TraceRequest& r) {
  using namespace gallatin_trace;
  namespace gl = ::alloclab::gallatin;
  const std::uint64_t pool =
      r.pool.empty() ? std::uint64_t{4} << 20 : parse_bytes("--pool", r.pool);
  if (pool % kGallatinTraceSegmentBytes != 0 || pool > 256 * kGallatinTraceSegmentBytes)
    throw InputError("--pool", fmt::format("a traced pool is whole segments of 32 KiB, 1 .. 256 of "
                                           "them (32KiB .. 8MiB); got {} B",
                                           pool));
  const auto ops = cli::parse_trace_ops(r.ops, gl::kMaxSliceBytes, 32, "a16x5,a16x4,f0");
  Geometry g;
  g.segment_bytes = kGallatinTraceSegmentBytes;
  g.slices_per_block = kGallatinTraceSlicesPerBlock;
  g.segments = static_cast<std::uint32_t>(pool / kGallatinTraceSegmentBytes);
  gl::StateStorage storage(g, 1);  // one SM: 4 buffer slots a class; the teams use slot 0
  const State& st = storage.st;
  std::vector<std::uint32_t> live(std::uint64_t{g.segments} * g.max_blocks(), 0);
  std::vector<bool> class_used(gl::kSizeClasses, false);

  cli::TraceDocument doc;
  doc.text = fmt::format(
      "gallatin (McCoy & Pandey's Gallatin, §4) on {} in {} segments of 32 KiB, blocks of 8 "
      "slices (scaled down from the paper's 16 MiB segments and 4096-slice blocks: class k, "
      "slices of 16 B << k, still has 256 >> k blocks a segment). Each aSxK is a team of K lanes "
      "of one warp asking S bytes, served through buffer slot 0 of its class; each fI frees what "
      "the I-th team got, a block's slices in one atomicAdd. The segment tree has a bit per free "
      "segment; block tree k a bit per segment with blocks of class k to hand out. vEB trees of "
      "{} level{}.\n",
      bytes_label(pool), g.segments, st.segment_tree.levels,
      st.segment_tree.levels == 1 ? "" : "s");
  nlohmann::json j = {{"algo", "gallatin"},
                      {"pool", pool},
                      {"segment_bytes", g.segment_bytes},
                      {"slices_per_block", g.slices_per_block},
                      {"steps", nlohmann::json::array()}};
  std::vector<cli::CellRow> rows;
  std::vector<std::vector<std::uint64_t>> got;  // per team: its slices' offsets
  std::vector<unsigned> team_class;
  auto where = [&](std::uint64_t off, unsigned k) {
    const std::uint64_t s = off / g.segment_bytes;
    const std::uint64_t b = off % g.segment_bytes / g.block_bytes(k);
    const std::uint64_t slice = off % g.block_bytes(k) / g.slice_bytes(k);
    return std::array<std::uint64_t, 3>{s, b, slice};
  };
  auto snapshot = [&](std::string& text, nlohmann::json& js, std::size_t step) {
    text += levels_text("segment tree", st.segment_tree);
    js["segment_tree"] = levels_of(st.segment_tree);
    cli::CellRow seg{fmt::format("{:>2} segments", step), {}};
    for (std::uint32_t s = 0; s < g.segments && s < 64; ++s) {
      const std::uint32_t k = st.tree_id[s];
      seg.cells.push_back({k == gl::kNoTree ? "#1f77b4" : "#2ca02c",
                           k < gl::kSizeClasses ? static_cast<char>('0' + k) : ' '});
    }
    rows.push_back(seg);
    for (unsigned k = 0; k < gl::kSizeClasses; ++k) {
      if (!class_used[k]) continue;
      text += levels_text(fmt::format("block tree {}", k), st.block_trees[k]);
      js["block_trees"][std::to_string(k)] = levels_of(st.block_trees[k]);
      const std::uint32_t cell = st.buffer[st.slot_offset[k]];
      if (cell == 0) {
        text += fmt::format("  class {} slot 0: empty\n", k);
        js["slots"][std::to_string(k)] = nullptr;
        continue;
      }
      const std::uint64_t id = cell - 1;
      const std::uint32_t handed = st.malloc_ctr[id] & gl::kCountMask;
      const std::uint32_t freed = st.free_ctr[id];
      const std::uint64_t s = id / g.max_blocks(), b = id % g.max_blocks();
      std::string slices;
      cli::CellRow row{fmt::format("{:>2} block {}.{}", step, s, b), {}};
      for (std::uint32_t i = 0; i < g.slices_per_block; ++i) {
        slices += i < handed ? '#' : '.';
        row.cells.push_back({i < handed ? "#d62728" : "#1f77b4", i < handed ? '#' : ' '});
      }
      rows.push_back(row);
      text += fmt::format(
          "  class {} slot 0: block {} of segment {} ({} left in its ring), slices {} (malloc "
          "counter {}, free counter {})\n",
          k, b, s, static_cast<std::int32_t>(st.available[s]), slices, handed, freed);
      js["slots"][std::to_string(k)] = {
          {"segment", s},
          {"block", b},
          {"malloc_counter", handed},
          {"free_counter", freed},
          {"ring_available", static_cast<std::int32_t>(st.available[s])}};
    }
  };
  std::size_t step = 0;
  for (const cli::TraceOp& op : ops) {
    Counts c;
    std::uint32_t adds = 0;
    std::string text;
    nlohmann::json js;
    if (op.alloc) {
      const unsigned k = gl::size_class_of(op.size);
      class_used[k] = true;
      const std::uint32_t cell = st.buffer[st.slot_offset[k]];
      const std::uint32_t before = cell == 0 ? 0 : st.malloc_ctr[cell - 1] & gl::kCountMask;
      std::vector<std::uint64_t> out(op.count, gl::kNoBlock);
      const std::uint32_t served = Op::malloc_team(st, k, 0, op.count, out.data(), c);
      out.resize(served);
      got.push_back(out);
      team_class.push_back(k);
      text = fmt::format("team {}: {} lane{} x {} B (class {}, slices of {} B): ", got.size() - 1,
                         op.count, op.count == 1 ? "" : "s", op.size, k, g.slice_bytes(k));
      text += cell == 0 ? "slot 0 empty: the leader fetched a block (get_block). "
                        : fmt::format(
                              "slot 0 held block {} of segment {}, {} of its {} slices "
                              "handed out. ",
                              (cell - 1) % g.max_blocks(), (cell - 1) / g.max_blocks(), before,
                              g.slices_per_block);
      nlohmann::json lanes = nlohmann::json::array();
      std::map<std::uint64_t, std::vector<std::uint64_t>> by_block;
      for (const std::uint64_t off : out) {
        const auto [s, b, slice] = where(off, k);
        by_block[s * g.max_blocks() + b].push_back(slice);
        ++live[s * g.max_blocks() + b];
        lanes.push_back({{"offset", off}, {"segment", s}, {"block", b}, {"slice", slice}});
      }
      for (const auto& [id, slices] : by_block)
        text += fmt::format("Segment {} -> block {} -> slices {}..{}. ", id / g.max_blocks(),
                            id % g.max_blocks(), slices.front(), slices.back());
      if (served < op.count)
        text += fmt::format("{} lane{} got null: out of memory. ", op.count - served,
                            op.count - served == 1 ? "" : "s");
      // Alone, every pass of Alg. 3's loop but one that found no block at all (out of memory:
      // it returns) is the leader's one atomicAdd on a block's malloc counter.
      adds = c.attempts - (served < op.count ? 1u : 0u);
      text += fmt::format(
          "{} atomicAdd{} on a block's malloc counter (the team's one atomic, once a block); {} "
          "segment{} formatted, {} block{} taken from a segment's ring; vEB: {} level{} touched, "
          "{} "
          "loads, {} atomics; {} atomics on the memory table and buffers in all.\n",
          adds, adds == 1 ? "" : "s", c.segments_formatted, c.segments_formatted == 1 ? "" : "s",
          c.block_refills, c.block_refills == 1 ? "" : "s", c.veb.levels,
          c.veb.levels == 1 ? "" : "s", c.veb.loads, c.veb.atomics, c.atomics);
      js = {{"op", fmt::format("a{}x{}", op.size, op.count)},
            {"class", k},
            {"served", served},
            {"lanes", lanes},
            {"slot_block_before", cell == 0 ? nlohmann::json(nullptr) : nlohmann::json(cell - 1)},
            {"malloc_counter_before", before}};
    } else {
      const unsigned k = team_class[op.target];
      std::map<std::uint64_t, std::uint32_t> per_block;
      for (const std::uint64_t off : got[op.target]) {
        const auto [s, b, slice] = where(off, k);
        ++per_block[s * g.max_blocks() + b];
        --live[s * g.max_blocks() + b];
      }
      text = fmt::format("free team {}'s {} slice{}: ", op.target, got[op.target].size(),
                         got[op.target].size() == 1 ? "" : "s");
      for (const auto& [id, n] : per_block) {
        Op::free_slices(st, g.block_offset(id, k), n, c);
        text += fmt::format("block {} of segment {}: free counter + {} in one atomicAdd. ",
                            id % g.max_blocks(), id / g.max_blocks(), n);
      }
      text += fmt::format(
          "{} block{} back to {} segment's ring, {} segment{} back to the segment "
          "tree; vEB: {} level{} touched, {} atomics.\n",
          c.blocks_returned, c.blocks_returned == 1 ? "" : "s",
          c.blocks_returned == 1 ? "its" : "their", c.segments_returned,
          c.segments_returned == 1 ? "" : "s", c.veb.levels, c.veb.levels == 1 ? "" : "s",
          c.veb.atomics);
      js = {{"op", fmt::format("f{}", op.target)}};
    }
    js["atomics"] = c.atomics;
    js["malloc_counter_adds"] = adds;
    js["segments_formatted"] = c.segments_formatted;
    js["block_refills"] = c.block_refills;
    js["blocks_returned"] = c.blocks_returned;
    js["segments_returned"] = c.segments_returned;
    js["veb_levels"] = c.veb.levels;
    js["veb_loads"] = c.veb.loads;
    js["veb_atomics"] = c.veb.atomics;
    snapshot(text, js, ++step);
    if (const std::string e = gl::state_check(st, live); !e.empty())
      throw std::logic_error("gallatin trace: " + e);
    doc.text += "\n" + text;
    j["steps"].push_back(js);
  }
  doc.text +=
      "\nAfter every step: Gallatin's checker at rest (every vEB tree consistent, each "
      "segment in the trees its count says, each block's counters equal to the slices handed out, "
      "freed and held).\n";
  doc.json = j;
  doc.svg = cli::cell_rows_svg(
      rows,
      "after each step: the segments (blue free, green formatted, with its class; the first "
      "64), and each used class's block in slot 0 (red slices handed out, blue not yet)");
  return doc;
}

}  // namespace alloclab::studies

ALLOCLAB_REGISTER_TRACE((alloclab::cli::TraceEntry{
    .name = "Gallatin's path of a request",
    .study = "gallatin",
    .order = 50,
    .allocators = {"gallatin"},
    .figures = {},
    .options = {"--allocator", "--ops", "--pool"},
    .help = "gallatin: a team's request through the segment tree, the block tree and a block's "
            "slices (--ops aSxK: K lanes of 1 .. 4096 B; fI), the team's one atomicAdd and the "
            "vEB levels touched; segments of 32 KiB, blocks of 8 slices, --pool 32KiB .. 8MiB "
            "(default 4MiB)",
    .example = "alloclab trace --allocator gallatin --ops a16x5,a16x4,f0,f1",
    .run = alloclab::studies::gallatin_trace}))
