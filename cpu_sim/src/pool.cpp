// The shared pool machinery: the atomic bitmap, the initial occupancy, the step bound and the
// always-on verification of a run.
#include <algorithm>
#include <cmath>
#include <string>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/pool.hpp"
#include "detail.hpp"

namespace alloclab::sim {
namespace detail {

Bitmap::Bitmap(std::uint64_t T, unsigned w)
    : T_(T),
      words_(word_count(T, w)),
      w_(w),
      full_(bits::low_mask(w)),
      a_(new std::atomic<std::uint64_t>[word_count(T, w)]) {
  for (std::uint64_t j = 0; j < words_; ++j) a_[j].store(0, std::memory_order_relaxed);
  const std::uint64_t tail = T % w;
  if (tail != 0) a_[words_ - 1].store(full_ & ~bits::low_mask(static_cast<unsigned>(tail)));
}

namespace {

// Calls f(word, mask) for the word-aligned pieces of pages [first, first + n), in order, while
// f returns true. Returns the first page not visited (first + n when every call returned true).
template <class F>
std::uint64_t for_each_word_piece(std::uint64_t first, std::uint64_t n, unsigned w, F f) {
  std::uint64_t page = first;
  const std::uint64_t end = first + n;
  while (page < end) {
    const unsigned bit = static_cast<unsigned>(page % w);
    const unsigned len = static_cast<unsigned>(std::min<std::uint64_t>(end - page, w - bit));
    if (!f(page / w, bits::run_mask(bit, len))) return page;
    page += len;
  }
  return end;
}

}  // namespace

bool Bitmap::claim_range(std::uint64_t first, std::uint64_t n, std::uint64_t& atomics) {
  std::uint64_t lost_word_old = 0;
  const std::uint64_t stop =
      for_each_word_piece(first, n, w_, [&](std::uint64_t j, std::uint64_t m) {
        lost_word_old = fetch_or(j, m);
        ++atomics;
        if (!(lost_word_old & m)) return true;
        fetch_and(j, ~(m & ~lost_word_old));  // lost: undo what this call set in this word...
        ++atomics;
        return false;
      });
  if (stop == first + n) return true;
  // ...and in the words before it.
  for_each_word_piece(first, stop - first, w_, [&](std::uint64_t j, std::uint64_t m) {
    fetch_and(j, ~m);
    ++atomics;
    return true;
  });
  return false;
}

std::uint64_t Bitmap::release_range(std::uint64_t first, std::uint64_t n) {
  if (first + n > T_ || n == 0)
    throw VerificationError("free of pages [" + std::to_string(first) + ", " +
                            std::to_string(first + n) + ") outside the pool");
  std::uint64_t ands = 0;
  for_each_word_piece(first, n, w_, [&](std::uint64_t j, std::uint64_t m) {
    ++ands;
    if ((fetch_and(j, ~m) & m) != m)
      throw VerificationError("double free: a page in [" + std::to_string(first) + ", " +
                              std::to_string(first + n) + ") was not in use");
    return true;
  });
  return ands;
}

std::uint64_t Bitmap::count_free() const {
  std::uint64_t used = 0;
  for (std::uint64_t j = 0; j < words_; ++j) used += bits::popcount(load(j) & full_);
  return words_ * w_ - used;
}

std::vector<std::uint64_t> Bitmap::used_pages() const {
  std::vector<std::uint64_t> out((T_ + 63) / 64, 0);
  if (w_ == 64) {
    for (std::uint64_t j = 0; j < words_; ++j) out[j] = load(j);
    if (T_ % 64) out.back() &= bits::low_mask(static_cast<unsigned>(T_ % 64));
    return out;
  }
  for (std::uint64_t j = 0; j < words_; ++j) {
    std::uint64_t v = load(j) & full_;
    while (v) {
      const std::uint64_t p = j * w_ + bits::count_trailing_zeros(v);
      v &= v - 1;
      if (p < T_) out[p / 64] |= std::uint64_t{1} << (p % 64);
    }
  }
  return out;
}

namespace {
// Start of the free block for Occupancy::contiguous: uniform in [0, T - A] from the pool stream
// (counter 1000; counters 0..5 are the permutation's round keys).
std::uint64_t contiguous_start(const Scenario& s, std::uint64_t pool_seed) {
  return PhiloxStream(pool_seed, StreamDomain::pool, 0).below(1000, s.T - s.A + 1);
}
// Packed free set: bit p set = page p initially free.
std::vector<std::uint64_t> free_set(const Scenario& s, Occupancy occ, std::uint64_t pool_seed,
                                    unsigned host_threads) {
  std::vector<std::uint64_t> out((s.T + 63) / 64, 0);
  if (occ == Occupancy::contiguous) {
    const std::uint64_t a = contiguous_start(s, pool_seed);
    for (std::uint64_t p = a; p < a + s.A; ++p) out[p / 64] |= std::uint64_t{1} << (p % 64);
    return out;
  }
  if (s.A == s.T) {  // pi(p) < T for every page: all free, without evaluating pi T times
    for (std::uint64_t e = 0; e < out.size(); ++e) out[e] = ~std::uint64_t{0};
    if (s.T % 64) out.back() = bits::low_mask(static_cast<unsigned>(s.T % 64));
    return out;
  }
  const PagePermutation pi(s.T, pool_seed);
  const std::uint64_t elems = out.size();
  const unsigned workers = s.T >= (1u << 20) ? host_threads : 1;
  parallel_for(
      elems, workers,
      [&](std::uint64_t e, unsigned) {
        std::uint64_t v = 0;
        const std::uint64_t end = std::min<std::uint64_t>(s.T, (e + 1) * 64);
        for (std::uint64_t p = e * 64; p < end; ++p)
          if (initially_free(pi, p, s.A)) v |= std::uint64_t{1} << (p % 64);
        out[e] = v;
      },
      1024);
  return out;
}
}  // namespace

void build_pool(Bitmap& bm, const Scenario& s, Occupancy occ, std::uint64_t pool_seed,
                unsigned host_threads) {
  const auto fs = free_set(s, occ, pool_seed, host_threads);
  const unsigned w = bm.w();
  for (std::uint64_t j = 0; j < bm.words(); ++j) {
    std::uint64_t used = bm.full();
    for (unsigned b = 0; b < w; ++b) {
      const std::uint64_t p = j * w + b;
      if (p < s.T && ((fs[p / 64] >> (p % 64)) & 1u)) used &= ~(std::uint64_t{1} << b);
    }
    bm.store(j, used);
  }
}

std::vector<std::uint64_t> initial_free_pages(const Scenario& s, Occupancy occ,
                                              std::uint64_t pool_seed, unsigned host_threads) {
  const auto fs = free_set(s, occ, pool_seed, host_threads);
  std::vector<std::uint64_t> out;
  out.reserve(s.A);
  for (std::uint64_t e = 0; e < fs.size(); ++e) {
    std::uint64_t v = fs[e];
    while (v) {
      out.push_back(e * 64 + bits::count_trailing_zeros(v));
      v &= v - 1;
    }
  }
  return out;
}

RunResult BitmapAllocator::fresh_result(std::uint64_t) const {
  RunResult r;
  r.steps.assign(s_.N, 0);
  r.first_page.assign(s_.N, -1);
  return r;
}

}  // namespace detail

std::uint64_t default_step_bound(const Scenario& s, const SimOptions& options) {
  if (options.max_probes_per_request) return options.max_probes_per_request;
  if (const SimEntry* e = SimTable::instance().find(s.algo); e && e->step_bound)
    return e->step_bound(s);
  std::uint64_t need = 0;
  if (options.pages_per_thread.empty())
    need = s.N * s.pages;
  else
    for (auto n : options.pages_per_thread) need += n;
  const double slack = s.A >= need ? static_cast<double>(s.A - need + 1) : 1.0;
  double bound = 0;
  if (!caps(s.algo).bitmap_words) {  // a step probes one page of T (RW)
    bound = std::ceil(64.0 * static_cast<double>(s.T) / slack);
  } else {
    const double W = static_cast<double>(word_count(s.T, s.w));
    bound = std::ceil(64.0 * W / std::ceil(slack / s.w));
  }
  bound = std::clamp(bound, 64.0, 4294967294.0);
  return static_cast<std::uint64_t>(bound);
}

void verify(const Scenario& s, const SimOptions& options, const RunResult& r,
            const std::vector<std::uint64_t>& used_before,
            const std::vector<std::uint64_t>& used_after) {
  auto fail = [](const std::string& what) { throw VerificationError(what); };
  if (r.steps.size() != s.N || r.first_page.size() != s.N)
    fail("result vectors do not have N entries");
  std::vector<std::uint64_t> taken((s.T + 63) / 64, 0);
  std::uint64_t taken_pages = 0, failed = 0;
  for (std::uint64_t i = 0; i < s.N; ++i) {
    const std::int64_t f = r.first_page[i];
    if (f < 0) {
      ++failed;
      continue;
    }
    const std::uint64_t n =
        options.pages_per_thread.empty() ? s.pages : options.pages_per_thread[i];
    const auto first = static_cast<std::uint64_t>(f);
    if (first + n > s.T)
      fail("thread " + std::to_string(i) + " got pages past the end of the pool");
    for (std::uint64_t p = first; p < first + n; ++p) {
      const std::uint64_t bit = std::uint64_t{1} << (p % 64);
      if (used_before[p / 64] & bit)
        fail("thread " + std::to_string(i) + " got page " + std::to_string(p) +
             " which was already in use");
      if (taken[p / 64] & bit)
        fail("page " + std::to_string(p) + " handed out twice (thread " + std::to_string(i) + ")");
      taken[p / 64] |= bit;
      ++taken_pages;
    }
  }
  if (taken_pages != r.taken)
    fail("taken count " + std::to_string(r.taken) + " but requests hold " +
         std::to_string(taken_pages) + " pages");
  if (failed != r.failed)
    fail("failed count " + std::to_string(r.failed) + " but " + std::to_string(failed) +
         " requests have no page");
  // Conservation: after == before + taken, exactly (so free before = free after + taken).
  std::uint64_t free_before = 0, free_after = 0;
  for (std::size_t e = 0; e < taken.size(); ++e) {
    if (used_after[e] != (used_before[e] | taken[e]))
      fail(
          "pages not conserved: the used set after the run differs from before + taken "
          "near page " +
          std::to_string(e * 64));
    free_before += 64 - bits::popcount(used_before[e]);
    free_after += 64 - bits::popcount(used_after[e]);
  }
  if (free_before != free_after + taken_pages) fail("pages not conserved");
}

}  // namespace alloclab::sim
