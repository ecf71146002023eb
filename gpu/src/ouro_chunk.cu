// ouro-c-s, ouro-c-va and ouro-c-vl on the GPU: Ouroboros variant C (Winter et al., ICS'20,
// Alg. 4-5) over standard rings and over the virtualized queues of §5 (the layout is a policy
// type, core/ouroboros/chunk_queue_virtual.hpp), driving the step machines of
// core/ouroboros/chunk_queue.hpp and chunk_page.hpp (the simulator drives the same ones) with
// device atomics. Warp aggregation of the semaphore as for variant P:
// the lanes of a warp that ask for one class (`__match_any_sync`) elect their lowest lane, which
// waits for all of them; then each lane walks the class's chunk queue and takes its page.
//
// Bounds, so that no kernel can hang:
//  * a semaphore wait that reaches --max-steps memory operations is abandoned and the request
//    fails (counted); a walk past it gives its page back to the semaphore and fails;
//  * a grower whose chunk allocation fails withdraws its promise, releasing the reservers;
//  * a group out of memory as a whole retries lane by lane;
//  * a wait for another thread (a queue slot still held, a mask bit not yet visible, a chunk
//    being put back) past kStuckSpins gives up and is counted in `stuck`, which fails
//    verification.
// Verification between kernels (verify_chunks_kernel): per live chunk, its free count equals the
// set bits of its mask and a chunk with free pages is in its queue; per class, the semaphore's
// count equals the free pages of its live chunks, with no promise or reservation outstanding,
// and its admitted pages equal the pages of its live chunks; VA and VL: the Queue-Chunks drawn
// are those the queues' positions need and the classes' spares (queue_chunk_check.hpp).
#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/ouroboros/chunk_free.hpp"
#include "alloclab/core/ouroboros/chunk_page.hpp"
#include "alloclab/core/ouroboros/chunk_queue_virtual.hpp"
#include "alloclab/core/ouroboros/config.hpp"
#include "alloclab/core/ouroboros/queue_chunk_check.hpp"
#include "alloclab/core/pool.hpp"
#include "gpu_entry.cuh"
#include "ouro_atomics.cuh"
#include "ouro_gpu_support.cuh"
#include "warp.cuh"

namespace alloclab::gpu::detail {
namespace {

using ouro::ChunkCounts;
using ouro::ChunkQueues;
using ouro::kPageClasses;
using ouro::ReserveOutcome;

struct ChunkPoolWords {
  alignas(128) ouro::ChunkSourceWords fresh;
  alignas(128) ouro::IndexQueueWords reuse;
  alignas(128) unsigned long long stuck = 0;
  ouro::ChunkQueueChunkWords queue_chunks;  // VA, VL
};

// `Layout`: ouro::ChunkRing (S), ouro::ChunkArray (VA) or ouro::ChunkLinked (VL).
template <class Layout>
struct OuroChunkView {
  ChunkQueues q;
  unsigned long long* stuck = nullptr;
};

// malloc of `units` units by the calling lane, aggregated with the lanes of its warp that call
// it together for the same class. With kCounters, adds the request's own counts to the launch's
// (record_op_counts).
template <bool kCounters, class Layout>
__device__ Served ouro_chunk_malloc(const OuroChunkView<Layout>& v, std::uint32_t units,
                                    const KernelArgs& a) {
  const std::uint64_t max_steps = a.max_steps;
  const unsigned k = ouro::page_class_of_units(units);
  const unsigned group = __match_any_sync(__activemask(), k);
  const unsigned leader = __ffs(group) - 1;
  const unsigned g = __popc(group);
  ChunkCounts own;
  unsigned outcome = 0;
  if (lane_id() == leader) {
    ouro::ChunkReserveOp<DeviceAtomics, Layout> op(g, k);
    ouro::run_chunk_reserve(op, v.q, own, max_steps, BackOff{});
    outcome = static_cast<unsigned>(op.outcome());
  }
  outcome = __shfl_sync(group, outcome, leader);
  const std::uint32_t leader_ops = __shfl_sync(group, own.ops.memory_ops, leader);
  auto result = static_cast<ReserveOutcome>(outcome);
  if (g > 1 && (result == ReserveOutcome::out_of_memory ||
                result == ReserveOutcome::queue_full)) {  // not enough for all: each alone
    ouro::ChunkReserveOp<DeviceAtomics, Layout> op(1, k);
    ouro::run_chunk_reserve(op, v.q, own, max_steps, BackOff{});
    result = op.outcome();
  }
  Served out;
  if (result == ReserveOutcome::ok) {
    ouro::ChunkTakeOp<DeviceAtomics, Layout> take(k, lane_id());
    if (ouro::run_chunk_take(take, v.q, own, max_steps, BackOffOrGiveUp{v.stuck}) &&
        take.outcome() == ouro::TakeOutcome::ok)
      out.unit = std::uint64_t{take.chunk()} * ouro::kUnitsPerChunk +
                 std::uint64_t{take.page()} * ouro::units_per_page(k);
  }
  out.steps = (lane_id() == leader ? 0 : leader_ops) + own.ops.memory_ops;
  out.failed = own.ops.failed;
  out.atomics = own.ops.atomics;
  if constexpr (kCounters) {
    std::uint32_t values[ouro::kChunkCountValues];
    ouro::chunk_count_values(own, values);
    record_op_counts<kCounters>(a, values);
  }
  return out;
}

template <bool kCounters, class Layout>
__global__ void __launch_bounds__(1024, 2)
    ouro_chunk_alloc_kernel(KernelArgs a, OuroChunkView<Layout> v) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= a.N || !asks(a, i)) return;
  const std::uint32_t units = a.pages_of ? a.pages_of[i] : a.pages;
  for (unsigned r = 0; r < a.per_thread; ++r) {
    const Served got = ouro_chunk_malloc<kCounters>(v, units, a);
    record_request<kCounters>(a, r, i, got.unit, got.steps, got.failed, got.atomics);
  }
}

