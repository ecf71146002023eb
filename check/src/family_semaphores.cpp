// Gelado & Garland's bulk and counting semaphores (core/gelado) as allocators of units: a pool
// of `--pool` units that growers take in batches of B = 2 (a sequential grower of the same
// capacity can use floor(pool / B) * B of them); alloc:N waits for N units (BulkWait /
// CountingWait), a grower takes a batch from the pool (one CAS loop on a shared word) and
// signals; free signals N units back.
#include <stdexcept>

#include "alloclab/check/families.hpp"
#include "alloclab/check/scheduler.hpp"
#include "alloclab/core/gelado/bulk_semaphore.hpp"
#include "alloclab/core/gelado/counting_semaphore.hpp"

namespace alloclab::check {
namespace {

using namespace alloclab::gelado;
constexpr std::uint32_t kBatch = 2;

// The pool the growers draw batches from: false when fewer than B units are left.
template <class A>
bool take_batch(std::uint64_t& backing) {
  std::uint64_t v = A::load(backing);
  for (;;) {
    if (v < kBatch) return false;
    const std::uint64_t old = A::cas(backing, v, v - kBatch);
    if (old == v) return true;
    v = old;
  }
}

template <class A>
class SemaphoreBase : public ScriptProgram {
 public:
  explicit SemaphoreBase(const CheckCase& c) : ScriptProgram(c) {
    for (const auto& op : c.ops)
      if (op.alloc && op.size > kBatch)
        throw std::invalid_argument("--ops: alloc:" + std::to_string(op.size) +
                                    " exceeds the semaphores' batch of " + std::to_string(kBatch) +
                                    " units");
  }
  std::uint64_t capacity() const override { return config().pool / kBatch * kBatch; }
  bool could_serve(const std::vector<Block>& occupied, std::uint64_t size) const override {
    std::uint64_t used = 0;
    for (const auto& b : occupied) used += b.len;
    return used + size <= capacity();
  }

 protected:
  void reset_base() {
    word_ = 0;
    backing_ = config().pool;
    delivered_ = 0;
    failed_at_ = ~std::uint64_t{0};
  }
  std::string name_base(std::uintptr_t a) const {
    if (a == reinterpret_cast<std::uintptr_t>(&word_)) return "semaphore word";
    if (a == reinterpret_cast<std::uintptr_t>(&backing_)) return "pool (units left)";
    return "?";
  }
  std::uint64_t word_ = 0;
  std::uint64_t backing_ = 0;
  std::uint64_t delivered_ = 0;  // units of the batches delivered (the growers' share included)
  std::uint64_t failed_at_ = ~std::uint64_t{0};  // when a growth first failed
};

template <class A>
class BulkProgram final : public SemaphoreBase<A> {
  using Base = SemaphoreBase<A>;

 public:
  explicit BulkProgram(const CheckCase& c) : Base(c) {}
  std::string describe() const override {
    const SemCounters s = BulkWord::unpack(this->word_);
    return "C=" + std::to_string(s.count) + " E=" + std::to_string(s.expected) +
           " R=" + std::to_string(s.reserved) + " pool=" + std::to_string(this->backing_);
  }
  std::string name_of(std::uintptr_t a) const override { return this->name_base(a); }

