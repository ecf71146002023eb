// gallatin's pool policy on the GPU (gallatin_pool.cuh).
#include <algorithm>
#include <string>
#include <vector>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/gallatin/large.hpp"
#include "alloclab/core/gallatin/veb_tree.hpp"
#include "alloclab/core/pool.hpp"
#include "cuda_check.cuh"
#include "gallatin_host_state.hpp"
#include "gallatin_pool.cuh"

namespace alloclab::gpu::detail {
namespace {

using gallatin::kSizeClasses;

// A segment holding any unit that is not free at the start is the application's (as in the
// simulator): app[s] = 1.
__global__ void app_segments_kernel(std::uint8_t* app, std::uint64_t T, std::uint64_t A,
                                    PagePermutation pi) {
  const std::uint64_t u = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (u < T && !initially_free(pi, u, A)) app[u / kGallatinUnitsPerSegment] = 1;
}

// The 32-bit arrays of the state in their device order, with their lengths.
struct Array32 {
  std::vector<std::uint32_t>* host;
  std::uint64_t length;
};
std::vector<Array32> arrays32(gallatin::StateStorage& h) {
  return {{&h.tree_id, h.tree_id.size()},
          {&h.available, h.available.size()},
          {&h.head, h.head.size()},
          {&h.tail, h.tail.size()},
          {&h.ring, h.ring.size()},
          {&h.malloc_ctr, h.malloc_ctr.size()},
          {&h.free_ctr, h.free_ctr.size()},
          {&h.buffer, h.buffer.size()},
          {&h.formatting, h.formatting.size()}};
}

std::uint32_t device_sm_count() {
  int device = 0, sms = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
      sms <= 0) {
    (void)cudaGetLastError();
    return 132;  // an H100 or H200 SXM, as the simulator assumes
  }
  return static_cast<std::uint32_t>(sms);
}

}  // namespace

void GallatinPool::check(const Scenario& s, const MeasureOptions&) {
  if (s.T < kGallatinUnitsPerSegment || s.T % kGallatinUnitsPerSegment != 0)
    throw InputError("--T", "gallatin's pool is a whole number of 16 MiB segments (" +
                                std::to_string(kGallatinUnitsPerSegment) +
                                " pages of 16 B each); got " + std::to_string(s.T) + " pages");
  // A block's id + 1 is a 32-bit word: 256 block slots per segment.
  if (s.T / kGallatinUnitsPerSegment > (std::uint64_t{1} << 24))
    throw InputError("--T", "gallatin holds at most 2^24 segments (256 TiB); got " +
                                std::to_string(s.T / kGallatinUnitsPerSegment));
  if (s.pages < 1 || s.pages > s.T)
    throw InputError("--pages", "gallatin serves requests of 1 unit (16 B) up to the pool (" +
                                    std::to_string(s.T) + " units); got " +
                                    std::to_string(s.pages) + " units");
  gallatin::Geometry g;
  g.segments = static_cast<std::uint32_t>(s.T / kGallatinUnitsPerSegment);
  const gallatin::Route r = gallatin::route_of(std::uint64_t{s.pages} * kGallatinUnitBytes, g);
  if (gallatin::route_bytes(r, g) > g.pool_bytes())
    throw InputError("--pages", "gallatin takes " + std::to_string(r.count) +
                                    " segments for a request of " + std::to_string(s.pages) +
                                    " units, more than the pool's " + std::to_string(g.segments));
}

GallatinPool::GallatinPool(const Scenario& s, const MeasureOptions&, const KernelArgs& a)
    : T_(a.T),
      A_(a.A),
      seed_(a.seed),
      run_class_(gallatin::preboot_class(
          gallatin::route_of(std::uint64_t{s.pages} * kGallatinUnitBytes, gallatin::Geometry{}))),
      large_run_(s.pages > gallatin::kMaxSliceBytes / kGallatinUnitBytes),
      sms_(device_sm_count()) {
  g_.segments = static_cast<std::uint32_t>(T_ / kGallatinUnitsPerSegment);
  tree_words_ = gallatin::veb_total_words(g_.segments, gallatin::veb_levels_paper(g_.segments));
}

GallatinView GallatinPool::view() const {
  GallatinView v;
  v.words = pool_words_.get();
  v.fill = fill_.get();
  if (!host_) return v;
  v.st = host_->st;  // geometry, tree layouts, slots; the pointers replaced by the device's
  v.st.segment_tree.words = words64_.get();
  for (unsigned k = 0; k < kSizeClasses; ++k)
    v.st.block_trees[k].words = words64_.get() + (k + 1) * tree_words_;
  std::uint32_t* at = words32_.get();
  std::uint32_t** fields[] = {&v.st.tree_id,  &v.st.available, &v.st.head,
                              &v.st.tail,     &v.st.ring,      &v.st.malloc_ctr,
                              &v.st.free_ctr, &v.st.buffer,    &v.st.formatting};
  const auto arrays = arrays32(*host_);
  for (std::size_t j = 0; j < arrays.size(); ++j) {
    *fields[j] = at;
    at += arrays[j].length;
  }
  return v;
}

