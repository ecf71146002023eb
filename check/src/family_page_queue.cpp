// Ouroboros' page queue of variant P (core/ouroboros/page_queue.hpp, Winter et al. Alg. 3, the
// queue under ouro-p-s) for its largest class, 8 KB pages (one page a chunk): a ring of
// `--pool` slots, empty at the start, and `--pool` chunks the memory manager hands out. alloc:1
// is a group of one: PageReserveOp (the bulk semaphore's wait; a grower takes a chunk, signals
// its page, claims a back position and writes the page) then SlotRead (exchange its front
// position's slot until it holds a page); free is PageReleaseOp (signal, a back position) then
// SlotWrite (CAS the page into its slot). One checker thread = one GPU thread.
#include <algorithm>
#include <stdexcept>

#include "alloclab/check/families.hpp"
#include "alloclab/check/scheduler.hpp"
#include "alloclab/core/ouroboros/page_queue.hpp"

namespace alloclab::check {
namespace {

using namespace alloclab::ouro;

constexpr unsigned kClass = kPageClasses - 1;  // 8 KB pages: one a chunk

template <class A>
class PageQueueProgram final : public ScriptProgram {
 public:
  explicit PageQueueProgram(const CheckCase& c)
      : ScriptProgram(c),
        slots_(pool_of(c.pool), kDeletionMarker),
        available_(c.pool),
        chunk_class_(c.pool, 0) {
    for (const auto& op : c.ops)
      if (op.alloc && op.size != 1)
        throw std::invalid_argument(
            "--ops: ouro-page-queue hands out one 8 KB page per alloc; got alloc:" +
            std::to_string(op.size));
    for (std::uint32_t i = 0; i < available_.size(); ++i) available_[i] = i;
  }
  static std::uint64_t pool_of(std::uint64_t pool) {
    if (pool < 1 || pool > 64)
      throw std::invalid_argument(
          "--pool: ouro-page-queue needs 1 .. 64 chunks (8 KB pages); got " + std::to_string(pool));
    return pool;
  }
  std::uint64_t capacity() const override { return config().pool; }
  // A sequential page queue serves while a page is in the ring or a chunk is left: while fewer
  // than `pool` pages are held.
  bool could_serve(const std::vector<Block>& occupied, std::uint64_t) const override {
    return occupied.size() < config().pool;
  }
  std::string describe() const override {
    const SemCounters s = sem_unpack(words_.semaphore);
    std::string d = "C=" + std::to_string(s.count) + " E=" + std::to_string(s.expected) +
                    " R=" + std::to_string(s.reserved) + " front=" + std::to_string(words_.front) +
                    " back=" + std::to_string(words_.back) +
                    " pages=" + std::to_string(words_.pages) +
                    " next_chunk=" + std::to_string(chunks_.next_chunk) + " slots=";
    return d + ring_text(slots_, kDeletionMarker);
  }
  std::string name_of(std::uintptr_t a) const override {
    if (a == reinterpret_cast<std::uintptr_t>(&words_.semaphore)) return "semaphore";
    if (a == reinterpret_cast<std::uintptr_t>(&words_.front)) return "front";
    if (a == reinterpret_cast<std::uintptr_t>(&words_.back)) return "back";
    if (a == reinterpret_cast<std::uintptr_t>(&words_.pages)) return "pages";
    if (a == reinterpret_cast<std::uintptr_t>(&chunks_.next_chunk)) return "next chunk";
    if (const auto slot = ring_slot_name(slots_, a)) return *slot;
    return ScriptProgram::name_of(a);
  }

