// ouro-p-vl's sequential model against cases worked by hand from Alg. 3 and §5.2, and its static
// memory against the paper's "3 pointers".
#include <catch2/catch.hpp>

#include "alloclab/model/model.hpp"
#include "alloclab/model/model_table.hpp"
#include "ouro_model_support.hpp"

using namespace alloclab;
using namespace alloclab::model;

namespace {

Record at(std::uint64_t N, unsigned units) {
  return test::ouro_model_at(Algorithm::ouro_p_vl, N, units, 1 << 22);
}

}  // namespace

TEST_CASE("ouro-p-vl model: hand-worked sequential costs", "[model][ouro][vqueue]") {
  // One request grows: its hit (6), the grower's 11, position 0 (two fresh chunks of 2055, the
  // three pointers, the link, the CAS and the count: 4116), 4 per other page written, and 13
  // Queue-Chunks committed one by one (a read, a commit and a CAS each, and a last read: 40).
  CHECK(*at(1, 1).number("tas") == 6 + 11 + 4116 + 511 * 4.0 + 40);  // 16 B, p = 512
  CHECK(*at(1, 64).number("tas") == 6 + 11 + 4116 + 7 * 4.0 + 40);   // 1 KiB, p = 8
  CHECK(*at(1, 512).number("tas") == 6 + 11 + 4116.0 + 40);          // 8 KiB, p = 1
  CHECK(*at(1, 1).number("queue_chunks_reserved") == 1 + 2 + 10.0);
  // 2049 of 8 KiB (p = 1): every request grows. Position 2047 fills chunk 0 (back moves: 4) and
  // its read uses it up (front moves: 5); position 2048 links chunk 2, fresh (2055 + 1). The
  // Queue-Chunks committed: 40 at r = 0, 4 at r = 2048 (the pages cross 2048), 1 at the 2047
  // other grows. Sum: 2049 x (6 + 11 + 4) - 4 + 4116 + 4 + 5 + 2056 + 40 + 4 + 2047.
  CHECK(*at(2049, 512).number("tas") ==
        Approx((2049.0 * 21 - 4 + 4116 + 4 + 5 + 2056 + 40 + 4 + 2047) / 2049).epsilon(1e-12));
}

TEST_CASE("ouro-p-vl model: static memory is three pointers and the trail count",
          "[model][ouro][vqueue]") {
  CHECK(*at(100, 1).number("static_queue_bytes") == 16.0);
}
