// gg-ualloc's and gg-malloc's pool policy on the GPU (gg_ualloc_pool.cuh).
#include <algorithm>
#include <string>
#include <vector>

#include "alloclab/core/bit_tricks.hpp"
#include "alloclab/core/errors.hpp"
#include "alloclab/core/pool.hpp"
#include "cuda_check.cuh"
#include "gg_ualloc_pool.cuh"

namespace alloclab::gpu::detail {
namespace {

using gelado::kNoBin;
using gelado::kUAllocBitmapWords;
using gelado::kUAllocUnitsPerPage;

// Threads of an allocation block at most (--block): blocks of up to 512 run a kernel compiled
// for 512 (the step machines, UAlloc's with TBuddy's inside, use more registers than 1024 threads
// a block leave them), blocks of 1024 (Figure 7's paper setting) one compiled for 1024.
constexpr unsigned kMostThreads = 1024;

// A page holding any unit that is not free at the start is the application's: busy[p] = 1.
__global__ void busy_pages_kernel(std::uint8_t* busy, std::uint64_t T, std::uint64_t A,
                                  PagePermutation pi) {
  const std::uint64_t u = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (u < T && !initially_free(pi, u, A)) busy[u / kUAllocUnitsPerPage] = 1;
}

// The state's 32-bit and 64-bit arrays in their device order, and the view's pointers to them.
std::vector<std::vector<std::uint32_t>*> arrays32(gelado::UAllocStorage& h) {
  return {&h.buddy.nodes,   &h.heads,      &h.locks,       &h.chunk_heads,
          &h.chunk_locks,   &h.rcu_epoch,  &h.rcu_readers, &h.rcu_state,
          &h.rcu_callbacks, &h.chunk_next, &h.chunk_arena, &h.bin_count,
          &h.bin_next,      &h.bin_class,  &h.bin_arena,   &h.bin_rcu_next};
}
std::vector<std::uint32_t**> fields32(gelado::UAllocView& v) {
  return {&v.buddy.nodes,   &v.heads,      &v.locks,       &v.chunk_heads,
          &v.chunk_locks,   &v.rcu_epoch,  &v.rcu_readers, &v.rcu_state,
          &v.rcu_callbacks, &v.chunk_next, &v.chunk_arena, &v.bin_count,
          &v.bin_next,      &v.bin_class,  &v.bin_arena,   &v.bin_rcu_next};
}
std::vector<std::vector<std::uint64_t>*> arrays64(gelado::UAllocStorage& h) {
  return {&h.buddy.sems, &h.sems, &h.chunk_bins, &h.bin_bitmap};
}
std::vector<std::uint64_t**> fields64(gelado::UAllocView& v) {
  return {&v.buddy.sems, &v.sems, &v.chunk_bins, &v.bin_bitmap};
}
template <class T>
std::uint64_t total_length(const std::vector<std::vector<T>*>& arrays) {
  std::uint64_t n = 0;
  for (const auto* a : arrays) n += a->size();
  return n;
}

std::uint32_t device_sm_count() {
  int device = 0, sms = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
      sms <= 0) {
    (void)cudaGetLastError();
    return gelado::kUAllocMostArenas;  // an H100 or H200 SXM, as the simulator assumes
  }
  return static_cast<std::uint32_t>(sms);
}

}  // namespace

void UAllocPool::check_input(const Scenario& s, const MeasureOptions& o, bool with_malloc) {
  gelado::check_ualloc_input(s, o.arenas, o.chunk_bins, {},
                             std::min<std::uint64_t>(s.N * o.per_thread, kMostResidentThreads),
                             with_malloc);
  if (o.block > kMostThreads)
    throw InputError("--block", std::string(with_malloc ? "gg-malloc" : "gg-ualloc") +
                                    "'s kernel is compiled for at most " +
                                    std::to_string(kMostThreads) + " threads per block");
}

UAllocPool::UAllocPool(const Scenario&, const MeasureOptions& o, const KernelArgs& a,
                       bool with_malloc)
    : T_(a.T),
      A_(a.A),
      seed_(a.seed),
      with_malloc_(with_malloc),
      collective_(!o.single_chunk_mutex),
      fenced_(o.gg_fenced),
      warp_waits_(!o.gg_thread_waits),
      height_(gelado::ualloc_height_of(a.T)),
      chunk_order_(gelado::ualloc_chunk_order(o.chunk_bins)),
      sms_(device_sm_count()) {
  if (o.arenas > sms_)
    throw InputError("--arenas", who() + " has one arena per SM; this device has " +
                                     std::to_string(sms_) + " SMs, got " +
                                     std::to_string(o.arenas));
  // One arena per SM, as the paper (§4.2). An arena whose list and chunk list are empty grows
  // from TBuddy; it never takes another arena's bins, so on a small pool some requests fail while
  // other arenas hold free slots (studies/gelado-garland/speed.md). The previous default,
  // clamp(chunks / 8, 1, SMs), is --arenas with that number.
  arenas_ = o.arenas ? o.arenas : sms_;
}

