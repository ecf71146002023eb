// gg-tbuddy on the GPU: TBuddy (Gelado & Garland, PPoPP'19 §4.1), the step machines of
// core/gelado/tbuddy.hpp (the simulator drives the same ones) run to their end by each thread
// with device atomics, over the pool of core/gelado/tbuddy_pool.hpp (height ceil(log2 T), the
// initial free pages merged as far as the buddy rule allows, n pages take a block of
// 2^ceil(log2 n)). The GPU code needs independent thread scheduling (Volta and later): a thread
// spins on a node lock that another lane of its own warp may hold, which only a scheduler that
// interleaves a warp's diverged paths lets finish.
//
// Bounds, so that no kernel can hang:
//  * an alloc that reaches --max-steps steps gives up where that leaves nothing half done
//    (TBuddyAlloc::give_up: in a wait, or holding only a unit it signals back); while it holds a
//    node lock, splits or climbs it finishes first, and the growers below it signal their
//    failure, so no waiter is left on a promise nobody keeps. It fails, counted;
//  * an operation that spins kStuckSteps times (an alloc past its bound that cannot give up, a
//    free) is a defect: it stops, is counted in `stuck`, and the run fails verification.
// Verification after every phase (the host, from the tree copied back): gelado::tbuddy_check
// (I1, I2, the summaries, no lock held, the blocks tiling the pool, each semaphore's count = its
// order's Available nodes, no unit promised or reserved) with the blocks the requests hold and the
// application's; after the free, the tree is the pristine one (the buddy tree of a set of free
// pages, merged as far as it goes, is unique).
#include <algorithm>
#include <string>
#include <vector>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/gelado/tbuddy.hpp"
#include "alloclab/core/gelado/tbuddy_pool.hpp"
#include "alloclab/core/pool.hpp"
#include "alloclab/core/random_stream.hpp"
#include "gg_atomics.cuh"
#include "gpu_entry.cuh"
#include "pool_page_heap.cuh"

