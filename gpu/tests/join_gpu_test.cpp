// The hash join case study on the GPU (gpu/src/join*.cu, alloclab/gpu/join.hpp): with pages from
// Direct Output and from every allocator with a page heap, the pages read back hold exactly the
// host reference join's tuples (count and checksum, core/join/reference.hpp) for uniform and
// skewed tables, one page or many a probe thread; a pool too small is reported as out of memory
// with the tuples written, not a hang; the input checks need no device.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/join/pages.hpp"
#include "alloclab/core/join/reference.hpp"
#include "alloclab/gpu/join.hpp"
#include "gpu_support.hpp"

using namespace alloclab;
using namespace alloclab::gpu;
using alloclab::gpu::test::require_device;

namespace {
JoinOptions join_options(const std::string& allocator, const join::JoinTables& t,
                         std::uint64_t pages, unsigned tuples_per_thread = 1) {
  JoinOptions o;
  o.allocator = allocator;
  o.tables = t;
  o.pages = pages;
  o.tuples_per_thread = tuples_per_thread;
  o.repeats = 1;
  // A bound no allocator reaches on these ample pools: gg-tbuddy's waits on its order-0
  // semaphore count as steps, and a hot partition's hundreds of threads asking at once wait
  // longer than the join's default 2^16 (studies/hash-join/README.md).
  o.max_steps = std::uint64_t{1} << 22;
  return o;
}
}  // namespace

TEST_CASE("join allocators: direct and every allocator with a page heap", "[gpu][join]") {
  const std::vector<std::string> names = join_allocators();
  REQUIRE(!names.empty());
  CHECK(names.front() == kDirectOutput);
  if (!built_with_cuda()) return;  // the stub has only the join's own baseline
  for (const char* a : {"queue", "rw", "rwbm", "corw", "rwmalloc"})
    CHECK(std::find(names.begin(), names.end(), a) != names.end());
  // A page heap is an allocator of the registry that runs on the GPU.
  for (std::size_t i = 1; i < names.size(); ++i) {
    INFO(names[i]);
    const auto algo = parse_algorithm(names[i]);
    REQUIRE(algo.has_value());
    CHECK(caps(*algo).has(BackendKind::gpu));
  }
}

TEST_CASE("join input errors name the parameter without a device", "[gpu][join]") {
  const join::JoinTables t{.build = 1000, .probe = 1000, .key_range = 1000, .skew = 0, .seed = 1};
  const auto parameter_of = [](const JoinOptions& o) -> std::string {
    try {
      check_join(o);
    } catch (const InputError& e) {
      return e.parameter();
    }
    return "";
  };
  CHECK(parameter_of(join_options("cudamalloc", t, 4096)) == "--allocator");  // no page heap
  if (built_with_cuda()) {  // the allocator's own pool checks, in the join's words
    CHECK(parameter_of(join_options("gallatin", t, 4096)) == "--pool");  // not whole segments
    CHECK(parameter_of(join_options("ouro-p-s", t, 16)) == "--pool");    // below one chunk
    CHECK(parameter_of(join_options("gg-tbuddy", t, std::uint64_t{1} << 23)) == "--pool");
    // UAlloc's pool is whole chunks of 256 KB (1024 pages of 256 B) under TBuddy's 2^22 pages
    // of 4 KB (2^26 pages of 256 B).
    CHECK(parameter_of(join_options("gg-ualloc", t, 1000)) == "--pool");
    CHECK(parameter_of(join_options("gg-malloc", t, std::uint64_t{1} << 27)) == "--pool");
    CHECK(parameter_of(join_options("gg-malloc", t, std::uint64_t{1} << 26)) == "");
  }
  CHECK(parameter_of(join_options("direct", t, 0)) == "--pool");
  join::JoinTables skewed = t;
  skewed.skew = 4.5;
  CHECK(parameter_of(join_options("direct", skewed, 4096)) == "--skew");
  join::JoinTables empty = t;
  empty.build = 0;
  CHECK(parameter_of(join_options("direct", empty, 4096)) == "--tuples");
  CHECK(parameter_of(join_options("direct", t, 4096)).empty());
}