 protected:
  void reset_family() override {
    words_.semaphore = sem_pack({});
    words_.front = words_.back = words_.pages = words_.queue_chunks = 0;
    chunks_ = ChunkSourceWords{};
    std::fill(slots_.begin(), slots_.end(), kDeletionMarker);
    std::fill(chunk_class_.begin(), chunk_class_.end(), std::uint8_t{0});
    odd_.clear();
  }
  PageQueueRef ref() {
    PageQueueRef q{};
    q.words = &words_;
    q.slots = slots_.data();
    q.capacity = static_cast<std::uint32_t>(slots_.size());
    q.page_class = kClass;
    q.chunks = &chunks_;
    q.available = available_.data();
    q.chunk_count = static_cast<std::uint32_t>(available_.size());
    q.chunk_class = chunk_class_.data();
    return q;
  }
  std::optional<Block> alloc(std::size_t, std::uint64_t) override {
    OpCounts c;
    const PageQueueRef q = ref();
    PageReserveOp<A> r(1, kClass);
    run_to_done([&] { return r.step(q, c); });
    // queue_full is a null too: growers in flight are counted in `pages` before they know
    // whether a chunk is left; the null check judges it.
    if (r.outcome() != ReserveOutcome::ok) return std::nullopt;
    SlotRead<A> s(r.position());
    run_to_done([&] { return s.step(q, c); });
    return Block{static_cast<std::int64_t>(s.index()), 1};
  }
  void free(std::size_t, const Block& b) override {
    OpCounts c;
    const PageQueueRef q = ref();
    PageReleaseOp<A> f(1);
    run_to_done([&] { return f.step(q, c); });
    SlotWrite<A> w(static_cast<std::uint32_t>(b.offset), f.position());
    run_to_done([&] { return w.step(q, c); });
  }
  std::string check_now() override {
    if (!odd_.empty()) return odd_;
    // The fast path subtracts first and undoes (FastPath::printed_then_guarded): C may dip
    // below 0 by at most one unit a thread.
    if (sem_unpack(words_.semaphore).count < -static_cast<std::int64_t>(config().threads))
      return "semaphore C < -K: " + describe();
    return {};
  }
  // At rest: the semaphore (C, 0, 0) with C = back - front = the pages in the ring; the pages
  // created = the chunks taken; no page twice; every page created in the ring or held.
  std::string check_at_rest(const std::vector<Block>& held) override {
    const SemCounters s = sem_unpack(words_.semaphore);
    std::vector<std::uint32_t> pages;
    for (const auto x : slots_)
      if (x != kDeletionMarker) pages.push_back(x);
    if (s.expected != 0 || s.reserved != 0 || s.count < 0 ||
        static_cast<std::uint64_t>(s.count) != pages.size() ||
        words_.back - words_.front != pages.size())
      return "at rest, " + describe() + ": the semaphore, back - front and the ring disagree";
    const std::uint64_t created = std::min<std::uint64_t>(chunks_.next_chunk, available_.size());
    if (words_.pages != created)
      return "at rest, pages = " + std::to_string(words_.pages) + " but " +
             std::to_string(created) + " chunks taken";
    for (const auto& b : held) pages.push_back(static_cast<std::uint32_t>(b.offset));
    std::sort(pages.begin(), pages.end());
    for (std::size_t i = 0; i < pages.size(); ++i) {
      if (i > 0 && pages[i] == pages[i - 1])
        return "page " + std::to_string(pages[i]) + " is in the ring and held, or twice";
      if (pages[i] >= created) return "page " + std::to_string(pages[i]) + " was never created";
    }
    if (pages.size() != created)
      return "conservation: " + std::to_string(pages.size()) + " pages in the ring or held, " +
             std::to_string(created) + " created";
    return {};
  }

 private:
  PageQueueWords words_;
  ChunkSourceWords chunks_;
  std::vector<std::uint32_t> slots_;
  std::vector<std::uint32_t> available_;
  std::vector<std::uint8_t> chunk_class_;
  std::string odd_;
};

}  // namespace

std::unique_ptr<ScriptProgram> make_page_queue(const CheckCase& c) {
  if (c.torn_rmw) return std::make_unique<PageQueueProgram<TornRmwAtomics>>(c);
  return std::make_unique<PageQueueProgram<CheckAtomics>>(c);
}

}  // namespace alloclab::check
