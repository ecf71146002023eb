// RW-BM (paper 000, Sec. 4.1): each step reads one random w-bit word (bitmap_probe_word) and, if
// it has a free bit, claims the lowest one with atomicOr; a lost claim retries on the next free
// bit of the value the atomic returned, within the same word and the same step (a collision
// each), so only an exhausted word costs a new step. `--bit-choice` (core/bit_choice.hpp, a
// template parameter: lowest compiles to the original loop) replaces "lowest free bit" by a
// random free bit ranked by the low 32 bits of the probe number, or by the first free bit at or
// after lane * w / lanes; the probed words stay those of bitmap_probe_word. Free clears one bit
// per page (the bitmap pool's launch_bitmap_free).
#include "bitmap_pool.cuh"
#include "gpu_entry.cuh"

namespace alloclab::gpu::detail {
namespace {

template <typename Word, bool kCounters, BitChoice kChoice>
__global__ void rwbm_alloc_kernel(KernelArgs a, BitmapView pool) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= a.N || !asks(a, i)) return;
  constexpr unsigned w = sizeof(Word) * 8;
  auto* bitmap = static_cast<Word*>(pool.bitmap);
  std::uint64_t k = 0;
  for (unsigned r = 0; r < a.per_thread; ++r) {
    std::uint32_t steps = 0, lost = 0;
    std::uint64_t got = kFailed;
    while (steps < a.max_steps && got == kFailed) {
      // == bitmap_probe_word(a.seed, i, k, pool.words); the low bits also key the bit choice
      const std::uint64_t probe = probe_bits(a.seed, i, k++);
      const std::uint64_t p = mul_high_u64(probe, pool.words);
      ++steps;
      Word word = load_word(&bitmap[p]);
      while (word != static_cast<Word>(~Word{0})) {
        int b;
        if constexpr (kChoice == BitChoice::lowest)
          b = bits::first_free_bit(word, w);
        else
          b = choose_free_bit(kChoice, word, w, bit_choice_key(probe, i, w, a.lanes));
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
    // Every atomicOr either won (once) or was lost.
    record_request<kCounters>(a, r, i, got, steps, lost, lost + (got != kFailed ? 1u : 0u));
  }
}

template <typename Word, BitChoice kChoice>
void launch_alloc(const KernelArgs& a, const BitmapView& pool, bool counters) {
  if (counters)
    rwbm_alloc_kernel<Word, true, kChoice><<<blocks_for(a.N, a.block), a.block>>>(a, pool);
  else
    rwbm_alloc_kernel<Word, false, kChoice><<<blocks_for(a.N, a.block), a.block>>>(a, pool);
}

template <typename Word>
void launch_alloc(const KernelArgs& a, const BitmapView& pool, bool counters) {
  switch (a.bit_choice) {
    case BitChoice::lowest:
      launch_alloc<Word, BitChoice::lowest>(a, pool, counters);
      break;
    case BitChoice::random:
      launch_alloc<Word, BitChoice::random>(a, pool, counters);
      break;
    case BitChoice::rotated:
      launch_alloc<Word, BitChoice::rotated>(a, pool, counters);
      break;
  }
}

void launch_rwbm_alloc(const KernelArgs& a, const BitmapView& pool, bool counters) {
  if (pool.w == 32)
    launch_alloc<std::uint32_t>(a, pool, counters);
  else
    launch_alloc<std::uint64_t>(a, pool, counters);
  ALLOCLAB_CUDA_LAUNCH();
}

}  // namespace

ALLOCLAB_REGISTER_ENTRY(GpuTable, Algorithm::rwbm,
                        (gpu_entry(GpuTraits<BitmapPool>{.alloc = &launch_rwbm_alloc,
                                                         .free = &launch_bitmap_free})))

}  // namespace alloclab::gpu::detail