std::uint64_t GallatinPool::device_bytes() const {
  const std::uint64_t segments = g_.segments;
  std::uint32_t slots = 0;
  for (unsigned k = 0; k < kSizeClasses; ++k) slots += gallatin::buffer_slots(sms_, k);
  const std::uint64_t words32 = 4 * segments + 3 * segments * g_.max_blocks() + slots + 1;
  // Working and pristine copies, the words beside, the set-up's scratch.
  return 2 * (8 * (kSizeClasses + 1) * tree_words_ + 4 * words32) + sizeof(GallatinPoolWords) +
         4 * slots + segments;
}

void GallatinPool::set_up() {
  std::vector<std::uint8_t> app_segment;
  if (A_ < T_) {
    DeviceBuffer<std::uint8_t> app(g_.segments);
    ALLOCLAB_CUDA(cudaMemset(app.get(), 0, app.bytes()));
    app_segments_kernel<<<blocks_for(T_, 256), 256>>>(app.get(), T_, A_,
                                                      PagePermutation(T_, seed_));
    ALLOCLAB_CUDA_LAUNCH();
    app_segment.resize(g_.segments);
    ALLOCLAB_CUDA(cudaMemcpy(app_segment.data(), app.get(), app.bytes(), cudaMemcpyDeviceToHost));
  }
  preboot_ = {};
  host_ = gallatin_pristine_state(g_, sms_, app_segment, run_class_, preboot_);
  words64_.resize((kSizeClasses + 1) * tree_words_);
  pristine64_.resize(words64_.size());
  ALLOCLAB_CUDA(cudaMemcpy(pristine64_.get(), host_->segment_words.data(), tree_words_ * 8,
                           cudaMemcpyHostToDevice));
  for (unsigned k = 0; k < kSizeClasses; ++k)
    ALLOCLAB_CUDA(cudaMemcpy(pristine64_.get() + (k + 1) * tree_words_,
                             host_->block_words[k].data(), tree_words_ * 8,
                             cudaMemcpyHostToDevice));
  std::uint64_t total = 0;
  for (const auto& a : arrays32(*host_)) total += a.length;
  words32_.resize(total);
  pristine32_.resize(total);
  std::uint64_t at = 0;
  for (const auto& a : arrays32(*host_)) {
    ALLOCLAB_CUDA(
        cudaMemcpy(pristine32_.get() + at, a.host->data(), a.length * 4, cudaMemcpyHostToDevice));
    at += a.length;
  }
  pool_words_.resize(1);
  fill_.resize(host_->buffer.size());
  // The pristine state must pass the structural check (nothing live) and its pre-boot must
  // have met no bound.
  if (preboot_.stuck) throw VerificationError("gallatin: the pre-boot reached a bound");
  check_at_rest(std::vector<std::uint32_t>(host_->malloc_ctr.size(), 0), "when it was built");
}

void GallatinPool::reset() {
  ALLOCLAB_CUDA(
      cudaMemcpy(words64_.get(), pristine64_.get(), words64_.bytes(), cudaMemcpyDeviceToDevice));
  ALLOCLAB_CUDA(
      cudaMemcpy(words32_.get(), pristine32_.get(), words32_.bytes(), cudaMemcpyDeviceToDevice));
  const GallatinPoolWords zero{};
  ALLOCLAB_CUDA(cudaMemcpy(pool_words_.get(), &zero, sizeof zero, cudaMemcpyHostToDevice));
  ALLOCLAB_CUDA(cudaMemset(fill_.get(), 0, fill_.bytes()));
}

void GallatinPool::download(const std::string& when) const {
  ALLOCLAB_CUDA(cudaDeviceSynchronize());
  GallatinPoolWords words;
  ALLOCLAB_CUDA(cudaMemcpy(&words, pool_words_.get(), sizeof words, cudaMemcpyDeviceToHost));
  if (words.stuck)
    throw VerificationError("gallatin: " + std::to_string(words.stuck) +
                            " waits reached their bound " + when);
  ALLOCLAB_CUDA(cudaMemcpy(host_->segment_words.data(), words64_.get(), tree_words_ * 8,
                           cudaMemcpyDeviceToHost));
  for (unsigned k = 0; k < kSizeClasses; ++k)
    ALLOCLAB_CUDA(cudaMemcpy(host_->block_words[k].data(), words64_.get() + (k + 1) * tree_words_,
                             tree_words_ * 8, cudaMemcpyDeviceToHost));
  std::uint64_t at = 0;
  for (const auto& a : arrays32(*host_)) {
    ALLOCLAB_CUDA(
        cudaMemcpy(a.host->data(), words32_.get() + at, a.length * 4, cudaMemcpyDeviceToHost));
    at += a.length;
  }
}

