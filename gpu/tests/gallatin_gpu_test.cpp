// gallatin on the GPU (gpu/src/gallatin.cu) against independent references: the simulator's
// count names, the model's atomics per request (model/src/gallatin.cpp), and bounds worked by
// hand from the layout (4096 slices a block, buffer slots per class, the pre-boot). The input
// checks need no device; the rest is label gpu, skipped where no device is.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/gallatin/layout.hpp"
#include "alloclab/cpu_sim/workload_runner.hpp"
#include "alloclab/gpu/workload.hpp"
#include "alloclab/model/model.hpp"
#include "alloclab/testing/workload_support.hpp"
#include "gallatin_cases.hpp"
#include "gpu_support.hpp"

using namespace alloclab;
using namespace alloclab::gpu;
using alloclab::testing::one_size_workload;
using gpu::test::require_device;

namespace {

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
constexpr std::uint64_t kSlicesPerBlock = gallatin::kDefaultSlicesPerBlock;

std::string input_error_parameter(const Workload& w, const WorkloadOptions& o = {}) {
  try {
    check_workload_input(Algorithm::gallatin, w, o);
  } catch (const InputError& e) {
    return e.parameter();
  }
  return "";
}

std::map<std::string, std::uint64_t> counts_of(const WorkloadPoint& p) {
  std::map<std::string, std::uint64_t> c;
  for (const auto& [n, v] : p.op_counts) c[n] = v;
  return c;
}

}  // namespace

TEST_CASE("gallatin GPU input errors name the parameter", "[gpu][gallatin]") {
  if (!built_with_cuda()) return;  // the stub knows no pools
  auto w = one_size_workload(WorkloadFamily::alloc, 1024, 256, 16 * kMiB);
  CHECK(input_error_parameter(w).empty());
  w.pool_bytes = 60 * kMiB;  // not a whole number of 16 MiB segments
  CHECK(input_error_parameter(w) == "--pool");
  w.pool_bytes = 8 * kMiB;  // less than one segment
  CHECK(input_error_parameter(w) == "--pool");
  w.pool_bytes = 16 * kMiB;
  w.size = {8192, 8192};  // two 4 KiB slices
  CHECK(input_error_parameter(w).empty());
  w.size = {16 * kMiB, 16 * kMiB};  // a whole block of 16 MiB: the whole pool
  CHECK(input_error_parameter(w).empty());
  w.size = {16 * kMiB + 1, 16 * kMiB + 1};  // two segments: above the pool
  CHECK(input_error_parameter(w) != "");
  w.size = {256, 256};
  w.block = 1024;  // the kernel is compiled for 512 threads a block
  CHECK(input_error_parameter(w) == "--block");
}

