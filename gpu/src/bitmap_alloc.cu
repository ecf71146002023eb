// bitmap-alloc on the GPU: DynaSOAr's BitmapAlloc baseline (ECOOP'19 §6) as the step machine of
// core/dynasoar/bitmap_alloc.hpp (the simulator drives the same one) with device atomics: one
// hierarchical bitmap of T bits, bit p set = page p free; allocate is its clear() (try_find_set
// rotated by (seed + warp id) mod 64, try_clear, retried with the next seed), free is set(p).
// Every lane serves itself (the baseline has no coalescing). Out of memory: kMaxEmptyRounds
// rounds that found the top word empty, or --max-steps (null, counted as gave_up); a machine still
// running kDsStuckSteps steps past the bound is abandoned and counted (DsMisc::stuck), which fails
// verification.
//
// The pool: the bitmap built on the device from core/pool.hpp's permutation (level 0), its upper
// levels on the host (hbitmap_build_upper), and a pristine copy. After every phase the bitmap is
// copied back and checked on the host: Def. 1, and level 0 against the pages held (after the
// allocation kernel: the pristine free pages less those handed out; after the free: the pristine
// ones; between workload phases the free bits counted against the census).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "alloclab/core/dynasoar/alloc.hpp"
#include "alloclab/core/dynasoar/bitmap_alloc.hpp"
#include "alloclab/core/dynasoar/hbitmap_check.hpp"
#include "alloclab/core/errors.hpp"
#include "dynasoar_gpu.cuh"
#include "gpu_entry.cuh"
#include "ouro_atomics.cuh"
#include "pool_page_heap.cuh"

namespace alloclab::gpu::detail {
namespace {

using dynasoar::BitmapAllocOp;
using dynasoar::BitmapCounts;
using dynasoar::BitStatus;
using dynasoar::HBitmap;
namespace ba_count = dynasoar::ba_count;

struct BaView {
  HBitmap bitmap;  // device words
  DsMisc* misc = nullptr;
};

// Level 0 of the free bitmap, one thread per word: bit k of word j set = page 64 j + k (< T) free.
__global__ void free_words_kernel(std::uint64_t* out, std::uint64_t words, std::uint64_t T,
                                  std::uint64_t A, PagePermutation pi) {
  const std::uint64_t j = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (j >= words) return;
  std::uint64_t free_bits = 0;
  for (unsigned k = 0; k < 64; ++k) {
    const std::uint64_t p = 64 * j + k;
    if (p < T && initially_free(pi, p, A)) free_bits |= std::uint64_t{1} << k;
  }
  out[j] = free_bits;
}

class BaPool final : public PoolPolicy {
 public:
  using View = BaView;
  static void check(const Scenario&, const MeasureOptions&) {}
  BaPool(const Scenario& s, const MeasureOptions&, const KernelArgs& a)
      : name_(name(s.algo)),
        T_(a.T),
        A_(a.A),
        seed_(a.seed),
        words_(dynasoar::hb_total_words(a.T)),
        level0_(dynasoar::hb_level_words(a.T, 0)) {}
  View view() const { return {HBitmap{bitmap_.get(), T_}, misc_.get()}; }

  // The bitmap and its pristine copy, DsMisc.
  std::uint64_t device_bytes() const override { return 2 * words_ * 8 + sizeof(DsMisc); }
  const char* size_parameter() const override { return "--T"; }

