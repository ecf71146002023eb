// ouro-p-va's sequential model against cases worked by hand from Alg. 3 and §5.1 (the same
// cases cpu_sim/tests/ouro_virtual_test.cpp replays in the simulator), and its static memory
// against the paper's "1/2048 of the original queue".
#include <catch2/catch.hpp>

#include "alloclab/model/model.hpp"
#include "alloclab/model/model_table.hpp"
#include "ouro_model_support.hpp"

using namespace alloclab;
using namespace alloclab::model;

namespace {

Record at(std::uint64_t N, unsigned units, std::uint64_t T = 1 << 20) {
  return test::ouro_model_at(Algorithm::ouro_p_va, N, units, T);
}

}  // namespace

TEST_CASE("ouro-p-va model: hand-worked sequential costs", "[model][ouro][vqueue]") {
  // One request of 16 B grows (p = 512): 6 + 11 + 2048 + 2 x 2055, and commits 3 Queue-Chunks
  // one by one (10 memory operations).
  CHECK(*at(1, 1).number("tas") == 6185.0);
  CHECK(*at(1, 1).number("chunks") == 1.0);
  CHECK(*at(1, 1).number("queue_chunks_reserved") == 3.0);
  // 2000 of 16 B: 6 x 2000 + 4 x 2059 + 4110 + 10 + 3 = 24359.
  CHECK(*at(2000, 1).number("tas") == Approx(24359.0 / 2000).epsilon(1e-12));
  // 5000 of 16 B: + 2 reused first items (6 each), 2 give-backs (4 each), and the Queue-Chunks
  // committed (10, 4 at 2048 and 4096, 1 at the 7 other grows): 54745.
  CHECK(*at(5000, 1).number("tas") == Approx(54745.0 / 5000).epsilon(1e-12));
  CHECK(*at(5000, 1).number("queue_chunks_reserved") == 3.0 + 2.0);  // ceil(5120/2048) + 2
  // 5 of 4 KiB (p = 2): 30 + 3 x 19 + 4110 + 10 + 2; one warp, its max the first request:
  // 6 + 19 + 4110 + 10.
  CHECK(*at(5, 256).number("tas") == Approx(4209.0 / 5).epsilon(1e-12));
  CHECK(*at(5, 256).number("was") == 4145.0);
}

TEST_CASE("ouro-p-va model: static memory is the references, about 1/2048 of S",
          "[model][ouro][vqueue]") {
  // A pool of 2^22 units (8192 chunks): the 16 B class's ring would be 2^22 pages (4-byte
  // indices: 16 MiB); capped at the default 2^20 pages, 4 MiB. VA: ceil(2^20 / 2048) + 2 = 514
  // references of 4 bytes = 2056 bytes, 4 MiB / 2056 = 2040 (the paper's 2048 without the two).
  const Record va = at(100, 1, 1 << 22);
  const Record s = test::ouro_model_at(Algorithm::ouro_p_s, 100, 1, 1 << 22);
  CHECK(*va.number("static_queue_bytes") == 2056.0);
  CHECK(*s.number("static_queue_bytes") == 4194304.0);
}

TEST_CASE("ouro-p-va model: where it applies", "[model][ouro][vqueue]") {
  // Ten chunks: 3072 requests of 16 B take 6 page chunks and keep 2 + 2; 3073 need a seventh.
  const ModelEntry& e = *ModelTable::instance().find(Algorithm::ouro_p_va);
  Scenario s;
  s.algo = Algorithm::ouro_p_va;
  s.A = s.T = 10 * 512;
  s.pages = 1;
  s.N = 3072;
  CHECK(e.applies(s));
  s.N = 3073;
  CHECK_FALSE(e.applies(s));
}
