// Ouroboros' index queue (core/ouroboros/index_queue.hpp, Winter et al. Alg. 1) as a page
// allocator: a ring of `--pool` slots that starts full with pages 0 .. pool - 1; alloc dequeues
// a page (null when empty); free enqueues the page back, or, when the thread holds none, a new
// page (pool, pool + 1, ...: what Ouroboros' grower adds from a new chunk), which is how a full
// ring is met. --rule printed: Alg. 1's full check as printed (`old > size`).
#include <algorithm>
#include <stdexcept>

#include "alloclab/check/families.hpp"
#include "alloclab/check/scheduler.hpp"
#include "alloclab/core/ouroboros/index_queue.hpp"

namespace alloclab::check {
namespace {

using namespace alloclab::ouro;

template <class A>
class IndexQueueProgram final : public ScriptProgram {
 public:
  explicit IndexQueueProgram(const CheckCase& c)
      : ScriptProgram(c), slots_(c.pool, kDeletionMarker) {
    if (c.pool < 1 || c.pool > 1024)
      throw std::invalid_argument("--pool: ouro-index-queue needs 1 .. 1024 slots; got " +
                                  std::to_string(c.pool));
    for (const auto& op : c.ops)
      if (op.alloc && op.size != 1)
        throw std::invalid_argument(
            "--ops: ouro-index-queue hands out one page per alloc; got "
            "alloc:" +
            std::to_string(op.size));
  }
  std::uint64_t capacity() const override {
    return config().pool + config().threads * config().ops.size();
  }
  // A sequential queue with the same pages could serve a dequeue when some page is neither
  // held nor being taken or given back; the new pages count from their enqueue's return.
  bool could_serve(const std::vector<Block>& occupied, std::uint64_t) const override {
    return occupied.size() < config().pool;
  }
  std::string describe() const override {
    std::string s = "fill=" + std::to_string(static_cast<std::int32_t>(words_.fill_count)) +
                    " front=" + std::to_string(words_.front) +
                    " back=" + std::to_string(words_.back) + " slots=";
    return s + ring_text(slots_, kDeletionMarker);
  }
  std::string name_of(std::uintptr_t a) const override {
    if (a == reinterpret_cast<std::uintptr_t>(&words_.fill_count)) return "fill count";
    if (a == reinterpret_cast<std::uintptr_t>(&words_.front)) return "front";
    if (a == reinterpret_cast<std::uintptr_t>(&words_.back)) return "back";
    if (const auto slot = ring_slot_name(slots_, a)) return *slot;
    return ScriptProgram::name_of(a);
  }

 protected:
  void reset_family() override {
    words_ = IndexQueueWords{};
    words_.fill_count = static_cast<std::uint32_t>(config().pool);
    words_.back = config().pool;
    for (std::size_t i = 0; i < slots_.size(); ++i) slots_[i] = static_cast<std::uint32_t>(i);
    next_new_ = static_cast<std::uint32_t>(config().pool);
    refused_.clear();
    lost_.clear();
  }
  IndexQueueRef ref() {
    return IndexQueueRef{&words_, slots_.data(), static_cast<std::uint32_t>(slots_.size())};
  }
  FullCheck check() const {
    return config().rule == Rule::printed ? FullCheck::printed : FullCheck::correct;
  }
  std::optional<Block> alloc(std::size_t, std::uint64_t) override {
    DequeueOp<A> d;
    run_to_done([&] { return d.step(ref()); });
    if (d.outcome() != QueueOutcome::ok) return std::nullopt;
    return Block{static_cast<std::int64_t>(d.index()), 1};
  }
  void enqueue(std::uint32_t index) {
    EnqueueOp<A> e(index, check());
    run_to_done([&] { return e.step(ref()); });
    if (e.outcome() == QueueOutcome::ok || index >= config().pool) return;
    // A page of the pool refused: the ring of `pool` slots can be full only once a new page
    // has come in (its enqueue begun); before that, the refusal loses a page.
    if (next_new_ == config().pool)
      lost_ = "conservation: page " + std::to_string(index) +
              " was refused by a ring that cannot be full (no new page came in)";
    refused_.push_back(index);
  }
  void free(std::size_t, const Block& b) override { enqueue(static_cast<std::uint32_t>(b.offset)); }
  void free_nothing(std::size_t) override { enqueue(next_new_++); }
  std::string check_now() override {
    if (!lost_.empty()) return lost_;
    const auto fill = static_cast<std::int32_t>(words_.fill_count);
    const auto k = static_cast<std::int64_t>(config().threads);
    if (fill < -k || fill > static_cast<std::int64_t>(config().pool) + k)
      return "queue bounds: fill count " + std::to_string(fill) + " with " +
             std::to_string(config().pool) + " slots";
    return {};
  }
  // At rest: fill count = back - front = the pages in the ring; no page twice; every page of
  // the pool in the ring, held, or refused by a ring that new pages had filled.
  std::string check_at_rest(const std::vector<Block>& held) override {
    std::vector<std::uint32_t> pages;
    for (const auto s : slots_)
      if (s != kDeletionMarker) pages.push_back(s);
    const auto fill = static_cast<std::int32_t>(words_.fill_count);
    if (fill != static_cast<std::int64_t>(pages.size()) ||
        words_.back - words_.front != pages.size())
      return "at rest, fill count " + std::to_string(fill) + ", back - front " +
             std::to_string(words_.back - words_.front) + ", but " + std::to_string(pages.size()) +
             " pages in the ring";
    for (const auto& b : held) pages.push_back(static_cast<std::uint32_t>(b.offset));
    std::sort(pages.begin(), pages.end());
    for (std::size_t i = 1; i < pages.size(); ++i)
      if (pages[i] == pages[i - 1])
        return "page " + std::to_string(pages[i]) + " is both in the ring and held, or twice";
    for (std::uint32_t p = 0; p < config().pool; ++p)
      if (!std::binary_search(pages.begin(), pages.end(), p) &&
          std::find(refused_.begin(), refused_.end(), p) == refused_.end())
        return "conservation: page " + std::to_string(p) +
               " is neither in the ring nor held (an enqueue refused it)";
    return {};
  }

 private:
  IndexQueueWords words_;
  std::vector<std::uint32_t> slots_;
  std::uint32_t next_new_ = 0;
  std::vector<std::uint32_t> refused_;  // pages of the pool refused while new pages came in
  std::string lost_;
};

}  // namespace

std::unique_ptr<ScriptProgram> make_index_queue(const CheckCase& c) {
  if (c.torn_rmw) return std::make_unique<IndexQueueProgram<TornRmwAtomics>>(c);
  return std::make_unique<IndexQueueProgram<CheckAtomics>>(c);
}

}  // namespace alloclab::check
