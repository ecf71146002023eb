// RW-BM (paper 000, §4.1; "details skipped" there). Semantics of the GPU kernel
// (gpu/src/rwbm.cu), which is what is measured:
//  * a step reads one random w-bit word (bitmap_probe_word);
//  * if the word has a free bit, the thread claims its LOWEST free bit with an atomic OR and
//    checks the returned old word; if another thread took that bit first the claim is lost
//    (one collision) and the thread retries on the lowest free bit of (old | bit), the value
//    the atomic returned, within the SAME step; only a word found full (at the read, or after
//    lost claims) costs a new step (the next random word).
//    Sequential mode has no races, so there a read word with a free bit always succeeds.
//    Lockstep: threads that read the same word in a round are resolved in round-priority
//    order, each taking the next free bit left in the word; threads that find it exhausted
//    fail the round (see engine.hpp). Threads: real fetch_or retries.
//    (Before this change a lost claim moved on to the next random word and cost a step: lockstep
//    TAS 2.81 against the GPU's 1.0001 at N=131072, A=500000, T=1e6.)
//  * free = clear the page's bit with an atomic AND.
#include "detail.hpp"
#include "engine.hpp"

namespace alloclab::sim::detail {
namespace {

struct RwbmPolicy {
  Bitmap& bm;
  std::uint64_t targets() const { return bm.words(); }
  int inspect(std::uint64_t j) const { return bits::first_free_bit(bm.load(j), bm.w()); }
  int acquire(std::uint64_t j, int b, std::uint64_t& lost) {
    for (;;) {
      const std::uint64_t bit = std::uint64_t{1} << b;
      const std::uint64_t old = bm.fetch_or(j, bit);
      if ((old & bit) == 0) return b;
      ++lost;  // the claim is lost: retry on the value the atomic returned
      b = bits::first_free_bit(old | bit, bm.w());
      if (b < 0) return -1;  // word exhausted: the next step reads another word
    }
  }
  std::int64_t page(std::uint64_t j, int b) const {
    return static_cast<std::int64_t>(j * bm.w() + static_cast<unsigned>(b));
  }
};

class RwbmAllocator final : public BitmapAllocator {
 public:
  RwbmAllocator(const Scenario& s, const SimOptions& o, std::uint64_t ps)
      : BitmapAllocator(s, o, ps, s.w) {}
  RunResult allocate(std::uint64_t seed) override {
    RunResult r = fresh_result(seed);
    const Run run{
        s_, opt_, seed, default_step_bound(s_, opt_), resolve_host_threads(opt_.host_threads), r};
    RwbmPolicy pol{bm_};
    run_per_thread(pol, run, free_);
    return r;
  }
};

}  // namespace

std::unique_ptr<Allocator> make_rwbm(const Scenario& s, const SimOptions& o, std::uint64_t ps) {
  return std::make_unique<RwbmAllocator>(s, o, ps);
}

}  // namespace alloclab::sim::detail
