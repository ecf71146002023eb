// BitmapAlloc (DynaSOAr's baseline, ECOOP'19 §6) in the simulator: core/dynasoar/bitmap_alloc.hpp
// over one hierarchical bitmap of T bits, bit p set = page (object slot) p free (studies/dynasoar).
// Modes: sequential (requests one at a time in the service order), lockstep (every unfinished
// request makes one step per round, in round-priority order), threads (host threads on
// std::atomic_ref words). A step is one memory operation on a bitmap word. Out of memory:
// kMaxEmptyRounds rounds that found no set bit, or the step bound. Verification beyond the
// simulator's own: a used-page mirror (a page handed out twice, a double free), and at rest (at the
// start and end of every allocate()) Def. 1 and the bitmap's level 0 = the mirror's free pages.
#include <algorithm>
#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "alloclab/core/dynasoar/alloc.hpp"
#include "alloclab/core/dynasoar/bitmap_alloc.hpp"
#include "alloclab/core/dynasoar/hbitmap_check.hpp"
#include "alloclab/core/dynasoar/op_counts.hpp"
#include "alloclab/core/errors.hpp"
#include "alloclab/core/ouroboros/host_atomics.hpp"
#include "alloclab/core/random_stream.hpp"
#include "detail.hpp"
#include "engine.hpp"

namespace alloclab::sim::detail {
namespace {

using Atom = ouro::HostAtomics;
using dynasoar::BitmapAllocOp;
using dynasoar::BitmapCounts;
using dynasoar::BitStatus;

// core/dynasoar/op_counts.hpp's names, shared with the GPU backend.
using namespace dynasoar::ba_count;
const auto& kCountNames = dynasoar::kBaCountNames;
constexpr std::uint64_t kStuckSteps = std::uint64_t{1} << 32;

std::uint64_t ba_step_bound(const Scenario& s) {
  return std::min<std::uint64_t>(64 * s.N + 64 * dynasoar::hb_levels(s.T) + 4096, 4294967294ull);
}

class BitmapAllocAllocator final : public Allocator {
 public:
  BitmapAllocAllocator(const Scenario& s, const SimOptions& o, std::uint64_t pool_seed)
      : s_(s), opt_(o), used_(s.T, 64), bm_(s.T) {
    std::vector<bool> is_free(s.T, false);
    for (std::uint64_t j = 0; j < used_.words(); ++j) used_.store(j, ~std::uint64_t{0});
    const auto free_pages =
        initial_free_pages(s, o.occupancy, pool_seed, resolve_host_threads(o.host_threads));
    for (const std::uint64_t p : free_pages) {
      is_free[p] = true;
      used_.fetch_and(p / 64, ~(std::uint64_t{1} << (p % 64)));
    }
    dynasoar::hbitmap_assign(bm_.bitmap, is_free);
    live_.store(s.T - free_pages.size());
  }

  RunResult allocate(std::uint64_t seed) override {
    check_at_rest("before an allocation");
    RunResult r;
    r.steps.assign(s_.N, 0);
    r.first_page.assign(s_.N, -1);
    const std::uint64_t bound = default_step_bound(s_, opt_);
    std::vector<Counters> c(1);
    run_step_machines(
        s_, opt_, seed, r, c, [&](std::uint64_t i) { return make(i, seed, bound); },
        [&](Req& q) { return advance(q); },
        [&](const Req& q, Counters& ci) { complete(q, r, ci); });
    c[0].extra[free_levels] += free_levels_.exchange(0);
    finish(r, c, {std::begin(kCountNames), std::end(kCountNames)});
    check_at_rest("after an allocation");
    return r;
  }

  std::uint64_t free(std::uint64_t first_page, unsigned n) override {
    if (n != 1 || first_page >= s_.T) throw VerificationError("free of pages outside the heap");
    const std::uint64_t bit = std::uint64_t{1} << (first_page % 64);
    if (!(used_.fetch_and(first_page / 64, ~bit) & bit))
      throw VerificationError("double free of page " + std::to_string(first_page));
    live_.fetch_sub(1);
    dynasoar::BitOp<Atom> op(dynasoar::BitOpKind::set, first_page);
    BitmapCounts c;
    for (std::uint64_t k = 0;; ++k) {
      if (k >= kStuckSteps) throw VerificationError("a BitmapAlloc free never ended");
      const BitStatus st = op.step(bm_.bitmap, c);
      if (st == BitStatus::done) break;
      if (st == BitStatus::spinning) std::this_thread::yield();
    }
    free_levels_ += c.levels;
    return c.atomics;
  }