namespace alloclab::gpu::detail {
namespace {

// The read-modify-writes of the calling thread's current request, in shared memory (one word a
// thread of the block; the step machines' atomics policy has static functions, no state).
__shared__ std::uint32_t tbuddy_rmw_tally[1024];

// The launch's memory order (gg_atomics.cuh; --gg-order), set by the launches, and the tally of
// the calling thread's read-modify-writes. The previous policy here was relaxed atomics with no
// fence (what --gg-order fenced replaces with a fence on each side, as UAlloc's was).
__constant__ unsigned tbuddy_order = 0;
struct TBuddyTally {
  __device__ static void count() { ++tbuddy_rmw_tally[threadIdx.x]; }
  __device__ static bool fenced() { return tbuddy_order == unsigned(GgOrder::fenced); }
};
using TallyingAtomics = GgAtomics<TBuddyTally>;

using Alloc = gelado::TBuddyAlloc<TallyingAtomics>;
using Free = gelado::TBuddyFree<TallyingAtomics>;

// An operation spinning this many steps is a defect (every wait is for an operation running).
constexpr std::uint64_t kStuckSteps = std::uint64_t{1} << 26;

// The alloc's counts (gelado::TBuddyStats), named as the simulator's gg-tbuddy names them.
constexpr const char* kTBuddyCountNames[] = {
    "waits_took", "waits_grew",    "reserves",     "sem_cas_failures",
    "sem_spins",  "nodes_visited", "sweeps",       "claim_cas_failures",
    "lock_spins", "splits",        "propagations", "node_ops",
    "gave_up"};
constexpr unsigned kTBuddyCounts = std::size(kTBuddyCountNames);

struct TBuddyView {
  gelado::TBuddyTree tree;
  unsigned long long* stuck = nullptr;
  // Sticky out of memory: frees so far (the epoch), and the mark of the latest alloc that found
  // nothing, (epoch + 1) << 8 | (255 - order): until the next free, a request of that order or
  // more fails without climbing the tree (gg_ualloc.cu does the same for UAlloc's chunks).
  unsigned long long* epoch = nullptr;
  unsigned long long* oom_mark = nullptr;
  unsigned long long* oom_fast = nullptr;  // requests failed by the mark
  bool fenced = false;                     // --gg-order fenced
};

using DeviceWord = cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>;
// Relaxed: a hint (a stale mark costs a walk, or fails a request no block could serve when its
// epoch was read).
__device__ bool tbuddy_known_empty(const TBuddyView& v, std::uint64_t epoch, std::uint32_t order) {
  const std::uint64_t mark = DeviceWord(*v.oom_mark).load(cuda::memory_order_relaxed);
  return (mark >> 8) == epoch + 1 && order >= 255u - (mark & 255u);
}

// Runs the calling thread's alloc `op` to its end within the bounds (--max-steps, then
// kStuckSteps); returns the page of the block it got or kFailed, and its steps in `steps`. The
// allocation kernel and the case studies' GETPAGE (TBuddyPageTake) both serve requests through it.
__device__ __forceinline__ std::uint64_t tbuddy_run_alloc(const TBuddyView& v, Alloc& op,
                                                          std::uint64_t max_steps,
                                                          std::uint64_t& steps) {
  std::uint64_t spins = 0;
  bool stopping = false;
  steps = 0;
  while (op.phase() != gelado::TBuddyAllocPhase::done) {
    if (steps >= max_steps && !stopping) stopping = op.give_up(v.tree);
    if (op.phase() == gelado::TBuddyAllocPhase::done) break;
    if (steps >= kStuckSteps) {  // a defect: counted, fails verification
      atomicAdd(v.stuck, 1ull);
      break;
    }
    const gelado::StepStatus st = op.step(v.tree);
    ++steps;
    if (st == gelado::StepStatus::spinning) spin_back_off(static_cast<std::uint32_t>(++spins));
  }
  const std::uint32_t node = op.phase() == gelado::TBuddyAllocPhase::done ? op.node() : 0;
  return node == 0 ? kFailed : std::uint64_t{gelado::tb_offset(v.tree.height, node)};
}

template <bool kCounters>
__global__ void __launch_bounds__(1024) tbuddy_alloc_kernel(KernelArgs a, TBuddyView v) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= a.N || !asks(a, i)) return;
  const std::uint32_t pages = a.pages_of ? a.pages_of[i] : a.pages;
  const std::uint32_t order = gelado::tbuddy_order_of(pages);
  for (unsigned r = 0; r < a.per_thread; ++r) {
    tbuddy_rmw_tally[threadIdx.x] = 0;
    const auto scatter = static_cast<std::uint32_t>(
        PhiloxStream(a.seed, StreamDomain::probe, i + std::uint64_t{r} * a.N).bits(0));
    Alloc op(order, scatter);
    std::uint64_t steps = 0;
    const std::uint64_t epoch = DeviceWord(*v.epoch).load(cuda::memory_order_relaxed);
    std::uint64_t page = kFailed;
    if (tbuddy_known_empty(v, epoch, order)) {
      DeviceWord(*v.oom_fast).fetch_add(1ull, cuda::memory_order_relaxed);
      steps = 1;
    } else {
      page = tbuddy_run_alloc(v, op, a.max_steps, steps);
      if (page == kFailed && op.stats().gave_up == 0)
        DeviceWord(*v.oom_mark)
            .fetch_max(((epoch + 1) << 8) | (255u - order), cuda::memory_order_relaxed);
    }
    const gelado::TBuddyStats& ts = op.stats();
    record_request<kCounters>(a, r, i, page, static_cast<std::uint32_t>(steps),
                              ts.cas_failures + ts.sem_cas_failures, tbuddy_rmw_tally[threadIdx.x]);
    if constexpr (kCounters) {
      const std::uint32_t values[kTBuddyCounts] = {
          ts.waits_took,    ts.waits_grew, ts.reserves,     ts.sem_cas_failures, ts.sem_spins,
          ts.nodes_visited, ts.sweeps,     ts.cas_failures, ts.lock_spins,       ts.splits,
          ts.propagations,  ts.memory_ops, ts.gave_up};
      record_op_counts<kCounters>(a, values);
    }
  }
}

