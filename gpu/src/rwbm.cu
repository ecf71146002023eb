// RW-BM (paper 000, Sec. 4.1): each step reads one random w-bit word (bitmap_probe_word) and, if
// it has a free bit, claims the lowest one with atomicOr; a lost claim retries on the next free
// bit of the value the atomic returned, within the same word and the same step (a collision
// each), so only an exhausted word costs a new step. The free kernel clears one bit per page and
// also serves CoRW.
#include "common.cuh"

namespace alloclab::gpu::detail {
namespace {

template <typename Word, bool kCounters>
__global__ void rwbm_alloc_kernel(KernelArgs a) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= a.N) return;
  constexpr unsigned w = sizeof(Word) * 8;
  auto* bitmap = static_cast<Word*>(a.bitmap);
  std::uint64_t k = 0;
  for (unsigned r = 0; r < a.per_thread; ++r) {
    std::uint32_t steps = 0, lost = 0;
    std::uint64_t got = kFailed;
    while (steps < a.max_steps && got == kFailed) {
      const std::uint64_t p = bitmap_probe_word(a.seed, i, k++, a.words);
      ++steps;
      Word word = load_word(&bitmap[p]);
      while (word != static_cast<Word>(~Word{0})) {
        const int b = bits::first_free_bit(word, w);
        const Word bit = Word{1} << b;
        const Word old = atomic_or_word(&bitmap[p], bit);
        if (!(old & bit)) {
          got = p * w + static_cast<unsigned>(b);
          break;
        }
        ++lost;
        word = old | bit;
      }
    }
    const std::uint64_t slot = r * a.N + i;
    a.page[slot] = got;
    if constexpr (kCounters) {
      a.steps[slot] = steps;
      a.collisions[slot] = lost;
    }
  }
}

template <typename Word>
__global__ void bit_free_kernel(KernelArgs a) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= a.N * a.per_thread) return;
  constexpr unsigned w = sizeof(Word) * 8;
  const std::uint64_t p = a.page[i];
  if (p == kFailed) return;
  atomic_and_word(&static_cast<Word*>(a.bitmap)[p / w], static_cast<Word>(~(Word{1} << (p % w))));
}

template <typename Word>
void launch_alloc(const KernelArgs& a, bool counters) {
  if (counters)
    rwbm_alloc_kernel<Word, true><<<blocks_for(a.N, 256), 256>>>(a);
  else
    rwbm_alloc_kernel<Word, false><<<blocks_for(a.N, 256), 256>>>(a);
}

}  // namespace

void launch_rwbm_alloc(const KernelArgs& a, bool counters) {
  if (a.w == 32)
    launch_alloc<std::uint32_t>(a, counters);
  else
    launch_alloc<std::uint64_t>(a, counters);
  ALLOCLAB_CUDA_LAUNCH();
}

void launch_rwbm_free(const KernelArgs& a) {
  const unsigned blocks = blocks_for(a.N * a.per_thread, 256);
  if (a.w == 32)
    bit_free_kernel<std::uint32_t><<<blocks, 256>>>(a);
  else
    bit_free_kernel<std::uint64_t><<<blocks, 256>>>(a);
  ALLOCLAB_CUDA_LAUNCH();
}

}  // namespace alloclab::gpu::detail
