// ouro-c-va's and ouro-c-vl's sequential models against cases worked by hand from Alg. 4-5 and
// §5 as alloclab builds them (studies/ouroboros/, "C over VA and VL"): ouro-c-s's steps plus the
// Queue-Chunks' (the step counts of cpu_sim/tests/ouro_chunk_virtual_test.cpp, per request).
#include <catch2/catch.hpp>

#include "alloclab/model/model.hpp"
#include "alloclab/model/model_table.hpp"
#include "ouro_model_support.hpp"

using namespace alloclab;
using namespace alloclab::model;

namespace {

Record at(Algorithm a, std::uint64_t N, unsigned units, std::uint64_t T = 1 << 20) {
  return test::ouro_model_at(a, N, units, T);
}

}  // namespace

TEST_CASE("ouro-c-va and -vl models: hand-worked sequential costs", "[model][ouro]") {
  const Algorithm va = Algorithm::ouro_c_va, vl = Algorithm::ouro_c_vl;
  // One request of 16 B: ouro-c-s's 35, the walk's 2, the publish's 2, the reserve's 4 (read,
  // commit, CAS, the chunk's commit) and two fresh Queue-Chunks of 1024 entries (1031 each); VL:
  // 35 + 2 + 4 + its first publish, 2 x 1031 + 4 pointers + 1 link.
  CHECK(*at(va, 1, 1).number("tas") == 2105.0);
  CHECK(*at(vl, 1, 1).number("tas") == 2108.0);
  // 5000 of 16 B (10 growers, 9 chunks emptied): ouro-c-s's 57460 + 10000 + 40 + 2 + 2062 + 9
  // (VA); VL's later publishes find their chunk with 2, its first costs 2067: + 3.
  CHECK(*at(va, 5000, 1).number("tas") == Approx(69573.0 / 5000).epsilon(1e-12));
  CHECK(*at(vl, 5000, 1).number("tas") == Approx(69576.0 / 5000).epsilon(1e-12));
  // 2100 of 8 KiB, every request a grower that empties its chunk (pool of 2130 chunks):
  // 41 x 2100 + 2 + 2062 + 2 x 7 + 2 x 5 (VA); 39 x 2100 + 2 + 2067 + 2 x 2099 + 2 x 1035 + 2 x 4
  // (VL).
  CHECK(*at(va, 2100, 512, 2130 * 512).number("tas") == Approx(88188.0 / 2100).epsilon(1e-12));
  CHECK(*at(vl, 2100, 512, 2130 * 512).number("tas") == Approx(90245.0 / 2100).epsilon(1e-12));
  // Past VL's trail: 12400 of 8 KiB.
  CHECK(*at(va, 12400, 512, 12500 * 512).number("tas") == Approx(510608.0 / 12400).epsilon(1e-12));
  CHECK(*at(vl, 12400, 512, 12500 * 512).number("tas") == Approx(520903.0 / 12400).epsilon(1e-12));
  // Queue-Chunks drawn from the pool: VA 2 (the spares serve the rest); VL 2 + 10 (the trail).
  CHECK(*at(va, 12400, 512, 12500 * 512).number("queue_chunks") == 2.0);
  CHECK(*at(vl, 12400, 512, 12500 * 512).number("queue_chunks") == 12.0);
  CHECK(*at(vl, 2100, 512, 2130 * 512).number("queue_chunks") == 4.0);
  // Kept in the pool: ring of 32768 for 12500 chunks: 32 + 2, VL + 10.
  CHECK(*at(va, 12400, 512, 12500 * 512).number("queue_chunks_reserved") == 34.0);
  CHECK(*at(vl, 12400, 512, 12500 * 512).number("queue_chunks_reserved") == 44.0);
  // Static memory, 2^20 units = 2048 chunks: ouro-c-s's ring has 4096 entries of 8 B (32 KiB);
  // VA keeps ceil(4096 / 1024) + 2 = 6 references of 4 B, VL front, back, old and the trail.
  CHECK(*at(va, 1, 1).number("static_queue_bytes") == 24.0);
  CHECK(*at(vl, 1, 1).number("static_queue_bytes") == 16.0);
}

TEST_CASE("ouro-c-va and -vl models: where they apply", "[model][ouro]") {
  for (const Algorithm a : {Algorithm::ouro_c_va, Algorithm::ouro_c_vl}) {
    Scenario s;
    s.algo = a;
    s.N = 1024;
    // Two growers of 512 pages and the reserve: a ring of 16 entries for 5 (VA) or 15 (VL)
    // chunks: 3, or 13.
    const std::uint64_t chunks = a == Algorithm::ouro_c_va ? 5 : 15;
    s.A = s.T = chunks * 512;
    s.pages = 1;
    const ModelEntry& e = *ModelTable::instance().find(a);
    CHECK(e.applies(s));
    s.N = 1025;
    CHECK_FALSE(e.applies(s));
    s.N = 1024;
    s.A = s.T = (chunks - 1) * 512;
    CHECK_FALSE(e.applies(s));
  }
}
