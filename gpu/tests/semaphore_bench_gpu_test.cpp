// Figure 5's benchmark on the GPU (gpu/src/semaphore_bench.cu): every launch verified (units
// delivered before taken, E = R = 0, the count = delivered - taken), exactly ceil(N / B)
// batches, a pool that runs out refusing exactly the threads past K x B with nobody left
// waiting, and the input checks (no device needed).
#include <catch2/catch.hpp>

#include <string>

#include "alloclab/core/errors.hpp"
#include "alloclab/gpu/semaphore_bench.hpp"
#include "gpu_support.hpp"

using namespace alloclab;
using namespace alloclab::gpu;
using alloclab::gpu::test::require_device;
using gelado::SemaphoreKind;

namespace {
SemaphoreBenchGpuOptions bench(SemaphoreKind k, std::uint64_t n, std::uint32_t batch,
                               unsigned block = 256) {
  SemaphoreBenchGpuOptions o;
  o.config.kind = k;
  o.config.batch = batch;
  o.threads = n;
  o.block = block;
  o.repeats = 2;
  return o;
}
}  // namespace

TEST_CASE("semaphore bench on the GPU: ceil(N / B) batches, every launch verified",
          "[gpu][gelado]") {
  require_device();
  for (SemaphoreKind k : {SemaphoreKind::bulk, SemaphoreKind::counting})
    for (auto [n, b] :
         {std::pair<std::uint64_t, std::uint32_t>{1, 1}, {4096, 512}, {100000, 512}, {65536, 7}})
      for (unsigned block : {32u, 1024u}) {
        INFO(gelado::semaphore_kind_name(k) << " N " << n << " B " << b << " block " << block);
        const SemaphoreBenchGpuRun r = run_semaphore_bench_gpu(bench(k, n, b, block));
        CHECK(r.verification.empty());
        const std::uint64_t batches = (n + b - 1) / b;
        CHECK(r.summary.grew == batches);
        CHECK(r.summary.took == n - batches);
        CHECK(r.summary.gave_up == 0);
        CHECK(r.summary.final_count == static_cast<std::int64_t>(batches * b - n));
        CHECK(r.peak_growers >= 1);
        if (k == SemaphoreKind::counting) CHECK(r.peak_growers == 1);
        CHECK(r.median_ms > 0);
      }
}

TEST_CASE("semaphore bench on the GPU: a pool of K batches refuses the rest, no hang",
          "[gpu][gelado]") {
  require_device();
  for (SemaphoreKind k : {SemaphoreKind::bulk, SemaphoreKind::counting}) {
    SemaphoreBenchGpuOptions o = bench(k, 20000, 64);
    o.config.batches_available = 10;
    const SemaphoreBenchGpuRun r = run_semaphore_bench_gpu(o);
    INFO(gelado::semaphore_kind_name(k));
    CHECK(r.verification.empty());
    CHECK(r.summary.took + r.summary.grew == 640);
    CHECK(r.summary.refused == 20000 - 640);
    CHECK(r.summary.gave_up == 0);
    CHECK(r.summary.final_count == 0);
  }
}

TEST_CASE("semaphore bench on the GPU: warp leaders take 32 units each", "[gpu][gelado]") {
  require_device();
  for (SemaphoreKind k : {SemaphoreKind::bulk, SemaphoreKind::counting})
    for (auto [n, b] :
         {std::pair<std::uint64_t, std::uint32_t>{32, 32}, {1u << 20, 512}, {65536, 64}}) {
      INFO(gelado::semaphore_kind_name(k) << " N " << n << " B " << b);
      SemaphoreBenchGpuOptions o = bench(k, n, b);
      o.warp = true;
      const SemaphoreBenchGpuRun r = run_semaphore_bench_gpu(o);
      CHECK(r.verification.empty());
      const std::uint64_t batches = (n + b - 1) / b;
      CHECK(r.summary.threads == n / 32);
      CHECK(r.summary.grew == batches);
      CHECK(r.summary.taken == n);
      CHECK(r.summary.gave_up == 0);
    }
}

TEST_CASE("semaphore bench on the GPU: input checks need no device", "[gelado]") {
  auto error_of = [](SemaphoreBenchGpuOptions o) {
    try {
      check_semaphore_bench_gpu(o);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(error_of(bench(SemaphoreKind::bulk, 0, 512)).find("--N") == 0);
  CHECK(error_of(bench(SemaphoreKind::bulk, 10, 0)).find("--batch") == 0);
  CHECK(error_of(bench(SemaphoreKind::bulk, 10, 512, 48)).find("--block") == 0);
  CHECK(error_of(bench(SemaphoreKind::bulk, 1u << 21, 512)).find("--N") == 0);
  CHECK(error_of(bench(SemaphoreKind::counting, 1u << 21, 512)).empty());
}
