// The explorer's DynaSOAr heap (parts.hpp): warps allocating objects on a small heap by Alg. 1
// (allocate) with Alg. 6 (Block::reserve) and §4.2's warp coalescing on or off: with it, a warp's
// leader takes its lanes' slots of one block in one atomicOr; without, each lane runs its own
// allocation. The core's AllocOp (core/dynasoar/alloc.hpp) runs as it is; HeapStorage::check_slots
// (core/dynasoar/heap_storage.hpp) checks the heap after every warp.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "alloclab/core/comma_list.hpp"
#include "alloclab/core/dynasoar/alloc.hpp"
#include "alloclab/core/dynasoar/heap_storage.hpp"
#include "alloclab/core/ouroboros/host_atomics.hpp"
#include "parts.hpp"

namespace alloclab::explorer {
namespace {

using nlohmann::json;
using namespace alloclab::dynasoar;
using Atomics = ouro::HostAtomics;  // the single-threaded policy in WebAssembly

std::string hex(std::uint64_t w) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(w));
  return buf;
}

}  // namespace

std::string heap_run(int blocks, const std::string& warps, bool coalesce, bool rotate) {
  try {
    if (blocks < 1 || blocks > 64) throw std::invalid_argument("blocks: 1 .. 64");
    const auto M = static_cast<std::uint64_t>(blocks);
    HeapStorage storage(64 * M, std::vector<bool>(64 * M, false));  // every block free
    const Heap& h = storage.heap;
    std::set<std::tuple<std::uint64_t, unsigned, unsigned>> live;  // (block, slot, type)
    AllocConfig cfg;
    cfg.rotate = rotate;
    cfg.max_steps = 1u << 20;
    json steps = json::array();
    auto snapshot = [&](json step) {
      json bl = json::array();
      for (std::uint64_t b = 0; b < M; ++b) {
        const bool is_free = (h.free().word(0, b / 64) >> (b % 64)) & 1u;
        const unsigned n = h.types[b];
        bl.push_back({{"free", is_free},
                      {"type", is_free ? 0 : n},
                      {"bitmap", hex(h.slots[b])},
                      {"valid", is_free ? 0 : h.valid(n, b)},
                      {"active", !is_free && ((h.active(n).word(0, b / 64) >> (b % 64)) & 1u)}});
      }
      step["blocks"] = bl;
      step["check"] = storage.check_slots([&](std::uint64_t b, unsigned k, unsigned n) {
        return live.count({b, k, n}) != 0;
      });
      steps.push_back(step);
    };
    snapshot({{"what", "start: every block free"}});
    unsigned warp = 0;
    for (const std::string& t : comma_items(warps)) {
      const std::size_t x = t.find('x');
      if (x == std::string::npos) throw std::invalid_argument("warps: nxL (type n pages, L lanes)");
      const auto n = static_cast<unsigned>(parse_number(t.substr(0, x), 1u << 20));
      const auto lanes = static_cast<unsigned>(parse_number(t.substr(x + 1), 1u << 20));
      if (n < 1 || n > 64 || lanes < 1 || lanes > 32)
        throw std::invalid_argument("warps: type 1 .. 64 pages, 1 .. 32 lanes (" + t + ")");
      if (warp >= 64) throw std::invalid_argument("warps: at most 64");
      DsCounts c;
      json got = json::array();
      unsigned failed = 0;
      // One machine for the warp's leader (coalescing: want = lanes) or one a lane.
      const unsigned machines = coalesce ? 1 : lanes, want = coalesce ? lanes : 1;
      for (unsigned m = 0; m < machines; ++m) {
        AllocOp<Atomics> op(n, want, warp, 0, cfg);
        while (!op.finished()) {
          op.step(h, c);
          if (op.pending()) {
            for (std::uint64_t mask = op.pending_mask(); mask; mask &= mask - 1) {
              const unsigned k = bits::count_trailing_zeros(mask);
              live.insert({op.pending_block(), k, n});
              got.push_back({{"block", op.pending_block()}, {"slot", k}});
            }
            op.take();
          }
        }
        failed += op.remaining();
      }
      snapshot({{"what", "warp " + std::to_string(warp) + ": " + std::to_string(lanes) +
                             " lanes ask type " + std::to_string(n) + " (" +
                             std::to_string(block_capacity(n)) + " a block)" +
                             (coalesce ? ", coalesced" : ", each lane alone")},
                {"type", n},
                {"lanes", lanes},
                {"slots", got},
                {"failed", failed},
                {"reserves", c.reserves},
                {"block_atomics", c.block_atomics},
                {"bitmap_atomics", c.bitmap.atomics},
                {"lookups", c.lookups},
                {"blocks_initialised", c.blocks_initialised}});
      ++warp;
    }
    return json{{"blocks", blocks}, {"coalesce", coalesce}, {"rotate", rotate}, {"steps", steps}}
        .dump();
  } catch (const std::exception& e) {
    return json{{"error", e.what()}}.dump();
  }
}

}  // namespace alloclab::explorer
