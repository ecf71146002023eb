// Gelado & Garland's UAlloc (core/gelado/ualloc_alloc.hpp, ualloc_free.hpp over ualloc_sync.hpp,
// srcu.hpp and TBuddy): one arena, one chunk of 64 bins (a TBuddy tree of 64 pages, the chunk
// already taken), of which the application holds all but `--pool` slots of the script's class:
// `--pool P` = q x slots + r gives q bins of the chunk still free (a grower takes them, its
// bin's other slots then listed) and, for r > 0, bin 2 listed with r free slots (the semaphore's
// C = r). alloc:N asks for 8 x 2^ceil(log2 N) bytes (UAllocAlloc, scatter = the thread), free
// gives the object back (UAllocFree: relink, retire, the SRCU barrier and the callbacks that
// give the bin back to its chunk). TBuddy has no further chunk: a grower that finds no free bin
// gets null. One checker thread = one GPU thread (a warp's leader with one unit).
#include <stdexcept>

#include "alloclab/check/families.hpp"
#include "alloclab/check/scheduler.hpp"
#include "alloclab/core/bit_tricks.hpp"
#include "alloclab/core/gelado/tbuddy_pool.hpp"
#include "alloclab/core/gelado/ualloc_alloc.hpp"
#include "alloclab/core/gelado/ualloc_free.hpp"
#include "alloclab/core/gelado/ualloc_pool.hpp"
#include "alloclab/core/gelado/ualloc_state.hpp"

namespace alloclab::check {
namespace {

using namespace alloclab::gelado;

constexpr std::uint32_t kChunkOrder = 6;  // 64 bins, alloclab's default
constexpr std::uint32_t kBins = 1u << kChunkOrder;
constexpr std::uint32_t kPartialBin = 2;                // the listed bin with r free slots
constexpr std::uint32_t kFirstFreeBin = 3;              // then the q free bins
constexpr std::uint64_t kUnitBytes = kUAllocUnitBytes;  // the overlap check counts 8 B units

std::uint32_t class_of_units(std::uint64_t n) {
  return ualloc_class_of(
      static_cast<std::uint32_t>(ualloc_request_bytes(static_cast<std::uint32_t>(n))));
}

template <class A>
class UAllocProgram final : public ScriptProgram {
 public:
  explicit UAllocProgram(const CheckCase& c)
      : ScriptProgram(c), storage_(kChunkOrder, kChunkOrder, 1) {
    bool any = false;
    for (const auto& op : c.ops) {
      if (!op.alloc) continue;
      if (op.size > kUAllocMaxBytes / kUnitBytes)
        throw std::invalid_argument(
            "--ops: gg-ualloc serves 1 .. 128 units of 8 B (1 KB); got "
            "alloc:" +
            std::to_string(op.size));
      const std::uint32_t k = class_of_units(op.size);
      if (any && k != class_)
        throw std::invalid_argument(
            "--ops: gg-ualloc's case is one size class (its pool is that class's slots); "
            "alloc:" +
            std::to_string(op.size) + " is another class");
      class_ = k;
      any = true;
    }
    slots_ = ualloc_slots(class_, kPartialBin);
    const std::uint64_t q = c.pool / slots_, r = c.pool % slots_;
    if (c.pool < 1 || q > kBins - kFirstFreeBin)
      throw std::invalid_argument("--pool: gg-ualloc needs 1 .. " +
                                  std::to_string((kBins - kFirstFreeBin) * slots_) +
                                  " slots of its class (" + std::to_string(slots_) +
                                  " a bin, 61 bins); got " + std::to_string(c.pool));
    free_bins_ = static_cast<std::uint32_t>(q);
    partial_ = static_cast<std::uint32_t>(r);
  }
  std::uint64_t capacity() const override {
    return (std::uint64_t{kBins} * kUAllocBinBytes) / kUnitBytes;
  }
  // One class: a sequential UAlloc serves while any of the P slots is neither held nor being
  // taken (a free slot is in a listed bin, or its bin is free and a grower takes it).
  bool could_serve(const std::vector<Block>& occupied, std::uint64_t) const override {
    return occupied.size() < config().pool;
  }
  std::string describe() const override {
    const UAllocView& v = storage_.view;
    const std::uint32_t li = v.list(0, class_);
    const SemCounters s = BulkWord::unpack(v.sems[li]);
    std::string d = "sem C=" + std::to_string(s.count) + " E=" + std::to_string(s.expected) +
                    " R=" + std::to_string(s.reserved) + " list:";
    std::size_t n = 0;
    for (std::uint32_t g = v.heads[li]; g != kNoBin && n < kBins; g = v.bin_next[g], ++n) {
      d += ' ';
      d += std::to_string(g);
      d += '(';
      d += std::to_string(bin_count(v.bin_count[g]));
      d += ')';
    }
    d += " chunk free bins: " + std::to_string(64 - bits::popcount(v.chunk_bins[0])) +
         (v.chunk_heads[0] == kNoBin ? " (off list)" : "");
    d += " epoch=" + std::to_string(v.rcu_epoch[0]) +
         " readers=" + std::to_string(v.rcu_readers[0]) + "," + std::to_string(v.rcu_readers[1]);
    return d;
  }
  std::string name_of(std::uintptr_t a) const override {
    auto in = [a](const auto& vec) {
      const auto b = reinterpret_cast<std::uintptr_t>(vec.data());
      return a >= b && a < b + vec.size() * sizeof(vec[0]) ? (a - b) / sizeof(vec[0])
                                                           : ~std::uintptr_t{0};
    };
    const UAllocStorage& s = storage_;
    if (auto i = in(s.sems); i != ~std::uintptr_t{0}) return "sem[" + std::to_string(i) + "]";
    if (auto i = in(s.heads); i != ~std::uintptr_t{0}) return "list head " + std::to_string(i);
    if (auto i = in(s.locks); i != ~std::uintptr_t{0}) return "list mutex " + std::to_string(i);
    if (in(s.chunk_heads) != ~std::uintptr_t{0}) return "chunk list head";
    if (in(s.chunk_locks) != ~std::uintptr_t{0}) return "chunk mutex";
    if (in(s.rcu_epoch) != ~std::uintptr_t{0}) return "rcu epoch";
    if (auto i = in(s.rcu_readers); i != ~std::uintptr_t{0})
      return "rcu readers[" + std::to_string(i) + "]";
    if (in(s.rcu_state) != ~std::uintptr_t{0}) return "rcu state";
    if (in(s.rcu_callbacks) != ~std::uintptr_t{0}) return "rcu callbacks";
    if (auto i = in(s.chunk_bins); i != ~std::uintptr_t{0})
      return "chunk bins word " + std::to_string(i);
    if (auto i = in(s.bin_bitmap); i != ~std::uintptr_t{0})
      return "bin " + std::to_string(i / kUAllocBitmapWords) + " bitmap word " +
             std::to_string(i % kUAllocBitmapWords);
    if (auto i = in(s.bin_count); i != ~std::uintptr_t{0})
      return "bin " + std::to_string(i) + " count";
    if (auto i = in(s.bin_next); i != ~std::uintptr_t{0})
      return "bin " + std::to_string(i) + " next";
    if (auto i = in(s.bin_class); i != ~std::uintptr_t{0})
      return "bin " + std::to_string(i) + " class";
    if (auto i = in(s.bin_arena); i != ~std::uintptr_t{0})
      return "bin " + std::to_string(i) + " arena";
    if (auto i = in(s.bin_rcu_next); i != ~std::uintptr_t{0})
      return "bin " + std::to_string(i) + " rcu next";
    if (auto i = in(s.buddy.nodes); i != ~std::uintptr_t{0})
      return "tbuddy node " + std::to_string(i);
    if (auto i = in(s.buddy.sems); i != ~std::uintptr_t{0})
      return "tbuddy sem[" + std::to_string(i) + "]";
    return ScriptProgram::name_of(a);
  }