UAllocGpuView UAllocPool::view() const {
  UAllocGpuView v;
  v.with_malloc = with_malloc_;
  v.collective = collective_;
  v.fenced = fenced_;
  v.warp_waits = warp_waits_;
  v.words = pool_words_.get();
  v.big_units = big_units_.get();
  if (!host_) return v;
  v.u = host_->view;  // height, chunk order, arenas; the pointers replaced by the device's
  std::uint32_t* at32 = words32_.get();
  const auto a32 = arrays32(*host_);
  const auto f32 = fields32(v.u);
  for (std::size_t j = 0; j < a32.size(); ++j) {
    *f32[j] = at32;
    at32 += a32[j]->size();
  }
  std::uint64_t* at64 = words64_.get();
  const auto a64 = arrays64(*host_);
  const auto f64 = fields64(v.u);
  for (std::size_t j = 0; j < a64.size(); ++j) {
    *f64[j] = at64;
    at64 += a64[j]->size();
  }
  return v;
}

std::uint64_t UAllocPool::device_bytes() const {
  const std::uint64_t nodes = std::uint64_t{2} << height_, lists = std::uint64_t{arenas_} * 8;
  const std::uint64_t words32 = nodes + 2 * lists + 6 * arenas_ + 2 * chunks() + 5 * bins();
  const std::uint64_t words64 = height_ + 1 + lists + 2 * chunks() + kUAllocBitmapWords * bins();
  const std::uint64_t pages = std::uint64_t{1} << height_;
  // Working and pristine copies, the malloc marks, the words beside, the set-up's scratch.
  return 2 * (4 * words32 + 8 * words64) + 4 * pages + sizeof(UAllocPoolWords) + pages;
}

void UAllocPool::set_up() {
  std::vector<std::uint8_t> busy;
  if (A_ < T_) {
    DeviceBuffer<std::uint8_t> d(std::size_t{1} << height_);
    ALLOCLAB_CUDA(cudaMemset(d.get(), 0, d.bytes()));
    busy_pages_kernel<<<blocks_for(T_, 256), 256>>>(d.get(), T_, A_, PagePermutation(T_, seed_));
    ALLOCLAB_CUDA_LAUNCH();
    busy.resize(d.size());
    ALLOCLAB_CUDA(cudaMemcpy(busy.data(), d.get(), d.bytes(), cudaMemcpyDeviceToHost));
  }
  host_ = std::make_unique<gelado::UAllocStorage>(height_, chunk_order_, arenas_);
  application_ = gelado::ualloc_build_tree(host_->buddy.tree, T_, busy);
  marks_.assign(std::size_t{1} << height_, 0);
  check_at_rest("when it was built");
  const auto a32 = arrays32(*host_);
  const auto a64 = arrays64(*host_);
  words32_.resize(total_length(a32));
  pristine32_.resize(words32_.size());
  words64_.resize(total_length(a64));
  pristine64_.resize(words64_.size());
  std::uint64_t at = 0;
  for (const auto* a : a32) {
    ALLOCLAB_CUDA(
        cudaMemcpy(pristine32_.get() + at, a->data(), a->size() * 4, cudaMemcpyHostToDevice));
    at += a->size();
  }
  at = 0;
  for (const auto* a : a64) {
    ALLOCLAB_CUDA(
        cudaMemcpy(pristine64_.get() + at, a->data(), a->size() * 8, cudaMemcpyHostToDevice));
    at += a->size();
  }
  big_units_.resize(marks_.size());
  pool_words_.resize(1);
  reset();
}

void UAllocPool::reset() {
  ALLOCLAB_CUDA(
      cudaMemcpy(words32_.get(), pristine32_.get(), words32_.bytes(), cudaMemcpyDeviceToDevice));
  ALLOCLAB_CUDA(
      cudaMemcpy(words64_.get(), pristine64_.get(), words64_.bytes(), cudaMemcpyDeviceToDevice));
  ALLOCLAB_CUDA(cudaMemset(big_units_.get(), 0, big_units_.bytes()));
  const UAllocPoolWords zero{};
  ALLOCLAB_CUDA(cudaMemcpy(pool_words_.get(), &zero, sizeof zero, cudaMemcpyHostToDevice));
}

