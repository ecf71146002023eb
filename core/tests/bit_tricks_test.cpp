#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <vector>

#include "alloclab/core/bit_tricks.hpp"

using namespace alloclab::bits;

namespace {
// Independent references: plain loops over bits.
int naive_kth_set_bit(std::uint64_t mask, unsigned k) {
  unsigned seen = 0;
  for (int i = 0; i < 64; ++i)
    if ((mask >> i) & 1u)
      if (++seen == k) return i;
  return -1;
}
FreeRun naive_next_free_run(std::uint64_t word, unsigned w, unsigned from) {
  unsigned i = from;
  while (i < w && ((word >> i) & 1u)) ++i;
  if (i >= w) return {-1, 0};
  unsigned j = i;
  while (j < w && !((word >> j) & 1u)) ++j;
  return {static_cast<int>(i), j - i};
}
}  // namespace

TEST_CASE("find_kth_set_bit matches a bit-by-bit scan", "[core][bits]") {
  CHECK(find_kth_set_bit(0b1011'0100u, 1) == 2);  // hand-worked: set bits at 2, 4, 5, 7
  CHECK(find_kth_set_bit(0b1011'0100u, 3) == 5);
  CHECK(find_kth_set_bit(0b1011'0100u, 4) == 7);
  CHECK(find_kth_set_bit(0b1011'0100u, 5) == -1);
  CHECK(find_kth_set_bit(0, 1) == -1);
  CHECK(find_kth_set_bit(~0ULL, 64) == 63);
  CHECK(find_kth_set_bit(~0ULL, 0) == -1);
  std::mt19937_64 gen(7);
  for (int t = 0; t < 20000; ++t) {
    std::uint64_t m = gen() & gen();  // sparser masks too
    if (t % 3 == 0) m = gen();
    const unsigned k = 1 + static_cast<unsigned>(gen() % 65);
    REQUIRE(find_kth_set_bit(m, k) == naive_kth_set_bit(m, k));
  }
}

TEST_CASE("first_free_bit finds the lowest unset bit within w bits", "[core][bits]") {
  CHECK(first_free_bit(0b0111u, 32) == 3);
  CHECK(first_free_bit(0xFFFF'FFFFu, 32) == -1);  // a full 32-bit word
  CHECK(first_free_bit(0xFFFF'FFFFu, 33) == 32);
  CHECK(first_free_bit(0, 1) == 0);
  CHECK(first_free_bit(1, 1) == -1);
  CHECK(first_free_bit(~0ULL, 64) == -1);
}

TEST_CASE("next_free_run enumerates the runs of unset bits", "[core][bits]") {
  // word 0b1100'0110, w = 8: free runs at [0,1), [3,6).
  auto r = next_free_run(0b1100'0110u, 8, 0);
  CHECK(r.start == 0);
  CHECK(r.length == 1);
  r = next_free_run(0b1100'0110u, 8, 1);
  CHECK(r.start == 3);
  CHECK(r.length == 3);
  r = next_free_run(0b1100'0110u, 8, 6);
  CHECK(r.start == -1);
  CHECK(next_free_run(0, 64, 0).length == 64);
  CHECK(next_free_run(0, 32, 5).length == 27);  // bits above w count as used
  std::mt19937_64 gen(11);
  for (int t = 0; t < 20000; ++t) {
    const unsigned w = 1 + static_cast<unsigned>(gen() % 64);
    const std::uint64_t word = (t % 2) ? (gen() | gen()) : gen();
    const unsigned from = static_cast<unsigned>(gen() % (w + 1));
    const auto a = next_free_run(word, w, from);
    const auto b = naive_next_free_run(word, w, from);
    REQUIRE(a.start == b.start);
    REQUIRE(a.length == b.length);
  }
}

TEST_CASE("run_mask and low_mask", "[core][bits]") {
  CHECK(run_mask(3, 2) == 0b11000u);
  CHECK(low_mask(64) == ~0ULL);
  CHECK(low_mask(1) == 1u);
  CHECK(run_mask(0, 64) == ~0ULL);
}

TEST_CASE("lowest_set_bits keeps the c lowest set bits", "[core][bits]") {
  CHECK(lowest_set_bits<std::uint64_t>(0b1011'0100u, 0) == 0);  // hand-worked
  CHECK(lowest_set_bits<std::uint64_t>(0b1011'0100u, 1) == 0b100u);
  CHECK(lowest_set_bits<std::uint64_t>(0b1011'0100u, 3) == 0b11'0100u);
  CHECK(lowest_set_bits<std::uint64_t>(0b1011'0100u, 9) == 0b1011'0100u);  // more than there are
  CHECK(lowest_set_bits<std::uint32_t>(0x8000'0000u, 1) == 0x8000'0000u);
  std::mt19937_64 gen(11);
  for (int t = 0; t < 20000; ++t) {
    const std::uint64_t m = (t % 2) ? gen() : (gen() & gen() & gen());
    const unsigned c = static_cast<unsigned>(gen() % 66);
    std::uint64_t want = 0;  // reference: walk up the bits, keep the first c set ones
    unsigned kept = 0;
    for (int i = 0; i < 64 && kept < c; ++i)
      if ((m >> i) & 1u) {
        want |= std::uint64_t{1} << i;
        ++kept;
      }
    REQUIRE(lowest_set_bits(m, c) == want);
    REQUIRE(lowest_set_bits(static_cast<std::uint32_t>(m), c) ==
            static_cast<std::uint32_t>(lowest_set_bits(m & 0xffff'ffffu, c)));
  }
}

namespace {
// Independent references for the RW-BM bit choices: plain loops over bits.
int naive_first_free_from(std::uint64_t word, unsigned w, unsigned start) {
  for (unsigned d = 0; d < w; ++d) {
    const unsigned b = (start + d) % w;
    if (!((word >> b) & 1u)) return static_cast<int>(b);
  }
  return -1;
}
int naive_ranked_free(std::uint64_t word, unsigned w, std::uint32_t u) {
  std::vector<int> free_bits;
  for (unsigned b = 0; b < w; ++b)
    if (!((word >> b) & 1u)) free_bits.push_back(static_cast<int>(b));
  if (free_bits.empty()) return -1;
  // rank = floor(u * f / 2^32), computed in long double: exact for these magnitudes
  const auto rank =
      static_cast<std::size_t>(static_cast<long double>(u) * free_bits.size() / 4294967296.0L);
  return free_bits[rank];
}
}  // namespace

TEST_CASE("first_free_bit_from scans cyclically from the start bit", "[core][bits]") {
  // hand-worked: w = 8, used bits 1, 2, 5 (0b0010'0110): free 0, 3, 4, 6, 7
  CHECK(first_free_bit_from(0b0010'0110u, 8, 0) == 0);
  CHECK(first_free_bit_from(0b0010'0110u, 8, 1) == 3);
  CHECK(first_free_bit_from(0b0010'0110u, 8, 5) == 6);
  CHECK(first_free_bit_from(0b1110'0110u, 8, 5) == 0);  // wraps past bit 7
  CHECK(first_free_bit_from(0xFFu, 8, 3) == -1);
  CHECK(first_free_bit_from(~0ULL - 1, 64, 63) == 0);
  std::mt19937_64 gen(11);
  for (int t = 0; t < 20000; ++t) {
    const unsigned w = 1 + static_cast<unsigned>(gen() % 64);
    std::uint64_t word = gen() | gen();  // mostly used bits, as in a nearly full pool
    if (t % 4 == 0) word = gen();
    if (t % 97 == 0) word = ~0ULL;
    const unsigned start = static_cast<unsigned>(gen() % w);
    INFO("word " << word << " w " << w << " start " << start);
    CHECK(first_free_bit_from(word, w, start) == naive_first_free_from(word, w, start));
  }
}

TEST_CASE("ranked_free_bit picks the free bit of rank floor(u f / 2^32)", "[core][bits]") {
  // hand-worked: free bits 0, 3, 4, 6, 7 of w = 8 (f = 5); u = 0 -> rank 0, u = 2^31 -> rank 2,
  // u = 2^32 - 1 -> rank 4
  CHECK(ranked_free_bit(0b0010'0110u, 8, 0) == 0);
  CHECK(ranked_free_bit(0b0010'0110u, 8, 0x8000'0000u) == 4);
  CHECK(ranked_free_bit(0b0010'0110u, 8, 0xFFFF'FFFFu) == 7);
  CHECK(ranked_free_bit(0xFFu, 8, 12345) == -1);
  std::mt19937_64 gen(13);
  for (int t = 0; t < 20000; ++t) {
    const unsigned w = 1 + static_cast<unsigned>(gen() % 64);
    std::uint64_t word = t % 3 == 0 ? gen() : (gen() | gen());
    const auto u = static_cast<std::uint32_t>(gen());
    INFO("word " << word << " w " << w << " u " << u);
    CHECK(ranked_free_bit(word, w, u) == naive_ranked_free(word, w, u));
  }
  // Uniform u chooses every free bit equally often: chi-square over 40000 draws on a word with
  // 5 free bits (4 degrees of freedom; 18.47 is the 0.999 quantile).
  double counts[8] = {};
  for (int t = 0; t < 40000; ++t)
    ++counts[ranked_free_bit(0b0010'0110u, 8, static_cast<std::uint32_t>(gen()))];
  double chi2 = 0;
  for (int b : {0, 3, 4, 6, 7}) chi2 += (counts[b] - 8000.0) * (counts[b] - 8000.0) / 8000.0;
  CHECK(chi2 < 18.47);
  CHECK(counts[1] + counts[2] + counts[5] == 0);
}
