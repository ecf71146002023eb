// The written-pattern store (pattern_store.hpp): open addressing with linear probing and
// backward-shift deletion, so that a churn run that writes and forgets millions of objects keeps
// a table the size of its live set, without tombstones.
#include "alloclab/cpu_sim/pattern_store.hpp"

#include <algorithm>
#include <string>

#include "alloclab/core/bit_tricks.hpp"
#include "alloclab/core/errors.hpp"
#include "alloclab/core/pool.hpp"

namespace alloclab::sim {
namespace {

std::uint64_t home_of(std::uint64_t word, std::uint64_t mask) {
  return mix64(word) & mask;
}

}  // namespace

// Eight pattern bytes per hash: offsets 8b..8b+7 of object `id` are the bytes of block b.
std::uint64_t pattern_block(std::uint64_t id, std::uint64_t block) {
  return mix64(mix64(id) ^ block);
}

std::uint8_t pattern_byte(std::uint64_t id, std::uint64_t offset) {
  return static_cast<std::uint8_t>(pattern_block(id, offset / 8) >> (8 * (offset % 8)));
}

template <class F>
void PatternStore::for_each_pattern_piece(std::uint64_t id, std::uint64_t begin, std::uint64_t size,
                                          F f) {
  std::uint64_t cached = ~std::uint64_t{0}, block_bytes = 0;
  auto range = [&](std::uint64_t from, std::uint64_t to) {  // offsets [from, to) of the object
    for (std::uint64_t o = from; o < to;) {
      const std::uint64_t address = begin + o;
      const unsigned lane0 = static_cast<unsigned>(address % 8);
      const unsigned n = static_cast<unsigned>(std::min<std::uint64_t>(8 - lane0, to - o));
      Piece piece{address / 8 + 1, 0, 0, 0, o};
      for (unsigned i = 0; i < n; ++i) {
        const std::uint64_t oi = o + i;
        if (oi / 8 != cached) {
          cached = oi / 8;
          block_bytes = pattern_block(id, cached);
        }
        const unsigned lane = lane0 + i;
        piece.value |= ((block_bytes >> (8 * (oi % 8))) & 0xff) << (8 * lane);
        piece.byte_mask |= std::uint64_t{0xff} << (8 * lane);
        piece.lanes = static_cast<std::uint8_t>(piece.lanes | (1u << lane));
      }
      f(piece);
      o += n;
    }
  };
  const std::uint64_t head = std::min<std::uint64_t>(8, size);
  range(0, head);
  range(std::max(head, size - head), size);
}

void PatternStore::prefetch(std::uint64_t begin, std::uint64_t size) const {
  if (slots_.empty() || size == 0) return;
  const std::uint64_t mask = slots_.size() - 1;
  __builtin_prefetch(&slots_[home_of(begin / 8 + 1, mask)]);
  __builtin_prefetch(&slots_[home_of((begin + size - 1) / 8 + 1, mask)]);
}

PatternStore::Slot* PatternStore::find(std::uint64_t word) {
  if (slots_.empty()) return nullptr;
  const std::uint64_t mask = slots_.size() - 1;
  for (std::uint64_t i = home_of(word, mask);; i = (i + 1) & mask) {
    if (slots_[i].word == word) return &slots_[i];
    if (slots_[i].word == 0) return nullptr;
  }
}

PatternStore::Slot& PatternStore::find_or_insert(std::uint64_t word) {
  if (2 * (used_ + 1) > slots_.size()) grow();  // load factor at most 1/2
  const std::uint64_t mask = slots_.size() - 1;
  for (std::uint64_t i = home_of(word, mask);; i = (i + 1) & mask) {
    if (slots_[i].word == word) return slots_[i];
    if (slots_[i].word == 0) {
      slots_[i].word = word;
      ++used_;
      return slots_[i];
    }
  }
}

void PatternStore::erase(Slot& slot) {
  const std::uint64_t mask = slots_.size() - 1;
  std::uint64_t hole = static_cast<std::uint64_t>(&slot - slots_.data());
  // Move back every later slot of the cluster whose home is not between the hole and it.
  for (std::uint64_t j = (hole + 1) & mask; slots_[j].word != 0; j = (j + 1) & mask) {
    const std::uint64_t home = home_of(slots_[j].word, mask);
    const bool home_after_hole =
        hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
    if (home_after_hole) continue;
    slots_[hole] = slots_[j];
    hole = j;
  }
  slots_[hole] = Slot{};
  --used_;
}

void PatternStore::grow() {
  std::vector<Slot> old(std::max<std::size_t>(64, 2 * slots_.size()));
  old.swap(slots_);
  const std::uint64_t mask = slots_.size() - 1;
  for (const Slot& s : old) {
    if (s.word == 0) continue;
    std::uint64_t i = home_of(s.word, mask);
    while (slots_[i].word != 0) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

void PatternStore::write(std::uint64_t id, std::uint64_t begin, std::uint64_t size) {
  for_each_pattern_piece(id, begin, size, [&](const Piece& piece) {
    Slot& slot = find_or_insert(piece.word);
    bytes_held_ += bits::popcount(piece.lanes & ~slot.written & 0xffu);
    slot.bytes = (slot.bytes & ~piece.byte_mask) | piece.value;
    slot.written = static_cast<std::uint8_t>(slot.written | piece.lanes);
  });
}

std::uint64_t PatternStore::check_and_forget(std::uint64_t id, std::uint64_t begin,
                                             std::uint64_t size) {
  std::uint64_t checked = 0;
  for_each_pattern_piece(id, begin, size, [&](const Piece& piece) {
    Slot* slot = find(piece.word);
    const unsigned missing = slot ? piece.lanes & ~slot->written & 0xffu : piece.lanes;
    const std::uint64_t differ = slot ? (slot->bytes ^ piece.value) & piece.byte_mask : 0;
    if (missing || differ) {
      // The first byte of the piece that is gone or differs.
      const unsigned lane0 = bits::count_trailing_zeros(piece.lanes);
      unsigned lane = lane0;
      while (!(missing >> lane & 1u) && !((differ >> (8 * lane)) & 0xff)) ++lane;
      const std::uint64_t address = (piece.word - 1) * 8 + lane;
      throw VerificationError(
          "object " + std::to_string(id) + " (bytes " + std::to_string(begin) + ".." +
          std::to_string(begin + size - 1) + "): the pattern byte at offset " +
          std::to_string(piece.offset + (lane - lane0)) + " (byte " + std::to_string(address) +
          ") " +
          (missing >> lane & 1u
               ? "is gone before the object's free"
               : "was overwritten before the object's free (another object wrote into it)"));
    }
    const unsigned n = bits::popcount(piece.lanes);
    checked += n;
    bytes_held_ -= n;
    slot->written = static_cast<std::uint8_t>(slot->written & ~piece.lanes);
    if (slot->written == 0) erase(*slot);
  });
  return checked;
}

}  // namespace alloclab::sim
