// The GPU hash join's output pages (issue 17; paper 000 §5.2.3): 256-byte pages of an arena
// (page p at arena + 256 p), taken on demand by each probe thread from the allocator under test.
// A page starts with an 8-byte header, {tuples in the page, the thread's previous page}, and
// holds 31 result tuples of 8 bytes (build payload, probe payload): the header chains a thread's
// pages so that the output can be read back and checked without knowing which allocator handed
// them out or in which order (the paper's pages hold 32 tuples and no header: 3% more pages
// here). A thread's chain ends at the page it held last, which it records when it finishes.
// Shared by the device (the probe and checksum kernels) and the host tests.
#pragma once

#include <cstdint>

#include "alloclab/core/hd.hpp"
#include "alloclab/core/join/reference.hpp"
#include "alloclab/core/join/tables.hpp"

namespace alloclab::join {

inline constexpr std::uint64_t kPageBytes = 256;
inline constexpr std::uint32_t kNoPage = 0xffffffffu;  // page ids are 32-bit: pages < 2^32 - 1

struct PageHeader {
  std::uint32_t tuples;    // written when the page is closed (full, or the thread's last)
  std::uint32_t previous;  // the thread's page before this one, or kNoPage
};
struct ResultTuple {
  std::uint32_t build_payload;
  std::uint32_t probe_payload;
};
static_assert(sizeof(PageHeader) == 8 && sizeof(ResultTuple) == 8);
inline constexpr std::uint32_t kTuplesPerPage =
    static_cast<std::uint32_t>((kPageBytes - sizeof(PageHeader)) / sizeof(ResultTuple));  // 31

ALLOCLAB_HD PageHeader* page_header(unsigned char* arena, std::uint32_t page) {
  return reinterpret_cast<PageHeader*>(arena + std::uint64_t{page} * kPageBytes);
}
ALLOCLAB_HD ResultTuple* page_tuples(unsigned char* arena, std::uint32_t page) {
  return reinterpret_cast<ResultTuple*>(arena + std::uint64_t{page} * kPageBytes +
                                        sizeof(PageHeader));
}

// One thread's output: appends tuples to its current page and takes a new one through `take`
// (a callable returning a page id or kNoPage) when the page is full. Out of memory: append
// returns false and the tuple is not written; what was written stays readable.
class PageWriter {
 public:
  ALLOCLAB_HD explicit PageWriter(unsigned char* arena) : arena_(arena) {}

  template <class Take>
  ALLOCLAB_HD bool append(ResultTuple t, Take&& take) {
    if (page_ == kNoPage || fill_ == kTuplesPerPage) {
      const std::uint32_t next = take();
      if (next == kNoPage) return false;
      if (page_ != kNoPage) page_header(arena_, page_)->tuples = fill_;
      page_header(arena_, next)->previous = page_;
      page_ = next;
      fill_ = 0;
    }
    page_tuples(arena_, page_)[fill_++] = t;
    return true;
  }
  // Closes the current page; the chain's last page (kNoPage: the thread wrote nothing).
  ALLOCLAB_HD std::uint32_t finish() {
    if (page_ != kNoPage) page_header(arena_, page_)->tuples = fill_;
    return page_;
  }

 private:
  unsigned char* arena_;
  std::uint32_t page_ = kNoPage;
  std::uint32_t fill_ = 0;
};

// What a chain of pages holds: its tuples' count and checksum (reference.hpp's), its pages, and
// whether it is broken (a page id outside the arena's `pages`, a header claiming 0 tuples or more
// than a page holds, or more pages than max_pages: a page handed out twice can make a cycle).
struct ChainOutput {
  JoinOutput output;
  std::uint64_t pages = 0;
  bool broken = false;
};
ALLOCLAB_HD ChainOutput read_chain(unsigned char* arena, std::uint64_t pages, std::uint32_t last,
                                   std::uint64_t max_pages) {
  ChainOutput c;
  for (std::uint32_t p = last; p != kNoPage; p = page_header(arena, p)->previous) {
    if (p >= pages || ++c.pages > max_pages) {
      c.broken = true;
      break;
    }
    const std::uint32_t n = page_header(arena, p)->tuples;
    if (n > kTuplesPerPage || n == 0) {
      c.broken = true;
      break;
    }
    const ResultTuple* t = page_tuples(arena, p);
    for (std::uint32_t i = 0; i < n; ++i)
      c.output.checksum += result_hash(t[i].build_payload, t[i].probe_payload);
    c.output.tuples += n;
  }
  return c;
}

}  // namespace alloclab::join
