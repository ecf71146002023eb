// The DynaSOAr heap on the device and its checks on the host (dynasoar_pool.cuh).
#include <algorithm>
#include <string>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/pool.hpp"
#include "dynasoar_pool.cuh"

namespace alloclab::gpu::detail {
namespace {

// Block b's application pages (used at the start, core/pool.hpp's permutation), one thread per
// block: bit k set = page 64 b + k (< T) is not free.
__global__ void app_words_kernel(std::uint64_t* out, std::uint64_t blocks, std::uint64_t T,
                                 std::uint64_t A, PagePermutation pi) {
  const std::uint64_t b = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (b >= blocks) return;
  std::uint64_t used = 0;
  for (unsigned k = 0; k < 64; ++k) {
    const std::uint64_t p = 64 * b + k;
    if (p < T && !initially_free(pi, p, A)) used |= std::uint64_t{1} << k;
  }
  out[b] = used;
}

template <class T>
void upload(T* device, const std::vector<T>& host) {
  ALLOCLAB_CUDA(cudaMemcpy(device, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
}
template <class T>
void download(std::vector<T>& host, const T* device) {
  ALLOCLAB_CUDA(cudaMemcpy(host.data(), device, host.size() * sizeof(T), cudaMemcpyDeviceToHost));
}

}  // namespace

void DsHeapPool::check(const Scenario& s, const MeasureOptions&) {
  if (s.T < 64)
    throw InputError("--T", "dynasoar's heap is blocks of 64 pages (the smallest type's slots): " +
                                std::to_string(s.T) + " pages are less than one block");
  if (s.pages < 1 || s.pages > dynasoar::kMaxTypePages)
    throw InputError("--pages",
                     "dynasoar's types are 1 to 64 pages (a page is the smallest type; §3.2: at "
                     "most 64 times the smallest); got " +
                         std::to_string(s.pages));
}

DsHeapPool::DsHeapPool(const Scenario& s, const MeasureOptions&, const KernelArgs& a)
    : name_(name(s.algo)),
      T_(a.T),
      A_(a.A),
      seed_(a.seed),
      M_(dynasoar::heap_blocks(a.T)),
      free_words_(dynasoar::hb_total_words(M_)),
      type_words_(dynasoar::heap_type_words(M_)) {}

DsHeapView DsHeapPool::view() const {
  DsHeapView v;
  std::uint64_t* w = words_.get();
  v.heap = dynasoar::Heap{M_, T_, w, w + free_words_, w + free_words_ + type_words_, types_.get()};
  v.misc = misc_.get();
  return v;
}

// The heap and its pristine copy (the bitmaps, a bitmap and a type per block), DsMisc, and the
// set-up's application words.
std::uint64_t DsHeapPool::device_bytes() const {
  return 2 * ((free_words_ + type_words_ + M_) * 8 + M_ * 4) + sizeof(DsMisc) + M_ * 8;
}

void DsHeapPool::set_up() {
  app_words_.assign(M_, 0);
  if (A_ < T_) {
    DeviceBuffer<std::uint64_t> app(M_);
    app_words_kernel<<<blocks_for(M_, 256), 256>>>(app.get(), M_, T_, A_,
                                                   PagePermutation(T_, seed_));
    ALLOCLAB_CUDA_LAUNCH();
    download(app_words_, app.get());
  }
  app_pages_ = 0;
  for (const std::uint64_t w : app_words_) app_pages_ += bits::popcount(w);
  if (T_ - app_pages_ != A_)
    throw VerificationError(name_ + ": pool set-up: " + std::to_string(T_ - app_pages_) +
                            " free pages, expected A=" + std::to_string(A_));
  mirror_ = std::make_unique<dynasoar::HeapStorage>(T_, app_words_);
  check_heap([this](std::uint64_t p) { return app_page(p); }, "at set-up");
  words_.resize(free_words_ + type_words_ + M_);
  pristine_words_.resize(words_.size());
  types_.resize(M_);
  pristine_types_.resize(M_);
  misc_.resize(1);
  std::uint64_t* w = pristine_words_.get();
  upload(w, mirror_->free_words);
  upload(w + free_words_, mirror_->type_words);
  upload(w + free_words_ + type_words_, mirror_->slots);
  upload(pristine_types_.get(), mirror_->types);
  reset();
}

void DsHeapPool::reset() {
  ALLOCLAB_CUDA(
      cudaMemcpy(words_.get(), pristine_words_.get(), words_.bytes(), cudaMemcpyDeviceToDevice));
  ALLOCLAB_CUDA(
      cudaMemcpy(types_.get(), pristine_types_.get(), types_.bytes(), cudaMemcpyDeviceToDevice));
  const DsMisc misc{};
  ALLOCLAB_CUDA(cudaMemcpy(misc_.get(), &misc, sizeof misc, cudaMemcpyHostToDevice));
}

void DsHeapPool::copy_back(const char* when) const {
  const std::uint64_t* w = words_.get();
  ALLOCLAB_CUDA(cudaMemcpy(mirror_->free_words.data(), w, free_words_ * 8, cudaMemcpyDeviceToHost));
  ALLOCLAB_CUDA(cudaMemcpy(mirror_->type_words.data(), w + free_words_, type_words_ * 8,
                           cudaMemcpyDeviceToHost));
  ALLOCLAB_CUDA(cudaMemcpy(mirror_->slots.data(), w + free_words_ + type_words_, M_ * 8,
                           cudaMemcpyDeviceToHost));
  download(mirror_->types, types_.get());
  const DsMisc misc = read_scalar(misc_.get());
  if (misc.stuck)
    throw VerificationError(name_ + ": " + std::to_string(misc.stuck) +
                            " operations waited past the bound and were abandoned " + when);
  if (misc.broken)
    throw VerificationError(name_ + ": " + std::to_string(misc.broken) +
                            " frees or rollbacks found their slot's bit clear " + when);
}

template <class Live>
void DsHeapPool::check_heap(Live live, const char* when) const {
  const std::string e = mirror_->check(live);
  if (!e.empty()) throw VerificationError(name_ + ": " + e + " " + when);
}

std::optional<std::uint64_t> DsHeapPool::pages_in_use() const {
  copy_back("between phases");
  const dynasoar::HeapStorage& h = *mirror_;
  // The slots each block's bitmap holds are its live objects (the pool does not know them).
  check_heap(
      [&h](std::uint64_t p) {
        const std::uint64_t b = p / 64;
        return (h.slots[b] >> ((p % 64) / h.types[b])) & 1u;
      },
      "between phases");
  std::uint64_t held = 0;
  for (std::uint64_t b = 0; b < M_; ++b) {
    const bool is_free = (h.heap.free().word(0, b / 64) >> (b % 64)) & 1u;
    if (is_free) continue;
    const unsigned n = h.types[b];
    held += std::uint64_t{bits::popcount(h.slots[b] & ~dynasoar::preset_mask(n, b, T_))} * n;
  }
  return held - app_pages_;
}

void DsHeapPool::verify_allocated(const Allocation& run) const {
  copy_back("after the allocation");
  std::vector<std::uint64_t> served(run.taken), first(M_, 0);
  if (run.taken) download(served, run.sorted);  // the served requests sort first
  for (const std::uint64_t p : served)
    if (p < T_) first[p / 64] |= std::uint64_t{1} << (p % 64);
  check_heap([&](std::uint64_t p) { return app_page(p) || ((first[p / 64] >> (p % 64)) & 1u); },
             "after the allocation");
}

void DsHeapPool::verify_freed(const Allocation&) const {
  copy_back("after the free");
  check_heap([this](std::uint64_t p) { return app_page(p); }, "after the free");
}

// Pages covered by no object (the application's or a request's): a free block's, and in a block
// of type n those of its clear slots and past its last slot.
std::optional<std::vector<std::uint64_t>> DsHeapPool::free_pages() const {
  copy_back("when listing the free pages");
  const dynasoar::HeapStorage& h = *mirror_;
  std::vector<std::uint64_t> out;
  for (std::uint64_t b = 0; b < M_; ++b) {
    const std::uint64_t end = std::min<std::uint64_t>(64 * b + 64, T_);
    const bool is_free = (h.heap.free().word(0, b / 64) >> (b % 64)) & 1u;
    const unsigned n = h.types[b];
    for (std::uint64_t p = 64 * b; p < end; ++p) {
      const unsigned k = static_cast<unsigned>((p % 64) / (is_free ? 1 : n));
      const bool covered =
          !is_free && k < dynasoar::valid_slots(n, b, T_) && ((h.slots[b] >> k) & 1u);
      if (!covered) out.push_back(p);
    }
  }
  return out;
}

std::vector<std::string> DsHeapPool::notes() const {
  return {name_ +
          ": every run starts from the pristine heap (the pool's used pages are objects of the "
          "smallest type); after every phase the heap is copied back and checked on the host "
          "(Def. 1 in every block bitmap, each block's state against its bitmap)"};
}

}  // namespace alloclab::gpu::detail
