// The bytes a workload writes into its objects, kept only where the check needs them: each
// object's first and last min(8, size) bytes hold pattern_byte(object id, offset), and before
// the object is freed those bytes must still hold it. The simulator has no arena, so the store
// is a hash map from 8-byte word address to the bytes written there (and which of its 8 bytes
// were written): its size follows the live objects (at most 4 words each), never the pool, so
// an 8 GiB pool costs the simulator its metadata, not 8 GiB. A write into bytes another live
// object wrote overwrites them, as a store into real memory would, and that object's check
// then fails.
#pragma once

#include <cstdint>
#include <vector>

namespace alloclab::sim {

// The byte object `id` writes at `offset` from its start (a hash of both: byte offset % 8 of
// a 64-bit hash of (id, offset / 8)).
std::uint8_t pattern_byte(std::uint64_t id, std::uint64_t offset);

class PatternStore {
 public:
  // Object `id` of `size` bytes at byte address `begin` writes its first and last min(8, size)
  // bytes.
  void write(std::uint64_t id, std::uint64_t begin, std::uint64_t size);
  // Checks that object `id`'s pattern bytes are intact (VerificationError naming the object and
  // the first byte that differs or is gone otherwise), then forgets them (the object is about to
  // be freed). Returns the bytes checked.
  std::uint64_t check_and_forget(std::uint64_t id, std::uint64_t begin, std::uint64_t size);
  // A hint: the object's write or check comes soon, so load the table slots where its head and
  // tail words start their search (the table outgrows the caches; a run that prefetches a few
  // objects ahead waits for several of those loads at once instead of one after another).
  void prefetch(std::uint64_t begin, std::uint64_t size) const;
  // Bytes currently held (written and not yet forgotten).
  std::uint64_t bytes_held() const { return bytes_held_; }

 private:
  struct Slot {
    std::uint64_t word = 0;    // address / 8 + 1; 0 = empty slot
    std::uint64_t bytes = 0;   // byte b of the word at bits 8b..8b+7
    std::uint8_t written = 0;  // bit b set = byte b holds a pattern byte
  };
  // The pattern bytes of one object that fall into one 8-byte word.
  struct Piece {
    std::uint64_t word;       // address / 8 + 1 (the slot key)
    std::uint64_t value;      // the bytes, at their places in the word
    std::uint64_t byte_mask;  // 0xff at each of those places
    std::uint8_t lanes;       // bit b set = byte b of the word is one of them
    std::uint64_t offset;     // object offset of the piece's first byte
  };
  // Calls f(piece) for the object's head, then its tail bytes not already in the head, in
  // address order.
  template <class F>
  static void for_each_pattern_piece(std::uint64_t id, std::uint64_t begin, std::uint64_t size,
                                     F f);
  Slot* find(std::uint64_t word);
  Slot& find_or_insert(std::uint64_t word);
  void erase(Slot& slot);
  void grow();

  std::vector<Slot> slots_;  // open addressing, linear probing; size a power of two
  std::uint64_t used_ = 0;   // occupied slots
  std::uint64_t bytes_held_ = 0;
};

}  // namespace alloclab::sim
