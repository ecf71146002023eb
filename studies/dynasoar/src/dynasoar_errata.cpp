#include "alloclab/studies/dynasoar_errata.hpp"

#include <fmt/format.h>

#include <vector>

#include "alloclab/core/dynasoar/hbitmap.hpp"
#include "alloclab/core/dynasoar/hbitmap_check.hpp"
#include "alloclab/core/ouroboros/host_atomics.hpp"

namespace alloclab::validation {
namespace {

using namespace alloclab::dynasoar;
using A = alloclab::ouro::HostAtomics;

// try_find_set (unrotated), then try_clear of what it found, each run to its end alone.
std::int64_t find(const HBitmap& b, BitmapCounts& c) {
  FindOp<A> f(b, 0);
  while (f.step(b, c) != BitStatus::done) {
  }
  return f.result();
}
bool try_clear(const HBitmap& b, std::uint64_t pos, BitmapCounts& c) {
  BitOp<A> op(BitOpKind::try_clear, pos);
  while (op.step(b, c) != BitStatus::done) {
  }
  return op.succeeded();
}

}  // namespace

ClearReplay clear_replay(std::uint64_t bits, std::uint64_t set, bool printed) {
  HBitmapStorage storage(bits);
  std::vector<bool> on(bits, false);
  for (std::uint64_t i = 0; i < set && i < bits; ++i) on[i] = true;
  hbitmap_assign(storage.bitmap, on);
  BitmapCounts c;
  ClearReplay r;
  if (printed) {
    // while ((i = try_find_set()) != FAIL && try_clear(i)) {}; return i;
    std::int64_t i;
    bool last_cleared = false;
    for (std::uint64_t guard = 0; guard <= bits; ++guard) {
      i = find(storage.bitmap, c);
      if (i == kNoBit) break;
      last_cleared = try_clear(storage.bitmap, static_cast<std::uint64_t>(i), c);
      if (!last_cleared) break;
      ++r.cleared;
    }
    r.returned = i;
    r.returned_owned = i != kNoBit && last_cleared;
  } else {
    ClaimOp<A> claim(storage.bitmap, 0, 0, false);
    while (claim.step(storage.bitmap, c) != BitStatus::done) {
    }
    r.returned = claim.result();
    r.cleared = r.returned == kNoBit ? 0 : 1;
    r.returned_owned = r.returned != kNoBit;
  }
  return r;
}

std::vector<Erratum> dynasoar_errata() {
  std::vector<Erratum> out;
  const ClearReplay printed = clear_replay(4096, 100, true);
  const ClearReplay intended = clear_replay(4096, 100, false);
  out.push_back(Erratum{
      "§4.1.2, clear()",
      "clear() \"is identical to while ((i = try_find_set()) != FAIL && try_clear(i)) {}; return "
      "i;\"",
      "while ((i = try_find_set()) != FAIL && !try_clear(i)) {}; return i; (retry while the found "
      "bit was lost to another thread; the text says clear() \"atomically clears and returns the "
      "position of an arbitrary set bit\")",
      fmt::format("one thread alone on a 4096-bit bitmap with 100 bits set (alloclab's step "
                  "machines): as printed the loop clears {} bits and returns {} ({}); as intended "
                  "it clears {} and returns bit {}",
                  printed.cleared, printed.returned,
                  printed.returned == kNoBit ? "FAIL: the caller gets no block although it "
                                               "cleared them all"
                                             : "a bit it did not clear",
                  intended.cleared, intended.returned),
      "dynasoar-clear"});
  return out;
}

}  // namespace alloclab::validation
