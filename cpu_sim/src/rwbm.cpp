// RW-BM (paper 000, §4.1; "details skipped" there). Decisions:
//  * a step reads one random w-bit word (bitmap_probe_word);
//  * if the word has a free bit, the thread claims its LOWEST free bit with one atomic OR and
//    checks the returned old word; if another thread took that bit first the claim failed
//    (a collision) and the thread goes on to its next random word (it does not retry inside
//    the same word: one read = one step, as in the model's Eq. 4);
//  * free = clear the page's bit with an atomic AND.
#include "detail.hpp"
#include "engine.hpp"

namespace alloclab::sim::detail {
namespace {

struct RwbmPolicy {
  Bitmap& bm;
  std::uint64_t targets() const { return bm.words(); }
  int inspect(std::uint64_t j) const { return bits::first_free_bit(bm.load(j), bm.w()); }
  bool claim(std::uint64_t j, int b) {
    const std::uint64_t bit = std::uint64_t{1} << b;
    return (bm.fetch_or(j, bit) & bit) == 0;
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
