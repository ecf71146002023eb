// The checker's case: K threads, each running the same script of operations (alloc:n, free)
// over one allocator family's own step machines, and the bookkeeping every family shares:
// who holds which block since when, the overlap check after every step, and the null check.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "alloclab/check/program.hpp"

namespace alloclab::check {

struct ScriptOp {
  bool alloc = true;
  std::uint64_t size = 1;  // alloc: in the family's unit (pages, units, slots)
};
// "alloc:1,free,alloc:2" (alloc alone is alloc:1). Throws std::invalid_argument with a reason.
std::vector<ScriptOp> parse_script(const std::string& text);
std::string script_text(const std::vector<ScriptOp>& ops);

enum class Rule : std::uint8_t { alloclab, printed };

struct CheckCase {
  std::string allocator;
  std::size_t threads = 2;
  std::vector<ScriptOp> ops;
  std::uint64_t pool = 4;
  Rule rule = Rule::alloclab;
  bool torn_rmw = false;   // inject a bug: every RMW a load then a store (TornRmwAtomics)
  bool null_check = true;  // false: nulls are not checked against the sequential allocator
};

// A block a thread holds: [offset, offset + len) in the family's unit; offset < 0 for units
// without an address (the semaphores).
struct Block {
  std::int64_t offset = -1;
  std::uint64_t len = 0;
};

class ScriptProgram : public Program {
 public:
  explicit ScriptProgram(const CheckCase& c);
  std::size_t threads() const override { return case_.threads; }
  void reset() final;
  void run_thread(std::size_t t) final;
  std::string check_step() final;
  std::string check_end() final;
  std::string doing(std::size_t t) const override;

 protected:
  // The family: shared memory back to its initial state; one operation run to its end on the
  // calling checker thread (through CheckAtomics); invariants now (every step), at rest (no
  // operation in flight) and at the end; whether a sequential allocator of the same capacity
  // holding `occupied` could serve `size`.
  virtual void reset_family() = 0;
  virtual std::optional<Block> alloc(std::size_t t, std::uint64_t size) = 0;
  virtual void free(std::size_t t, const Block& b) = 0;
  virtual void free_nothing(std::size_t /*t*/) {}
  virtual std::string check_now() { return {}; }
  virtual std::string check_at_rest(const std::vector<Block>& /*held*/) { return {}; }
  virtual std::string check_family_end(const std::vector<Block>& /*held*/) { return {}; }
  virtual bool could_serve(const std::vector<Block>& occupied, std::uint64_t size) const = 0;
  // Pool capacity in the family's unit (the overlap check's bound).
  virtual std::uint64_t capacity() const = 0;
  const CheckCase& config() const { return case_; }
  static std::uint64_t now();

 private:
  struct Held {
    Block block;
    std::uint64_t alloc_invoked = 0;
    std::uint64_t free_returned = ~std::uint64_t{0};  // still held (or being freed)
    bool live = true;                                 // returned and no free begun
  };
  struct NullAlloc {
    std::size_t thread = 0;
    std::uint64_t size = 0, invoked = 0, returned = 0;
  };
  CheckCase case_;
  std::vector<Held> blocks_;
  std::vector<std::vector<std::size_t>> owned_;  // per thread, indices into blocks_ (LIFO)
  std::vector<NullAlloc> nulls_;
  std::vector<int> op_index_;  // per thread: the operation in flight, -1 none (at rest)
};

// A ring of 32-bit slots (Ouroboros' queues), for a family's describe() and name_of(): its slots
// as "[3 - 1]" (`empty` shown as '-'), and "slot i" for an address inside it (nullopt outside).
inline std::string ring_text(const std::vector<std::uint32_t>& slots, std::uint32_t empty) {
  std::string s = "[";
  for (std::size_t i = 0; i < slots.size(); ++i) {
    if (i) s += ' ';
    s += slots[i] == empty ? std::string("-") : std::to_string(slots[i]);
  }
  return s + "]";
}
inline std::optional<std::string> ring_slot_name(const std::vector<std::uint32_t>& slots,
                                                 std::uintptr_t a) {
  const auto base = reinterpret_cast<std::uintptr_t>(slots.data());
  if (a < base || a >= base + slots.size() * sizeof(std::uint32_t)) return std::nullopt;
  return "slot " + std::to_string((a - base) / sizeof(std::uint32_t));
}

}  // namespace alloclab::check