  std::vector<std::uint64_t> used_pages() const override { return used_.used_pages(); }
  std::uint64_t free_count() const override { return s_.T - live_.load(); }

 private:
  struct Req {
    std::uint64_t thread = 0;
    BitmapAllocOp<Atom> op;
    BitmapCounts counts;
  };
  Req make(std::uint64_t i, std::uint64_t seed, std::uint64_t bound) const {
    Req q;
    q.thread = i;
    const auto start = static_cast<unsigned>(PhiloxStream(seed, StreamDomain::probe, i).bits(0));
    q.op = BitmapAllocOp<Atom>(bm_.bitmap, static_cast<unsigned>(i / s_.lanes), start,
                               dynasoar::kMaxEmptyRounds, bound);
    return q;
  }
  bool advance(Req& q) const {
    const BitStatus st = q.op.step(bm_.bitmap, q.counts);
    if (q.op.steps() >= kStuckSteps) throw VerificationError("a BitmapAlloc request never ended");
    if (st == BitStatus::spinning && opt_.mode == Mode::threads) std::this_thread::yield();
    return q.op.finished();
  }
  void complete(const Req& q, RunResult& r, Counters& c) {
    const std::uint64_t i = q.thread;
    r.steps[i] = static_cast<std::uint32_t>(std::min<std::uint64_t>(q.op.steps(), 4294967295ull));
    const BitmapCounts& b = q.counts;
    c.probes += b.loads + b.atomics;
    c.atomics += b.atomics;
    c.collisions += b.try_clear_lost + b.clear_spins + b.set_spins;
    c.failed_claims += b.try_clear_lost + b.clear_spins + b.set_spins;
    c.extra[levels] += b.levels;
    c.extra[find_fails] += b.find_fails;
    c.extra[lost_claims] += b.try_clear_lost;
    if (q.op.result() == dynasoar::kNoBit) {
      ++c.failed;
      ++c.extra[gave_up];
      return;
    }
    const auto p = static_cast<std::uint64_t>(q.op.result());
    const std::uint64_t bit = std::uint64_t{1} << (p % 64);
    if (p >= s_.T || (used_.fetch_or(p / 64, bit) & bit))
      throw VerificationError("bitmap-alloc handed out page " + std::to_string(p) +
                              " which is in use");
    live_.fetch_add(1);
    r.first_page[i] = static_cast<std::int64_t>(p);
    c.taken += 1;
  }
  void check_at_rest(const char* when) const {
    std::string e = dynasoar::hbitmap_consistency_error(bm_.bitmap);
    for (std::uint64_t j = 0; e.empty() && j < used_.words(); ++j) {
      const std::uint64_t valid = s_.T - 64 * j >= 64
                                      ? ~std::uint64_t{0}
                                      : bits::low_mask(static_cast<unsigned>(s_.T - 64 * j));
      if ((bm_.bitmap.word(0, j) & valid) != (~used_.load(j) & valid))
        e = "the free bits of word " + std::to_string(j) + " differ from the pages not in use";
    }
    if (!e.empty()) throw VerificationError("bitmap-alloc: " + e + " " + when);
  }

  Scenario s_;
  SimOptions opt_;
  Bitmap used_;
  dynasoar::HBitmapStorage bm_;
  std::atomic<std::uint64_t> live_{0};
  std::atomic<std::uint64_t> free_levels_{0};
};

}  // namespace

// The bitmap (T bits and the levels above) and the page mirror.
ALLOCLAB_REGISTER_ENTRY(SimTable, Algorithm::bitmap_alloc,
                        (SimEntry{.make = &make_allocator_of<BitmapAllocAllocator>,
                                  .pool_bytes =
                                      [](const Scenario& s) {
                                        return 8.0 * static_cast<double>(
                                                         dynasoar::hb_total_words(s.T)) +
                                               bitmap_bytes(s.T, 64);
                                      },
                                  .lane_bytes_per_thread = 128,
                                  .step_bound = &ba_step_bound}))

}  // namespace alloclab::sim::detail
