// Seed 004's errata (validation/src/dynasoar_errata.cpp): the printed clear() loop, replayed on the
// hierarchical bitmap's step machines, against the count worked by hand.
#include <catch2/catch.hpp>

#include "alloclab/studies/dynasoar_errata.hpp"

using namespace alloclab::validation;

// By hand: alone, every try_find_set finds a set bit and every try_clear wins, so the printed loop
// (which goes on while try_clear succeeds) clears all k set bits and stops only when
// try_find_set fails: it returns FAIL. The intended loop stops at its first won try_clear.
TEST_CASE("dynasoar errata: the printed clear() empties the bitmap and returns FAIL") {
  for (std::uint64_t bits : {64u, 100u, 4096u, 5000u})
    for (std::uint64_t set : {1u, 7u, 64u}) {
      INFO(bits << " bits, " << set << " set");
      const ClearReplay printed = clear_replay(bits, set, true);
      CHECK(printed.cleared == set);
      CHECK(printed.returned == -1);
      CHECK_FALSE(printed.returned_owned);
      const ClearReplay intended = clear_replay(bits, set, false);
      CHECK(intended.cleared == 1);
      CHECK(intended.returned >= 0);
      CHECK(intended.returned < static_cast<std::int64_t>(set));
      CHECK(intended.returned_owned);
    }
  const auto errata = dynasoar_errata();
  REQUIRE(errata.size() == 1);
  CHECK(errata[0].evidence.find("clears 100 bits and returns -1") != std::string::npos);
  CHECK(errata[0].key == "dynasoar-clear");
}