template <class Layout>
__global__ void ouro_chunk_free_kernel(KernelArgs a, OuroChunkView<Layout> v) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= a.N * a.per_thread || a.page[i] == kFailed) return;
  const std::uint64_t unit = a.page[i];
  const auto chunk = static_cast<std::uint32_t>(unit / ouro::kUnitsPerChunk);
  const unsigned k = v.q.chunk_class[chunk];
  const auto page = static_cast<std::uint32_t>((unit % ouro::kUnitsPerChunk) >> k);
  ChunkCounts own;
  const auto r =
      ouro::chunk_free_page<DeviceAtomics, Layout>(v.q, chunk, page, own, BackOffOrGiveUp{v.stuck});
  if (r == ouro::ChunkFreeOutcome::double_free) count_add(v.stuck, 1ull);
}

// Per class: [0] free pages on live chunks, [1] pages in use on them; [2] chunks whose count
// differs from their mask, [3] live chunks with free pages that are not in their queue.
constexpr unsigned kTallies = 4;

__global__ void verify_chunks_kernel(ChunkQueues q, std::uint64_t chunks,
                                     unsigned long long* tally) {
  const std::uint64_t c = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (c >= chunks) return;
  const unsigned k = q.chunk_class[c];
  if (k >= kPageClasses) return;  // never typed
  const ouro::ChunkMeta& m = q.meta[c];
  if (m.flags & ouro::kChunkRetired) return;  // flashed: counts nothing
  const std::int64_t free_pages = ouro::state_free(m.state);
  std::int64_t bits = 0;
  for (unsigned w = 0; w < ouro::mask_words(k); ++w) bits += __popcll(m.bits[w]);
  unsigned long long* t = tally + k * kTallies;
  count_add(t + 0, static_cast<unsigned long long>(free_pages));
  count_add(t + 1, static_cast<unsigned long long>(ouro::pages_per_chunk(k) - free_pages));
  if (bits != free_pages) count_add(t + 2, 1ull);
  if (free_pages > 0 && !(m.flags & ouro::kChunkInQueue)) count_add(t + 3, 1ull);
}