void UAllocPool::download(const std::string& when) const {
  ALLOCLAB_CUDA(cudaDeviceSynchronize());
  UAllocPoolWords words;
  ALLOCLAB_CUDA(cudaMemcpy(&words, pool_words_.get(), sizeof words, cudaMemcpyDeviceToHost));
  if (words.stuck)
    throw VerificationError(who() + ": " + std::to_string(words.stuck) +
                            " operations spun past their bound " + when);
  fast_failures_ = std::max<std::uint64_t>(fast_failures_, words.oom_fast);
  if (words.bad)
    throw VerificationError(who() + ": " + std::to_string(words.bad) +
                            " operations saw a defect (a semaphore overflowed, over two TBuddy "
                            "locks held, a free refused or a malloc block unmarked) " +
                            when);
  std::uint64_t at = 0;
  for (auto* a : arrays32(*host_)) {
    ALLOCLAB_CUDA(
        cudaMemcpy(a->data(), words32_.get() + at, a->size() * 4, cudaMemcpyDeviceToHost));
    at += a->size();
  }
  at = 0;
  for (auto* a : arrays64(*host_)) {
    ALLOCLAB_CUDA(
        cudaMemcpy(a->data(), words64_.get() + at, a->size() * 8, cudaMemcpyDeviceToHost));
    at += a->size();
  }
  ALLOCLAB_CUDA(
      cudaMemcpy(marks_.data(), big_units_.get(), big_units_.bytes(), cudaMemcpyDeviceToHost));
}

void UAllocPool::check_at_rest(const std::string& when) const {
  const gelado::UAllocView& v = host_->view;
  std::string e = gelado::ualloc_check(v, chunks());
  if (e.empty()) {
    std::vector<std::uint32_t> held = application_;
    for (std::uint64_t c = 0; c < chunks(); ++c)
      if (v.chunk_arena[c] != kNoBin)
        held.push_back(
            gelado::tb_node(height_, static_cast<std::uint32_t>(c << chunk_order_), chunk_order_));
    for (std::uint64_t p = 0; p < marks_.size(); ++p)
      if (marks_[p]) {
        if (!with_malloc_) {
          e = "page " + std::to_string(p) + " holds a malloc block";
          break;
        }
        held.push_back(gelado::tb_node(height_, static_cast<std::uint32_t>(p),
                                       gelado::ualloc_big_order(marks_[p])));
      }
    if (e.empty()) e = gelado::tbuddy_check(v.buddy, held);
  }
  if (!e.empty()) throw VerificationError(who() + ": " + e + " " + when);
}

std::uint64_t UAllocPool::live_slots(std::uint32_t g) const {
  const gelado::UAllocView& v = host_->view;
  const std::uint32_t k = v.bin_class[g];
  if (k >= gelado::kUAllocClasses) return 0;
  const std::uint32_t slots = gelado::ualloc_slots(k, g & (v.bins_per_chunk() - 1));
  std::uint64_t n = 0;
  for (std::uint32_t w = 0; w < kUAllocBitmapWords; ++w)
    n += bits::popcount(v.bin_bitmap[std::uint64_t{g} * kUAllocBitmapWords + w] &
                        ~gelado::ualloc_fresh_bitmap_word(slots, w));
  return n;
}

std::optional<std::uint64_t> UAllocPool::pages_in_use() const {
  const std::string when = "between phases";
  download(when);
  check_at_rest(when);
  const gelado::UAllocView& v = host_->view;
  std::uint64_t units = 0;
  for (std::uint64_t g = 0; g < bins(); ++g)
    if (v.bin_class[g] < gelado::kUAllocClasses)
      units += live_slots(static_cast<std::uint32_t>(g)) *
               (gelado::ualloc_class_bytes(v.bin_class[g]) / gelado::kUAllocUnitBytes);
  for (const std::uint32_t m : marks_) units += m;
  return units;
}

