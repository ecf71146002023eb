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
//  * which free bit: `Scenario::bit_choice` (core/bit_choice.hpp): lowest (above, the default),
//    random (rank from the low 32 bits of the probe number) or rotated (first free bit at or
//    after lane * w / L, cyclically); a lost claim retries with the same rule on the returned
//    value. The probed words do not depend on it, nor does whether a step succeeds in
//    sequential and lockstep mode (a word with f free bits serves min(k, f) of its k readers
//    whatever bits they target): only the collisions change.
//  * free = clear the page's bit with an atomic AND.
#include "detail.hpp"
#include "engine.hpp"

namespace alloclab::sim::detail {
namespace {

// kChoice: which free bit a thread targets (core/bit_choice.hpp); a template parameter so that
// the default (lowest) keeps the original inner loop.
template <BitChoice kChoice>
struct RwbmPolicy {
  Bitmap& bm;
  unsigned lanes;
  std::uint64_t targets() const { return bm.words(); }
  BitChoiceKey key(const Probe& p) const { return bit_choice_key(p.bits, p.thread, bm.w(), lanes); }
  int inspect(std::uint64_t j, const Probe& p) const {
    return choose_free_bit(kChoice, bm.load(j), bm.w(), key(p));
  }
  int acquire(std::uint64_t j, int b, const Probe& p, Counters& c) {
    for (;;) {
      const std::uint64_t bit = std::uint64_t{1} << b;
      ++c.atomics;
      const std::uint64_t old = bm.fetch_or(j, bit);
      if ((old & bit) == 0) return b;
      // The claim is lost: retry on the value the atomic returned, same rule.
      ++c.collisions;
      ++c.failed_claims;
      b = choose_free_bit(kChoice, old | bit, bm.w(), key(p));
      if (b < 0) return -1;  // word exhausted: the next step reads another word
    }
  }
  bool page_used(std::uint64_t p) const { return bm.used(p); }
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
    switch (s_.bit_choice) {
      case BitChoice::lowest:
        run_with<BitChoice::lowest>(run);
        break;
      case BitChoice::random:
        run_with<BitChoice::random>(run);
        break;
      case BitChoice::rotated:
        run_with<BitChoice::rotated>(run);
        break;
    }
    return r;
  }

 private:
  template <BitChoice kChoice>
  void run_with(const Run& run) {
    RwbmPolicy<kChoice> pol{bm_, s_.lanes};
    run_per_thread(pol, run, free_);
  }
};

}  // namespace

// Memory: the bitmap keeps each w-page word in a 64-bit atomic.
ALLOCLAB_REGISTER_ENTRY(SimTable, Algorithm::rwbm,
                        (SimEntry{.make = &make_allocator_of<RwbmAllocator>,
                                  .pool_bytes = [](const Scenario& s) {
                                    return bitmap_bytes(s.T, s.w);
                                  }}))

}  // namespace alloclab::sim::detail
