// Seed 003's claims (validation/src/gallatin_claims.cpp): the bounds hold on the vEB step code,
// the coverage arithmetic is worked by hand, and the simulator's atomics equal the model's.
#include <catch2/catch.hpp>

#include <string>

#include "alloclab/validation/gallatin_claims.hpp"

using namespace alloclab::validation;

TEST_CASE("gallatin claims: bounds, coverage and one atomic a slice", "[validation][gallatin]") {
  const auto claims = gallatin_claims();
  REQUIRE(claims.size() == 7);
  // U = 64^3: L = 3, so a successor reads at most 5 words.
  CHECK(claims[0].model.find("L = 3") != std::string::npos);
  CHECK(claims[0].verdict.find("holds") == 0);
  // 64 x 16 MiB = 1 GiB; 64^3 x 16 MiB = 2^18 x 2^24 B = 2^42 B = 4 TiB; the public count 4.
  CHECK(claims[1].model == "64 x 16 MiB = 1 GiB; 64^3 x 16 MiB = 4 TiB");
  CHECK(claims[1].simulation.find("= 3, the public") != std::string::npos);
  CHECK(claims[1].simulation.find("+ 1 = 4") != std::string::npos);
  // (65536 + 89) / 65536 = 1.001358 and (2048 + 89) / 65536 (the derivation in
  // model/tests/explain_test.cpp).
  CHECK(claims[2].model.find("1.00136 atomics a request for teams of one") != std::string::npos);
  CHECK(claims[2].simulation.find("sequential 1.00136") != std::string::npos);
  CHECK(claims[2].verdict.find("holds") == 0);
  for (std::size_t i = 3; i < claims.size(); ++i)
    CHECK(claims[i].verdict.find("not measured") == 0);
}