TEST_CASE("gallatin GPU: one atomicAdd per warp team - the model's team term and the sim's names",
          "[gpu][gallatin]") {
  require_device();
  // 2^16 requests of 256 B (class 4) on 64 segments: every warp is one team of 32 lanes.
  const std::uint64_t N = std::uint64_t{1} << 16;
  const Workload w = one_size_workload(WorkloadFamily::alloc, N, 256, 1024 * kMiB);
  const WorkloadPoint p = run_workload(Algorithm::gallatin, w, {}, 0).points.at(0);
  REQUIRE(p.allocs == N);
  CHECK(p.failed == 0);
  // The simulator's count names, in its order.
  const WorkloadPoint sim = sim::run_workload(Algorithm::gallatin, w, {}, 0).points.at(0);
  REQUIRE(p.op_counts.size() == sim.op_counts.size());
  for (std::size_t j = 0; j < p.op_counts.size(); ++j)
    CHECK(p.op_counts[j].first == sim.op_counts[j].first);
  const auto c = counts_of(p);
  // Hand-worked: N / 32 full warps of one class, so N / 32 teams of 32.
  CHECK(c.at("teams") == N / 32);
  CHECK(c.at("team_lanes") == N * 32);
  // The pre-boot gave each of class 4's buffer slots a block (max(4, SMs >> 4) of them, outside
  // the counts); the other slices need at least this many refills of 4096.
  const std::uint64_t slots = gallatin::buffer_slots(device_info().sm_count, 4);
  const std::uint64_t preboot_slices = slots * kSlicesPerBlock;
  if (N > preboot_slices)
    CHECK(c.at("block_refills") >= (N - preboot_slices + kSlicesPerBlock - 1) / kSlicesPerBlock);
  // Every refill is at least 4 atomics (the segment's gate, its head, its ring slot, the buffer
  // slot's CAS: the model's 4R), every team one atomicAdd.
  CHECK(p.atomics_issued >= c.at("teams") + 4 * c.at("block_refills"));
  // Against the model (an empty pool of 64 segments): at least its team term 1/32 and, warp
  // teams coalescing, below its value for teams of one.
  Scenario s;
  s.algo = Algorithm::gallatin;
  s.N = N;
  s.A = s.T = 64 * kMiB;  // 64 segments of 2^20 pages of 16 B
  s.pages = 16;
  s.lanes = 32;
  const Record m = model::evaluate(s);
  const double per_request = static_cast<double>(p.atomics_issued) / static_cast<double>(N);
  INFO("GPU atomics per request " << per_request << ", model in warp teams "
                                  << *m.number("atomics_per_request_teams") << ", alone "
                                  << *m.number("atomics_per_request"));
  CHECK(per_request >= 1.0 / 32);
  CHECK(per_request < *m.number("atomics_per_request"));
  // No counters with --counters off.
  WorkloadOptions off;
  off.counters = false;
  CHECK(run_workload(Algorithm::gallatin, w, off, 0).points.at(0).op_counts.empty());
}

TEST_CASE("gallatin GPU serves every size class from 16 B to 4096 B", "[gpu][gallatin]") {
  require_device();
  // 4096 requests a class on 4 segments: a class-8 block (16 MiB) holds all of them.
  const std::uint64_t N = 4096, pool = 64 * kMiB;
  for (std::uint64_t size = 16; size <= 4096; size *= 2) {
    CAPTURE(size);
    const WorkloadPoint p =
        run_workload(Algorithm::gallatin, one_size_workload(WorkloadFamily::alloc, N, size, pool),
                     {}, 0)
            .points.at(0);
    CHECK(p.allocs == N);
    CHECK(p.failed == 0);
    CHECK(p.live_bytes == N * size);
    REQUIRE(p.address_range_bytes);
    CHECK(*p.address_range_bytes >= N * size);
    CHECK(*p.address_range_bytes <= pool);
  }
}

TEST_CASE("gallatin GPU out of memory returns null after bounded attempts and is counted",
          "[gpu][gallatin]") {
  require_device();
  // One segment (65536 slices of 256 B) and batches of 4096 until a request fails. Slices
  // stranded at out of memory are at most the rest of the blocks the class's buffer slots hold
  // (Gallatin's design): at most slots * 4096.
  auto w = one_size_workload(WorkloadFamily::oom, 1, 256, 16 * kMiB);
  w.batch = 4096;
  const WorkloadRun r = run_workload(Algorithm::gallatin, w, {}, 0);
  const WorkloadPoint& p = r.points.at(0);
  REQUIRE(p.count_at_failure);
  CHECK(p.failed > 0);
  const std::uint64_t capacity = 16 * kMiB / 256;
  const std::uint64_t slots = gallatin::buffer_slots(device_info().sm_count, 4);
  CHECK(p.allocs <= capacity);
  CHECK(p.allocs + slots * kSlicesPerBlock >= capacity);
  CHECK(p.live_objects == p.allocs);
}