__global__ void __launch_bounds__(1024) tbuddy_free_kernel(KernelArgs a, TBuddyView v) {
  const std::uint64_t slot = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (slot >= a.N * a.per_thread || a.page[slot] == kFailed) return;
  const std::uint64_t i = slot % a.N;
  const std::uint32_t pages = a.pages_of ? a.pages_of[i] : a.pages;
  const std::uint32_t order = gelado::tbuddy_order_of(pages);
  const std::uint32_t node =
      gelado::tb_node(v.tree.height, static_cast<std::uint32_t>(a.page[slot]), order);
  Free op(v.tree, node);
  std::uint64_t steps = 0;
  for (;;) {
    if (++steps >= kStuckSteps) {
      atomicAdd(v.stuck, 1ull);
      return;
    }
    const gelado::StepStatus st = op.step(v.tree);
    if (st == gelado::StepStatus::done) {
      DeviceWord(*v.epoch).fetch_add(1ull, cuda::memory_order_release);  // ends any mark
      return;
    }
    if (st == gelado::StepStatus::spinning) spin_back_off(static_cast<std::uint32_t>(steps));
  }
}

class TBuddyPool final : public PoolPolicy {
 public:
  using View = TBuddyView;

  // The GPU runs every request of a launch at once, up to the resident threads (their waits hold
  // E and R units of a semaphore).
  static void check(const Scenario& s, const MeasureOptions& o) {
    gelado::check_tbuddy_scenario(
        s, {}, std::min<std::uint64_t>(s.N * o.per_thread, kMostResidentThreads));
  }
  TBuddyPool(const Scenario&, const MeasureOptions& o, const KernelArgs& a)
      : T_(a.T),
        A_(a.A),
        seed_(a.seed),
        height_(gelado::tbuddy_height_of(a.T)),
        fenced_(o.gg_fenced) {}

  View view() const {
    View v;
    v.tree.height = height_;
    v.tree.nodes = nodes_.get();
    v.tree.sems = sems_.get();
    v.stuck = stuck_.get();
    v.epoch = v.stuck + 1;
    v.oom_mark = v.stuck + 2;
    v.oom_fast = v.stuck + 3;
    // TBuddy's frees-in-flight word (tbuddy.hpp, alloclab's rule against the spurious null):
    // 32 bits of the fifth word, zeroed with the others by reset().
    v.tree.frees = reinterpret_cast<std::uint32_t*>(v.stuck + 4);
    v.fenced = fenced_;
    return v;
  }

  std::uint64_t device_bytes() const override {
    const std::uint64_t nodes = std::uint64_t{2} << height_;
    return 2 * (nodes * 4 + (height_ + 1) * 8) + 8;  // the tree and its pristine copy
  }
  const char* size_parameter() const override { return "--T"; }

  void set_up() override {
    gelado::TBuddyStorage host(height_);
    std::vector<std::uint8_t> free_page(std::size_t{1} << height_, 0);
    const PagePermutation pi(T_, seed_);
    for (std::uint64_t p = 0; p < T_; ++p) free_page[p] = initially_free(pi, p, A_) ? 1 : 0;
    application_ = gelado::tbuddy_build(host.tree, free_page);
    pristine_nodes_ = host.nodes;
    pristine_sems_ = host.sems;
    pristine_free_ = A_;
    if (const std::string e = gelado::tbuddy_check(host.tree, application_); !e.empty())
      throw VerificationError("gg-tbuddy: the pristine tree: " + e);
    nodes_.resize(host.nodes.size());
    sems_.resize(host.sems.size());
    stuck_.resize(5);  // stuck, the epoch, the mark, fast failures, TBuddy's frees in flight
    reset();
  }

  void reset() override {
    ALLOCLAB_CUDA(
        cudaMemcpy(nodes_.get(), pristine_nodes_.data(), nodes_.bytes(), cudaMemcpyHostToDevice));
    ALLOCLAB_CUDA(
        cudaMemcpy(sems_.get(), pristine_sems_.data(), sems_.bytes(), cudaMemcpyHostToDevice));
    ALLOCLAB_CUDA(cudaMemset(stuck_.get(), 0, stuck_.bytes()));
  }

  std::optional<std::uint64_t> pages_in_use() const override {
    const Tree t = read("between phases");
    return pristine_free_ - free_pages_of(t);
  }

