// The explorer's Gallatin part (parts.hpp): requests served by warp teams (Alg. 3) on a pool of
// a few small segments, the segment tree, the block trees and the blocks' counters after each,
// with each request's path (segment, block, slices) and what it cost (the vEB trees' loads,
// levels and atomics, the memory table's atomics: one atomicAdd on the block's malloc counter
// per team when its slot holds a block). The core's Ops (core/gallatin/allocator.hpp) run as
// they are; state_check (core/gallatin/state_check.hpp) checks the structure after every request.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "alloclab/core/comma_list.hpp"
#include "alloclab/core/gallatin/allocator.hpp"
#include "alloclab/core/gallatin/state_check.hpp"
#include "alloclab/core/ouroboros/host_atomics.hpp"
#include "parts.hpp"

namespace alloclab::explorer {
namespace {

using nlohmann::json;
using namespace alloclab::gallatin;
using G = Ops<ouro::HostAtomics>;  // the single-threaded policy in WebAssembly

// The page's geometry: segments of 32 KiB, blocks of 8 slices (16 B .. 4 KiB slices: a class-0
// block is 128 B, 256 of them a segment; a class-8 block is the whole segment).
constexpr std::uint64_t kSegmentBytes = 32768;
constexpr std::uint32_t kSlicesPerBlock = 8;

struct Request {
  std::uint64_t bytes = 0;
  std::uint32_t lanes = 1;
  bool is_free = false;
  std::uint32_t target = 0;  // the request a free gives back
};

std::vector<Request> parse(const std::string& text) {
  std::vector<Request> out;
  for (const std::string& t : comma_items(text)) {
    Request r;
    if (t[0] == '-') {
      r.is_free = true;
      r.target = static_cast<std::uint32_t>(parse_number(t.substr(1), 1u << 30));
      if (r.target >= out.size() || out[r.target].is_free)
        throw std::invalid_argument("requests: -" + t.substr(1) + " frees no earlier request");
    } else {
      const std::size_t x = t.find('x');
      r.bytes = parse_number(t.substr(0, x));
      if (x != std::string::npos)
        r.lanes = static_cast<std::uint32_t>(parse_number(t.substr(x + 1), 1u << 30));
      if (r.bytes < 1 || r.bytes > kMaxSliceBytes)
        throw std::invalid_argument("requests: bytes 1 .. 4096 (" + t + ")");
      if (r.lanes < 1 || r.lanes > 32) throw std::invalid_argument("requests: 1 .. 32 lanes");
    }
    out.push_back(r);
  }
  if (out.size() > 64) throw std::invalid_argument("requests: at most 64");
  return out;
}

json counts_json(const Counts& c) {
  return {{"atomics", c.atomics},
          {"loads", c.loads},
          {"veb_loads", c.veb.loads},
          {"veb_levels", c.veb.levels},
          {"veb_atomics", c.veb.atomics},
          {"block_refills", c.block_refills},
          {"segments_formatted", c.segments_formatted},
          {"segments_returned", c.segments_returned},
          {"blocks_returned", c.blocks_returned},
          {"restarts", c.restarts},
          {"attempts", c.attempts}};
}

}  // namespace

std::string gallatin_run(int segments, const std::string& requests) {
  try {
    if (segments < 1 || segments > 16) throw std::invalid_argument("segments: 1 .. 16");
    const auto reqs = parse(requests);
    Geometry g;
    g.segment_bytes = kSegmentBytes;
    g.slices_per_block = kSlicesPerBlock;
    g.segments = static_cast<std::uint32_t>(segments);
    StateStorage storage(g, 1);
    const State& st = storage.st;
    std::vector<std::uint32_t> live(std::uint64_t{g.segments} * g.max_blocks(), 0);
    std::vector<std::vector<std::uint64_t>> held(reqs.size());  // each request's slice offsets
    json steps = json::array();
    auto snapshot = [&](json step) {
      json seg = json::array();
      for (std::uint32_t s = 0; s < g.segments; ++s) {
        json in_trees = json::array();
        for (unsigned k = 0; k < kSizeClasses; ++k)
          if (veb_has(st.block_trees[k], s)) in_trees.push_back(k);
        const std::uint32_t k = st.tree_id[s];
        json blocks = json::array();
        if (k < kSizeClasses) {
          for (std::uint32_t b = 0; b < g.blocks_per_segment(k); ++b) {
            const std::uint64_t id = g.block_id(s, b);
            const std::uint32_t m = st.malloc_ctr[id];
            const bool idle = (m >> kClassShift) == kIdleClass;
            blocks.push_back({{"handed", idle ? -1 : static_cast<int>(m & kCountMask)},
                              {"freed", st.free_ctr[id]},
                              {"live", live[id]}});
          }
        }
        seg.push_back({{"free", veb_has(st.segment_tree, s)},
                       {"class", k < kSizeClasses ? static_cast<int>(k) : -1},
                       {"available", k < kSizeClasses ? static_cast<int>(st.available[s]) : -1},
                       {"block_trees", in_trees},
                       {"blocks", blocks}});
      }
      json slots = json::array();
      for (unsigned k = 0; k < kSizeClasses; ++k) {
        const std::uint32_t b = st.buffer[st.slot_offset[k]];
        slots.push_back(b == 0 ? -1 : static_cast<std::int64_t>(b - 1));
      }
      step["segments"] = seg;
      step["slot0"] = slots;  // each class's buffer slot 0: the block it holds, -1 none
      step["check"] = state_check(st, live);
      steps.push_back(step);
    };
    snapshot({{"what", "start: every segment free"}});
    for (std::size_t i = 0; i < reqs.size(); ++i) {
      const Request& r = reqs[i];
      Counts c;
      if (r.is_free) {
        for (const std::uint64_t off : held[r.target]) {
          G::free_slices(st, off, 1, c);
          --live[g.block_id(
              static_cast<std::uint32_t>(off / g.segment_bytes),
              static_cast<std::uint32_t>((off % g.segment_bytes) /
                                         g.block_bytes(size_class_of(reqs[r.target].bytes))))];
        }
        json step = {{"what", "free request " + std::to_string(r.target) + " (" +
                                  std::to_string(held[r.target].size()) + " slices)"},
                     {"freed", r.target},
                     {"counts", counts_json(c)}};
        held[r.target].clear();
        snapshot(step);
        continue;
      }
      const unsigned k = size_class_of(r.bytes);
      std::vector<std::uint64_t> out(r.lanes, 0);
      const std::uint32_t served = G::malloc_team(st, k, 0, r.lanes, out.data(), c);
      out.resize(served);
      json path = json::array();
      for (const std::uint64_t off : out) {
        const auto s = static_cast<std::uint32_t>(off / g.segment_bytes);
        const auto b = static_cast<std::uint32_t>((off % g.segment_bytes) / g.block_bytes(k));
        const auto slice = static_cast<std::uint32_t>((off % g.block_bytes(k)) / g.slice_bytes(k));
        ++live[g.block_id(s, b)];
        path.push_back({{"offset", off}, {"segment", s}, {"block", b}, {"slice", slice}});
      }
      held[i] = out;
      snapshot({{"what", std::to_string(r.lanes) + (r.lanes == 1 ? " lane asks " : " lanes ask ") +
                             std::to_string(r.bytes) + " B: class " + std::to_string(k) + " (" +
                             std::to_string(g.slice_bytes(k)) + " B slices)"},
                {"class", k},
                {"slice_bytes", g.slice_bytes(k)},
                {"lanes", r.lanes},
                {"served", served},
                {"path", path},
                {"counts", counts_json(c)}});
    }
    return json{{"segments", segments},
                {"segment_bytes", kSegmentBytes},
                {"slices_per_block", kSlicesPerBlock},
                {"veb_levels", st.segment_tree.levels},
                {"steps", steps}}
        .dump();
  } catch (const std::exception& e) {
    return json{{"error", e.what()}}.dump();
  }
}

}  // namespace alloclab::explorer