template <class Layout>
class OuroChunkPool final : public PoolPolicy {
 public:
  using View = OuroChunkView<Layout>;
  static void check(const Scenario& s, const MeasureOptions& o) {
    ouro::check_scenario(std::string(name(s.algo)), s,
                         std::min<std::uint64_t>(s.N * o.per_thread, kMostResidentThreads));
    ouro::check_queue_capacity(std::string(name(s.algo)), s, o.queue_capacity, s.N * o.per_thread,
                               s.pages);
  }
  OuroChunkPool(const Scenario& s, const MeasureOptions& o, const KernelArgs& a)
      : name_(name(s.algo)),
        T_(a.T),
        A_(a.A),
        seed_(a.seed),
        class_pages_(ouro::queue_capacity_of(o.queue_capacity)) {
    chunks_ = ouro::chunk_count_of_units(T_);
    capacity_ = ouro::chunk_ring_capacity(chunks_);
  }
  View view() const {
    View v;
    v.q.words = queues_.get();
    for (unsigned k = 0; k < kPageClasses; ++k) {
      v.q.slots[k] = slots_.get() + std::uint64_t{k} * capacity_;
      v.q.capacity[k] = static_cast<std::uint32_t>(capacity_);
    }
    v.q.meta = meta_.get();
    v.q.chunk_class = chunk_class_.get();
    v.q.fresh = &misc_.get()->fresh;
    v.q.available = available_.get();
    v.q.available_count = chunk_count_;
    v.q.reuse = ouro::IndexQueueRef{&misc_.get()->reuse, reuse_slots_.get(),
                                    static_cast<std::uint32_t>(capacity_)};
    v.q.class_pages = class_pages_;
    v.stuck = &misc_.get()->stuck;
    if (Layout::kVirtual) v.q.virt = virt_.get();
    return v;
  }

  std::uint64_t device_bytes() const override {
    return kPageClasses * sizeof(ouro::ChunkQueueWords) + sizeof(ChunkPoolWords) + slots_.bytes() +
           capacity_ * 4 + chunks_ * (sizeof(ouro::ChunkMeta) + 4 + 1) +
           (Layout::kVirtual ? chunks_ * (sizeof(ouro::QueueChunkMeta) + ouro::kChunkBytes) +
                                   static_words_.bytes() + spare_.bytes()
                             : 0);
  }
  const char* size_parameter() const override { return "--T"; }

  void set_up() override {
    queues_.resize(kPageClasses);
    misc_.resize(1);
    if (Layout::kVirtual) {
      // The static words (VA: references; VL: pointers) instead of the rings; the entries of the
      // Queue-Chunks beside the pool (one 8 KiB chunk each, as the chunk it was drawn as).
      slots_.resize(1);
      words_per_class_ = Layout::words_per_class(static_cast<std::uint32_t>(capacity_));
      static_words_.resize(std::uint64_t{kPageClasses} * words_per_class_);
      spare_.resize(kPageClasses);
      queue_meta_.resize(std::max<std::uint64_t>(chunks_, 1));
      entries_.resize(std::max<std::uint64_t>(chunks_, 1) * ouro::kChunkQueueEntries);
      virt_.resize(1);
    } else {
      slots_.resize(kPageClasses * capacity_);
    }
    reuse_slots_.resize(capacity_);
    meta_.resize(std::max<std::uint64_t>(chunks_, 1));
    chunk_class_.resize(std::max<std::uint64_t>(chunks_, 1));
    const std::vector<std::uint32_t> available = chunks_free_at_start(T_, A_, seed_, chunks_);
    chunk_count_ = static_cast<std::uint32_t>(available.size());
    available_.resize(std::max<std::size_t>(available.size(), 1));
    if (!available.empty())
      ALLOCLAB_CUDA(cudaMemcpy(available_.get(), available.data(), available.size() * 4,
                               cudaMemcpyHostToDevice));
    reset();
  }

  // The pristine pool: empty queues, untyped chunks, zero counters (a cold allocator).
  void reset() override {
    ALLOCLAB_CUDA(cudaMemset(slots_.get(), 0xff, slots_.bytes()));
    ALLOCLAB_CUDA(cudaMemset(reuse_slots_.get(), 0xff, reuse_slots_.bytes()));
    ALLOCLAB_CUDA(cudaMemset(chunk_class_.get(), 0xff, chunk_class_.bytes()));
    const std::vector<ouro::ChunkMeta> meta(meta_.size());  // epoch 0, no free page, no flags
    ALLOCLAB_CUDA(cudaMemcpy(meta_.get(), meta.data(), meta_.bytes(), cudaMemcpyHostToDevice));
    std::array<ouro::ChunkQueueWords, kPageClasses> queues{};
    for (auto& q : queues) q.semaphore = ouro::sem_pack({});
    ALLOCLAB_CUDA(
        cudaMemcpy(queues_.get(), queues.data(), queues_.bytes(), cudaMemcpyHostToDevice));
    const ChunkPoolWords misc{};
    ALLOCLAB_CUDA(cudaMemcpy(misc_.get(), &misc, sizeof misc, cudaMemcpyHostToDevice));
    if (Layout::kVirtual) {
      ALLOCLAB_CUDA(cudaMemset(static_words_.get(), 0xff, static_words_.bytes()));
      ALLOCLAB_CUDA(cudaMemset(spare_.get(), 0xff, spare_.bytes()));  // every stack empty
      const std::vector<ouro::QueueChunkMeta> qmeta(queue_meta_.size());
      ALLOCLAB_CUDA(
          cudaMemcpy(queue_meta_.get(), qmeta.data(), queue_meta_.bytes(), cudaMemcpyHostToDevice));
      ouro::ChunkQueueChunks virt;
      virt.meta = queue_meta_.get();
      virt.entries = entries_.get();
      virt.spare = spare_.get();
      virt.words = static_words_.get();
      virt.words_per_class = words_per_class_;
      virt.counts = &misc_.get()->queue_chunks;
      virt.reserve_per_class =
          ouro::chunk_queue_reserve(static_cast<std::uint32_t>(capacity_), Layout::kTrail);
      ALLOCLAB_CUDA(cudaMemcpy(virt_.get(), &virt, sizeof virt, cudaMemcpyHostToDevice));
    }
  }

