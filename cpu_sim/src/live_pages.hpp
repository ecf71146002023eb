// The workload runner's map of the pages its live objects hold (workload_runner.cpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>

#include "alloclab/core/bit_tricks.hpp"

namespace alloclab::sim::detail {

// Which pages the live objects hold, one bit per page, checked at every allocation and free:
// the incremental form of "the live objects' extents are pairwise disjoint" (O(pages) per
// object, where sorting every live range at every checkpoint cost more than the allocations).
// calloc: the pages of the map a run never touches are never mapped.
class LivePages {
 public:
  explicit LivePages(std::uint64_t T)
      : bits_(static_cast<std::uint64_t*>(std::calloc((T + 63) / 64, sizeof(std::uint64_t)))) {
    if (!bits_) throw std::bad_alloc();
  }
  // Marks [first, first + n) live; false (nothing marked) when one of them already is.
  bool claim(std::uint64_t first, std::uint64_t n) {
    if (!for_each_piece(first, n,
                        [&](std::uint64_t& word, std::uint64_t m) { return (word & m) == 0; }))
      return false;
    for_each_piece(first, n, [](std::uint64_t& word, std::uint64_t m) {
      word |= m;
      return true;
    });
    return true;
  }
  // Marks [first, first + n) free; false (nothing changed) when one of them is not live.
  bool release(std::uint64_t first, std::uint64_t n) {
    if (!for_each_piece(first, n,
                        [](std::uint64_t& word, std::uint64_t m) { return (word & m) == m; }))
      return false;
    for_each_piece(first, n, [](std::uint64_t& word, std::uint64_t m) {
      word &= ~m;
      return true;
    });
    return true;
  }

 private:
  template <class F>
  bool for_each_piece(std::uint64_t first, std::uint64_t n, F f) {
    for (std::uint64_t page = first, end = first + n; page < end;) {
      const unsigned bit = static_cast<unsigned>(page % 64);
      const unsigned len = static_cast<unsigned>(std::min<std::uint64_t>(end - page, 64 - bit));
      if (!f(bits_.get()[page / 64], bits::run_mask(bit, len))) return false;
      page += len;
    }
    return true;
  }
  struct FreeDeleter {
    void operator()(std::uint64_t* p) const { std::free(p); }
  };
  std::unique_ptr<std::uint64_t, FreeDeleter> bits_;
};

}  // namespace alloclab::sim::detail