  void set_up() override {
    bitmap_.resize(words_);
    pristine_.resize(words_);
    misc_.resize(1);
    free_words_kernel<<<blocks_for(level0_, 256), 256>>>(pristine_.get(), level0_, T_, A_,
                                                         PagePermutation(T_, seed_));
    ALLOCLAB_CUDA_LAUNCH();
    mirror_ = std::make_unique<dynasoar::HBitmapStorage>(T_);
    ALLOCLAB_CUDA(
        cudaMemcpy(mirror_->words.data(), pristine_.get(), level0_ * 8, cudaMemcpyDeviceToHost));
    dynasoar::hbitmap_build_upper(mirror_->bitmap);
    pristine_level0_.assign(mirror_->words.begin(), mirror_->words.begin() + level0_);
    if (free_bits() != A_)
      throw VerificationError(name_ + ": pool set-up: " + std::to_string(free_bits()) +
                              " free pages, expected A=" + std::to_string(A_));
    check_def1("at set-up");
    ALLOCLAB_CUDA(
        cudaMemcpy(pristine_.get(), mirror_->words.data(), words_ * 8, cudaMemcpyHostToDevice));
    reset();
  }
  void reset() override {
    ALLOCLAB_CUDA(cudaMemcpy(bitmap_.get(), pristine_.get(), words_ * 8, cudaMemcpyDeviceToDevice));
    const DsMisc misc{};
    ALLOCLAB_CUDA(cudaMemcpy(misc_.get(), &misc, sizeof misc, cudaMemcpyHostToDevice));
  }
  std::optional<std::uint64_t> pages_in_use() const override {
    copy_back("between phases");
    return A_ - free_bits();
  }
  void verify_allocated(const Allocation& run) const override {
    copy_back("after the allocation");
    std::vector<std::uint64_t> expect = pristine_level0_, served(run.taken);
    if (run.taken)
      ALLOCLAB_CUDA(cudaMemcpy(served.data(), run.sorted, run.taken * 8, cudaMemcpyDeviceToHost));
    for (const std::uint64_t p : served)
      if (p < T_) expect[p / 64] &= ~(std::uint64_t{1} << (p % 64));
    compare_level0(expect, "after the allocation (the pristine free pages less those served)");
  }
  void verify_freed(const Allocation&) const override {
    copy_back("after the free");
    compare_level0(pristine_level0_, "after the free (the pristine free pages)");
  }
  std::optional<std::vector<std::uint64_t>> free_pages() const override {
    copy_back("when listing the free pages");
    std::vector<std::uint64_t> out;
    for (std::uint64_t j = 0; j < level0_; ++j)
      for (std::uint64_t w = mirror_->words[j]; w != 0; w &= w - 1)
        out.push_back(64 * j + bits::count_trailing_zeros(w));
    return out;
  }
  std::vector<std::string> notes() const override {
    return {name_ +
            ": every run starts from the pristine bitmap; after every phase it is copied back "
            "and checked on the host (Def. 1, free bits against the pages held)"};
  }

 private:
  std::uint64_t free_bits() const {
    std::uint64_t n = 0;
    for (std::uint64_t j = 0; j < level0_; ++j) n += bits::popcount(mirror_->words[j]);
    return n;
  }
  void check_def1(const char* when) const {
    const std::string e = dynasoar::hbitmap_consistency_error(mirror_->bitmap);
    if (!e.empty()) throw VerificationError(name_ + ": " + e + " " + when);
  }
  // Copies the bitmap and DsMisc back; Def. 1 and no abandoned or broken operation.
  void copy_back(const char* when) const {
    ALLOCLAB_CUDA(
        cudaMemcpy(mirror_->words.data(), bitmap_.get(), words_ * 8, cudaMemcpyDeviceToHost));
    const DsMisc misc = read_scalar(misc_.get());
    if (misc.stuck)
      throw VerificationError(name_ + ": " + std::to_string(misc.stuck) +
                              " operations waited past the bound and were abandoned " + when);
    check_def1(when);
  }
  void compare_level0(const std::vector<std::uint64_t>& expect, const char* what) const {
    for (std::uint64_t j = 0; j < level0_; ++j)
      if (mirror_->words[j] != expect[j])
        throw VerificationError(name_ + ": the free bits of word " + std::to_string(j) +
                                " differ from the pages not in use " + what);
  }

