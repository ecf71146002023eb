// Gelado & Garland's TBuddy (core/gelado/tbuddy*.hpp): a pool of `--pool` pages (a power of
// two), alloc:N takes a block of 2^ceil(log2 N) pages (TBuddyAlloc, scatter word = the thread),
// free gives it back (TBuddyFree). --rule printed selects the paper's two printed rules: a
// merger whose try-wait finds sem[n] empty falls back instead of waiting, and an alloc whose
// grower at order H finds nothing fails (the tree has no frees-in-flight word, so a free
// between its merge and its last signal can hide a page: the spurious null of tbuddy.hpp).
#include <stdexcept>

#include "alloclab/check/families.hpp"
#include "alloclab/check/scheduler.hpp"
#include "alloclab/core/gelado/tbuddy.hpp"
#include "alloclab/core/gelado/tbuddy_pool.hpp"

namespace alloclab::check {
namespace {

using namespace alloclab::gelado;

template <class A>
class TBuddyProgram final : public ScriptProgram {
 public:
  explicit TBuddyProgram(const CheckCase& c)
      : ScriptProgram(c), height_(tbuddy_height_of(c.pool)), storage_(height_) {
    if (c.pool < 1 || (std::uint64_t{1} << height_) != c.pool || height_ > 10)
      throw std::invalid_argument(
          "--pool: gg-tbuddy needs a power of two of pages, 1 .. 1024; "
          "got " +
          std::to_string(c.pool));
    if (c.rule == Rule::printed) storage_.tree.frees = nullptr;
    for (const auto& op : c.ops)
      if (op.alloc && op.size > c.pool)
        throw std::invalid_argument("--ops: alloc:" + std::to_string(op.size) +
                                    " exceeds the pool of " + std::to_string(c.pool) + " pages");
  }
  std::uint64_t capacity() const override { return config().pool; }
  // A sequential buddy allocator serves 2^k pages when an aligned run of them is free.
  bool could_serve(const std::vector<Block>& occupied, std::uint64_t size) const override {
    const std::uint64_t len = std::uint64_t{1} << tbuddy_order_of(static_cast<std::uint32_t>(size));
    for (std::uint64_t at = 0; at + len <= capacity(); at += len) {
      bool free = true;
      for (const auto& b : occupied)
        free = free && !(static_cast<std::uint64_t>(b.offset) < at + len &&
                         at < static_cast<std::uint64_t>(b.offset) + b.len);
      if (free) return true;
    }
    return false;
  }
  std::string describe() const override {
    std::string s;
    const TBuddyTree& t = storage_.tree;
    for (std::uint32_t i = 1; i <= tb_node_count(t.height); ++i) {
      const NodeState st = node_state(t.nodes[i]);
      char c = st == NodeState::available ? 'A' : st == NodeState::busy ? 'B' : 'P';
      if (node_locked(t.nodes[i])) c = static_cast<char>(c - 'A' + 'a');
      s += c;
    }
    s += " sem C:";
    for (std::uint32_t h = 0; h <= t.height; ++h) {
      if (h) s += ',';
      s += std::to_string(BulkWord::unpack(t.sems[h]).count);
    }
    if (t.frees != nullptr) s += " frees in flight:" + std::to_string(tb_frees_in_flight(*t.frees));
    return s;
  }
  std::string name_of(std::uintptr_t a) const override {
    const auto* n = storage_.nodes.data();
    const auto* m = storage_.sems.data();
    if (a >= reinterpret_cast<std::uintptr_t>(n) &&
        a < reinterpret_cast<std::uintptr_t>(n + storage_.nodes.size()))
      return "node " + std::to_string((a - reinterpret_cast<std::uintptr_t>(n)) / sizeof(*n));
    if (a >= reinterpret_cast<std::uintptr_t>(m) &&
        a < reinterpret_cast<std::uintptr_t>(m + storage_.sems.size()))
      return "sem[" + std::to_string((a - reinterpret_cast<std::uintptr_t>(m)) / sizeof(*m)) + "]";
    if (a == reinterpret_cast<std::uintptr_t>(&storage_.frees)) return "frees";
    return ScriptProgram::name_of(a);
  }

 protected:
  void reset_family() override {
    std::fill(storage_.nodes.begin(), storage_.nodes.end(), 0u);
    std::fill(storage_.sems.begin(), storage_.sems.end(), 0u);
    storage_.nodes[1] = node_word(NodeState::available, false);
    SemCounters one;
    one.count = 1;
    storage_.sems[height_] = BulkWord::pack(one);
    storage_.frees = 0;
  }
  std::optional<Block> alloc(std::size_t t, std::uint64_t size) override {
    const std::uint32_t order = tbuddy_order_of(static_cast<std::uint32_t>(size));
    TBuddyAlloc<A> a(order, static_cast<std::uint32_t>(t));
    run_to_done([&] { return a.step(storage_.tree); });
    if (a.node() == 0) return std::nullopt;
    return Block{tb_offset(height_, a.node()), std::uint64_t{1} << order};
  }
  void free(std::size_t, const Block& b) override {
    std::uint32_t order = 0;
    while ((std::uint64_t{1} << order) < b.len) ++order;
    const std::uint32_t node = tb_node(height_, static_cast<std::uint32_t>(b.offset), order);
    TBuddyFree<A> f(storage_.tree, node, config().rule != Rule::printed);
    run_to_done([&] { return f.step(storage_.tree); });
  }
  // TBuddy's own checker (tbuddy_check: I1, I2, the summaries, no lock, tiling, sem[h] equal
  // to the Available nodes of height h) holds only at rest: it runs when no operation is in
  // flight, and at the end.
  std::string check_at_rest(const std::vector<Block>& held) override {
    std::vector<std::uint32_t> nodes;
    for (const auto& b : held) {
      std::uint32_t order = 0;
      while ((std::uint64_t{1} << order) < b.len) ++order;
      nodes.push_back(tb_node(height_, static_cast<std::uint32_t>(b.offset), order));
    }
    return tbuddy_check(storage_.tree, nodes);
  }

 private:
  std::uint32_t height_;
  TBuddyStorage storage_;
};

}  // namespace

std::unique_ptr<ScriptProgram> make_tbuddy(const CheckCase& c) {
  if (c.torn_rmw) return std::make_unique<TBuddyProgram<TornRmwAtomics>>(c);
  return std::make_unique<TBuddyProgram<CheckAtomics>>(c);
}

}  // namespace alloclab::check