 protected:
  void reset_family() override {
    this->reset_base();
    reserved_at_.assign(this->config().threads, kNever);
    takes_.clear();
    wrong_grower_.clear();
  }
  std::optional<Block> alloc(std::size_t t, std::uint64_t size) override {
    const SpinExit rule =
        this->config().rule == Rule::printed ? SpinExit::printed : SpinExit::covered;
    const auto n = static_cast<std::uint32_t>(size);
    BulkWait<A> w(n, kBatch, rule);
    reserved_at_[t] = kNever;
    for (StepStatus s = w.step(this->word_); s != StepStatus::done; s = w.step(this->word_)) {
      if (s == StepStatus::spinning) Execution::current().note_spin();
      if (w.result().reserves > 0 && reserved_at_[t] == kNever) reserved_at_[t] = this->now();
    }
    const BulkWaitResult& r = w.result();
    if (r.outcome == BulkWaitOutcome::took) {
      if (r.reserves == 0) takes_.push_back(this->now());  // took without waiting its turn
      return Block{-1, size};
    }
    if (r.outcome != BulkWaitOutcome::grow) {
      wrong_grower_ = "a wait ended without units or a grow (counter overflow)";
      return std::nullopt;
    }
    // Alg. 1's semantics: a reservation waits for units promised by growers in flight. A
    // reserver that grows although nobody's growth failed and nobody took units without a
    // reservation after it reserved left a covered reservation: the wrong thread grows.
    if (r.reserves > 0 && this->failed_at_ > this->now()) {
      bool barged = false;
      for (const std::uint64_t when : takes_) barged = barged || when > reserved_at_[t];
      if (!barged)
        wrong_grower_ = "wrong grower: thread " + std::to_string(t) +
                        " reserved units that growers had promised, then grew itself (its "
                        "reservation was still covered): the wrong thread grows";
    }
    if (take_batch<A>(this->backing_)) {
      this->delivered_ += kBatch;
      bulk_grow_delivered<A>(this->word_, n, kBatch);
      return Block{-1, size};
    }
    if (this->failed_at_ == ~std::uint64_t{0}) this->failed_at_ = this->now();
    bulk_grow_failed<A>(this->word_, n, kBatch);
    return std::nullopt;
  }
  void free(std::size_t, const Block& b) override {
    bulk_signal<A>(this->word_, static_cast<std::uint32_t>(b.len), 0);
  }
  std::string check_now() override {
    if (!wrong_grower_.empty()) return wrong_grower_;
    const SemCounters s = BulkWord::unpack(this->word_);
    if (s.count < 0) return "C < 0: " + describe();
    return {};
  }
  std::string check_at_rest(const std::vector<Block>& held) override {
    std::uint64_t h = 0;
    for (const auto& b : held) h += b.len;
    const SemCounters s = BulkWord::unpack(this->word_);
    if (s.expected != 0 || s.reserved != 0 ||
        static_cast<std::uint64_t>(s.count) + h != this->delivered_)
      return "at rest, C + held = " + std::to_string(s.count) + " + " + std::to_string(h) +
             " with E = " + std::to_string(s.expected) + ", R = " + std::to_string(s.reserved) +
             ", but the growers delivered " + std::to_string(this->delivered_) + " units";
    return {};
  }

 private:
  static constexpr std::uint64_t kNever = ~std::uint64_t{0};
  std::vector<std::uint64_t> reserved_at_;
  std::vector<std::uint64_t> takes_;
  std::string wrong_grower_;
};

template <class A>
class CountingProgram final : public SemaphoreBase<A> {
  using Base = SemaphoreBase<A>;

 public:
  explicit CountingProgram(const CheckCase& c) : Base(c) {}
  std::string describe() const override {
    return "S=" + std::to_string(counting_unpack(this->word_)) +
           " pool=" + std::to_string(this->backing_);
  }
  std::string name_of(std::uintptr_t a) const override { return this->name_base(a); }

 protected:
  void reset_family() override { this->reset_base(); }
  std::optional<Block> alloc(std::size_t, std::uint64_t size) override {
    const auto n = static_cast<std::uint32_t>(size);
    CountingWait<A> w(n);
    run_to_done([&] { return w.step(this->word_); });
    const CountingWaitResult& r = w.result();
    if (r.outcome == CountingWaitOutcome::took) return Block{-1, size};
    const auto held = static_cast<std::uint32_t>(r.returned);
    if (take_batch<A>(this->backing_)) {
      this->delivered_ += kBatch;
      counting_grow_delivered<A>(this->word_, n, kBatch, held);
      return Block{-1, size};
    }
    counting_grow_failed<A>(this->word_, held);
    return std::nullopt;
  }
  void free(std::size_t, const Block& b) override {
    counting_signal<A>(this->word_, static_cast<std::int64_t>(b.len));
  }
  std::string check_now() override {
    const std::int64_t s = counting_unpack(this->word_);
    if (s < -1) return "S < -1: " + describe();
    return {};
  }
  std::string check_at_rest(const std::vector<Block>& held) override {
    std::int64_t h = 0;
    for (const auto& b : held) h += static_cast<std::int64_t>(b.len);
    const std::int64_t s = counting_unpack(this->word_);
    if (s < 0 || s + h != static_cast<std::int64_t>(this->delivered_))
      return "at rest, S + held = " + std::to_string(s) + " + " + std::to_string(h) +
             ", but the growers delivered " + std::to_string(this->delivered_) + " units";
    return {};
  }
};

}  // namespace

std::unique_ptr<ScriptProgram> make_bulk_semaphore(const CheckCase& c) {
  if (c.torn_rmw) return std::make_unique<BulkProgram<TornRmwAtomics>>(c);
  return std::make_unique<BulkProgram<CheckAtomics>>(c);
}
std::unique_ptr<ScriptProgram> make_counting_semaphore(const CheckCase& c) {
  if (c.torn_rmw) return std::make_unique<CountingProgram<TornRmwAtomics>>(c);
  return std::make_unique<CountingProgram<CheckAtomics>>(c);
}

}  // namespace alloclab::check
