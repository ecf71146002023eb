// RW (paper 000, Algorithm 1): a thread probes one random page per step (rw_probe_page) and
// takes it with an atomic test-and-set if it is free. Pages are kept as a packed bitmap (64
// pages per atomic word): "pages[p].used" is bit p % 64 of word p / 64.
// FREEPAGE: clear the page's bit (§3.1: "deallocation is almost free").
#include "detail.hpp"
#include "engine.hpp"

namespace alloclab::sim::detail {
namespace {

struct RwPolicy {
  Bitmap& bm;
  std::uint64_t T;
  std::uint64_t targets() const { return T; }
  int inspect(std::uint64_t p, const Probe&) const {
    return ((bm.load(p >> 6) >> (p & 63)) & 1u) ? -1 : 0;  // line 3
  }
  int acquire(std::uint64_t p, int, const Probe&, Counters& c) {  // line 4: test-and-set
    const std::uint64_t bit = std::uint64_t{1} << (p & 63);
    ++c.atomics;
    if ((bm.fetch_or(p >> 6, bit) & bit) == 0) return 0;
    ++c.collisions;
    ++c.failed_claims;
    return -1;
  }
  bool page_used(std::uint64_t p) const { return bm.used(p); }
  std::int64_t page(std::uint64_t p, int) const { return static_cast<std::int64_t>(p); }
};

class RwAllocator final : public BitmapAllocator {
 public:
  RwAllocator(const Scenario& s, const SimOptions& o, std::uint64_t ps)
      : BitmapAllocator(s, o, ps, 64) {}
  RunResult allocate(std::uint64_t seed) override {
    RunResult r = fresh_result(seed);
    const Run run{
        s_, opt_, seed, default_step_bound(s_, opt_), resolve_host_threads(opt_.host_threads), r};
    RwPolicy pol{bm_, s_.T};
    run_per_thread(pol, run, free_);
    return r;
  }
};

}  // namespace

// Memory: the bitmap keeps 64 pages per word.
ALLOCLAB_REGISTER_ENTRY(SimTable, Algorithm::rw,
                        (SimEntry{
                            .make = &make_allocator_of<RwAllocator>,
                            .pool_bytes = [](const Scenario& s) { return bitmap_bytes(s.T, 64); }}))

}  // namespace alloclab::sim::detail
