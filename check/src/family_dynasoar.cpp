// DynaSOAr's allocator (core/dynasoar/alloc.hpp, free.hpp; Springer & Masuhara Alg. 1, 2, 6-9)
// over a heap of `--pool` pages (ceil(pool / 64) blocks, the last one short): alloc:N asks for
// an object of type N (N pages, capacity 64 / N a block; AllocOp with want = 1: lookups on
// active[N] with the rotation of the thread's warp, the slow path's claim on free, the block's
// initialisation, the reservation's atomicOr, the type re-read and its rollback); free gives
// the slot back (DeallocOp: the atomicAnd, active[T].set on FIRST, invalidation and deletion of
// an empty block). The allocator's own out-of-memory rule ends an alloc after 4 empty rounds
// (alloc.hpp). One checker thread = one GPU thread (warp = seed = the thread's index).
#include <stdexcept>

#include "alloclab/check/families.hpp"
#include "alloclab/check/scheduler.hpp"
#include "alloclab/core/bit_tricks.hpp"
#include "alloclab/core/dynasoar/alloc.hpp"
#include "alloclab/core/dynasoar/free.hpp"
#include "alloclab/core/dynasoar/heap_storage.hpp"

namespace alloclab::check {
namespace {

using namespace alloclab::dynasoar;

template <class A>
class DynasoarProgram final : public ScriptProgram {
 public:
  explicit DynasoarProgram(const CheckCase& c)
      : ScriptProgram(c), storage_(pool_pages(c.pool), std::vector<bool>(c.pool, false)) {
    for (const auto& op : c.ops)
      if (op.alloc && (op.size > kMaxTypePages || op.size > c.pool))
        throw std::invalid_argument("--ops: dynasoar's types are 1 .. 64 pages and fit the pool (" +
                                    std::to_string(c.pool) +
                                    " pages); got alloc:" + std::to_string(op.size));
    initial_ = {storage_.free_words, storage_.type_words, storage_.slots, storage_.types};
  }
  static std::uint64_t pool_pages(std::uint64_t pool) {
    if (pool < 1 || pool > 256)
      throw std::invalid_argument("--pool: dynasoar needs 1 .. 256 pages; got " +
                                  std::to_string(pool));
    return pool;
  }
  std::uint64_t capacity() const override { return config().pool; }
  // The slots of type n the heap has (each block's valid ones).
  std::uint64_t slots_of(unsigned n) const {
    std::uint64_t s = 0;
    for (std::uint64_t b = 0; b < storage_.heap.blocks; ++b) s += storage_.heap.valid(n, b);
    return s;
  }
  // Objects of one type: a sequential DynaSOAr serves while fewer than the heap's slots of that
  // type are held (a slot freed is findable through active[T]; an emptied block is deleted and
  // free). With objects of another type held, blocks are split between types: no claim, a null
  // is allowed.
  bool could_serve(const std::vector<Block>& occupied, std::uint64_t size) const override {
    for (const auto& b : occupied)
      if (b.len != size) return false;
    return occupied.size() < slots_of(static_cast<unsigned>(size));
  }
  std::string describe() const override {
    std::string s;
    for (std::uint64_t b = 0; b < storage_.heap.blocks; ++b) {
      if (b) s += ' ';
      s += "block " + std::to_string(b) + ": type " + std::to_string(storage_.types[b]) +
           " bitmap " + std::to_string(storage_.slots[b]);
      s += storage_.is_free(b) ? " free" : "";
    }
    return s;
  }
  std::string name_of(std::uintptr_t a) const override {
    auto in = [a](const auto& vec) {
      const auto b = reinterpret_cast<std::uintptr_t>(vec.data());
      return a >= b && a < b + vec.size() * sizeof(vec[0]) ? (a - b) / sizeof(vec[0])
                                                           : ~std::uintptr_t{0};
    };
    const std::uintptr_t none = ~std::uintptr_t{0};
    if (auto i = in(storage_.free_words); i != none) return "free word " + std::to_string(i);
    if (auto i = in(storage_.type_words); i != none) {
      const std::uint64_t per = hb_total_words(storage_.heap.blocks);
      const std::uint64_t m = i / per;
      return std::string(m % 2 ? "active[" : "allocated[") + std::to_string(m / 2 + 1) + "] word " +
             std::to_string(i % per);
    }
    if (auto i = in(storage_.slots); i != none) return "block " + std::to_string(i) + " bitmap";
    if (auto i = in(storage_.types); i != none) return "block " + std::to_string(i) + " type";
    return ScriptProgram::name_of(a);
  }

