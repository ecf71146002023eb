// ouro-p-s's sequential model against cases worked by hand from Alg. 2-3 (studies/ouroboros/): a
// hit costs 3 memory operations, the grower of a chunk of p pages 13 + p.
#include <catch2/catch.hpp>

#include "alloclab/model/model.hpp"
#include "alloclab/model/model_table.hpp"
#include "ouro_model_support.hpp"

using namespace alloclab;
using namespace alloclab::model;

namespace {

Record at(std::uint64_t N, unsigned units) {
  return test::ouro_model_at(Algorithm::ouro_p_s, N, units);
}

}  // namespace

TEST_CASE("ouro-p-s model: hand-worked sequential costs", "[model][ouro]") {
  // One request of 16 B: it grows the first chunk (512 pages): 13 + 512.
  CHECK(*at(1, 1).number("tas") == 525.0);
  CHECK(*at(1, 1).number("was") == 525.0);
  CHECK(*at(1, 1).number("chunks") == 1.0);
  // 2000 requests of 16 B: 4 growers; (3 * 2000 + 522 * 4) / 2000 = 8088 / 2000.
  CHECK(*at(2000, 1).number("tas") == Approx(4.044).epsilon(1e-12));
  CHECK(*at(2000, 1).number("chunks") == 4.0);
  // 63 warps of 32 in service order (the last of 16): growers at 0, 512, 1024, 1536 lie in
  // 4 warps, so was = (4 * 525 + 59 * 3) / 63.
  CHECK(*at(2000, 1).number("was") == Approx((4 * 525.0 + 59 * 3.0) / 63.0).epsilon(1e-12));
  // 5 requests of 4 KiB (2 pages per chunk): growers 1st, 3rd, 5th: (15 + 12 * 3) / 5; the one
  // warp holds a grower: 13 + 2.
  CHECK(*at(5, 256).number("tas") == Approx(10.2).epsilon(1e-12));
  CHECK(*at(5, 256).number("was") == 15.0);
  CHECK(*at(5, 256).number("chunks") == 3.0);
  // 100 requests of 3 units take class 4 (2^2 = 4 units, 128 pages per chunk): 1 grower.
  CHECK(*at(100, 3).number("tas") == Approx((300.0 + 138.0) / 100.0).epsilon(1e-12));
}

TEST_CASE("ouro-p-s model: where it applies", "[model][ouro]") {
  Scenario s;
  s.algo = Algorithm::ouro_p_s;
  s.N = 1025;
  s.A = s.T = 2 * 512;  // two chunks of 512 pages: 1024 requests of 16 B at most
  s.pages = 1;
  const ModelEntry& e = *ModelTable::instance().find(Algorithm::ouro_p_s);
  CHECK_FALSE(e.applies(s));
  s.N = 1024;
  CHECK(e.applies(s));
  s.A = s.T - 1;  // a used unit: not the empty pool the model describes
  CHECK_FALSE(e.applies(s));
}
