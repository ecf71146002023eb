// The failure fractions at exhaustion of Gelado & Garland's malloc (model/ualloc_exhaustion.hpp)
// against the digest's hand derivation
// and the paper's words (§5.3): 2 KB fails 50%, nothing above 4 KB fails.
#include <catch2/catch.hpp>

#include "alloclab/model/ualloc_exhaustion.hpp"

using namespace alloclab::model;

TEST_CASE("gg-malloc exhaustion: the digest's fractions under the 64-bin reading",
          "[model][gg-malloc]") {
  const std::uint64_t pool = 512ull << 20;  // Figure 7's 512 MB
  CHECK(gg_malloc_exhaustion(pool, 2048).failure_fraction() == 0.5);
  CHECK(gg_malloc_exhaustion(pool, 1024).failure_fraction() == Approx(1 - 62.0 * 3 / 256));
  CHECK(gg_malloc_exhaustion(pool, 512).failure_fraction() == Approx(1 - 62.0 * 7 * 0.5 / 256));
  for (std::uint64_t s : {8, 16, 32, 64, 128})
    CHECK(gg_malloc_exhaustion(pool, s).failure_fraction() == Approx(1 - 62.0 / 64));
  for (std::uint64_t s = 4096; s <= (512u << 10); s *= 2)
    CHECK(gg_malloc_exhaustion(pool, s).failure_fraction() == 0);
  // 256 B: 15 per bin (3968 / 256 = 15.5), 62 x 15 x 256 B of 256 KB.
  CHECK(gg_malloc_exhaustion(pool, 256).failure_fraction() == Approx(1 - 62.0 * 15 / 1024));
}

TEST_CASE("gg-malloc exhaustion: the 128-bin reading", "[model][gg-malloc]") {
  const std::uint64_t pool = 512ull << 20;
  // 126 regular bins, tails for 62 of them: 8 B gets 62 x 512 + 64 x 496 of 65,536 per chunk.
  CHECK(gg_malloc_exhaustion(pool, 8, 128).failure_fraction() ==
        Approx(1 - (62.0 * 512 + 64 * 496) / 65536));
  CHECK(gg_malloc_exhaustion(pool, 1024, 128).failure_fraction() == Approx(1 - 126.0 * 3 / 512));
  CHECK(gg_malloc_exhaustion(pool, 2048, 128).failure_fraction() == 0.5);
}