  void verify_allocated(const Allocation& run) const override {
    const Tree t = read("after the allocation");
    std::vector<std::uint64_t> first(run.taken);
    if (run.taken)
      ALLOCLAB_CUDA(cudaMemcpy(first.data(), run.sorted, run.taken * sizeof(std::uint64_t),
                               cudaMemcpyDeviceToHost));
    const std::uint32_t order = gelado::tbuddy_order_of(run.pages);
    std::vector<std::uint32_t> held = application_;
    for (const std::uint64_t p : first) {
      if (p % (std::uint64_t{1} << order) != 0 || p + run.pages > T_)
        throw VerificationError("gg-tbuddy handed out page " + std::to_string(p) +
                                ", not the start of a block of order " + std::to_string(order) +
                                " inside the pool");
      held.push_back(gelado::tb_node(height_, static_cast<std::uint32_t>(p), order));
    }
    check(t, held, "after the allocation");
    const std::uint64_t in_blocks = run.taken << order;
    if (pristine_free_ - free_pages_of(t) != in_blocks)
      throw VerificationError("gg-tbuddy: " + std::to_string(pristine_free_ - free_pages_of(t)) +
                              " pages left the free blocks, the " + std::to_string(run.taken) +
                              " requests hold " + std::to_string(in_blocks));
  }

  void verify_freed(const Allocation&) const override {
    const Tree t = read("after the free");
    check(t, application_, "after the free");
    if (t.nodes != pristine_nodes_ || t.sems != pristine_sems_)
      throw VerificationError("gg-tbuddy: after the free the tree differs from the pristine one");
  }

  std::optional<std::vector<std::uint64_t>> free_pages() const override {
    const Tree t = read("between phases");
    std::vector<std::uint64_t> out;
    for (std::uint32_t i = 1; i <= gelado::tb_node_count(height_); ++i)
      if (gelado::node_state(t.nodes[i]) == gelado::NodeState::available) {
        const std::uint64_t first = gelado::tb_offset(height_, i);
        for (std::uint64_t p = 0; p < (std::uint64_t{1} << gelado::tb_height(height_, i)); ++p)
          out.push_back(first + p);
      }
    std::sort(out.begin(), out.end());
    return out;
  }

  std::vector<std::string> notes() const override {
    return {
        "gg-tbuddy: a request of n pages holds a block of 2^ceil(log2 n) pages (what the "
        "workloads count as held); every run starts from the pristine tree; memory order " +
        std::string(fenced_ ? "fenced (--gg-order fenced)" : "acquire/release") +
        "; requests failed on the sticky out-of-memory mark without a walk: " +
        std::to_string(fast_failures_) + " in a run at most"};
  }

 private:
  struct Tree {
    std::vector<std::uint32_t> nodes;
    std::vector<std::uint64_t> sems;
    std::uint32_t frees = 0;  // the frees-in-flight word (its low 32 bits: little-endian)
  };
  Tree read(const char* when) const {
    unsigned long long words[5] = {};  // stuck, the epoch, the mark, fast failures, frees
    ALLOCLAB_CUDA(cudaMemcpy(words, stuck_.get(), sizeof words, cudaMemcpyDeviceToHost));
    const unsigned long long stuck = words[0];
    fast_failures_ = std::max<unsigned long long>(fast_failures_, words[3]);
    if (stuck)
      throw VerificationError("gg-tbuddy: " + std::to_string(stuck) +
                              " operations spun past their bound " + when);
    Tree t{std::vector<std::uint32_t>(nodes_.size()), std::vector<std::uint64_t>(sems_.size())};
    ALLOCLAB_CUDA(cudaMemcpy(t.nodes.data(), nodes_.get(), nodes_.bytes(), cudaMemcpyDeviceToHost));
    ALLOCLAB_CUDA(cudaMemcpy(t.sems.data(), sems_.get(), sems_.bytes(), cudaMemcpyDeviceToHost));
    t.frees = static_cast<std::uint32_t>(words[4]);
    return t;
  }
  std::uint64_t free_pages_of(const Tree& t) const {
    std::uint64_t free = 0;
    for (std::uint32_t i = 1; i <= gelado::tb_node_count(height_); ++i)
      if (gelado::node_state(t.nodes[i]) == gelado::NodeState::available)
        free += std::uint64_t{1} << gelado::tb_height(height_, i);
    return free;
  }
  void check(Tree t, const std::vector<std::uint32_t>& held, const char* when) const {
    gelado::TBuddyTree view{height_, t.nodes.data(), t.sems.data(), &t.frees};
    if (const std::string e = gelado::tbuddy_check(view, held); !e.empty())
      throw VerificationError("gg-tbuddy: " + e + " " + when);
  }