  std::string name_;
  std::uint64_t T_, A_, seed_, words_, level0_;
  std::vector<std::uint64_t> pristine_level0_;
  mutable std::unique_ptr<dynasoar::HBitmapStorage> mirror_;
  DeviceBuffer<std::uint64_t> bitmap_, pristine_;
  DeviceBuffer<DsMisc> misc_;
};

// Runs the calling thread's `op` to its end within the bounds (a machine running kDsStuckSteps
// past --max-steps is abandoned and counted in `stuck`). The allocation kernel and the case
// studies' GETPAGE (BaPageTake) both serve requests through it.
__device__ __forceinline__ void ba_run_alloc(const BaView& v, BitmapAllocOp<DeviceAtomics>& op,
                                             BitmapCounts& c, std::uint64_t stuck_at) {
  std::uint32_t spins = 0;
  for (;;) {
    const BitStatus st = op.step(v.bitmap, c);
    if (st == BitStatus::done || op.finished()) break;
    if (op.steps() >= stuck_at) {
      count_add(&v.misc->stuck, 1ull);
      break;
    }
    if (st == BitStatus::spinning)
      ds_back_off(spins);
    else
      spins = 0;
  }
}

template <bool kCounters>
__global__ void __launch_bounds__(1024)
    ba_alloc_kernel(const __grid_constant__ KernelArgs a, const __grid_constant__ BaView v) {
  if (blockIdx.x == 0 && threadIdx.x == 0)
    take_free_counts<kCounters>(a, v.misc, ba_count::free_levels, 1);
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= a.N || !asks(a, i)) return;
  const std::uint64_t stuck_at = ds_stuck_at(a.max_steps);
  for (unsigned r = 0; r < a.per_thread; ++r) {
    BitmapAllocOp<DeviceAtomics> op(v.bitmap, static_cast<unsigned>(i / 32), ds_seed(a, i, r),
                                    dynasoar::kMaxEmptyRounds, a.max_steps);
    BitmapCounts c;
    ba_run_alloc(v, op, c, stuck_at);
    const bool served = op.finished() && op.result() != dynasoar::kNoBit;
    const std::uint32_t lost = c.try_clear_lost + c.clear_spins + c.set_spins;
    record_request<kCounters>(a, r, i, served ? static_cast<std::uint64_t>(op.result()) : kFailed,
                              ds_steps(op.steps()), lost, c.atomics);
    if constexpr (kCounters) {
      const std::uint32_t values[ba_count::kCounts] = {c.levels, c.find_fails, c.try_clear_lost,
                                                       served ? 0u : 1u, 0};
      record_op_counts<kCounters>(a, values);
    }
  }
}

// Frees every served request: set(p), its levels added to the next allocation launch's counts.
__global__ void ba_free_kernel(const __grid_constant__ KernelArgs a,
                               const __grid_constant__ BaView v) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= a.N * a.per_thread || a.page[i] == kFailed) return;
  // The page's last bytes before its free bit (BitmapAllocOp's acquire after a claim pairs with
  // it; the set itself is a plain BitOp, shared with DynaSOAr's block bitmaps).
  fence_release_device();
  dynasoar::BitOp<DeviceAtomics> op(dynasoar::BitOpKind::set, a.page[i]);
  BitmapCounts c;
  std::uint32_t spins = 0;
  for (std::uint64_t k = 0;; ++k) {
    if (k >= kDsStuckSteps) {
      count_add(&v.misc->stuck, 1ull);
      break;
    }
    const BitStatus st = op.step(v.bitmap, c);
    if (st == BitStatus::done) break;
    if (st == BitStatus::spinning) ds_back_off(spins);
  }
  count_add(&v.misc->free_counts[0], static_cast<unsigned long long>(c.levels));
}

void launch_ba_alloc(const KernelArgs& a, const BaView& v, bool counters) {
  if (counters)
    ba_alloc_kernel<true><<<blocks_for(a.N, a.block), a.block>>>(a, v);
  else
    ba_alloc_kernel<false><<<blocks_for(a.N, a.block), a.block>>>(a, v);
  ALLOCLAB_CUDA_LAUNCH();
}

void launch_ba_free(const KernelArgs& a, const BaView& v) {
  ba_free_kernel<<<blocks_for(a.N * a.per_thread, 256), 256>>>(a, v);
  ALLOCLAB_CUDA_LAUNCH();
}

KernelRegisters ba_registers(const KernelArgs&, const BaView&, bool counters) {
  return kernel_registers(counters, reinterpret_cast<const void*>(&ba_alloc_kernel<true>),
                          reinterpret_cast<const void*>(&ba_alloc_kernel<false>),
                          reinterpret_cast<const void*>(&ba_free_kernel));
}

// GETPAGE of the case studies (pool_page_heap.cuh): one bit of the object array (an object is a
// 256 B page), the search rotated by the thread's warp and seeded by its grid index.
struct BaPageTake {
  BaView view;
  KernelArgs args;
  static constexpr std::uint64_t kUnitBytes = join::kPageBytes;
  __device__ std::uint64_t take(std::uint32_t) const {
    const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
    BitmapAllocOp<DeviceAtomics> op(view.bitmap, static_cast<unsigned>(i / 32), ds_seed(args, i, 0),
                                    dynasoar::kMaxEmptyRounds, args.max_steps);
    BitmapCounts c;
    ba_run_alloc(view, op, c, ds_stuck_at(args.max_steps));
    const bool served = op.finished() && op.result() != dynasoar::kNoBit;
    return served ? static_cast<std::uint64_t>(op.result()) : kFailed;
  }
};

}  // namespace

ALLOCLAB_REGISTER_ENTRY(GpuTable, Algorithm::bitmap_alloc,
                        (gpu_entry(GpuTraits<BaPool>{.alloc = &launch_ba_alloc,
                                                     .free = &launch_ba_free,
                                                     .out_of_memory = OutOfMemory::exhausted,
                                                     .op_count_names = dynasoar::kBaCountNames,
                                                     .registers = &ba_registers})))

ALLOCLAB_REGISTER_ENTRY(PageHeapTable, Algorithm::bitmap_alloc,
                        (pool_page_heap_entry<BaPool, BaPageTake>()))

}  // namespace alloclab::gpu::detail
