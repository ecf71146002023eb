// Gallatin (core/gallatin/allocator.hpp, McCoy & Pandey Alg. 1-4) on a reduced geometry: blocks
// of 2 slices of 16 B (class 0), a segment of one block, `--pool` slices (even: pool / 2
// segments), one SM (buffer slot 0 of class 0, shared by every checker thread). alloc:1 is a
// team of one (malloc_team: read the slot, one atomicAdd on the block's malloc counter, the
// taker of the last slice swaps the slot for a block from get_block, which formats a segment
// from the segment tree); free gives the slice back (free_slices: the free counter, the block
// back to its ring, the segment closed and back to the segment tree). Every code path of the
// paper's geometry runs; only the counts are small. One checker thread = one GPU team of one
// lane. Gallatin's waits (a segment being formatted, a slot being swapped) call the policy's
// pause, which reports the spin (the spin-wait rule, scheduler.hpp).
#include <set>
#include <stdexcept>

#include "alloclab/check/families.hpp"
#include "alloclab/check/scheduler.hpp"
#include "alloclab/core/gallatin/allocator.hpp"
#include "alloclab/core/gallatin/state_check.hpp"

namespace alloclab::check {
namespace {

using namespace alloclab::gallatin;

constexpr std::uint32_t kSlicesPerBlock = 2;
constexpr std::uint64_t kSliceBytes = kMinSliceBytes;  // class 0, the family's unit

// The checker's policy with Gallatin's pause: each read of a wait is a spin.
template <class Base>
struct PausingAtomics : Base {
  static void pause(std::uint32_t) { Execution::current().note_spin(); }
};

template <class A>
class GallatinProgram final : public ScriptProgram {
 public:
  explicit GallatinProgram(const CheckCase& c)
      : ScriptProgram(c), storage_(geometry(c.pool), 1, true, 1) {
    for (const auto& op : c.ops)
      if (op.alloc && op.size != 1)
        throw std::invalid_argument(
            "--ops: gallatin's case hands out one 16 B slice per alloc; got alloc:" +
            std::to_string(op.size));
    initial_ = snapshot();
  }
  static Geometry geometry(std::uint64_t pool) {
    if (pool < 2 || pool > 128 || pool % kSlicesPerBlock != 0)
      throw std::invalid_argument(
          "--pool: gallatin needs an even number of slices, 2 .. 128 (blocks of 2 slices, a "
          "segment a block); got " +
          std::to_string(pool));
    Geometry g;
    g.slices_per_block = kSlicesPerBlock;
    g.segment_bytes = kSliceBytes * kSlicesPerBlock;
    g.segments = static_cast<std::uint32_t>(pool / kSlicesPerBlock);
    return g;
  }
  std::uint64_t capacity() const override { return config().pool; }
  // Gallatin hands out a block's slices in order and reuses them only once the whole block is
  // back, so a sequential Gallatin may refuse with free slices (freed ones of a block in use).
  // It surely serves when nothing is held (the slot's block then has a slice left, or is back),
  // or when a block is neither touched by a held slice nor the slot's: a free segment or block.
  bool could_serve(const std::vector<Block>& occupied, std::uint64_t) const override {
    if (occupied.empty()) return true;
    std::set<std::int64_t> blocks;
    for (const auto& b : occupied) blocks.insert(b.offset / kSlicesPerBlock);
    return blocks.size() + 1 < config().pool / kSlicesPerBlock;
  }
  std::string describe() const override {
    const State& st = storage_.st;
    std::string s = "slot=" + std::to_string(st.buffer[st.slot_offset[0]]) +
                    " formatting=" + std::to_string(*st.formatting) + " segments:";
    for (std::uint32_t i = 0; i < st.g.segments; ++i) {
      const std::uint32_t k = st.tree_id[i];
      s += " [" + (k == kNoTree ? std::string("free") : "k" + std::to_string(k));
      if (st.available[i] != kClosed)
        s += " avail=" + std::to_string(static_cast<std::int32_t>(st.available[i]));
      s += " m=" + std::to_string(st.malloc_ctr[i] & kCountMask) +
           " f=" + std::to_string(st.free_ctr[i]) + "]";
    }
    return s;
  }
  std::string name_of(std::uintptr_t a) const override {
    auto in = [a](const auto& vec) {
      const auto b = reinterpret_cast<std::uintptr_t>(vec.data());
      return a >= b && a < b + vec.size() * sizeof(vec[0]) ? (a - b) / sizeof(vec[0])
                                                           : ~std::uintptr_t{0};
    };
    const StateStorage& s = storage_;
    const std::uintptr_t none = ~std::uintptr_t{0};
    if (auto i = in(s.segment_words); i != none) return "segment tree word " + std::to_string(i);
    if (auto i = in(s.block_words[0]); i != none) return "block tree 0 word " + std::to_string(i);
    if (auto i = in(s.tree_id); i != none) return "segment " + std::to_string(i) + " class";
    if (auto i = in(s.available); i != none) return "segment " + std::to_string(i) + " available";
    if (auto i = in(s.head); i != none) return "segment " + std::to_string(i) + " head";
    if (auto i = in(s.tail); i != none) return "segment " + std::to_string(i) + " tail";
    if (auto i = in(s.ring); i != none) return "ring slot " + std::to_string(i);
    if (auto i = in(s.malloc_ctr); i != none) return "block " + std::to_string(i) + " malloc ctr";
    if (auto i = in(s.free_ctr); i != none) return "block " + std::to_string(i) + " free ctr";
    if (auto i = in(s.buffer); i != none) return "buffer slot " + std::to_string(i);
    if (in(s.formatting) != none) return "formats in flight";
    return ScriptProgram::name_of(a);
  }