  std::optional<std::uint64_t> pages_in_use() const override {
    const State st = state("between phases");
    std::uint64_t units = 0;
    for (unsigned k = 0; k < kPageClasses; ++k) units += st.used[k] * ouro::units_per_page(k);
    return units;
  }
  void verify_allocated(const Allocation& run) const override {
    const State st = state("after the allocation");
    const unsigned k = ouro::page_class_of_units(run.pages);
    if (st.used[k] != run.taken)
      throw VerificationError(name_ + ": class " + std::to_string(k) + " has " +
                              std::to_string(st.used[k]) + " pages in use on its chunks, " +
                              std::to_string(run.taken) + " requests served");
  }
  void verify_freed(const Allocation&) const override {
    const State st = state("after the free");
    for (unsigned k = 0; k < kPageClasses; ++k)
      if (st.used[k] != 0)
        throw VerificationError(name_ + ": after the free, class " + std::to_string(k) +
                                " still has " + std::to_string(st.used[k]) + " pages in use");
  }
  std::optional<std::vector<std::uint64_t>> free_pages() const override { return std::nullopt; }
  std::vector<std::string> notes() const override {
    return {name_ +
            ": every run starts from empty queues and untyped chunks (a cold allocator); a "
            "chunk whose pages are all freed is flashed back and may take another class"};
  }

 private:
  struct State {
    std::array<std::uint64_t, kPageClasses> used{};
  };
  // Reads the queues and the chunks at rest and checks them (see the file comment).
  State state(const char* when) const {
    std::array<ouro::ChunkQueueWords, kPageClasses> queues;
    ALLOCLAB_CUDA(
        cudaMemcpy(queues.data(), queues_.get(), queues_.bytes(), cudaMemcpyDeviceToHost));
    ChunkPoolWords misc;
    ALLOCLAB_CUDA(cudaMemcpy(&misc, misc_.get(), sizeof misc, cudaMemcpyDeviceToHost));
    if (misc.stuck)
      throw VerificationError(name_ + ": " + std::to_string(misc.stuck) +
                              " waits gave up (or pages were freed twice) " + when);
    if (Layout::kVirtual) {
      const std::string error = ouro::chunk_queue_chunks_at_rest_error(
          queues.data(), misc.queue_chunks, misc.fresh, Layout::kTrail);
      if (!error.empty()) throw VerificationError(name_ + ": " + error + " " + when);
    }
    DeviceBuffer<unsigned long long> tally(kPageClasses * kTallies);
    ALLOCLAB_CUDA(cudaMemset(tally.get(), 0, tally.bytes()));
    verify_chunks_kernel<<<blocks_for(chunks_, 256), 256>>>(view().q, chunks_, tally.get());
    ALLOCLAB_CUDA_LAUNCH();
    std::vector<unsigned long long> t(kPageClasses * kTallies);
    ALLOCLAB_CUDA(cudaMemcpy(t.data(), tally.get(), tally.bytes(), cudaMemcpyDeviceToHost));
    State st;
    for (unsigned k = 0; k < kPageClasses; ++k) {
      const ouro::SemCounters sem = ouro::sem_unpack(queues[k].semaphore);
      const unsigned long long* c = t.data() + k * kTallies;
      const std::string cls = name_ + ": class " + std::to_string(k) + " ";
      if (queues[k].pages != c[0] + c[1])
        throw VerificationError(cls + "admitted " + std::to_string(queues[k].pages) +
                                " pages, its live chunks hold " + std::to_string(c[0] + c[1]) +
                                " " + when);
      if (sem.expected || sem.reserved || sem.count < 0 ||
          static_cast<std::uint64_t>(sem.count) != c[0])
        throw VerificationError(cls + "semaphore C=" + std::to_string(sem.count) +
                                " E=" + std::to_string(sem.expected) +
                                " R=" + std::to_string(sem.reserved) + " with " +
                                std::to_string(c[0]) + " free pages on its chunks " + when);
      if (c[2] || c[3])
        throw VerificationError(
            cls + std::to_string(c[2]) + " chunks whose count differs from their mask and " +
            std::to_string(c[3]) + " chunks with free pages out of the queue " + when);
      st.used[k] = c[1];
    }
    return st;
  }

