// Seed 003's errata (validation/src/gallatin_errata.cpp) against hand arithmetic: a 16 MiB
// segment holds 16 MiB / (4096 x 16 B) = 256 blocks of the smallest class and 16 MiB / 4 KiB =
// 4096 blocks of 4 KB; one segment holds 65,536 slices of 256 B, so 70,000 requests leave at least
// 4,464 with null; 2.15344 / 2.13197 = 1.010070; 64^3 needs 3 levels of 64, and bitlen(2^18) - 1
// = 18, 18 / 6 + 1 = 4.
#include <catch2/catch.hpp>

#include <regex>
#include <string>

#include "alloclab/studies/gallatin_errata.hpp"
#include "alloclab/validation/all_errata.hpp"

using namespace alloclab::validation;

namespace {
bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}
}  // namespace

TEST_CASE("gallatin errata: the figures against hand arithmetic", "[validation][gallatin]") {
  const auto errata = gallatin_errata();
  REQUIRE(errata.size() == 4);

  const Erratum& blocks = errata[0];
  CHECK(blocks.key == "gallatin-blocks");
  CHECK(has(blocks.corrected, "from 64 KiB (16 B slices) to 16 MiB (4096 B): 256 to 1 blocks"));
  CHECK(has(blocks.evidence, "16 B: 256, 32 B: 128"));
  CHECK(has(blocks.evidence, "2048 B: 2, 4096 B: 1"));
  CHECK(has(blocks.evidence, "blocks of 4 KB would be 4096 a segment"));

  // Alg. 3: served + null = 70,000, served at most one segment's 65,536, and the run ended.
  const Erratum& alg3 = errata[1];
  std::smatch m;
  const std::regex counts(
      "70000 requests of 256 B on one 16 MiB segment: (\\d+) served, (\\d+) "
      "returned null");
  REQUIRE(std::regex_search(alg3.evidence, m, counts));
  const long served = std::stol(m[1].str()), null = std::stol(m[2].str());
  CHECK(served + null == 70000);
  CHECK(served <= 65536);
  CHECK(null >= 4464);

  CHECK(has(errata[2].corrected, "+1.007%"));
  CHECK(has(errata[3].evidence, "the paper's count 3, the public code's 4"));

  // The seed's errata are among every paper's (the explain command's lookup).
  bool listed = false;
  for (const auto& paper : all_errata())
    for (const auto& e : paper.errata) listed = listed || e.key == "gallatin-alg3";
  CHECK(listed);
}