TEST_CASE("gallatin GPU serves large sizes - 2^j slices - whole blocks - segments - verified",
          "[gpu][gallatin][large]") {
  require_device();
  // 32 segments (512 MiB). 8 KiB and 32 KiB: 2 and 8 slices of 4 KiB from class-8 blocks; 100
  // KiB: blocks of 128 KiB; 16 MiB: a class-8 block (a segment); 20 MiB: 2 segments from the
  // back. Each run fits the pool: every request served, its object written and checked by the
  // workload (no overlap, patterns intact), then freed and the pool checked empty.
  const std::uint64_t pool = 512 * kMiB;
  const std::pair<std::uint64_t, std::uint64_t> runs[] = {
      {8 << 10, 4096}, {32 << 10, 1024}, {100 << 10, 512}, {16 * kMiB, 8}, {20 * kMiB, 8}};
  for (const auto& [size, N] : runs) {
    CAPTURE(size);
    const WorkloadPoint p =
        run_workload(Algorithm::gallatin, one_size_workload(WorkloadFamily::alloc, N, size, pool),
                     {}, 0)
            .points.at(0);
    CHECK(p.allocs == N);
    CHECK(p.failed == 0);
    CHECK(p.live_bytes == N * size);
    REQUIRE(p.address_range_bytes);
    CHECK(*p.address_range_bytes <= pool);
    if (size > 16 * kMiB) CHECK(*p.address_range_bytes >= N * 2 * 16 * kMiB - 16 * kMiB);
  }
}

TEST_CASE("gallatin GPU: mixed small and large sizes in one launch", "[gpu][gallatin][large]") {
  require_device();
  // Powers of two from 16 B to 1 MiB per thread (mixed family): slices in warp teams, the rest
  // one thread each, in the same launch. 2048 threads take at most 2 GiB of blocks (each block
  // its request's size above 32 KiB) plus a segment per class and the class-8 slots' blocks:
  // everything fits 4 GiB and is verified.
  auto w = one_size_workload(WorkloadFamily::mixed, 2048, 16, 4096 * kMiB);
  w.size = {16, kMiB};
  const WorkloadPoint p = run_workload(Algorithm::gallatin, w, {}, 0).points.at(0);
  CHECK(p.allocs == 2048);
  CHECK(p.failed == 0);
}

#if defined(ALLOCLAB_GPU_HAVE_CUDA)
TEST_CASE("gallatin GPU: large sizes - exhaust - free everything - allocate again",
          "[gpu][gallatin][large]") {
  require_device();
  // 8 segments. Requests of 2 segments (16 MiB + 16 B): 4 fit, 2 are null (out of memory, no
  // hang); all freed, every segment is back, so 2^16 slices of 16 B are then served. The pool
  // pre-boots no slot for a run of segments (preboot_class): all 8 segments serve them.
  const unsigned two_segments = (1u << 20) + 1;  // units of 16 B
  auto r = gpu::test::gallatin_exhaust_free_switch(8, 6, two_segments, std::uint64_t{1} << 16, 1);
  CHECK(r.first_served == 4);
  CHECK(r.second_served == std::uint64_t{1} << 16);
  // The other way: 4096 B slices exhaust the pool (at most the 4 slots' blocks stranded), all
  // freed, then the segments serve requests of 2 segments from the back again. A block of 4096 B
  // slices is a whole segment, and a block in a buffer slot stays there when its slices are
  // freed (Gallatin returns a block from a slot only when it is used up): up to the 4 class-8
  // slots' segments stay held, so 2 to 4 requests of 2 segments are served (on the H200: 3).
  r = gpu::test::gallatin_exhaust_free_switch(8, 8 * kSlicesPerBlock + 100, 256, 5, two_segments);
  CHECK(r.first_served >= 4 * kSlicesPerBlock);
  CHECK(r.second_served >= 2);
  CHECK(r.second_served <= 4);
}

TEST_CASE("gallatin GPU: exhaust the pool - free everything - allocate another class",
          "[gpu][gallatin]") {
  require_device();
  // 8 segments exhausted by 4096 B slices (one block a segment, 4 buffer slots): at most the 4
  // blocks the slots hold are stranded, so at least 4 segments' 4096 slices are served. All freed,
  // every wholly free segment goes back to the segment tree (the paper's way), so 16 B slices
  // (another class) are served again: 2^16 of them need one segment (256 blocks for the SMs'
  // slots). Without the return every segment would stay formatted for 4096 B and none be served.
  const std::uint64_t first = 8 * kSlicesPerBlock + 10000, second = std::uint64_t{1} << 16;
  const auto r = gpu::test::gallatin_exhaust_free_switch(8, first, 256, second, 1);
  CHECK(r.first_served <= 8 * kSlicesPerBlock);
  CHECK(r.first_served >= 4 * kSlicesPerBlock);
  CHECK(r.second_served == second);
}
#endif
