// gpu_litmus: stress tests of the GPU code's publish/consume points (docs/memory-order.md), each
// driven through the allocator's own code, many times, under memory stress (extra blocks
// hammering other lines), counting the outcomes the memory order forbids. Prints the counts as
// JSON; exit 0 when every forbidden count is 0, 1 when one is not, 4 without a CUDA device (the
// ctest case skips), 2 on bad input.
//
// One hand-over protocol for every pattern: a worker takes a unit (a page, an index, a slot)
// from the allocator, reads the unit's kWords words, which the previous owner wrote with plain
// stores before giving it back, and checks they are all one token (forbidden: "torn", a word of
// the previous owner's writes not visible after the acquire); it then writes its own token into
// every word, re-reads them after a pause (forbidden: "overwritten", a write of the previous
// owner landing after this owner's, or a second owner at once), and gives the unit back. The
// units are few and the workers many, on every SM, so most hand-overs cross SMs.
//
// Patterns:
//   page_heap_rwbm   paper 000: PageHeap over RW-BM (malloc's claim + acquire; free's release +
//                    the atomicAnd that clears the bit), free on one SM, reuse on another
//   page_heap_corw   the same over CoRW (warp-collective claims, one atomicOr for the lanes)
//   ouro_index_queue Ouroboros: the index queue's slot publish (enqueue: release + CAS of the
//                    slot; dequeue: exchange + acquire), a page index handed between SMs
//   gallatin_block   Gallatin: Ops::malloc_team and free_slices per lane on a pool of 2 segments
//                    (a block's slices freed, the block given back through its segment's ring,
//                    fetched again into a buffer slot that teams on other SMs read)
//   dynasoar_bitmap  DynaSOAr's BitmapAlloc: the hierarchical bitmap's claim (try_clear +
//                    acquire) and free (release + set), a slot's bit cleared and set across SMs
// Usage: gpu_litmus [--rounds R] [--blocks B] [--stress-blocks S]   (defaults: a 4-minute bound
// on an H200 is --rounds 4000; ctest runs --rounds 50)
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "alloclab/core/dynasoar/bitmap_alloc.hpp"
#include "alloclab/core/dynasoar/hbitmap_check.hpp"
#include "alloclab/core/gallatin/allocator.hpp"
#include "alloclab/core/ouroboros/index_queue.hpp"
#include "corw.cuh"
#include "device_page_heap.cuh"
#include "gallatin_pool.cuh"
#include "gpu_entry.cuh"
#include "ouro_atomics.cuh"
#include "rwbm.cuh"