std::vector<std::uint32_t> GallatinPool::live_from_counters(const std::string& when) const {
  const gallatin::StateStorage& h = *host_;
  std::vector<std::uint32_t> live(h.malloc_ctr.size(), 0);
  for (std::uint32_t s = 0; s < g_.segments; ++s) {
    const std::uint32_t k = h.tree_id[s];
    if (k >= kSizeClasses) continue;
    for (std::uint32_t b = 0; b < g_.blocks_per_segment(k); ++b) {
      const std::uint64_t id = g_.block_id(s, b);
      const std::uint32_t m = h.malloc_ctr[id];
      if ((m >> gallatin::kClassShift) != k) continue;  // idle, in its segment's ring
      const std::uint32_t handed = std::min(m & gallatin::kCountMask, g_.slices_per_block);
      if (h.free_ctr[id] > handed)
        throw VerificationError("gallatin: segment " + std::to_string(s) + " block " +
                                std::to_string(b) + " freed " + std::to_string(h.free_ctr[id]) +
                                " slices of the " + std::to_string(handed) + " it handed out " +
                                when);
      live[id] = handed - h.free_ctr[id];
    }
  }
  return live;
}

void GallatinPool::check_at_rest(const std::vector<std::uint32_t>& live,
                                 const std::string& when) const {
  const std::string e = gallatin::state_check(host_->st, live);
  if (!e.empty()) throw VerificationError("gallatin: " + e + " " + when);
}

std::uint64_t GallatinPool::units_of(const std::vector<std::uint32_t>& live) const {
  std::uint64_t units = 0;
  for (std::uint32_t s = 0; s < g_.segments; ++s) {
    const std::uint32_t k = host_->tree_id[s];
    if (k >= kSizeClasses) continue;
    for (std::uint32_t b = 0; b < g_.blocks_per_segment(k); ++b)
      units += std::uint64_t{live[g_.block_id(s, b)]} << k;
  }
  return units;
}

std::optional<std::uint64_t> GallatinPool::pages_in_use() const {
  const std::string when = "between phases";
  download(when);
  const std::vector<std::uint32_t> live = live_from_counters(when);
  check_at_rest(live, when);
  // A request of 2^j slices or a whole block is one live count in its block (the rest counted
  // as freed when it was served, large.hpp): the counters no longer tell the units it holds.
  if (large_run_) return std::nullopt;
  return units_of(live);
}

void GallatinPool::verify_allocated(const Allocation& run) const {
  const std::string when = "after the allocation";
  download(when);
  // Each block's live slices from the results handed out, independent of its counters.
  std::vector<std::uint64_t> units(run.requests);
  ALLOCLAB_CUDA(cudaMemcpy(units.data(), run.sorted, run.requests * 8, cudaMemcpyDeviceToHost));
  std::vector<std::uint32_t> live(host_->malloc_ctr.size(), 0);
  std::uint64_t served = 0;
  for (const std::uint64_t u : units) {
    if (u == kFailed) continue;
    ++served;
    const std::uint64_t offset = u * kGallatinUnitBytes;
    const auto s = static_cast<std::uint32_t>(offset / g_.segment_bytes);
    const std::uint32_t k = s < g_.segments ? host_->tree_id[s] : gallatin::kNoTree;
    if (gallatin::is_large_head(k) && offset % g_.segment_bytes == 0) continue;  // segments
    if (k >= kSizeClasses || offset % g_.slice_bytes(k) != 0)
      throw VerificationError("gallatin: unit " + std::to_string(u) +
                              " does not start a slice of a formatted segment " + when);
    ++live[g_.block_id(
        s, static_cast<std::uint32_t>((offset % g_.segment_bytes) / g_.block_bytes(k)))];
  }
  if (served != run.taken)
    throw VerificationError("gallatin: " + std::to_string(served) + " slices in the results, " +
                            std::to_string(run.taken) + " requests served " + when);
  check_at_rest(live, when);
}

void GallatinPool::verify_freed(const Allocation&) const {
  const std::string when = "after the free";
  download(when);
  check_at_rest(std::vector<std::uint32_t>(host_->malloc_ctr.size(), 0), when);
}

std::vector<std::string> GallatinPool::notes() const {
  const std::string preboot = g_.segments >= kGallatinFullPrebootSegments
                                  ? "every class's slots pre-booted at init, as the paper's"
                              : run_class_ >= kSizeClasses
                                  ? "no slot pre-booted (the run's requests, whole blocks or "
                                    "segments, use none; a pool under " +
                                        std::to_string(kGallatinFullPrebootSegments) + " segments)"
                                  : "the slots of the run's class (" +
                                        std::to_string(g_.slice_bytes(run_class_)) +
                                        " B) pre-booted at init (a pool under " +
                                        std::to_string(kGallatinFullPrebootSegments) + " segments)";
  return {"gallatin: " + std::to_string(g_.segments) +
          " segments of 16 MiB; block buffers sized for " + std::to_string(sms_) +
          " SMs (a team uses the slot of the SM it runs on), " + preboot + ": " +
          std::to_string(preboot_.block_refills) + " blocks from " +
          std::to_string(preboot_.segments_formatted) +
          " segments, not in the counts; every run starts from the pristine pool unless --warm; "
          "frees are coalesced per block (free_atomics: one atomicAdd per team of lanes freeing "
          "slices of one block, and the returns)"};
}

}  // namespace alloclab::gpu::detail
