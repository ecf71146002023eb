// The page-size study's candidate kernels (candidate_kernels.hpp says what each changes and why)
// and their driver: the steps of measure.cu (reset, time, verify, statistics, free) on the
// registry allocator's bitmap pool, with the candidate's launch instead of the allocator's.
#include <string>
#include <vector>

#include "alloclab/core/errors.hpp"
#include "bitmap_pool.cuh"  // gpu/src: the bench reuses the GPU module's internals
#include "candidate_kernels.hpp"
#include "device.cuh"
#include "run_results.cuh"

namespace alloclab::gpu::bench {
namespace {

using namespace alloclab::gpu::detail;

constexpr unsigned kBlock = 256;
constexpr unsigned kWarp = 32;

// The warp's live lanes (lanes 0 .. count-1 of the last, partial warp).
__device__ __forceinline__ unsigned warp_members(std::uint64_t N, std::uint64_t i) {
  const std::uint64_t base = i - threadIdx.x % kWarp;
  const unsigned count = N - base >= kWarp ? kWarp : static_cast<unsigned>(N - base);
  return count == kWarp ? 0xffffffffu : ((1u << count) - 1u);
}

// ---- RW-BM with a blind first claim and/or a warp segment as first probe -----------------------

template <typename Word, bool kCounters, bool kLineFirst, bool kClaimFirst>
__global__ void __launch_bounds__(kBlock) rwbm_variant_kernel(KernelArgs a, BitmapView pool) {
  const std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x;
  if (i >= a.N) return;
  constexpr unsigned w = sizeof(Word) * 8;
  auto* bitmap = static_cast<Word*>(pool.bitmap);
  const unsigned lane = threadIdx.x % kWarp;
  std::uint64_t k = 0;
  for (unsigned r = 0; r < a.per_thread; ++r) {
    std::uint32_t steps = 0, lost = 0;
    std::uint64_t got = kFailed;
    while (steps < a.max_steps && got == kFailed) {
      const std::uint64_t probe = probe_bits(a.seed, i, k++);
      std::uint64_t p = mul_high_u64(probe, pool.words);  // RW-BM's word (bitmap_probe_word)
      if constexpr (kLineFirst) {
        // First step of the first request: every live lane is here (no lane has looped yet).
        if (r == 0 && steps == 0) {
          const std::uint64_t lane0 =
              __shfl_sync(warp_members(a.N, i), static_cast<unsigned long long>(probe), 0);
          const std::uint64_t segments = pool.words >= kWarp ? pool.words / kWarp : 1;
          p = (mul_high_u64(lane0, segments) * kWarp + lane) % pool.words;
        }
      }
      ++steps;
      Word word;
      if constexpr (kClaimFirst) {
        // The claim is the read: a random bit (low 32 bits of the probe; the word came from the
        // high bits), OR-ed blind. A used bit stays used, so nothing is lost if it was taken.
        const auto b = static_cast<unsigned>(
            (static_cast<std::uint64_t>(static_cast<std::uint32_t>(probe)) * w) >> 32);
        const Word bit = static_cast<Word>(Word{1} << b);
        const Word old = atomic_or_word(&bitmap[p], bit);
        if (!(old & bit)) {
          got = p * w + b;
          break;
        }
        ++lost;
        word = old;
      } else {
        word = load_word(&bitmap[p]);
      }
      // RW-BM's claim loop on the value read: lowest free bit, retry on the value returned.
      while (word != static_cast<Word>(~Word{0})) {
        const int b = bits::first_free_bit(word, w);
        const Word bit = static_cast<Word>(Word{1} << b);
        const Word old = atomic_or_word(&bitmap[p], bit);
        if (!(old & bit)) {
          got = p * w + static_cast<unsigned>(b);
          break;
        }
        ++lost;
        word = old | bit;
      }
    }
    record_request<kCounters>(a, r, i, got, steps, lost, 0);  // atomics: not kept by the bench
  }
}

template <typename Word, bool kLineFirst, bool kClaimFirst>
void launch_rwbm_variant(const KernelArgs& a, const BitmapView& pool, bool counters) {
  if (counters)
    rwbm_variant_kernel<Word, true, kLineFirst, kClaimFirst>
        <<<blocks_for(a.N, kBlock), kBlock>>>(a, pool);
  else
    rwbm_variant_kernel<Word, false, kLineFirst, kClaimFirst>
        <<<blocks_for(a.N, kBlock), kBlock>>>(a, pool);
}

template <bool kLineFirst, bool kClaimFirst>
void launch_rwbm_variant(const KernelArgs& a, const BitmapView& pool, bool counters) {
  if (pool.w == 32)
    launch_rwbm_variant<std::uint32_t, kLineFirst, kClaimFirst>(a, pool, counters);
  else
    launch_rwbm_variant<std::uint64_t, kLineFirst, kClaimFirst>(a, pool, counters);
}

void launch(Candidate c, const KernelArgs& a, const BitmapView& pool, bool counters) {
  switch (c) {
    case Candidate::rwbm_claim:
      launch_rwbm_variant<false, true>(a, pool, counters);
      break;
    case Candidate::rwbm_line:
      launch_rwbm_variant<true, false>(a, pool, counters);
      break;
    case Candidate::rwbm_line_claim:
      launch_rwbm_variant<true, true>(a, pool, counters);
      break;
  }
  ALLOCLAB_CUDA_LAUNCH();
}

}  // namespace

std::string_view candidate_name(Candidate c) {
  switch (c) {
    case Candidate::rwbm_claim:
      return "rwbm-claim";
    case Candidate::rwbm_line:
      return "rwbm-line";
    case Candidate::rwbm_line_claim:
      return "rwbm-line-claim";
  }
  return "?";
}

std::optional<Candidate> parse_candidate(std::string_view text) {
  for (auto c : kCandidates)
    if (candidate_name(c) == text) return c;
  return std::nullopt;
}

Algorithm candidate_base(Candidate) {
  return Algorithm::rwbm;  // every candidate left changes RW-BM
}

MeasureResult measure_candidate(Candidate c, const Scenario& scenario, const MeasureOptions& o) {
  Scenario s = scenario;
  s.algo = candidate_base(c);
  s.bit_choice = BitChoice::lowest;
  check_input(s.algo, s, o);
  require_device();
  KernelArgs a;
  a.N = s.N;
  a.A = s.A;
  a.T = s.T;
  a.lanes = s.lanes;
  a.pages = 1;
  a.per_thread = o.per_thread;
  a.seed = trial_seed(s.seed, 0);
  a.max_steps = o.max_steps;
  BitmapPool pool(s, o, a);
  const std::uint64_t R = s.N * o.per_thread;
  const std::string who(candidate_name(c));

  MeasureResult res;
  EventTimer timer;
  DeviceBuffer<std::uint64_t> page(R), sorted(R);
  DeviceBuffer<std::uint32_t> steps(R), collisions(R);
  timer.start();
  pool.set_up();
  res.setup_ms = timer.stop();
  a.page = page.get();
  a.steps = steps.get();
  a.collisions = collisions.get();

  const unsigned runs = o.warmup + o.repeats;
  for (unsigned run = 0; run < runs; ++run) {
    pool.reset();
    ALLOCLAB_CUDA(cudaMemset(page.get(), 0xff, page.bytes()));
    ALLOCLAB_CUDA(cudaMemset(steps.get(), 0, steps.bytes()));
    ALLOCLAB_CUDA(cudaMemset(collisions.get(), 0, collisions.bytes()));
    KernelArgs timed = a;
    if (!o.counters) timed.steps = timed.collisions = nullptr;
    ALLOCLAB_CUDA(cudaDeviceSynchronize());
    timer.start();
    launch(c, timed, pool.view(), o.counters);
    const double ms = timer.stop();
    ALLOCLAB_CUDA(cudaGetLastError());
    if (run >= o.warmup) res.kernel_ms_all.push_back(ms);

    const std::uint64_t taken = count_taken(page);
    sort_results(page, sorted);
    if (const std::uint64_t errors = range_violations(sorted, 1, true, s.T, s.A, a.seed))
      throw VerificationError(who + ": " + std::to_string(errors) +
                              " violations (pages handed out twice or not free)");
    if (taken > s.A) throw VerificationError(who + ": more pages taken than free");
    const Allocation done{sorted.get(), R, 1, taken};
    pool.verify_allocated(done);
    res.taken = taken;
    res.failed = R - taken;
    if (run + 1 < runs) continue;

    if (o.counters) {
      const Stats st = reduce_stats(a, steps, collisions, page);
      if (st.taken != taken) throw VerificationError(who + ": statistics disagree on taken");
      res.tas = st.tas;
      res.was = st.was;
      res.steps_p50 = st.p50;
      res.steps_p99 = st.p99;
      res.steps_max = st.max;
      res.collisions = st.collisions;
      if (res.failed > 0 && st.max < o.max_steps)
        throw VerificationError(who + ": a request failed before the step bound");
    } else {
      res.has_steps = false;
    }
    timer.start();
    launch_bitmap_free(a, pool.view());
    res.free_ms = timer.stop();
    ALLOCLAB_CUDA(cudaGetLastError());
    pool.verify_freed(done);
  }
  ALLOCLAB_CUDA(cudaDeviceSynchronize());
  res.kernel_ms = median_of(res.kernel_ms_all);
  return res;
}

}  // namespace alloclab::gpu::bench