namespace alloclab::gpu::litmus {
namespace {

using detail::DeviceAtomics;
constexpr unsigned kWords = 16;  // a unit's payload: 64 B, half a line
constexpr unsigned kThreads = 256;

struct Outcomes {
  unsigned long long handovers = 0;    // units taken and checked
  unsigned long long torn = 0;         // forbidden: the previous owner's writes partly visible
  unsigned long long overwritten = 0;  // forbidden: another write landed in an owned unit
  unsigned long long empty = 0;        // allowed: the allocator had nothing (retried)
};

__device__ __forceinline__ std::uint64_t worker_index() {
  return blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
}

// Checks the previous owner's token, writes ours, re-reads it after a pause. Plain (weak)
// accesses: the order under test is the allocator's, not these.
__device__ void own_unit(unsigned* words, unsigned token, Outcomes& o) {
  const unsigned first = words[0];
  bool torn = false;
  for (unsigned j = 1; j < kWords; ++j) torn |= words[j] != first;
  o.torn += torn;
  for (unsigned j = kWords; j-- > 0;) words[j] = token;  // word 0 last
  __nanosleep(200);
  bool other = false;
  for (unsigned j = 0; j < kWords; ++j) other |= words[j] != token;
  o.overwritten += other;
  ++o.handovers;
}

__device__ void add_outcomes(Outcomes* total, const Outcomes& o) {
  detail::count_add(&total->handovers, o.handovers);
  detail::count_add(&total->torn, o.torn);
  detail::count_add(&total->overwritten, o.overwritten);
  detail::count_add(&total->empty, o.empty);
}

// Memory stress: blocks past the workers store to and add on lines of a scratch array no worker
// touches, so the workers' lines compete with traffic in L2 and the write buffers.
__device__ bool stress_block(unsigned workers, unsigned* scratch, std::uint64_t lines,
                             unsigned rounds) {
  if (blockIdx.x < workers) return false;
  const std::uint64_t me = worker_index();
  for (unsigned r = 0; r < rounds * 8; ++r) {
    const std::uint64_t line = mix64(me * 0x9e3779b97f4a7c15ull + r) % lines;
    scratch[line * 32 + threadIdx.x % 32] = r;
    if (r % 4 == 0) detail::count_add(&scratch[line * 32], 1u);
  }
  return true;
}

template <class Heap>
__global__ void page_heap_kernel(Heap heap, unsigned workers, unsigned rounds, unsigned* scratch,
                                 std::uint64_t lines, Outcomes* total) {
  if (stress_block(workers, scratch, lines, rounds)) return;
  Outcomes o;
  const auto token_base = static_cast<unsigned>(worker_index() * rounds) + 1;
  for (unsigned r = 0; r < rounds; ++r) {
    auto* p = static_cast<unsigned*>(heap.malloc(kWords * 4));
    if (p == nullptr) {
      ++o.empty;
      __nanosleep(100);
      continue;
    }
    own_unit(p, token_base + r, o);
    heap.free(p);
  }
  add_outcomes(total, o);
}

__global__ void index_queue_kernel(ouro::IndexQueueRef q, unsigned* payload, unsigned workers,
                                   unsigned rounds, unsigned* scratch, std::uint64_t lines,
                                   Outcomes* total) {
  if (stress_block(workers, scratch, lines, rounds)) return;
  Outcomes o;
  const auto token_base = static_cast<unsigned>(worker_index() * rounds) + 1;
  for (unsigned r = 0; r < rounds; ++r) {
    ouro::DequeueOp<DeviceAtomics> take;
    const auto got = ouro::queue_run_bounded(
        take, q, 1u << 20, [](std::uint32_t s) { __nanosleep(s < 8 ? 32 : 256); });
    if (got != ouro::QueueOutcome::ok) {
      ++o.empty;  // empty (a claim past `count` is resumed below, never dropped)
      if (got == ouro::QueueOutcome::spin_limit) return add_outcomes(total, o);
      __nanosleep(100);
      continue;
    }
    own_unit(payload + std::uint64_t{take.index()} * kWords, token_base + r, o);
    ouro::EnqueueOp<DeviceAtomics> give(take.index());
    ouro::queue_run_bounded(give, q, 1u << 20,
                            [](std::uint32_t s) { __nanosleep(s < 8 ? 32 : 256); });
  }
  add_outcomes(total, o);
}

__global__ void bitmap_kernel(dynasoar::HBitmap b, unsigned* payload, unsigned workers,
                              unsigned rounds, unsigned* scratch, std::uint64_t lines,
                              Outcomes* total) {
  if (stress_block(workers, scratch, lines, rounds)) return;
  Outcomes o;
  const std::uint64_t me = worker_index();
  const auto token_base = static_cast<unsigned>(me * rounds) + 1;
  for (unsigned r = 0; r < rounds; ++r) {
    dynasoar::BitmapCounts c;
    dynasoar::BitmapAllocOp<DeviceAtomics> take(b, static_cast<unsigned>(me / 32),
                                                static_cast<unsigned>(mix64(me + r)), 4, 1u << 16);
    while (take.step(b, c) != dynasoar::BitStatus::done) __nanosleep(32);
    if (take.result() == dynasoar::kNoBit) {
      ++o.empty;
      __nanosleep(100);
      continue;
    }
    const auto slot = static_cast<std::uint64_t>(take.result());
    own_unit(payload + slot * kWords, token_base + r, o);
    detail::fence_release_device();  // as the free kernel (bitmap_alloc.cu) before the set
    dynasoar::BitOp<DeviceAtomics> give(dynasoar::BitOpKind::set, slot);
    while (give.step(b, c) != dynasoar::BitStatus::done) __nanosleep(32);
  }
  add_outcomes(total, o);
}

// Gallatin's own shared operations, each lane a team of one (the GPU's warp teams add a
// shuffle, not an order): the slice's 64 B at its byte offset in an arena of ours (the pool
// keeps no bytes).
struct PausingAtomics : DeviceAtomics {
  __device__ static void pause(std::uint32_t w) {
    if (w >= 32) __nanosleep(64);
  }
};
using GallatinOps = gallatin::Ops<PausingAtomics>;
constexpr unsigned kGallatinClass = 2;  // 64 B slices

__global__ void gallatin_kernel(detail::GallatinView v, unsigned* arena, unsigned workers,
                                unsigned rounds, unsigned* scratch, std::uint64_t lines,
                                Outcomes* total) {
  if (stress_block(workers, scratch, lines, rounds)) return;
  Outcomes o;
  const auto token_base = static_cast<unsigned>(worker_index() * rounds) + 1;
  unsigned sm;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  const std::uint32_t slot = sm % v.st.slots[kGallatinClass];
  for (unsigned r = 0; r < rounds; ++r) {
    gallatin::Counts c;
    std::uint64_t offset[1] = {0};
    if (GallatinOps::malloc_team(v.st, kGallatinClass, slot, 1, offset, c) != 1) {
      ++o.empty;
      __nanosleep(100);
      continue;
    }
    own_unit(arena + offset[0] / 4, token_base + r, o);
    GallatinOps::free_slices(v.st, offset[0], 1, c);
  }
  add_outcomes(total, o);
}

}  // namespace
}  // namespace alloclab::gpu::litmus