 protected:
  void reset_family() override {
    UAllocStorage& s = storage_;
    const UAllocView& v = s.view;
    std::fill(s.buddy.nodes.begin(), s.buddy.nodes.end(), 0u);
    std::fill(s.buddy.sems.begin(), s.buddy.sems.end(), 0u);
    tbuddy_build(v.buddy, std::vector<std::uint8_t>(kBins, 0));  // the chunk is taken: no page free
    std::fill(s.sems.begin(), s.sems.end(), 0u);
    std::fill(s.heads.begin(), s.heads.end(), kNoBin);
    std::fill(s.locks.begin(), s.locks.end(), 0u);
    s.chunk_locks[0] = 0;
    s.rcu_epoch[0] = 0;
    s.rcu_readers[0] = s.rcu_readers[1] = 0;
    s.rcu_state[0] = 0;
    s.rcu_callbacks[0] = kNoBin;
    s.chunk_arena[0] = 0;
    s.chunk_next[0] = kNoBin;
    std::fill(s.bin_next.begin(), s.bin_next.end(), kNoBin);
    std::fill(s.bin_rcu_next.begin(), s.bin_rcu_next.end(), kNoBin);
    std::fill(s.bin_class.begin(), s.bin_class.end(), kNoBin);
    std::fill(s.bin_arena.begin(), s.bin_arena.end(), kNoBin);
    std::fill(s.bin_count.begin(), s.bin_count.end(), 0u);
    // Every regular bin the application's: of the class, every slot held, off the list.
    for (std::uint32_t b = kUAllocSpecialBins; b < kBins; ++b) {
      s.bin_class[b] = class_;
      s.bin_arena[b] = 0;
      for (std::uint32_t w = 0; w < kUAllocBitmapWords; ++w)
        s.bin_bitmap[b * kUAllocBitmapWords + w] = ~std::uint64_t{0};
    }
    std::uint64_t used = ~std::uint64_t{0};
    for (std::uint32_t i = 0; i < free_bins_; ++i) {
      const std::uint32_t b = kFirstFreeBin + i;
      used &= ~(std::uint64_t{1} << b);
      s.bin_class[b] = kNoBin;
      s.bin_arena[b] = kNoBin;
      for (std::uint32_t w = 0; w < kUAllocBitmapWords; ++w)
        s.bin_bitmap[b * kUAllocBitmapWords + w] = 0;
    }
    s.chunk_bins[0] = used;
    s.chunk_bins[1] = ~std::uint64_t{0};
    s.chunk_heads[0] = free_bins_ > 0 ? 0u : kNoBin;
    const std::uint32_t li = v.list(0, class_);
    if (partial_ > 0) {  // slots 0 .. r - 1 free, listed, the semaphore's count
      for (std::uint32_t w = 0; w < kUAllocBitmapWords; ++w)
        s.bin_bitmap[kPartialBin * kUAllocBitmapWords + w] = ualloc_fresh_bitmap_word(partial_, w);
      s.bin_count[kPartialBin] = partial_ | kBinListed;
      s.heads[li] = kPartialBin;
      SemCounters c;
      c.count = partial_;
      s.sems[li] = BulkWord::pack(c);
    }
    stray_.clear();
  }
  std::optional<Block> alloc(std::size_t t, std::uint64_t) override {
    UAllocAlloc<A> a(storage_.view, class_, 0, static_cast<std::uint32_t>(t));
    run_to_done([&] { return a.step(storage_.view); });
    if (a.result() == kUAllocFailed) return std::nullopt;
    const std::uint64_t off = a.result();
    // The slot must be one of the P the application left: in bin 2 below r, or in a bin that
    // was free.
    const UAllocPlace p =
        ualloc_place(static_cast<std::uint32_t>(off % storage_.view.chunk_bytes()));
    const std::uint32_t j = ualloc_slot_of(p, class_);
    const bool ok = (p.bin == kPartialBin && j < partial_) ||
                    (p.bin >= kFirstFreeBin && p.bin < kFirstFreeBin + free_bins_);
    if (!ok && stray_.empty())
      stray_ = "double allocation: thread " + std::to_string(t) + " got slot " + std::to_string(j) +
               " of bin " + std::to_string(p.bin) + ", which the application holds";
    return Block{static_cast<std::int64_t>(off / kUnitBytes),
                 ualloc_class_bytes(class_) / kUnitBytes};
  }
  void free(std::size_t t, const Block& b) override {
    UAllocFree<A> f(storage_.view, static_cast<std::uint64_t>(b.offset) * kUnitBytes);
    run_to_done([&] { return f.step(storage_.view); });
    if (f.outcome() != UAllocFreeOutcome::freed && stray_.empty())
      stray_ = std::string("free: thread ") + std::to_string(t) +
               "'s free of a block it holds was " +
               (f.outcome() == UAllocFreeOutcome::double_free ? "a double free" : "a bad pointer");
  }
  std::string check_now() override {
    if (!stray_.empty()) return stray_;
    const SemCounters c = BulkWord::unpack(storage_.view.sems[storage_.view.list(0, class_)]);
    if (c.count < 0) return "semaphore C < 0";
    return {};
  }
  // ualloc_check (lists, L/P flags, counts against bitmaps, the semaphore equal to the listed
  // counts, chunk list, no mutex or reader or callback), and conservation: the free slots of the
  // class (zero bits of bins in use, and every slot of a free bin) and the held ones are P.
  std::string check_at_rest(const std::vector<Block>& held) override {
    const UAllocView& v = storage_.view;
    if (std::string e = ualloc_check(v, 1); !e.empty()) return e;
    std::uint64_t free_slots = 0;
    for (std::uint32_t b = kUAllocSpecialBins; b < kBins; ++b) {
      if (!((v.chunk_bins[0] >> b) & 1u)) {
        free_slots += slots_;
        continue;
      }
      for (std::uint32_t w = 0; w < kUAllocBitmapWords; ++w)
        free_slots += 64 - bits::popcount(v.bin_bitmap[b * kUAllocBitmapWords + w]);
    }
    if (free_slots + held.size() != config().pool)
      return "conservation: " + std::to_string(free_slots) + " free slots and " +
             std::to_string(held.size()) + " held, but the pool has " +
             std::to_string(config().pool);
    return {};
  }

 private:
  UAllocStorage storage_;
  std::uint32_t class_ = 0, slots_ = 0, free_bins_ = 0, partial_ = 0;
  std::string stray_;
};

}  // namespace

std::unique_ptr<ScriptProgram> make_ualloc(const CheckCase& c) {
  if (c.torn_rmw) return std::make_unique<UAllocProgram<TornRmwAtomics>>(c);
  return std::make_unique<UAllocProgram<CheckAtomics>>(c);
}

}  // namespace alloclab::check
