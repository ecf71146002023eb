// The hash join case study's entry points (alloclab/gpu/join.hpp) and its baseline, Direct Output
// (paper 000 §5.2.3: the original join's output buffer, a global atomic counter of pages, pages
// never freed). Every other allocator comes from the registry of page heaps
// (page_heap_entry.cuh), looked up by the name the user gave: nothing here names one.
#include <algorithm>

#include "join_input.hpp"
#include "join_probe.cuh"
#include "page_heap_entry.cuh"

namespace alloclab::gpu {
namespace detail {
namespace {

struct DirectTake {
  unsigned long long* next;  // the counter of pages handed out
  std::uint64_t pages;
  __device__ std::uint32_t take_page() const {
    const unsigned long long page = atomic_add_word(next, 1ull);
    return page < pages ? static_cast<std::uint32_t>(page) : join::kNoPage;
  }
};

class DirectOutput {
 public:
  explicit DirectOutput(const JoinOptions& o)
      : pages_(o.pages), arena_(o.pages * join::kPageBytes), next_(1) {}
  void reset() { ALLOCLAB_CUDA(cudaMemset(next_.get(), 0, next_.bytes())); }
  DirectTake device() const { return {next_.get(), pages_}; }
  unsigned char* arena() const { return arena_.get(); }
  std::int64_t pool_free_pages() const {
    const unsigned long long next = read_scalar(next_.get());
    return static_cast<std::int64_t>(pages_ - std::min<std::uint64_t>(next, pages_));
  }

 private:
  std::uint64_t pages_;
  DeviceBuffer<unsigned char> arena_;
  DeviceBuffer<unsigned long long> next_;
};

}  // namespace
}  // namespace detail

std::vector<std::string> join_allocators() {
  std::vector<std::string> out{kDirectOutput};
  for (Algorithm a : detail::PageHeapTable::instance().registered()) out.emplace_back(name(a));
  return out;
}

void check_join(const JoinOptions& o) {
  detail::check_join_input(o, join_allocators());
  if (o.allocator == kDirectOutput) return;
  // check_join_input found it in the table.
  const auto& entry = *detail::PageHeapTable::instance().find(*parse_algorithm(o.allocator));
  if (entry.check) entry.check(o);
}

JoinRun run_join(const JoinOptions& o, const join::JoinOutput& reference) {
  check_join(o);
  if (o.allocator == kDirectOutput)
    return detail::run_join_with<detail::DirectOutput>(o, reference);
  // check_join found it in the table.
  return detail::PageHeapTable::instance().find(*parse_algorithm(o.allocator))->join(o, reference);
}

}  // namespace alloclab::gpu