// ---- host side ----
namespace alloclab::gpu::litmus {
namespace {

struct Config {
  unsigned rounds = 4000, blocks = 0, stress_blocks = 0;  // 0: from the device's SM count
  std::uint64_t units = 1024;                             // pages / indices / slots shared
};

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "gpu_litmus: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

template <class T>
T* device_zeroed(std::uint64_t n) {
  T* p = nullptr;
  check(cudaMalloc(&p, n * sizeof(T)), "cudaMalloc");
  check(cudaMemset(p, 0, n * sizeof(T)), "cudaMemset");
  return p;
}

struct Result {
  std::string pattern;
  Outcomes o;
  double ms = 0;
};

template <class Launch>
Result run(const char* pattern, const Config& c, Launch&& launch) {
  Outcomes* total = device_zeroed<Outcomes>(1);
  const std::uint64_t lines = 1u << 16;
  unsigned* scratch = device_zeroed<unsigned>(lines * 32);
  cudaEvent_t a, b;
  check(cudaEventCreate(&a), "event");
  check(cudaEventCreate(&b), "event");
  check(cudaEventRecord(a), "event");
  launch(c.blocks + c.stress_blocks, scratch, lines, total);
  check(cudaGetLastError(), pattern);
  check(cudaEventRecord(b), "event");
  check(cudaDeviceSynchronize(), pattern);
  Result r{pattern, {}, 0};
  float ms = 0;
  check(cudaEventElapsedTime(&ms, a, b), "event");
  r.ms = ms;
  check(cudaMemcpy(&r.o, total, sizeof(Outcomes), cudaMemcpyDeviceToHost), "copy");
  // Progress on stderr (the JSON comes at the end): a run stopped by the stage's timeout still
  // leaves what the finished patterns saw.
  std::fprintf(stderr, "gpu_litmus: %s: %llu hand-overs, %llu torn, %llu overwritten, %.1f ms\n",
               pattern, r.o.handovers, r.o.torn, r.o.overwritten, r.ms);
  cudaFree(scratch);
  cudaFree(total);
  return r;
}

template <class Api>
Result run_page_heap(const char* pattern, const Config& c) {
  detail::DevicePageHeap<Api> heap(
      {.pages = c.units, .page_bytes = kWords * 4, .seed = 1, .max_steps = 256});
  return run(pattern, c, [&](unsigned grid, unsigned* scratch, std::uint64_t lines, Outcomes* t) {
    page_heap_kernel<<<grid, kThreads>>>(heap.device(), c.blocks, c.rounds, scratch, lines, t);
  });
}

Result run_index_queue(const Config& c) {
  const auto size = static_cast<std::uint32_t>(c.units);
  std::vector<std::uint32_t> slots(size);
  for (std::uint32_t i = 0; i < size; ++i) slots[i] = i;  // every index in the queue
  ouro::IndexQueueWords words;
  words.fill_count = size;
  words.back = size;
  auto* dwords = device_zeroed<ouro::IndexQueueWords>(1);
  auto* dslots = device_zeroed<std::uint32_t>(size);
  auto* payload = device_zeroed<unsigned>(std::uint64_t{size} * kWords);
  check(cudaMemcpy(dwords, &words, sizeof words, cudaMemcpyHostToDevice), "copy");
  check(cudaMemcpy(dslots, slots.data(), size * 4ull, cudaMemcpyHostToDevice), "copy");
  const ouro::IndexQueueRef q{dwords, dslots, size};
  Result r = run("ouro_index_queue", c,
                 [&](unsigned grid, unsigned* scratch, std::uint64_t lines, Outcomes* t) {
                   index_queue_kernel<<<grid, kThreads>>>(q, payload, c.blocks, c.rounds, scratch,
                                                          lines, t);
                 });
  cudaFree(payload);
  cudaFree(dslots);
  cudaFree(dwords);
  return r;
}

Result run_gallatin(const Config& c) {
  Scenario s;
  s.algo = Algorithm::gallatin;
  s.T = s.A = 2 * detail::kGallatinUnitsPerSegment;  // 2 segments: 128 blocks of 64 B slices
  s.N = s.T;
  s.pages = 4;  // 64 B: the class pre-booted
  s.seed = 1;
  const MeasureOptions options;
  const detail::KernelArgs args = detail::kernel_args(s, options);
  detail::GallatinPool::check(s, options);
  detail::GallatinPool pool(s, options, args);
  pool.set_up();
  pool.reset();
  auto* arena = device_zeroed<unsigned>(s.T * detail::kGallatinUnitBytes / 4);
  Result r = run("gallatin_block", c,
                 [&](unsigned grid, unsigned* scratch, std::uint64_t lines, Outcomes* t) {
                   gallatin_kernel<<<grid, kThreads>>>(pool.view(), arena, c.blocks, c.rounds,
                                                       scratch, lines, t);
                 });
  cudaFree(arena);
  return r;
}

Result run_bitmap(const Config& c) {
  dynasoar::HBitmapStorage host(c.units);  // units: a multiple of 64
  for (std::uint64_t i = 0; i < c.units / 64; ++i) host.words[i] = ~std::uint64_t{0};
  dynasoar::hbitmap_build_upper(host.bitmap);
  auto* dwords = device_zeroed<std::uint64_t>(host.words.size());
  check(cudaMemcpy(dwords, host.words.data(), host.words.size() * 8, cudaMemcpyHostToDevice),
        "copy");
  auto* payload = device_zeroed<unsigned>(c.units * kWords);
  const dynasoar::HBitmap b{dwords, c.units};
  Result r =
      run("dynasoar_bitmap", c,
          [&](unsigned grid, unsigned* scratch, std::uint64_t lines, Outcomes* t) {
            bitmap_kernel<<<grid, kThreads>>>(b, payload, c.blocks, c.rounds, scratch, lines, t);
          });
  cudaFree(payload);
  cudaFree(dwords);
  return r;
}

bool parse_unsigned(const char* s, unsigned& out) {
  char* end = nullptr;
  const unsigned long v = std::strtoul(s, &end, 10);
  if (end == s || *end != '\0' || v == 0 || v > (1ul << 24)) return false;
  out = static_cast<unsigned>(v);
  return true;
}

}  // namespace
}  // namespace alloclab::gpu::litmus

