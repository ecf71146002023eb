// Figure 6's benchmark on the GPU (gpu/src/rcu_list_bench.cu): every launch verified with both
// barriers (each writer removed its element, every element freed once, no reader saw a freed
// element, the list and the SRCU words empty at the end), over block sizes that put a barrier's
// holder, its waiter and the readers it drains in one warp (independent thread scheduling);
// a step bound that counts its give-ups and never hangs; the input checks (no device needed).
#include <catch2/catch.hpp>

#include <string>
#include <tuple>
#include <vector>

#include "alloclab/core/errors.hpp"
#include "alloclab/gpu/rcu_list_bench.hpp"
#include "gpu_support.hpp"

using namespace alloclab;
using namespace alloclab::gpu;
using alloclab::gpu::test::require_device;

namespace {
RcuBenchGpuOptions bench(std::uint32_t n, std::uint32_t writers, bool conditional,
                         unsigned block = 256) {
  RcuBenchGpuOptions o;
  o.config = {n, writers, conditional};
  o.block = block;
  o.repeats = 2;
  return o;
}
}  // namespace

TEST_CASE("rcu bench on the GPU: every launch verified, both barriers", "[gpu][gelado][rcu]") {
  require_device();
  for (bool conditional : {false, true})
    for (auto [n, w] : std::vector<std::tuple<std::uint32_t, std::uint32_t>>{
             {1, 1}, {33, 0}, {1024, 1024}, {4096, 256}, {65536, 1024}})
      for (unsigned block : {32u, 1024u}) {
        INFO((conditional ? "conditional" : "plain")
             << " N " << n << " W " << w << " block " << block);
        const RcuBenchGpuRun r = run_rcu_bench_gpu(bench(n, w, conditional, block));
        CHECK(r.verification.empty());
        CHECK(r.summary.writers == w);
        CHECK(r.summary.gave_up == 0);
        CHECK(r.summary.sum.saw_freed == 0);
        CHECK(r.summary.sum.barriers + r.summary.sum.delegations == w);
        if (!conditional) CHECK(r.summary.sum.delegations == 0);
        CHECK(r.median_ms > 0);
      }
}

TEST_CASE("rcu bench on the GPU: a step bound gives up, counted, no hang", "[gpu][gelado][rcu]") {
  require_device();
  RcuBenchGpuOptions o = bench(4096, 4096, true);
  o.max_steps = 6;  // past the read side's entry, before any list walk ends
  o.repeats = 1;
  o.warmup = 0;
  const RcuBenchGpuRun r = run_rcu_bench_gpu(o);
  CHECK(r.summary.gave_up > 0);
  CHECK(r.verification.find("gave up") != std::string::npos);
}

TEST_CASE("rcu bench on the GPU: input checks need no device", "[gelado][rcu]") {
  auto error_of = [](RcuBenchGpuOptions o) {
    try {
      check_rcu_bench_gpu(o);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(error_of(bench(0, 0, true)).find("--N") == 0);
  CHECK(error_of(bench(10, 11, true)).find("--ratio") == 0);
  CHECK(error_of(bench(64, 8, true, 48)).find("--block") == 0);
  CHECK(error_of(bench(1u << 23, 8, true)).find("--N") == 0);
  CHECK(error_of(bench(64, 8, false)).empty());
}