 protected:
  void reset_family() override {
    std::copy(initial_.free_words.begin(), initial_.free_words.end(), storage_.free_words.begin());
    std::copy(initial_.type_words.begin(), initial_.type_words.end(), storage_.type_words.begin());
    std::copy(initial_.slots.begin(), initial_.slots.end(), storage_.slots.begin());
    std::copy(initial_.types.begin(), initial_.types.end(), storage_.types.begin());
    broken_.clear();
  }
  std::optional<Block> alloc(std::size_t t, std::uint64_t size) override {
    const auto n = static_cast<unsigned>(size);
    const auto id = static_cast<unsigned>(t);
    AllocOp<A> op(n, 1, id, id, AllocConfig{});
    DsCounts counts;
    std::optional<Block> got;
    run_to_done([&] {
      const BitStatus s = op.step(storage_.heap, counts);
      if (op.pending()) {
        const unsigned slot = bits::count_trailing_zeros(op.pending_mask());
        got = Block{static_cast<std::int64_t>(slot_first_page(op.pending_block(), slot, n)), size};
        op.take();
      }
      // A round that ended empty (back at the top) moves the give-up count: progress towards
      // the allocator's null, not a wait the spin-wait rule may disable (scheduler.hpp: it
      // assumes a round repeated exactly repeats for ever; this one ends after 4).
      if (s == BitStatus::spinning && op.phase() == AllocPhase::top) return BitStatus::running;
      return s;
    });
    if (op.broken() && broken_.empty()) broken_ = "a rollback found a double free";
    return got;
  }
  void free(std::size_t, const Block& b) override {
    const auto n = static_cast<unsigned>(b.len);
    const auto page = static_cast<std::uint64_t>(b.offset);
    DeallocOp<A> op(page / 64, static_cast<unsigned>((page % 64) / n), n);
    DsCounts counts;
    run_to_done([&] { return op.step(storage_.heap, counts); });
    if (op.double_free() && broken_.empty())
      broken_ = "free: a slot held was already clear (a double free)";
  }
  std::string check_now() override { return broken_; }
  // HeapStorage::check (Def. 1 in every bitmap; each block free, or of one type, in
  // allocated[type] only, in active[type] exactly when not full, not empty, and its bitmap
  // exactly its preset bits plus the slots held).
  std::string check_at_rest(const std::vector<Block>& held) override {
    return storage_.check_slots([&](std::uint64_t b, unsigned k, unsigned n) {
      const auto first = static_cast<std::int64_t>(slot_first_page(b, k, n));
      for (const auto& h : held)
        if (h.offset == first && h.len == n) return true;
      return false;
    });
  }

 private:
  struct Snapshot {
    std::vector<std::uint64_t> free_words, type_words, slots;
    std::vector<std::uint32_t> types;
  };
  HeapStorage storage_;
  Snapshot initial_;
  std::string broken_;
};

}  // namespace

std::unique_ptr<ScriptProgram> make_dynasoar(const CheckCase& c) {
  if (c.torn_rmw) return std::make_unique<DynasoarProgram<TornRmwAtomics>>(c);
  return std::make_unique<DynasoarProgram<CheckAtomics>>(c);
}

}  // namespace alloclab::check