int main(int argc, char** argv) {
  using namespace alloclab::gpu::litmus;
  Config c;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    unsigned* target = a == "--rounds"          ? &c.rounds
                       : a == "--blocks"        ? &c.blocks
                       : a == "--stress-blocks" ? &c.stress_blocks
                                                : nullptr;
    if (target == nullptr) {
      std::fprintf(stderr,
                   "gpu_litmus: unknown option '%s' (options: --rounds, --blocks, "
                   "--stress-blocks)\n",
                   a.c_str());
      return 2;
    }
    if (i + 1 >= argc || !parse_unsigned(argv[i + 1], *target)) {
      std::fprintf(stderr, "gpu_litmus: %s needs a whole number in [1, 2^24]\n", a.c_str());
      return 2;
    }
    ++i;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "gpu_litmus: skipped: no CUDA device\n");
    return 4;
  }
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "device");
  // Two worker blocks per SM (so every SM hands units to every other), one stress block per SM.
  if (c.blocks == 0) c.blocks = 2 * static_cast<unsigned>(prop.multiProcessorCount);
  if (c.stress_blocks == 0) c.stress_blocks = static_cast<unsigned>(prop.multiProcessorCount);
  using alloclab::BitChoice;
  const Result results[] = {
      run_page_heap<alloclab::gpu::detail::RwbmDevice<std::uint32_t, BitChoice::lowest>>(
          "page_heap_rwbm", c),
      run_page_heap<alloclab::gpu::detail::CorwDevice<std::uint32_t, BitChoice::lowest>>(
          "page_heap_corw", c),
      run_index_queue(c),
      run_gallatin(c),
      run_bitmap(c),
  };
  unsigned long long forbidden = 0;
  std::printf(
      "{\"device\": \"%s\", \"sms\": %d, \"rounds\": %u, \"worker_blocks\": %u, "
      "\"stress_blocks\": %u, \"threads_per_block\": %u, \"units\": %llu, "
      "\"patterns\": [",
      prop.name, prop.multiProcessorCount, c.rounds, c.blocks, c.stress_blocks, kThreads,
      static_cast<unsigned long long>(c.units));
  bool first = true;
  for (const Result& r : results) {
    std::printf(
        "%s\n  {\"pattern\": \"%s\", \"handovers\": %llu, \"torn\": %llu, "
        "\"overwritten\": %llu, \"empty\": %llu, \"ms\": %.1f}",
        first ? "" : ",", r.pattern.c_str(), r.o.handovers, r.o.torn, r.o.overwritten, r.o.empty,
        r.ms);
    first = false;
    forbidden += r.o.torn + r.o.overwritten;
  }
  std::printf("\n], \"forbidden\": %llu}\n", forbidden);
  return forbidden == 0 ? 0 : 1;
}
