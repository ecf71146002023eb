// Built with -fsanitize=thread (label tsan): threads mode of every allocator on a small case.
#include <catch2/catch.hpp>

#include "alloclab/core/dynasoar/types.hpp"
#include "alloclab/cpu_sim/simulator.hpp"
#include "alloclab/cpu_sim/typed_apps.hpp"
#include "sim_test_helpers.hpp"

using namespace alloclab;
using namespace alloclab::sim;
using alloclab::sim::testing::granule_pages;

TEST_CASE("threads mode is race free", "[cpu_sim][tsan]") {
  const Algorithm algo = GENERATE(from_range(algorithms_on(BackendKind::sim)));
  const bool multi_page = caps(algo).requests == RequestKind::pages;
  Scenario s;
  s.algo = algo;
  s.N = 256;
  s.A = multi_page ? 1200 : 300;  // two-page requests need room for their runs
  s.T = 2048;
  // Ouroboros serves whole free chunks (512 units), which a partly used pool lacks.
  // Typed blocks (DynaSOAr) serve two-page objects from wholly free blocks only.
  if (caps(algo).size_classes || caps(algo).typed_blocks) s.A = s.T;
  // One that keeps its queue's chunks in the pool keeps 3 + its trail of them beside the page
  // chunk the 256 requests of 2 units take.
  if (caps(algo).queue_in_pool) s.A = s.T = (1 + 3 + caps(algo).queue_trail) * 512;
  // Gallatin: one 16 MiB segment, all free.
  if (const std::uint64_t granule = granule_pages(caps(algo))) s.A = s.T = granule;
  s.lanes = 8;
  s.pages = multi_page ? 2 : 1;
  SimOptions o;
  o.mode = Mode::threads;
  o.host_threads = 4;
  const RunResult r = run_once(s, o, 0);
  CHECK(r.failed == 0);
  if (!caps(algo).frees) return;
  auto a = make_allocator(s, o, 5);
  RunResult r1 = a->allocate(1);
  for (std::uint64_t i = 0; i < s.N; i += 3)
    if (r1.first_page[i] >= 0) a->free(static_cast<std::uint64_t>(r1.first_page[i]), s.pages);
  RunResult r2 = a->allocate(2);
  CHECK(r2.taken + r2.failed * s.pages == s.N * s.pages);
}

TEST_CASE("the typed heap's threads mode is race free", "[cpu_sim][tsan]") {
  TypedHeapOptions heap;
  heap.mode = TypedMode::threads;
  heap.host_threads = 4;
  // linux-scalability: 32 blocks of 64 slots, 512 threads: 4 objects each, then the frees.
  LinuxScalabilityOptions ls;
  ls.heap = heap;
  ls.heap.types = dynasoar::parse_types("--types", "64");
  ls.heap.heap_bytes = 32 * 64 * 64;
  ls.threads = 512;
  const LinuxScalabilityRun r = run_linux_scalability(ls);
  CHECK(r.n_max == 4);
  CHECK(r.blocks_left == 0);
  // Wa-Tor: two types, allocation and free batches, rollbacks possible.
  WatorOptions w;
  w.heap = heap;
  w.heap.types = dynasoar::parse_types("--types", "60,64");
  w.heap.heap_bytes = 64 * 3840;
  w.width = 24;
  w.height = 24;
  w.iterations = 20;
  CHECK(run_wator(w).iterations.size() == 21);
}