  std::string name_;
  std::uint64_t T_, A_, seed_;
  std::uint64_t class_pages_;
  std::uint64_t chunks_ = 0, capacity_ = 1;
  std::uint32_t chunk_count_ = 0;
  DeviceBuffer<ouro::ChunkQueueWords> queues_;
  DeviceBuffer<ChunkPoolWords> misc_;
  DeviceBuffer<std::uint64_t> slots_;
  DeviceBuffer<std::uint32_t> reuse_slots_, available_;
  DeviceBuffer<ouro::ChunkMeta> meta_;
  DeviceBuffer<std::uint8_t> chunk_class_;
  // VA, VL: the Queue-Chunks' words and entries, the classes' spare stacks and static words.
  std::uint32_t words_per_class_ = 0;
  DeviceBuffer<std::uint32_t> static_words_;
  DeviceBuffer<std::uint64_t> spare_, entries_;
  DeviceBuffer<ouro::QueueChunkMeta> queue_meta_;
  DeviceBuffer<ouro::ChunkQueueChunks> virt_;
};

template <class Layout>
void launch_ouro_chunk_alloc(const KernelArgs& a, const OuroChunkView<Layout>& v, bool counters) {
  if (counters)
    ouro_chunk_alloc_kernel<true><<<blocks_for(a.N, a.block), a.block>>>(a, v);
  else
    ouro_chunk_alloc_kernel<false><<<blocks_for(a.N, a.block), a.block>>>(a, v);
  ALLOCLAB_CUDA_LAUNCH();
}

template <class Layout>
void launch_ouro_chunk_free(const KernelArgs& a, const OuroChunkView<Layout>& v) {
  ouro_chunk_free_kernel<<<blocks_for(a.N * a.per_thread, 256), 256>>>(a, v);
  ALLOCLAB_CUDA_LAUNCH();
}

template <class Layout>
KernelRegisters ouro_chunk_registers(const KernelArgs&, const OuroChunkView<Layout>&,
                                     bool counters) {
  return kernel_registers(counters,
                          reinterpret_cast<const void*>(&ouro_chunk_alloc_kernel<true, Layout>),
                          reinterpret_cast<const void*>(&ouro_chunk_alloc_kernel<false, Layout>),
                          reinterpret_cast<const void*>(&ouro_chunk_free_kernel<Layout>));
}

template <class Layout>
GpuEntry chunk_queue_entry() {
  return gpu_entry(GpuTraits<OuroChunkPool<Layout>>{.alloc = &launch_ouro_chunk_alloc<Layout>,
                                                    .free = &launch_ouro_chunk_free<Layout>,
                                                    .out_of_memory = OutOfMemory::exhausted,
                                                    .op_count_names = ouro::kChunkCountNames,
                                                    .registers = &ouro_chunk_registers<Layout>});
}

using S = ouro::ChunkRing<DeviceAtomics>;
using VA = ouro::ChunkArray<DeviceAtomics>;
using VL = ouro::ChunkLinked<DeviceAtomics>;

}  // namespace

ALLOCLAB_REGISTER_ENTRY(GpuTable, Algorithm::ouro_c_s, (chunk_queue_entry<S>()))
ALLOCLAB_REGISTER_ENTRY(GpuTable, Algorithm::ouro_c_va, (chunk_queue_entry<VA>()))
ALLOCLAB_REGISTER_ENTRY(GpuTable, Algorithm::ouro_c_vl, (chunk_queue_entry<VL>()))

}  // namespace alloclab::gpu::detail