TEST_CASE("join on the GPU: every page source gives the reference join", "[gpu][join]") {
  require_device();
  struct Case {
    join::JoinTables tables;
    unsigned tuples_per_thread;
  };
  const std::vector<Case> cases = {
      {{.build = 50000, .probe = 50000, .key_range = 60000, .skew = 0, .seed = 3}, 1},
      {{.build = 50000, .probe = 50000, .key_range = 50000, .skew = 1, .seed = 4}, 1},
      {{.build = 20000, .probe = 70000, .key_range = 40000, .skew = 2, .seed = 5}, 1},
      // Many S tuples a thread: chains of several pages, and partitions of many blocks.
      {{.build = 300000, .probe = 300000, .key_range = 300000, .skew = 0, .seed = 6}, 100},
      {{.build = 300000, .probe = 300000, .key_range = 300000, .skew = 1, .seed = 7}, 100},
  };
  const std::uint64_t pages = std::uint64_t{1} << 20;  // small enough that the pool is checked
  for (const Case& c : cases) {
    const join::JoinOutput want = join::reference_join(c.tables);
    REQUIRE(want.tuples > 0);
    for (const std::string& a : join_allocators()) {
      INFO(a << " build " << c.tables.build << " probe " << c.tables.probe << " skew "
             << c.tables.skew << " tuples a thread " << c.tuples_per_thread);
      const JoinRun run = run_join(join_options(a, c.tables, pages, c.tuples_per_thread), want);
      CHECK(run.verification == "");
      CHECK_FALSE(run.out_of_memory);
      CHECK(run.result_tuples == want.tuples);
      // Each thread's pages are full but its last: at least ceil(tuples / 31) pages, and one
      // page per thread at most beyond that.
      CHECK(run.pages_taken >= (want.tuples + join::kTuplesPerPage - 1) / join::kTuplesPerPage);
      CHECK(run.pages_taken <= want.tuples / join::kTuplesPerPage + run.probe_threads);
      CHECK(run.free_fraction_at_end ==
            Approx(static_cast<double>(pages - run.pages_taken) / static_cast<double>(pages)));
      CHECK(run.getpage_calls == run.pages_taken);
      // A warp call is 1 to 32 lanes asking together.
      CHECK(run.getpage_warp_calls <= run.getpage_calls);
      CHECK(32 * run.getpage_warp_calls >= run.getpage_calls);
      CHECK(run.resident_probe_threads > 0);
      CHECK(run.resident_probe_threads <= run.probe_threads);
      CHECK(run.join_ms > 0);
      CHECK(run.probe_ms > 0);
      CHECK(run.probe_ms <= run.join_ms);
      CHECK(run.getpage_ms >= 0);
      CHECK(run.getpage_ms <= run.probe_ms);
    }
  }
}

TEST_CASE("join on the GPU: a pool too small is reported as out of memory", "[gpu][join]") {
  require_device();
  const join::JoinTables t{
      .build = 100000, .probe = 100000, .key_range = 100000, .skew = 0, .seed = 8};
  const join::JoinOutput want = join::reference_join(t);
  for (const std::string& a : join_allocators()) {
    INFO(a);
    // The output needs about 100000 pages; 500, or for an allocator whose pool comes in larger
    // granules (gallatin: 16 MiB segments), one granule of 65536 pages.
    std::uint64_t pages = 500;
    try {
      check_join(join_options(a, t, pages));
    } catch (const InputError& e) {
      CHECK(e.parameter() == "--pool");
      pages = 65536;
    }
    const JoinRun run = run_join(join_options(a, t, pages), want);
    CHECK(run.out_of_memory);
    CHECK(run.verification == "");  // the pages written are consistent
    CHECK(run.pages_taken <= pages);
    // The counter and the queue hand out every page before they fail; the probing allocators
    // may fail a search at --max-steps with a few pages left.
    if (a == kDirectOutput || a == "queue") CHECK(run.pages_taken == pages);
    CHECK(run.result_tuples > 0);
    CHECK(run.result_tuples < want.tuples);
    CHECK(run.result_tuples <= run.pages_taken * join::kTuplesPerPage);
    CHECK_FALSE(run.notes.empty());
  }
}
