// The explorer's DynaSOAr part (parts.hpp): the hierarchical bitmap (Springer & Masuhara,
// ECOOP'19 §4.1) of free slots, claimed (free.clear(): try_find_set top-down, then try_clear with
// its clear-last propagation) and given back (set, with its set-first propagation), one memory
// operation a snapshot. The core's step machines (core/dynasoar/hbitmap.hpp) run as they are.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "alloclab/core/comma_list.hpp"
#include "alloclab/core/dynasoar/hbitmap.hpp"
#include "alloclab/core/dynasoar/hbitmap_check.hpp"
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

json counts_json(const BitmapCounts& c) {
  return {{"loads", c.loads},         {"atomics", c.atomics},         {"levels", c.levels},
          {"set_spins", c.set_spins}, {"clear_spins", c.clear_spins}, {"find_fails", c.find_fails}};
}

}  // namespace

std::string bitmap_run(int bits, const std::string& ops, bool rotate, int seed) {
  try {
    if (bits < 1 || bits > 16384) throw std::invalid_argument("bits: 1 .. 16384");
    if (seed < 0) throw std::invalid_argument("seed >= 0");
    HBitmapStorage storage(static_cast<std::uint64_t>(bits));
    const HBitmap& b = storage.bitmap;
    hbitmap_assign(b, std::vector<bool>(static_cast<std::size_t>(bits), true));  // all free
    json steps = json::array();
    std::vector<std::uint64_t> before = storage.words;
    auto snapshot = [&](json step) {
      json levels = json::array();
      for (unsigned l = 0; l < b.levels(); ++l) {
        json words = json::array();
        for (std::uint64_t i = 0; i < hb_level_words(b.bits, l); ++i)
          words.push_back(hex(b.word(l, i)));
        levels.push_back(words);
      }
      json touched = json::array();  // [level, word] of every word this step changed
      for (unsigned l = 0; l < b.levels(); ++l)
        for (std::uint64_t i = 0; i < hb_level_words(b.bits, l); ++i)
          if (before[hb_level_offset(b.bits, l) + i] != b.word(l, i)) touched.push_back({l, i});
      before = storage.words;
      step["levels"] = levels;
      step["touched"] = touched;
      steps.push_back(step);
    };
    snapshot({{"what", "start: every slot free (every bit set)"}, {"op", -1}});
    int op_index = 0;
    unsigned next_seed = static_cast<unsigned>(seed);
    for (const std::string& t : comma_items(ops)) {
      if (op_index >= 256) throw std::invalid_argument("ops: at most 256");
      BitmapCounts total;
      if (t == "a") {
        // Each claim is another warp's: the rotation is (seed + warp) mod 64 (§4.2).
        ClaimOp<Atomics> op(b, next_seed, static_cast<unsigned>(op_index), rotate);
        for (int k = 0;; ++k) {
          if (k > 1000) throw std::runtime_error("a claim alone did not finish");
          BitmapCounts c;
          const BitStatus s = op.step(b, c);
          total.add(c);
          const bool done = s == BitStatus::done;
          json step = {
              {"op", op_index},
              {"kind", "claim"},
              {"what", c.atomics ? "try_clear / clear: one fetch_and" : "try_find_set: one load"},
              {"counts", counts_json(c)},
              {"done", done}};
          if (done) {
            step["result"] = op.result();
            step["total"] = counts_json(total);
            step["check"] = hbitmap_consistency_error(b);
          }
          snapshot(step);
          if (done) break;
        }
      } else if (t[0] == 'f') {
        const long long pos = static_cast<long long>(parse_number(t.substr(1), 1u << 30));
        if (pos < 0 || pos >= bits)
          throw std::invalid_argument("ops: f" + t.substr(1) + " out of range");
        if ((b.word(0, static_cast<std::uint64_t>(pos) / 64) >> (pos % 64)) & 1u)
          throw std::invalid_argument("ops: slot " + t.substr(1) + " is free already");
        BitOp<Atomics> op(BitOpKind::set, static_cast<std::uint64_t>(pos));
        for (int k = 0;; ++k) {
          if (k > 1000) throw std::runtime_error("a set alone did not finish");
          BitmapCounts c;
          const BitStatus s = op.step(b, c);
          total.add(c);
          const bool done = s == BitStatus::done;
          json step = {{"op", op_index},
                       {"kind", "free"},
                       {"slot", pos},
                       {"what", "set: one fetch_or"},
                       {"counts", counts_json(c)},
                       {"done", done}};
          if (done) {
            step["total"] = counts_json(total);
            step["check"] = hbitmap_consistency_error(b);
          }
          snapshot(step);
          if (done) break;
        }
      } else {
        throw std::invalid_argument("ops: a (claim) or fN (free slot N); got '" + t + "'");
      }
      ++op_index;
    }
    return json{{"bits", bits},
                {"levels", b.levels()},
                {"rotate", rotate},
                {"seed", seed},
                {"steps", steps}}
        .dump();
  } catch (const std::exception& e) {
    return json{{"error", e.what()}}.dump();
  }
}

}  // namespace alloclab::explorer
