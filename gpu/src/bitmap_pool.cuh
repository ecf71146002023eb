// Pool policy: a bitmap of w-bit words, one bit per page (1 = used), page p free iff pi(p) < A
// (core/pool.hpp); bits past T are used for good. The allocators whose words have w bits
// (Capabilities.bitmap_words: RW-BM, CoRW, RW_malloc) take --w in {32, 64}; RW keeps its one bit
// per page in 32-bit words whatever --w says.
#pragma once

#include <string>

#include "common.cuh"
#include "pool_policy.cuh"

namespace alloclab::gpu::detail {

// The kernels' view of the bitmap.
struct BitmapView {
  void* bitmap = nullptr;  // `words` words of w bits (uint32 or uint64)
  std::uint64_t words = 0;
  unsigned w = 32;
};

class BitmapPool final : public PoolPolicy {
 public:
  using View = BitmapView;
  static void check(const Scenario& s, const MeasureOptions& o);
  BitmapPool(const Scenario& s, const MeasureOptions& o, const KernelArgs& a);
  View view() const { return {bitmap_.get(), words_, w_}; }

  std::uint64_t device_bytes() const override;
  const char* size_parameter() const override { return "--T"; }
  void set_up() override;
  void reset() override;
  void verify_allocated(const Allocation& run) const override;
  void verify_freed(const Allocation& run) const override;
  std::optional<std::uint64_t> pages_in_use() const override {
    return used_bits(bitmap_.get()) - (words_ * w_ - A_);
  }
  std::optional<std::vector<std::uint64_t>> free_pages() const override;

 private:
  std::uint64_t used_bits(const void* bitmap) const;
  std::string name_;
  std::uint64_t T_, A_, seed_;
  unsigned w_;
  std::uint64_t words_;
  DeviceBuffer<unsigned char> bitmap_, pristine_;
};

// Frees the run of n pages from `page` (inside one word): one atomic AND. Every bitmap
// allocator's device-side free.
template <typename Word>
__device__ __forceinline__ void bitmap_free_run(const BitmapView& pool, std::uint64_t page,
                                                unsigned n) {
  constexpr unsigned w = sizeof(Word) * 8;
  const Word run = static_cast<Word>(bits::run_mask(static_cast<unsigned>(page % w), n));
  atomic_and_word(&static_cast<Word*>(pool.bitmap)[page / w], static_cast<Word>(~run));
}

// The free launch of every bitmap allocator (RW, RW-BM, CoRW, RW_malloc): clears the run of
// a.pages bits (one bit for one-page allocators) of every request served.
void launch_bitmap_free(const KernelArgs& a, const BitmapView& pool);
// Registers per thread of the kernel launch_bitmap_free runs for this pool.
int bitmap_free_registers(const BitmapView& pool);

}  // namespace alloclab::gpu::detail
