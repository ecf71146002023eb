// DynaSOAr's BitmapAlloc (core/dynasoar/bitmap_alloc.hpp over hbitmap.hpp, Springer & Masuhara
// §4.1): a hierarchical bitmap of `--pool` slots, a set bit a free slot; alloc:1 claims one
// (BitmapAllocOp: try_find_set, then try_clear, retried with the next seed when another thread
// took the bit; null when the top level is empty), free sets the bit again (BitOp set, which
// propagates a first set bit up a level). One checker thread = one GPU thread (the allocator's
// `warp` argument is the thread's index, which only rotates where its search starts).
#include <algorithm>
#include <stdexcept>

#include "alloclab/check/families.hpp"
#include "alloclab/check/scheduler.hpp"
#include "alloclab/core/dynasoar/bitmap_alloc.hpp"
#include "alloclab/core/dynasoar/hbitmap_check.hpp"

namespace alloclab::check {
namespace {

using namespace alloclab::dynasoar;

template <class A>
class BitmapAllocProgram final : public ScriptProgram {
 public:
  explicit BitmapAllocProgram(const CheckCase& c) : ScriptProgram(c), storage_(c.pool) {
    if (c.pool < 1 || c.pool > 4096)
      throw std::invalid_argument("--pool: bitmap-alloc needs 1 .. 4096 slots; got " +
                                  std::to_string(c.pool));
    for (const auto& op : c.ops)
      if (op.alloc && op.size != 1)
        throw std::invalid_argument(
            "--ops: bitmap-alloc hands out one slot per alloc; got "
            "alloc:" +
            std::to_string(op.size));
  }
  std::uint64_t capacity() const override { return config().pool; }
  bool could_serve(const std::vector<Block>& occupied, std::uint64_t) const override {
    return occupied.size() < config().pool;
  }
  std::string describe() const override {
    std::string s = "words:";
    for (const auto w : storage_.words) {
      s += ' ';
      s += std::to_string(w);
    }
    return s;
  }
  std::string name_of(std::uintptr_t a) const override {
    const auto base = reinterpret_cast<std::uintptr_t>(storage_.words.data());
    if (a >= base && a < base + storage_.words.size() * sizeof(std::uint64_t))
      return "bitmap word " + std::to_string((a - base) / sizeof(std::uint64_t));
    return ScriptProgram::name_of(a);
  }

 protected:
  void reset_family() override {
    hbitmap_assign(storage_.bitmap, std::vector<bool>(config().pool, true));
  }
  std::optional<Block> alloc(std::size_t t, std::uint64_t) override {
    BitmapCounts counts;
    const auto id = static_cast<unsigned>(t);
    BitmapAllocOp<A> op(storage_.bitmap, id, id, 1, ~std::uint64_t{0});
    run_to_done([&] { return op.step(storage_.bitmap, counts); });
    if (op.result() == kNoBit) return std::nullopt;
    return Block{op.result(), 1};
  }
  void free(std::size_t, const Block& b) override {
    BitmapCounts counts;
    BitOp<A> op(BitOpKind::set, static_cast<std::uint64_t>(b.offset));
    run_to_done([&] { return op.step(storage_.bitmap, counts); });
  }
  // Def. 1 (an upper bit set exactly when its container has a set bit) can be broken for a
  // moment between the levels of one operation (§4.1.4): checked at rest, with conservation
  // (the free slots and the held ones are every slot, once).
  std::string check_at_rest(const std::vector<Block>& held) override {
    if (std::string e = hbitmap_consistency_error(storage_.bitmap); !e.empty()) return e;
    std::vector<std::uint64_t> slots = hbitmap_indices(storage_.bitmap);
    for (const auto& b : held) slots.push_back(static_cast<std::uint64_t>(b.offset));
    std::sort(slots.begin(), slots.end());
    for (std::uint64_t i = 0; i < config().pool; ++i)
      if (i >= slots.size() || slots[i] != i)
        return "conservation: slot " + std::to_string(i) + " is not exactly once free or held (" +
               std::to_string(slots.size()) + " free and held for " +
               std::to_string(config().pool) + " slots)";
    if (slots.size() != config().pool)
      return "conservation: " + std::to_string(slots.size()) + " free and held slots for " +
             std::to_string(config().pool);
    return {};
  }

 private:
  HBitmapStorage storage_;
};

}  // namespace

std::unique_ptr<ScriptProgram> make_bitmap_alloc(const CheckCase& c) {
  if (c.torn_rmw) return std::make_unique<BitmapAllocProgram<TornRmwAtomics>>(c);
  return std::make_unique<BitmapAllocProgram<CheckAtomics>>(c);
}

}  // namespace alloclab::check
