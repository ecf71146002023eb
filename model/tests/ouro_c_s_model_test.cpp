// ouro-c-s's sequential model against cases worked by hand from Alg. 2 and 4-5 as alloclab builds
// them (studies/ouroboros/, "Variant C"): a grower costs 27 + W, the j-th request on a chunk
// 8 + floor(j / 64), and emptying a chunk 6 more.
#include <catch2/catch.hpp>

#include "alloclab/model/model.hpp"
#include "alloclab/model/model_table.hpp"
#include "ouro_model_support.hpp"

using namespace alloclab;
using namespace alloclab::model;

namespace {

Record at(std::uint64_t N, unsigned units) {
  return test::ouro_model_at(Algorithm::ouro_c_s, N, units);
}

}  // namespace

TEST_CASE("ouro-c-s model: hand-worked sequential costs", "[model][ouro]") {
  // One request of 16 B grows the first chunk (512 pages, 8 mask words): 27 + 8.
  CHECK(*at(1, 1).number("tas") == 35.0);
  CHECK(*at(1, 1).number("chunks") == 1.0);
  // 2000 requests of 16 B, 4 chunks. A full chunk: 35 + 511 * 8 + sum_{j<512} floor(j/64)
  // (= 64 * (0 + 1 + ... + 7) = 1792) + 6 = 5921. The last, 464 requests: 35 + 463 * 8 +
  // (64 * (1 + ... + 6) + 16 * 7 = 1456) = 5195. tas = (3 * 5921 + 5195) / 2000.
  CHECK(*at(2000, 1).number("tas") == Approx(22958.0 / 2000.0).epsilon(1e-12));
  CHECK(*at(2000, 1).number("chunks") == 4.0);
  CHECK(*at(2000, 1).number("traversal") == 0.0);
  // 5 requests of 4 KiB (2 pages per chunk, one word): 28 + 6 (the grower empties nothing), 8 + 6,
  // 28, 8 + 6, 28: (28 + 14 + 28 + 14 + 28) / 5; one warp, its max 28.
  CHECK(*at(5, 256).number("tas") == Approx(112.0 / 5.0).epsilon(1e-12));
  CHECK(*at(5, 256).number("was") == 28.0);
  CHECK(*at(5, 256).number("chunks") == 3.0);
  // One request of 8 KiB: a grower that also empties its chunk: 28 + 6.
  CHECK(*at(1, 512).number("tas") == 34.0);
  // The class's ring: 2^20 units = 2048 chunks -> 4096 entries of 8 bytes.
  CHECK(*at(1, 1).number("static_queue_bytes") == 4096.0 * 8);
}

TEST_CASE("ouro-c-s model: where it applies", "[model][ouro]") {
  Scenario s;
  s.algo = Algorithm::ouro_c_s;
  s.N = 1025;
  s.A = s.T = 2 * 512;  // two chunks of 512 pages
  s.pages = 1;
  const ModelEntry& e = *ModelTable::instance().find(Algorithm::ouro_c_s);
  CHECK_FALSE(e.applies(s));
  s.N = 1024;
  CHECK(e.applies(s));
  s.A = s.T - 1;
  CHECK_FALSE(e.applies(s));
}