void UAllocPool::verify_allocated(const Allocation& run) const {
  const std::string when = "after the allocation";
  download(when);
  check_at_rest(when);
  const gelado::UAllocView& v = host_->view;
  std::vector<std::uint64_t> units(run.requests);
  if (run.requests)
    ALLOCLAB_CUDA(cudaMemcpy(units.data(), run.sorted, run.requests * 8, cudaMemcpyDeviceToHost));
  const std::uint64_t bytes = gelado::ualloc_request_bytes(run.pages);
  const bool big = bytes > gelado::kUAllocMaxBytes;
  const std::uint32_t k = big ? 0 : gelado::ualloc_class_of(static_cast<std::uint32_t>(bytes));
  // Each bin's objects and the malloc blocks from the results handed out, independent of the
  // bitmaps and the marks, which must agree with them exactly (nothing lost, nothing extra).
  std::vector<std::uint32_t> live(bins(), 0);
  std::uint64_t served = 0, blocks = 0;
  for (const std::uint64_t u : units) {
    if (u == kFailed) continue;
    ++served;
    const std::uint64_t off = u * gelado::kUAllocUnitBytes;
    const std::string at = who() + ": unit " + std::to_string(u);
    if (off % gelado::kUAllocBinBytes == 0) {  // free()'s dispatch: TBuddy's memory
      const std::uint64_t page = off / gelado::kUAllocBinBytes;
      if (!big || page >= marks_.size() || marks_[page] != run.pages ||
          page % (std::uint64_t{1} << gelado::ualloc_big_order(run.pages)) != 0)
        throw VerificationError(at + " is page-aligned but not a malloc block of " +
                                std::to_string(run.pages) + " units " + when);
      ++blocks;
      continue;
    }
    const std::uint64_t c = off / v.chunk_bytes(), in_chunk = off % v.chunk_bytes();
    if (big || c >= chunks() || v.chunk_arena[c] == kNoBin ||
        in_chunk % gelado::kUAllocBinBytes < gelado::kUAllocHeaderBytes)
      throw VerificationError(at + " is not in a bin of a chunk taken " + when);
    const gelado::UAllocPlace place = gelado::ualloc_place(static_cast<std::uint32_t>(in_chunk));
    const std::uint64_t g = (c << chunk_order_) + place.bin;
    const std::uint32_t j = gelado::ualloc_slot_of(place, k);
    if (v.bin_class[g] != k || j >= gelado::ualloc_slots(k, place.bin) ||
        !((v.bin_bitmap[g * kUAllocBitmapWords + j / 64] >> (j % 64)) & 1u))
      throw VerificationError(at + " is not a slot in use of a bin of " +
                              std::to_string(gelado::ualloc_class_bytes(k)) + " B " + when);
    ++live[g];
  }
  if (served != run.taken)
    throw VerificationError(who() + ": " + std::to_string(served) + " objects in the results, " +
                            std::to_string(run.taken) + " requests served " + when);
  for (std::uint64_t g = 0; g < bins(); ++g)
    if (live_slots(static_cast<std::uint32_t>(g)) != live[g])
      throw VerificationError(who() + ": bin " + std::to_string(g % (1u << chunk_order_)) +
                              " of chunk " + std::to_string(g >> chunk_order_) + " has " +
                              std::to_string(live_slots(static_cast<std::uint32_t>(g))) +
                              " slots in use, the results " + std::to_string(live[g]) + " " + when);
  const auto marked = static_cast<std::uint64_t>(
      std::count_if(marks_.begin(), marks_.end(), [](std::uint32_t m) { return m != 0; }));
  if (marked != blocks)
    throw VerificationError(who() + ": " + std::to_string(marked) + " malloc blocks marked, " +
                            std::to_string(blocks) + " in the results " + when);
}

void UAllocPool::verify_freed(const Allocation&) const {
  const std::string when = "after the free";
  download(when);
  check_at_rest(when);
  for (std::uint64_t g = 0; g < bins(); ++g)
    if (live_slots(static_cast<std::uint32_t>(g)) != 0)
      throw VerificationError(who() + ": bin " + std::to_string(g % (1u << chunk_order_)) +
                              " of chunk " + std::to_string(g >> chunk_order_) +
                              " still has slots in use " + when);
  for (const std::uint32_t m : marks_)
    if (m) throw VerificationError(who() + ": a malloc block is still marked " + when);
}

std::vector<std::string> UAllocPool::notes() const {
  return {who() + ": " + std::to_string(arenas_) + " arenas (a thread uses the arena of its SM " +
          "modulo the count; " + std::to_string(sms_) + " SMs), chunks of " +
          std::to_string(1u << chunk_order_) + " bins, " + std::to_string(chunks()) +
          " chunks in the pool; the chunk mutex " +
          (collective_ ? "taken once for a warp's waiting growers (--chunk-mutex collective)"
                       : "taken by each grower alone (--chunk-mutex single)") +
          "; semaphore waits " +
          (warp_waits_ ? "once per warp's lanes of a class (--gg-wait warp)"
                       : "per thread (--gg-wait thread)") +
          "; memory order " + (fenced_ ? "fenced (--gg-order fenced)" : "acquire/release") +
          "; requests failed on the sticky out-of-memory mark without a TBuddy walk: " +
          std::to_string(fast_failures_) + " in a run at most" +
          "; pages are 8 B units; every run starts from the pristine pool; "
          "frees are not in the timed kernel's counts (free_* counts: the frees since the last "
          "counted allocation launch)"};
}

}  // namespace alloclab::gpu::detail