 protected:
  void reset_family() override {
    restore(initial_);
    stuck_ = 0;
  }
  std::optional<Block> alloc(std::size_t, std::uint64_t) override {
    Counts c;
    std::uint64_t out[1] = {kNoBlock};
    std::uint64_t* p = out;
    const std::uint32_t served = Ops<A>::malloc_team(storage_.st, 0, 0, 1, p, c);
    stuck_ += c.stuck;
    if (served == 0) return std::nullopt;
    return Block{static_cast<std::int64_t>(out[0] / kSliceBytes), 1};
  }
  void free(std::size_t, const Block& b) override {
    Counts c;
    Ops<A>::free_slices(storage_.st, static_cast<std::uint64_t>(b.offset) * kSliceBytes, 1, c);
    stuck_ += c.stuck;
  }
  std::string check_now() override {
    if (stuck_ != 0) return "stuck: a wait of Gallatin's reached its bound";
    return {};
  }
  // state_check (the vEB trees, each segment's class, count, ring and block counters against
  // the slices held, the buffer slot, no format in flight).
  std::string check_at_rest(const std::vector<Block>& held) override {
    std::vector<std::uint32_t> live(storage_.ring.size(), 0);
    for (const auto& b : held) ++live[static_cast<std::size_t>(b.offset) / kSlicesPerBlock];
    return state_check(storage_.st, live);
  }

 private:
  struct Snapshot {
    std::vector<std::uint64_t> segment_words, block_words;
    std::vector<std::uint32_t> tree_id, available, head, tail, ring, malloc_ctr, free_ctr, buffer;
  };
  Snapshot snapshot() const {
    const StateStorage& s = storage_;
    return {s.segment_words, s.block_words[0], s.tree_id,    s.available, s.head,
            s.tail,          s.ring,           s.malloc_ctr, s.free_ctr,  s.buffer};
  }
  // In place: the words keep their addresses (the explorer's dependence relation).
  void restore(const Snapshot& x) {
    StateStorage& s = storage_;
    std::copy(x.segment_words.begin(), x.segment_words.end(), s.segment_words.begin());
    std::copy(x.block_words.begin(), x.block_words.end(), s.block_words[0].begin());
    std::copy(x.tree_id.begin(), x.tree_id.end(), s.tree_id.begin());
    std::copy(x.available.begin(), x.available.end(), s.available.begin());
    std::copy(x.head.begin(), x.head.end(), s.head.begin());
    std::copy(x.tail.begin(), x.tail.end(), s.tail.begin());
    std::copy(x.ring.begin(), x.ring.end(), s.ring.begin());
    std::copy(x.malloc_ctr.begin(), x.malloc_ctr.end(), s.malloc_ctr.begin());
    std::copy(x.free_ctr.begin(), x.free_ctr.end(), s.free_ctr.begin());
    std::copy(x.buffer.begin(), x.buffer.end(), s.buffer.begin());
    s.formatting[0] = 0;
  }

  StateStorage storage_;
  Snapshot initial_;
  std::uint32_t stuck_ = 0;
};

}  // namespace

std::unique_ptr<ScriptProgram> make_gallatin(const CheckCase& c) {
  if (c.torn_rmw) return std::make_unique<GallatinProgram<PausingAtomics<TornRmwAtomics>>>(c);
  return std::make_unique<GallatinProgram<PausingAtomics<CheckAtomics>>>(c);
}

}  // namespace alloclab::check