  std::uint64_t T_, A_, seed_;
  std::uint32_t height_;
  std::uint64_t pristine_free_ = 0;
  std::vector<std::uint32_t> application_;
  std::vector<std::uint32_t> pristine_nodes_;
  std::vector<std::uint64_t> pristine_sems_;
  DeviceBuffer<std::uint32_t> nodes_;
  DeviceBuffer<std::uint64_t> sems_;
  DeviceBuffer<unsigned long long> stuck_;
  bool fenced_ = false;
  mutable unsigned long long fast_failures_ = 0;  // the most a read found
};

// This unit's memory order (tbuddy_order), copied only when it changes.
void set_tbuddy_order(const TBuddyView& v) {
  static unsigned current = 0;
  const unsigned want = unsigned(v.fenced ? GgOrder::fenced : GgOrder::acq_rel);
  if (want == current) return;
  ALLOCLAB_CUDA(cudaMemcpyToSymbol(tbuddy_order, &want, sizeof want));
  current = want;
}

void launch_tbuddy_alloc(const KernelArgs& a, const TBuddyView& v, bool counters) {
  set_tbuddy_order(v);
  if (counters)
    tbuddy_alloc_kernel<true><<<blocks_for(a.N, a.block), a.block>>>(a, v);
  else
    tbuddy_alloc_kernel<false><<<blocks_for(a.N, a.block), a.block>>>(a, v);
  ALLOCLAB_CUDA_LAUNCH();
}

void launch_tbuddy_free(const KernelArgs& a, const TBuddyView& v) {
  set_tbuddy_order(v);
  tbuddy_free_kernel<<<blocks_for(a.N * a.per_thread, 256), 256>>>(a, v);
  ALLOCLAB_CUDA_LAUNCH();
}

KernelRegisters tbuddy_registers(const KernelArgs&, const TBuddyView&, bool counters) {
  return kernel_registers(counters, reinterpret_cast<const void*>(&tbuddy_alloc_kernel<true>),
                          reinterpret_cast<const void*>(&tbuddy_alloc_kernel<false>),
                          reinterpret_cast<const void*>(&tbuddy_free_kernel));
}

// GETPAGE of the case studies (pool_page_heap.cuh): a block of order 0 (a page is a unit). The
// scatter (where the thread's search starts) comes from its grid index, as the kernel's.
struct TBuddyPageTake {
  TBuddyView view;
  KernelArgs args;
  static constexpr std::uint64_t kUnitBytes = join::kPageBytes;
  __device__ std::uint64_t take(std::uint32_t units) const {
    tbuddy_rmw_tally[threadIdx.x] = 0;  // counted by TallyingAtomics; not read here
    Alloc op(gelado::tbuddy_order_of(units), page_take_scatter(args));
    std::uint64_t steps = 0;
    return tbuddy_run_alloc(view, op, args.max_steps, steps);
  }
};

}  // namespace

ALLOCLAB_REGISTER_ENTRY(GpuTable, Algorithm::gg_tbuddy,
                        (gpu_entry(GpuTraits<TBuddyPool>{.alloc = &launch_tbuddy_alloc,
                                                         .free = &launch_tbuddy_free,
                                                         .out_of_memory = OutOfMemory::exhausted,
                                                         .op_count_names = kTBuddyCountNames,
                                                         .registers = &tbuddy_registers})))

ALLOCLAB_REGISTER_ENTRY(PageHeapTable, Algorithm::gg_tbuddy,
                        (pool_page_heap_entry<TBuddyPool, TBuddyPageTake>()))

}  // namespace alloclab::gpu::detail
